/*
 * sim_backend.c - the simulator as a backend: the model on a profile.
 */
#include "sim/sim_backend.h"
#include "profile/profile.h"
#include "sim/model.h"

static int
sim_available(struct hd_err *e)
{
	(void)e;
	return 0; /* the model runs anywhere */
}

static int
sim_run(const struct hd_scenario *sc, const struct hd_run_opts *o, const struct hd_sink *sink,
	struct hd_err *e)
{
	struct hd_profile def;

	if (o == NULL || o->profile == NULL) {
		if (hd_profile_resolve(NULL, &def, e) < 0)
			return -1;
		return hd_model_run(sc, &def, sink, NULL, NULL, e);
	}
	return hd_model_run(sc, o->profile, sink, o->stop, NULL, e);
}

const struct hd_backend_ops hd_sim_backend = {
	.name = "sim",
	.available = sim_available,
	.run = sim_run,
};
