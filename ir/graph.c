/*
 * graph.c - a graph's nodes in the order one launch runs them (graph.h).
 */
#include <stdlib.h>

#include "base/util.h"
#include "ir/graph.h"

/* Append the nodes of ops [from, to) to v (loops walked `count` times). */
static void
walk(const struct hd_scenario *sc, int from, int to, int *v, size_t *n, size_t cap)
{
	uint64_t k;
	int i;

	for (i = from; i < to && *n < cap; i++) {
		const struct hd_op *op = &sc->ops[i];

		if (op->kind != HD_OP_REPEAT) {
			v[(*n)++] = i;
			continue;
		}
		for (k = 0; k < op->count && *n < cap; k++)
			walk(sc, i + 1, i + 1 + op->body_len, v, n, cap);
		i += op->body_len;
	}
}

int *
hd_graph_nodes(const struct hd_scenario *sc, int g, size_t *n)
{
	const struct hd_op *h;
	int *v;

	*n = 0;
	if (sc == NULL || g < 0 || g >= sc->nops || sc->ops[g].kind != HD_OP_GRAPH)
		return NULL;
	h = &sc->ops[g];
	if (h->count == 0 || h->body_len <= 0 || h->body_len > sc->nops - g - 1)
		return NULL;
	v = hd_xcalloc((size_t)h->count, sizeof *v);
	walk(sc, g + 1, g + 1 + h->body_len, v, n, (size_t)h->count);
	if (*n == 0) {
		free(v);
		return NULL;
	}
	return v;
}
