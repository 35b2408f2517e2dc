/*
 * spanlook.c - the one table of span looks (spanlook.h), a span's direction,
 * and the legend written from the table.
 *
 * Colours follow Nsight's: kernels blue, copies red (lighter towards the
 * host), host work green, API calls cyan, blocked time grey.
 */
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/spanlook.h"

#define DARK  "#222222"
#define WHITE "#ffffff"

/*
 * Indexed by span kind, then direction: only copies have a look per
 * direction (told by the lane kind, else the op; hd_spanlook_dir), every
 * other kind has its one look at [HD_DIR_OUT].  Perfetto colour names are
 * the trace viewer's reserved ones.
 *
 *  name, glyph, ascii, prio, hue, svg, ink, perfetto, cat,
 *  label, legend
 */
static const struct hd_spanlook looks[HD_SPAN__COUNT][HD_DIR__COUNT] = {
	[HD_SPAN_API] = { { "api", "-", NULL, 0, HD_HUE_API, "#76b7c4", DARK,
			    "background_memory_dump", "cuda_runtime", "API call",
			    "CUDA API call on the host" } },
	[HD_SPAN_BLOCKED] = { { "blocked", ".", NULL, 4, HD_HUE_BLOCKED, "#8c8c8c", WHITE,
				"generic_work", "cuda_sync", "host blocked",
				"host blocked inside a call" } },
	[HD_SPAN_HOST] = { { "host", "h", NULL, 1, HD_HUE_HOST, "#59a14f", WHITE,
			     "thread_state_running", "cpu_op", "host work", "host working" } },
	[HD_SPAN_STAGING] = { { "staging", "s", NULL, 1, HD_HUE_STAGING, "#e8c547", DARK, "yellow",
				"cpu_memcpy", "staging memcpy",
				"host copying through the staging buffer" } },
	[HD_SPAN_COPY] = { [HD_DIR_OUT] = { "copy", "=", NULL, 2, HD_HUE_COPY_H2D, "#e15759", WHITE,
					    "rail_animation", "gpu_memcpy", "copy",
					    "copy host to device" },
			   [HD_DIR_BACK] = { "copy", "~", NULL, 2, HD_HUE_COPY_D2H, "#f4a6a4", DARK,
					     "cq_build_failed", "gpu_memcpy", "copy",
					     "copy device to host" },
			   [HD_DIR_LOCAL] = { "copy", "=", NULL, 2, HD_HUE_COPY_D2D, "#e15759",
					      WHITE, "rail_animation", "gpu_memcpy", "copy",
					      "copy on the device or to a peer" } },
	[HD_SPAN_KERNEL] = { { "kernel", "#", NULL, 2, HD_HUE_KERNEL, "#4e79a7", WHITE,
			       "rail_response", "kernel", "kernel", "kernel running" } },
	[HD_SPAN_EVENT] = { { "event", "|", NULL, 5, HD_HUE_EVENT, "#b07aa1", WHITE,
			      "thread_state_uninterruptible", "cuda_event", "event",
			      "event reached on a stream" } },
	[HD_SPAN_WAIT] = { { "wait", ":", NULL, 3, HD_HUE_WAIT, "#c9c3bf", DARK, "grey",
			     "stream_wait", "stream waits",
			     "stream waiting for an event or stream" } },
	[HD_SPAN_FAULT] = { { "fault", "f", NULL, 3, HD_HUE_FAULT, "#c81d25", WHITE, "terrible",
			      "gpu_page_fault", "page fault migration",
			      "pages migrating on a fault" } },
	[HD_SPAN_PREFETCH] = { { "prefetch", "p", NULL, 2, HD_HUE_PREFETCH, "#d37fd6", WHITE,
				 "detailed_memory_dump", "gpu_prefetch", "prefetch",
				 "pages prefetched" } },
	[HD_SPAN_COMM] = { { "comm", "n", NULL, 2, HD_HUE_COMM, "#8cd17d", DARK, "cq_build_passed",
			     "comm", "communication", "ranks communicating" } },
};

/* Legend order: by priority, ties as Nsight lists rows. */
static const enum hd_span_kind legend_order[HD_SPAN__COUNT] = {
	HD_SPAN_API,    HD_SPAN_HOST,     HD_SPAN_STAGING, HD_SPAN_COPY,
	HD_SPAN_KERNEL, HD_SPAN_PREFETCH, HD_SPAN_COMM,    HD_SPAN_FAULT,
	HD_SPAN_WAIT,   HD_SPAN_BLOCKED,  HD_SPAN_EVENT,
};

const struct hd_spanlook *
hd_spanlook_get(enum hd_span_kind k, enum hd_span_dir d)
{
	if ((unsigned)k >= HD_SPAN__COUNT)
		k = HD_SPAN_API;
	if ((unsigned)d >= HD_DIR__COUNT || looks[k][d].name == NULL)
		d = HD_DIR_OUT;
	return &looks[k][d];
}

static bool
back_lane(enum hd_lane_kind k)
{
	return k == HD_LANE_CE_D2H || k == HD_LANE_PCIE_D2H;
}

enum hd_span_dir
hd_spanlook_dir(const struct hd_trace *t, const struct hd_scenario *sc, const struct hd_span *s)
{
	const struct hd_op *op;
	enum hd_lane_kind lk;

	if (s->kind != HD_SPAN_COPY || s->lane < 0 || s->lane >= t->nlanes)
		return HD_DIR_OUT;
	lk = t->lanes[s->lane].kind;
	if (back_lane(lk))
		return HD_DIR_BACK;
	op = sc != NULL && s->op >= 0 && s->op < sc->nops ? &sc->ops[s->op] : NULL;
	if (op != NULL &&
	    ((op->kind == HD_OP_COPY && op->copy == HD_COPY_D2H) || op->kind == HD_OP_READ))
		return HD_DIR_BACK;
	return lk == HD_LANE_CE_D2D ? HD_DIR_LOCAL : HD_DIR_OUT;
}

const struct hd_spanlook *
hd_spanlook_of(const struct hd_trace *t, const struct hd_scenario *sc, const struct hd_span *s)
{
	return hd_spanlook_get(s->kind, hd_spanlook_dir(t, sc, s));
}

const char *
hd_spanlook_glyph(const struct hd_spanlook *l, bool ascii)
{
	return ascii && l->ascii != NULL ? l->ascii : l->glyph;
}

char
hd_spanlook_char(const struct hd_spanlook *l)
{
	return hd_spanlook_glyph(l, true)[0];
}

enum hd_span_kind
hd_spanlook_nth(int i)
{
	return i >= 0 && i < HD_SPAN__COUNT ? legend_order[i] : HD_SPAN_API;
}

bool *
hd_spanlook_back_ops(const struct hd_trace *t, int *n)
{
	size_t i;
	bool *back;

	*n = 0;
	for (i = 0; i < t->nspans; i++)
		if (t->spans[i].op >= *n)
			*n = t->spans[i].op + 1;
	back = hd_xcalloc((size_t)*n + 1, sizeof *back);
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];

		if (s->kind == HD_SPAN_COPY && s->op >= 0 &&
		    hd_spanlook_dir(t, NULL, s) == HD_DIR_BACK)
			back[s->op] = true;
	}
	return back;
}

const struct hd_spanlook *
hd_spanlook_of_back(const struct hd_trace *t, const bool *back, int n, const struct hd_span *s)
{
	if (s->kind == HD_SPAN_COPY && s->op >= 0 && s->op < n && back[s->op])
		return hd_spanlook_get(HD_SPAN_COPY, HD_DIR_BACK);
	return hd_spanlook_of(t, NULL, s);
}

int
hd_spanlook_legend(struct hd_buf *out, const struct hd_trace *t, const struct hd_scenario *sc,
		   bool ascii)
{
	bool seen[HD_HUE__COUNT];
	size_t i;
	int k, d, lines = 0;

	memset(seen, t == NULL, sizeof seen);
	for (i = 0; t != NULL && i < t->nspans; i++)
		seen[hd_spanlook_of(t, sc, &t->spans[i])->hue] = true;
	for (k = 0; k < HD_SPAN__COUNT; k++)
		for (d = 0; d < HD_DIR__COUNT; d++) {
			const struct hd_spanlook *l = hd_spanlook_get(legend_order[k], d);

			if ((d > 0 && l == hd_spanlook_get(legend_order[k], HD_DIR_OUT)) ||
			    !seen[l->hue])
				continue;
			hd_buf_printf(out, "  %s  %s\n", hd_spanlook_glyph(l, ascii), l->legend);
			lines++;
		}
	return lines;
}
