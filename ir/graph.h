/*
 * graph.h - the nodes of a CUDA graph in the IR (see ir.h, "Graphs"): the
 * order in which one launch runs them, for the backends that capture and
 * run a graph, and the printers.
 */
#ifndef HD_IR_GRAPH_H
#define HD_IR_GRAPH_H

#include <stddef.h>

#include "ir/ir.h"

/*
 * The op indices of the nodes one launch of graph g runs (g: the index of
 * an HD_OP_GRAPH op of sc), in order, loops multiplied out: a new array of
 * *n entries (sc->ops[g].count of them) that the caller frees.  Returns
 * NULL with *n 0 when g is not a graph of sc or its body holds nothing but
 * empty loops.
 */
int *hd_graph_nodes(const struct hd_scenario *sc, int g, size_t *n);

#endif
