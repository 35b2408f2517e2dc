/*
 * lint.h - the checks `hdsim lint` adds to parsing: every scenario built at
 * the knob values a learner can reach in one step, not only the defaults.
 *
 * A lesson may lint clean at its defaults and break once a knob moves
 * ("'steps / every' is 14.2857, not a whole number").  hd_lint_knobs
 * instantiates every scenario at each knob's minimum, maximum and default,
 * at default +- 1, x 2 and / 2 for whole-number knobs, and, for lessons of
 * up to HD_LINT_CORNER_KNOBS knobs, at every corner of their ranges (each
 * knob at its minimum or maximum); values that a `require` statement rules
 * out are skipped, since the lesson refuses them with its own message.  At
 * most HD_LINT_MAX_TRIES sets of values are tried, and none once
 * HD_LINT_MAX_OPS IR ops have been built, so lint stays linear in the
 * number of knobs and in the size of the lesson.
 */
#ifndef HD_LINT_H
#define HD_LINT_H

#include "base/util.h"
#include "lang/lesson.h"

#define HD_LINT_CORNER_KNOBS 4        /* up to 2^4 = 16 corners */
#define HD_LINT_MAX_TRIES    256      /* sets of knob values per lesson */
#define HD_LINT_MAX_OPS      20000000 /* IR ops built per lesson, the defaults' included */

/*
 * Instantiate every scenario of l at the values above.  0 when all build;
 * else -1 with e set at the statement that broke, its message prefixed with
 * the values ("knob every = 100 (its max): scenario a: ...").  At the
 * defaults the message is instantiation's own (a failed `require` included).
 */
int hd_lint_knobs(const struct hd_lesson *l, struct hd_err *e);

/* A note of lint's that is no error: where, msg and context as in an error. */
typedef void hd_lint_warn_fn(void *arg, const struct hd_err *w);

/*
 * hd_lint_knobs, which also builds every scenario's printers' form at the
 * defaults (hd_lesson_instantiate_written: both branches of an `if` on a
 * loop index), and then calls warn (when not NULL) for each `if` whose
 * condition held at none of the values tried (what it guards never runs),
 * or at all of them though it has an `else` (the else never runs).
 * Conditions never reached (inside a branch never taken) are not noted.
 */
int hd_lint_knobs_warn(const struct hd_lesson *l, hd_lint_warn_fn *warn, void *arg,
		       struct hd_err *e);

#endif
