/*
 * opfacts.h - the facts about each kind of op that more than one layer
 * branches on, in one table indexed by enum hd_op_kind.
 *
 * The parser finds an op's kind by its keyword here and asks whether it
 * needs ranks; the model checks an op's operands against it; the real
 * backend and the printers ask whether an op goes on a stream, what it
 * draws there and what it is called.  A new op kind is one line here (and
 * its handlers, which -Wswitch-enum and the tests point to).
 */
#ifndef HD_OPFACTS_H
#define HD_OPFACTS_H

#include <stdbool.h>

#include "ir/ir.h"
#include "ir/trace.h"

/* What an op does, in a word. */
enum hd_op_class {
	HD_OPC_MEMORY,     /* memory management: alloc, free, pin */
	HD_OPC_COPY,       /* moves data: copy, prefetch, read */
	HD_OPC_KERNEL,     /* work on the SMs */
	HD_OPC_EVENT,      /* records, waits on or queries an event */
	HD_OPC_SYNC,       /* the host waits for the GPU */
	HD_OPC_HOST,       /* CPU work, no API call */
	HD_OPC_BLOCK,      /* a loop or rank block: a header and its body */
	HD_OPC_P2P,        /* point-to-point between two ranks: send, recv */
	HD_OPC_COLLECTIVE, /* every rank at once: collectives, the barrier */
	HD_OPC_QUEUE,      /* between the host threads of a rank: a queue's put and get */
	HD_OPC__COUNT
};

/* The operands an op must have (struct hd_op fields that are not HD_NONE). */
enum hd_opnd {
	HD_OPND_SRC = 1u << 0,    /* src: a buffer */
	HD_OPND_DST = 1u << 1,    /* dst: a buffer */
	HD_OPND_EVENT = 1u << 2,  /* event */
	HD_OPND_STREAM = 1u << 3, /* stream names the stream it uses */
	HD_OPND_PEER = 1u << 4,   /* peer: the other rank */
	HD_OPND_BODY = 1u << 5,   /* body_len ops follow: it holds a body */
	HD_OPND_QUEUE = 1u << 6,  /* queue: a bounded queue between host threads */
	HD_OPND_GRAPH = 1u << 7,  /* graph: the index of an HD_OP_GRAPH op */
};

struct hd_op_fact {
	const char *word; /* the lesson's keyword; NULL for HD_OP_COLL, which
				     * is written as the collective (hd_coll_name) */
	const char *name; /* short name for people: "sync event" */
	const char *api;  /* the call it stands for ("cudaMemcpy"); hd_op_api_name
				     * refines it by the op's fields */
	enum hd_op_class cls;
	unsigned operands;      /* HD_OPND_* */
	bool on_stream;         /* it puts work on its stream (else it runs on the host) */
	bool ranks;             /* it needs a scenario with several ranks */
	enum hd_span_kind span; /* what its work on the stream draws (on_stream only) */
};

/* Every kind's facts, [HD_OP_ALLOC] .. [HD_OP__COUNT - 1]. */
extern const struct hd_op_fact hd_op_facts[HD_OP__COUNT];

/* The facts of kind k, or NULL when k is out of range. */
const struct hd_op_fact *hd_op_fact(enum hd_op_kind k);

/* Is k's entry complete (a name, an API, a class, a keyword unless k is
 * HD_OP_COLL, and a stream span only where it goes on a stream)?  For the
 * tests that hold every kind to the table. */
bool hd_op_fact_ok(enum hd_op_kind k);

/* Does op (one of sc->ops) have every operand its kind needs, each within sc's
 * tables?  The other rank (HD_OPND_PEER) is the caller's to check. */
bool hd_op_operands_ok(const struct hd_scenario *sc, const struct hd_op *op);

#endif
