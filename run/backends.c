/*
 * backend.c - what every backend shares: running into a fresh trace.
 */
#include "run/backends.h"
#include "sim/model.h"

struct hd_trace *
hd_backend_trace(const struct hd_backend_ops *b, const struct hd_scenario *sc,
		 const struct hd_run_opts *o, struct hd_err *e)
{
	struct hd_trace *t = hd_trace_new();
	struct hd_sink sink = hd_trace_sink(t);
	struct hd_model_stats st;
	int rc;

	if (b == &hd_sim_backend && o != NULL && o->profile != NULL) {
		/* the model's event count is part of a simulated trace */
		rc = hd_model_run(sc, o->profile, &sink, o->stop, &st, e);
		if (rc == 0)
			t->events = st.events;
	} else
		rc = b->run(sc, o, &sink, e);
	if (rc < 0) {
		if (e != NULL && e->status == 0)
			e->status = HD_EXIT_FAIL;
		hd_trace_free(t);
		return NULL;
	}
	hd_trace_sort(t);
	return t;
}
