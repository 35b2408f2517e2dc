/*
 * verify.h - `hdsim --real`: run lessons on the hardware and on the model,
 * store both, and compare them op by op and claim by claim.
 *
 * The measuring backend is a parameter, so the whole path (the store, the
 * comparison, the claims, interruption) is exercised by the tests with the
 * simulator standing in for the GPU.
 */
#ifndef HD_VERIFY_H
#define HD_VERIFY_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "base/units.h"
#include "base/util.h"
#include "ir/backend.h"
#include "lang/lesson.h"
#include "profile/profile.h"
#include "store/store.h"

struct hd_verify_opts {
	const struct hd_backend_ops *measured;  /* hd_real_backend, or a stand-in */
	const struct hd_profile *profile;       /* what predictions use */
	const char *db_path;                    /* NULL: the default database */
	const struct hd_store_machine *machine; /* may be NULL */
	char *const *sets;                      /* --set k=v */
	int nsets;
	const char *scenario; /* --scenario, or NULL for all */
	int warmup, repeats;
	volatile sig_atomic_t *stop; /* set by SIGINT; may be NULL */
	FILE *progress;              /* progress lines (stderr) or NULL */
	int progress_tty;            /* redraw one line instead of many */
	int width;                   /* text width */
	/* Predictions from a profile alone, printed beside the one above (which
	 * may carry host figures measured again in this process): the built-in
	 * profile of the GPU, and the stored calibrated profile before that
	 * refit.  Either may be NULL. */
	const struct hd_profile *alone[2];
};

/* The predictions the summary splits, in this order. */
enum hd_verify_pred {
	HD_VPRED_USED,
	HD_VPRED_BUILTIN,
	HD_VPRED_CALIBRATED,
	HD_VPRED__COUNT
};

/* What a verification found, for the exit status. */
struct hd_verify_result {
	int scenarios_run, scenarios_skipped;
	int claims_verified, claims_refuted, claims_unchecked;
	int runs_stored;
	double worst_makespan_err;  /* |pred - meas| / meas, worst scenario */
	double median_makespan_err; /* the median of those over the scenarios */
	double *errs;               /* each scenario's (pred - meas) / meas */
	int nerrs, errs_cap;
	/* each scenario's error for each prediction (NAN where it was not
	 * made), and whether a spin kernel sets its length (a fixed-duration
	 * kernel: right by construction, so kept apart) */
	double *split[HD_VPRED__COUNT];
	bool *spin_bound;
	struct hd_buf skipped; /* "  lesson/scenario: why\n" per skip */
	/* scenarios measured over two repeats or more, and of them those whose
	 * prediction is within the band (min to max of the repeats) */
	int with_band, in_band;
	/* compute kernels run once and predicted at HD_VERIFY_LONG_KERNEL or
	 * more: how many, and their predicted and measured times added up
	 * (seconds); a kernel in a loop is left out, its times spanning what
	 * runs between its executions */
	int long_kernels;
	double long_pred_s, long_meas_s;
};

/* A compute kernel predicted at least this long counts towards the
 * summary's sustained-rate line: long enough that its own FMA work, not
 * launches or queues, sets its time. */
#define HD_VERIFY_LONG_KERNEL (5 * HD_MS)
/* Below this share of the profile's FP32 rate the line warns that the
 * GPU ran slower under sustained load than the profile says. */
#define HD_VERIFY_SLOW_SHARE 0.9

/*
 * Verify lessons[0..n): for every scenario that fits one GPU, predict with
 * the model, measure with o->measured, store both as a pair (one transaction
 * each), print predicted, measured and error per scenario and per op, then
 * check each claim on the measurement.  Each measured run is stored with its
 * repeats' makespans and printed with their band (min to max), and whether
 * the prediction falls inside it.  The summary gives the share of the
 * profile's FP32 rate the long compute kernels reached (HD_VERIFY_LONG_KERNEL
 * and up), and warns below HD_VERIFY_SLOW_SHARE: a GPU whose clocks drop
 * under sustained load misses by its state, not by the model.  Scenarios the backend cannot run here
 * (more ranks than GPUs, no NCCL: hd_backend_ops.fits) are skipped with a
 * line saying so, and listed again at the end.  Returns 0 (result in *res),
 * or -1 with e set: a failure or an interruption; runs already stored stay
 * whole, the interrupted one is not stored.
 */
int hd_verify_lessons(const struct hd_lesson *const *lessons, int n, const struct hd_verify_opts *o,
		      struct hd_buf *out, struct hd_verify_result *res, struct hd_err *e);
/* Release what a result holds (its list of errors). */
void hd_verify_result_free(struct hd_verify_result *res);

/*
 * The profile predictions should use on this machine: a calibrated profile
 * file for GPU `gpu_name` in the user's profile folder if there is one (the
 * newest), else the built-in whose GPU name matches best, else the default.
 * Fills *out and writes where it came from into `why` (size n).  Returns 1
 * for a calibrated profile, 0 for a built-in one.
 */
int hd_verify_pick_profile(const char *gpu_name, struct hd_profile *out, char *why, size_t n);

/* A calibrated profile found in the user's profile folder. */
struct hd_verify_calibrated {
	struct hd_profile profile;
	time_t mtime;
};
/*
 * Every profile file in hd_verify_profile_dir() that parses, sorted by name.
 * Returns how many (the array in *out, freed by the caller; NULL when none).
 */
int hd_verify_calibrated_profiles(struct hd_verify_calibrated **out);

/* The built-in profile closest to a GPU by its name (the default if none is). */
const char *hd_verify_builtin_for_gpu(const char *gpu_name);

/* The user's folder of calibrated profiles ($XDG_DATA_HOME/hdsim/profiles),
 * or NULL when there is no home folder (base/paths.h). */
char *hd_verify_profile_dir(void);

#endif
