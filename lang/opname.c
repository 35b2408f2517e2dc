/*
 * opname.c - an op's name for a learner (opname.h): its label, or the
 * statement as the lesson writes it, built from the IR and the keyword
 * table (ir/opfacts.h).
 */
#include <stdio.h>
#include <string.h>

#include "ir/opfacts.h"
#include "lang/opname.h"

/* The word after `kernel`, one per kernel kind. */
static const char *const kernel_word[HD_KERNEL__COUNT] = {
	[HD_KERNEL_SPIN] = "spin", [HD_KERNEL_COMPUTE] = "compute", [HD_KERNEL_MEMORY] = "memory",
	[HD_KERNEL_FILL] = "fill", [HD_KERNEL_REDUCE] = "reduce",
};

/* Append " WORD" to buf (of n bytes, holding len) when word is not NULL. */
static size_t
add(char *buf, size_t n, size_t len, const char *sep, const char *word)
{
	int k;

	if (word == NULL || len >= n)
		return len;
	k = snprintf(buf + len, n - len, "%s%s", sep, word);
	return k < 0 ? len : len + (size_t)k;
}

static const char *
buffer_name(const struct hd_scenario *sc, int b)
{
	return b >= 0 && b < sc->nbuffers ? sc->buffers[b].name : NULL;
}

void
hd_opname_statement(char *buf, size_t n, const struct hd_scenario *sc, int i)
{
	const struct hd_op *op;
	const struct hd_op_fact *f;
	size_t len = 0;

	if (n == 0)
		return;
	buf[0] = '\0';
	if (sc == NULL || i < 0 || i >= sc->nops) {
		snprintf(buf, n, "op %d", i);
		return;
	}
	op = &sc->ops[i];
	f = hd_op_fact(op->kind);
	len = add(buf, n, len, "",
		  f == NULL           ? "op" :
		      f->word != NULL ? f->word :
					hd_coll_name(op->coll));
	if (op->kind == HD_OP_KERNEL && (unsigned)op->kernel < HD_KERNEL__COUNT)
		len = add(buf, n, len, " ", kernel_word[op->kernel]);
	if (op->kind == HD_OP_COPY) {
		len = add(buf, n, len, " ", buffer_name(sc, op->src));
		len = add(buf, n, len, " -> ", buffer_name(sc, op->dst));
	} else {
		len = add(buf, n, len, " ", buffer_name(sc, op->src));
		if (op->dst != op->src)
			len = add(buf, n, len, " ", buffer_name(sc, op->dst));
	}
	if ((op->kind == HD_OP_SEND || op->kind == HD_OP_RECV) && op->peer != HD_NONE) {
		char peer[32];
		if (op->peer_rel)
			snprintf(peer, sizeof peer, "rank %c %d", op->peer < 0 ? '-' : '+',
				 op->peer < 0 ? -op->peer : op->peer);
		else
			snprintf(peer, sizeof peer, "%d", op->peer);
		len = add(buf, n, len, op->kind == HD_OP_SEND ? " to " : " from ", peer);
	}
	if (op->event >= 0 && op->event < sc->nevents)
		len = add(buf, n, len, " ", sc->events[op->event].name);
	if (op->kind == HD_OP_DEVICE_SYNC)
		len = add(buf, n, len, " ", "device");
	if (op->kind == HD_OP_HOST && op->text != NULL) {
		len = add(buf, n, len, " \"", op->text);
		len = add(buf, n, len, "", "\"");
	}
	if (op->stream < 0 || op->stream >= sc->nstreams)
		return;
	if (op->kind == HD_OP_STREAM_SYNC)
		add(buf, n, len, " ", sc->streams[op->stream].name);
	else if (op->stream >= 2 && f != NULL && f->on_stream)
		add(buf, n, len, " on ", sc->streams[op->stream].name);
}

void
hd_opname(char *buf, size_t n, const struct hd_scenario *sc, int i)
{
	if (n == 0)
		return;
	if (sc != NULL && i >= 0 && i < sc->nops && sc->ops[i].label != NULL)
		snprintf(buf, n, "%s", sc->ops[i].label);
	else
		hd_opname_statement(buf, n, sc, i);
}
