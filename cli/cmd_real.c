/*
 * cmd_real.c - `hdsim --real [LESSON...]`: predict and measure every
 * scenario that fits this machine, store both, compare them and check the
 * claims on the GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "real/calibrate/calibrate.h"
#include "real/real.h"
#include "run/verify.h"
#include "store/store.h"

/*
 * The host CPU's own figures (API call costs, the memcpy rates of pageable
 * staging, pinning, the driver's handling of managed-memory faults) move
 * between processes on one machine by as much as the prediction target
 * (bench/results/2026-11-22-gpu.md: +-8 to 14 % between four processes on one
 * H100 host; bench/results/2026-11-22-h100-host/), so `--real` measures them
 * again here, a few seconds, and predicts with them and the calibrated GPU
 * figures.  The stored profile of each predicted run has the figures used.
 */
static void
refresh_host_figures(struct hd_cmd_ctx *x, struct hd_profile *p, char *why, size_t n)
{
	struct hd_calibrate_opts co;
	struct hd_profile q = *p;
	struct hd_buf log;
	struct hd_err e = { 0 };
	char a[32], b[32], c[32], d[32], f[32], g[32], u[32], v[32];
	size_t len;

	memset(&co, 0, sizeof co);
	co.quick = 1;
	co.host_only = 1;
	co.stop = &hd_cmd_stop;
	hd_buf_init(&log);
	fprintf(x->err,
		"hdsim: measuring this process's host figures (pageable copies, "
		"pinning, API costs, managed-memory faults)...\n");
	if (hd_real_calibrate(&co, &q, &log, &e) != 0) {
		fprintf(x->err,
			"hdsim: host figures not measured again (%s): the calibrated "
			"ones are used\n",
			e.msg);
		hd_buf_free(&log);
		return;
	}
	hd_buf_free(&log);
	fprintf(x->err,
		"hdsim: host memcpy HtoD %s (calibrated %s), DtoH %s (%s), pinning "
		"%s (%s)\n",
		hd_fmt_rate(a, sizeof a, q.host_memcpy_h2d_bw),
		hd_fmt_rate(b, sizeof b, p->host_memcpy_h2d_bw),
		hd_fmt_rate(c, sizeof c, q.host_memcpy_d2h_bw),
		hd_fmt_rate(d, sizeof d, p->host_memcpy_d2h_bw), hd_fmt_rate(f, sizeof f, q.pin_bw),
		hd_fmt_rate(g, sizeof g, p->pin_bw));
	fprintf(x->err, "hdsim: managed-memory faults %s per page (calibrated %s), at %s (%s)\n",
		hd_fmt_time(u, sizeof u, q.um_fault), hd_fmt_time(v, sizeof v, p->um_fault),
		hd_fmt_rate(a, sizeof a, q.um_fault_bw), hd_fmt_rate(b, sizeof b, p->um_fault_bw));
	snprintf(q.name, sizeof q.name, "%s", p->name);
	snprintf(q.origin, sizeof q.origin, "%s", p->origin);
	*p = q;
	len = strlen(why);
	snprintf(why + len, n > len ? n - len : 0,
		 "; host figures measured again in this "
		 "process");
}

int
hd_cmd_real(struct hd_cmd_ctx *x)
{
	struct hd_verify_opts vo;
	struct hd_verify_result res;
	struct hd_store_machine m;
	struct hd_profile pick, stored;
	struct hd_err e = { 0 };
	struct hd_buf b;
	struct hd_cmd_stop_saved saved;
	const struct hd_lesson **ls;
	char why[512];
	int i, n = x->nargs > 0 ? x->nargs : hd_catalog_count(x->cat), idx = 0, rc;

	ls = hd_xcalloc((size_t)n + 1, sizeof *ls);
	for (i = 0; i < n; i++) {
		if (x->nargs > 0 && (idx = hd_catalog_find(x->cat, x->args[i], &e)) < 0) {
			free(ls);
			return hd_cmd_fail(x, &e);
		}
		ls[i] = hd_catalog_get(x->cat, x->nargs > 0 ? idx : i);
	}
	memset(&m, 0, sizeof m);
	if (hd_real_machine(0, &m, &e) != 0) {
		free(ls);
		return hd_cmd_fail(x, &e);
	}
	memset(&vo, 0, sizeof vo);
	/* the profile alone, beside what predicts: the GPU's built-in one, and
	 * the stored calibrated one before this process's host figures */
	vo.alone[0] = hd_profile_builtin_find(hd_verify_builtin_for_gpu(m.gpu_name));
	if (x->o->profile != NULL) {
		vo.profile = &x->profile;
		snprintf(why, sizeof why, "--profile %s", x->o->profile);
	} else {
		if (hd_verify_pick_profile(m.gpu_name, &pick, why, sizeof why) == 1) {
			stored = pick;
			vo.alone[1] = &stored;
			if (getenv("HDSIM_KEEP_HOST_FIGURES") == NULL)
				refresh_host_figures(x, &pick, why, sizeof why);
		}
		vo.profile = &pick;
	}
	vo.measured = x->backend;
	vo.db_path = x->o->db;
	vo.machine = &m;
	vo.sets = x->o->sets;
	vo.nsets = x->o->nsets;
	vo.scenario = x->o->scenario;
	vo.warmup = 1;
	vo.repeats = 5;
	vo.stop = &hd_cmd_stop;
	vo.progress = x->err;
	vo.progress_tty = isatty(fileno(x->err));
	vo.width = x->width;
	hd_cmd_stop_catch(&saved);
	hd_buf_init(&b);
	hd_buf_printf(&b, "GPU:         %s (%s), driver %s, CUDA runtime %s\n",
		      m.gpu_name ? m.gpu_name : "?", m.pci_bus_id ? m.pci_bus_id : "?",
		      m.driver ? m.driver : "?", m.cuda_runtime ? m.cuda_runtime : "?");
	hd_buf_printf(&b, "Profile:     %s\n", why);
	rc = hd_verify_lessons(ls, n, &vo, &b, &res, &e);
	hd_cmd_stop_release(&saved);
	if (rc == 0)
		hd_buf_printf(&b,
			      "\n%d scenario%s measured, %d skipped; claims: %d verified, "
			      "%d refuted, %d not checked; %d runs stored\n",
			      res.scenarios_run, res.scenarios_run == 1 ? "" : "s",
			      res.scenarios_skipped, res.claims_verified, res.claims_refuted,
			      res.claims_unchecked, res.runs_stored);
	hd_cmd_put(x, &b);
	hd_buf_free(&b);
	hd_verify_result_free(&res);
	free(ls);
	if (rc != 0)
		return hd_cmd_fail(x, &e);
	/* Skips alone do not fail a run; a run that measured nothing does. */
	if (res.scenarios_run == 0 && res.scenarios_skipped > 0) {
		fprintf(x->err,
			"hdsim: nothing was measured: every scenario asked for was "
			"skipped on this machine\n");
		return HD_EXIT_FAIL;
	}
	return res.claims_refuted > 0 ? HD_EXIT_FAIL : HD_EXIT_OK;
}
