/*
 * opname.h - the name an op goes by for a learner: the lesson's label, or
 * else its statement as the lesson would write it ("copy h -> d on s",
 * "sync device"), never a source line number.
 */
#ifndef HD_OPNAME_H
#define HD_OPNAME_H

#include <stddef.h>

#include "ir/ir.h"

/* Write op i of sc's name into buf (n bytes, truncated, always terminated):
 * its label when it has one, else hd_opname_statement's text.  An index out
 * of range writes "op I". */
void hd_opname(char *buf, size_t n, const struct hd_scenario *sc, int i);

/* Write op i of sc as a statement of the lesson language, without its
 * label and sizes: the keyword, the names it uses and its stream ("kernel
 * compute on s1", "host \"prepare the next batch\"", "allreduce g"). */
void hd_opname_statement(char *buf, size_t n, const struct hd_scenario *sc, int i);

#endif
