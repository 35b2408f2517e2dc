/*
 * cmd_calibrate.c - `hdsim calibrate [--quick]`: measure GPU 0 starting from
 * the closest built-in profile (or --profile), print the log, write the
 * profile file into the user's folder of calibrated profiles and store it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "profile/profile_write.h"
#include "real/calibrate/calibrate.h"
#include "real/real.h"
#include "run/verify.h"
#include "store/store.h"

struct calib_progress {
	FILE *f;
	int tty;
	char last[128]; /* the stage last reported, without its size */
};

/* Progress of a calibration: a redrawn bar on a terminal, else a line per stage. */
static void
calib_progress(void *ctx, double frac, const char *what)
{
	struct calib_progress *cp = ctx;
	char stage[128];
	size_t i;
	int k, fill;

	if (cp->tty) {
		fill = (int)(frac * 30 + 0.5);
		fputs("\r[", cp->f);
		for (k = 0; k < 30; k++)
			fputc(k < fill ? '#' : '-', cp->f);
		fprintf(cp->f, "] %3d%% %.60s\033[K", (int)(frac * 100 + 0.5), what);
		if (frac >= 1)
			fputc('\n', cp->f);
		fflush(cp->f);
		return;
	}
	/* "pinned H2D 64 MiB" is stage "pinned H2D": cut before the size */
	snprintf(stage, sizeof stage, "%s", what);
	for (i = 1; stage[i] != '\0'; i++)
		if (stage[i - 1] == ' ' && stage[i] >= '0' && stage[i] <= '9') {
			stage[i - 1] = '\0';
			break;
		}
	if (strcmp(stage, cp->last) == 0)
		return;
	snprintf(cp->last, sizeof cp->last, "%s", stage);
	fprintf(cp->f, "hdsim: calibrate: %3d%% %s\n", (int)(frac * 100 + 0.5), stage);
	fflush(cp->f);
}

/* The profile file, written where 'hdsim --real' looks for it. */
static char *
write_profile(const struct hd_profile *p, struct hd_err *e)
{
	char *dir = hd_verify_profile_dir(), *path;

	if (dir == NULL) {
		hd_err_set(e, HD_EXIT_FAIL, "calibrate",
			   "no folder to keep the profile in: "
			   "set HOME or XDG_DATA_HOME");
		return NULL;
	}
	path = hd_profile_write_calibrated(p, dir, p->gpu_name, e);
	free(dir);
	return path;
}

int
hd_cmd_calibrate(struct hd_cmd_ctx *x)
{
	struct hd_calibrate_opts co;
	struct hd_store_machine m;
	struct hd_profile p;
	struct hd_err e = { 0 };
	struct hd_buf log;
	struct hd_cmd_stop_saved saved;
	struct calib_progress cp;
	struct hd_store *st;
	int64_t pid = 0;
	char *text;
	const char *base;
	char *path;
	int s = hd_cmd_gpu_check(x), rc;

	if (s != 0)
		return s;
	memset(&m, 0, sizeof m);
	if (hd_real_machine(0, &m, &e) != 0)
		return hd_cmd_fail(x, &e);
	if (x->o->profile != NULL)
		p = x->profile;
	else {
		/* The base supplies what a calibration cannot measure. */
		base = hd_verify_builtin_for_gpu(m.gpu_name);
		if (hd_profile_resolve(base, &p, &e) != 0)
			return hd_cmd_fail(x, &e);
	}
	/* Open the database first: a bad --db fails before the GPU is measured. */
	if ((st = hd_store_open(x->o->db, HD_STORE_RW, &e)) == NULL)
		return hd_cmd_fail(x, &e);
	memset(&cp, 0, sizeof cp);
	cp.f = x->err;
	cp.tty = isatty(fileno(x->err));
	memset(&co, 0, sizeof co);
	co.device = 0;
	co.quick = x->o->quick;
	co.stop = &hd_cmd_stop;
	co.progress = calib_progress;
	co.ctx = &cp;
	hd_cmd_stop_catch(&saved);
	hd_buf_init(&log);
	rc = hd_real_calibrate(&co, &p, &log, &e);
	hd_cmd_stop_release(&saved);
	if (cp.tty && rc != 0)
		fputc('\n', x->err);
	hd_cmd_put(x, &log);
	hd_buf_free(&log);
	if (rc != 0 || (path = write_profile(&p, &e)) == NULL) {
		hd_store_close(st);
		return hd_cmd_fail(x, &e);
	}
	text = hd_profile_format(&p);
	rc = hd_store_profile_insert(st, p.name, text, &pid, &e);
	free(text);
	if (rc != 0) {
		free(path);
		hd_store_close(st);
		return hd_cmd_fail(x, &e);
	}
	fprintf(x->out,
		"\nWrote %s\nStored it in %s as profile %lld.\nUse it with --profile "
		"%s; 'hdsim --real' picks it for this GPU.\n",
		path, hd_store_path(st), (long long)pid, path);
	free(path);
	hd_store_close(st);
	return HD_EXIT_OK;
}
