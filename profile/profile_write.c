/*
 * profile_write.c - a calibrated profile written to its file, through a
 * temporary file so a reader never sees half of one.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/paths.h"
#include "profile/profile_write.h"

/* mkdir -p; 0, or -1 with e set. */
char *
hd_profile_write_calibrated(const struct hd_profile *p, const char *dir, const char *gpu,
			    struct hd_err *e)
{
	char *path = NULL, *tmp = NULL, *text;
	const char *body;
	FILE *f;

	if (hd_paths_mkdir_p(dir, 0755, e) != 0)
		return NULL;
	path = hd_xasprintf("%s/%s.hdp", dir, p->name);
	tmp = hd_xasprintf("%s.tmp", path);
	text = hd_profile_format(p);
	body = strchr(text, '\n');
	f = fopen(tmp, "w");
	if (f == NULL) {
		hd_err_set(e, HD_EXIT_FAIL, tmp, "cannot write: %s", strerror(errno));
		goto fail;
	}
	/* the header line first, then where the figures came from */
	fprintf(f,
		"%.*s\n# Measured on this machine's %s by 'hdsim calibrate'; the figures "
		"it could\n# not measure come from the built-in profile named in the "
		"description.\n%s",
		(int)(body ? body - text : (long)strlen(text)), text, gpu, body ? body + 1 : "");
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		hd_err_set(e, HD_EXIT_FAIL, path, "cannot write: %s", strerror(errno));
		remove(tmp);
		goto fail;
	}
	free(text);
	free(tmp);
	return path;
fail:
	free(text);
	free(tmp);
	free(path);
	return NULL;
}
