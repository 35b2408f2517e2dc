/*
 * profile_write.h - writing a profile file: the one a calibration produced,
 * into the user's folder of calibrated profiles.
 */
#ifndef HD_PROFILE_WRITE_H
#define HD_PROFILE_WRITE_H

#include "base/util.h"
#include "profile/profile.h"

/*
 * Write p as dir/NAME.hdp (NAME is p->name), making dir and its parents
 * first: hd_profile_format's header line, a comment saying the figures were
 * measured on this machine's `gpu` by 'hdsim calibrate', then the rest of the
 * text.  The file is written whole to NAME.hdp.tmp and renamed into place.
 * Returns the path written (freed by the caller), or NULL with e set
 * (HD_EXIT_FAIL).
 */
char *hd_profile_write_calibrated(const struct hd_profile *p, const char *dir, const char *gpu,
				  struct hd_err *e);

#endif
