/*
 * paths.h - where hdsim keeps its files, and making folders.
 *
 * The data folder holds the database (store/) and calibrated profiles
 * (run/verify.h): $XDG_DATA_HOME/hdsim when that is an absolute path, as the
 * XDG base directory specification asks, else $HOME/.local/share/hdsim, with
 * the account's home folder (getpwuid) when $HOME is unset or not absolute:
 * never the current folder.
 */
#ifndef HD_PATHS_H
#define HD_PATHS_H

#include <sys/types.h>

#include "base/util.h"

/* The data folder, or a path inside it when `sub` is not NULL
 * (hd_paths_data("hdsim.db")); a fresh string.  Nothing is created.  NULL
 * when there is no home folder at all (no $XDG_DATA_HOME, no $HOME, no
 * account entry): the caller says so and asks for --db. */
char *hd_paths_data(const char *sub);

/*
 * Make folder `dir` with mode (less the umask); one already there is fine.
 * 0, or -1 with e set: status HD_EXIT_FAIL, where `dir`, "cannot create the
 * folder: REASON", and errno left as the reason.
 */
int hd_paths_mkdir(const char *dir, mode_t mode, struct hd_err *e);
/* The same for `dir` and each missing folder above it (mkdir -p); where names
 * the first folder that could not be made. */
int hd_paths_mkdir_p(const char *dir, mode_t mode, struct hd_err *e);

#endif
