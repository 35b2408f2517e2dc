/*
 * paths.c - the data folder and mkdir -p (paths.h).
 */
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"

char *
hd_paths_data(const char *sub)
{
	const char *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");
	const char *sep = sub != NULL ? "/" : "", *tail = sub != NULL ? sub : "";

	if (xdg != NULL && xdg[0] == '/')
		return hd_xasprintf("%s/hdsim%s%s", xdg, sep, tail);
	/* no usable $HOME: the account's home, never the current folder */
	if (home == NULL || home[0] != '/') {
		struct passwd *pw = getpwuid(getuid());

		home = pw != NULL && pw->pw_dir != NULL && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
	}
	if (home == NULL)
		return NULL;
	return hd_xasprintf("%s/.local/share/hdsim%s%s", home, sep, tail);
}

int
hd_paths_mkdir(const char *dir, mode_t mode, struct hd_err *e)
{
	int err;

	if (mkdir(dir, mode) == 0 || errno == EEXIST)
		return 0;
	err = errno;
	hd_err_set(e, HD_EXIT_FAIL, dir, "cannot create the folder: %s", strerror(err));
	errno = err;
	return -1;
}

int
hd_paths_mkdir_p(const char *dir, mode_t mode, struct hd_err *e)
{
	char *p = hd_xstrdup(dir), *s;
	int rc = 0, err;

	/* each prefix that ends before a slash (not the root), then the whole */
	for (s = p; rc == 0 && *s != '\0'; s++) {
		if (*s != '/' || s == p)
			continue;
		*s = '\0';
		rc = hd_paths_mkdir(p, mode, e);
		*s = '/';
	}
	if (rc == 0 && p[0] != '\0')
		rc = hd_paths_mkdir(p, mode, e);
	err = errno;
	free(p);
	errno = err;
	return rc;
}
