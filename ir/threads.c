/*
 * threads.c - a scenario's host threads and their names (threads.h):
 * counted from the top-level workers blocks, numbered in block order.
 */
#include <stdint.h>
#include <stdio.h>

#include "ir/threads.h"

int
hd_threads_count(const struct hd_scenario *sc)
{
	int64_t n = 0;
	int i;

	for (i = 0; i < sc->nops; i++)
		if (sc->ops[i].kind == HD_OP_WORKERS) {
			n += (int64_t)(sc->ops[i].count > INT32_MAX ? INT32_MAX : sc->ops[i].count);
			if (n > INT32_MAX)
				return INT32_MAX;
		}
	return (int)n;
}

bool
hd_threads_any(const struct hd_scenario *sc)
{
	return hd_threads_count(sc) > 0;
}

int
hd_thread_info(const struct hd_scenario *sc, int k, struct hd_thread_info *info)
{
	int64_t first = 1;
	int i;

	for (i = 0; k >= 1 && i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];

		if (op->kind != HD_OP_WORKERS)
			continue;
		if ((int64_t)k < first + (int64_t)op->count) {
			info->op = i;
			info->index = (int)(k - first);
			info->n = (int)op->count;
			return 0;
		}
		first += (int64_t)op->count;
	}
	return -1;
}

void
hd_thread_lane_name(const struct hd_scenario *sc, int k, char *buf, size_t n)
{
	struct hd_thread_info ti;
	const struct hd_op *op;
	int unnamed = 0, i;

	if (n == 0)
		return;
	if (hd_thread_info(sc, k, &ti) < 0) {
		snprintf(buf, n, "Thread %d", k);
		return;
	}
	op = &sc->ops[ti.op];
	if (op->text != NULL) {
		snprintf(buf, n, "Thread %s", op->text);
		return;
	}
	if (op->label != NULL) {
		snprintf(buf, n, "%s %d", op->label, ti.index);
		return;
	}
	for (i = 0; i < ti.op; i++)
		if (sc->ops[i].kind == HD_OP_WORKERS && sc->ops[i].text == NULL &&
		    sc->ops[i].label == NULL)
			unnamed += (int)sc->ops[i].count;
	snprintf(buf, n, "Worker %d", unnamed + ti.index);
}

int
hd_threads_table(const struct hd_scenario *sc, struct hd_thread_info *info, char (*name)[48], int n)
{
	int i, j, k = 0, unnamed = 0;

	for (i = 0; i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];

		if (op->kind != HD_OP_WORKERS)
			continue;
		for (j = 0; (uint64_t)j < op->count && k < INT32_MAX; j++) {
			if (++k < n && info != NULL) {
				info[k].op = i;
				info[k].index = j;
				info[k].n = (int)op->count;
			}
			if (k < n && name != NULL) {
				if (op->text != NULL)
					snprintf(name[k], sizeof name[k], "Thread %s", op->text);
				else if (op->label != NULL)
					snprintf(name[k], sizeof name[k], "%s %d", op->label, j);
				else
					snprintf(name[k], sizeof name[k], "Worker %d", unnamed + j);
			}
		}
		if (op->text == NULL && op->label == NULL)
			unnamed += j;
	}
	return k;
}

uint32_t
hd_thread_iter(uint64_t exec, int index, int n)
{
	return (uint32_t)(exec * (uint64_t)(n > 0 ? n : 1) + (uint64_t)index);
}

bool
hd_thread_op_ok(enum hd_op_kind k)
{
	static const bool ok[HD_OP__COUNT] = {
		[HD_OP_HOST] = true, [HD_OP_COPY] = true,   [HD_OP_PUT] = true,
		[HD_OP_GET] = true,  [HD_OP_REPEAT] = true,
	};

	return (unsigned)k < HD_OP__COUNT && ok[k];
}
