/*
 * report.h - the forms a lesson's run (run/run.h) is written in for machines
 * (--json) and screen readers (--plain), and its claims as text.
 *
 * The JSON form is a stable interface for scripts; its keys are documented
 * in doc/hdsim.1 and carry their units in their names (makespan_ps,
 * start_ps, bytes).  Adding keys is compatible; changing or removing one
 * raises "format_version".
 */
#ifndef HD_REPORT_H
#define HD_REPORT_H

#include <stdbool.h>

#include "base/util.h"
#include "ir/trace.h"
#include "run/run.h"

#define HD_REPORT_FORMAT_VERSION 1

/* Names for lane kinds in JSON and narration: "host", "api", "stream" ... */
const char *hd_report_lane_kind(enum hd_lane_kind k);

/* The claims section of the text output: one line per claim, then its
 * detail, wrapped to `width` columns. */
void hd_report_claims(struct hd_buf *out, const struct hd_run *r, bool color, int width);

/* The JSON object of a run; `only` is a scenario index, or -1 for all. */
void hd_report_json(struct hd_buf *out, const struct hd_run *r, int only);

/*
 * Narration for screen readers: one line per event in time order, no glyph
 * art and no escape sequences.  `only` as for hd_report_json.
 */
void hd_report_plain(struct hd_buf *out, const struct hd_run *r, int only);
/* The narration of one trace (used by the above and by the tests). */
void hd_report_plain_trace(struct hd_buf *out, const struct hd_trace *t,
			   const struct hd_scenario *sc);

#endif
