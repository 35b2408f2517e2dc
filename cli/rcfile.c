/*
 * rcfile.c - the configuration file's reader and the choice of learner
 * (--learner, $HDSIM_LEARNER, the file, $USER).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cli/rcfile.h"
#include "store/store.h"

const char *
hd_rcfile_file_learner(void)
{
	static char name[HD_STORE_NAME_MAX + 2];
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *path, line[512], *k, *v, *end;
	const char *found = NULL;
	FILE *f;

	if (xdg != NULL && xdg[0] == '/')
		path = hd_xasprintf("%s/hdsim/config", xdg);
	else if (home != NULL && home[0] != '\0')
		path = hd_xasprintf("%s/.config/hdsim/config", home);
	else
		return NULL;
	f = fopen(path, "r");
	free(path);
	while (f != NULL && fgets(line, sizeof line, f) != NULL) {
		for (k = line; *k == ' ' || *k == '\t'; k++)
			;
		if (*k == '#' || (v = strchr(k, '=')) == NULL)
			continue;
		for (end = v; end > k && (end[-1] == ' ' || end[-1] == '\t'); end--)
			;
		if (end - k != 7 || strncmp(k, "learner", 7) != 0)
			continue;
		for (v++; *v == ' ' || *v == '\t'; v++)
			;
		for (end = v + strlen(v); end > v &&
		     (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t');
		     end--)
			;
		if (end > v) {
			snprintf(name, sizeof name, "%.*s", (int)(end - v), v);
			found = name;
		}
	}
	if (f != NULL)
		fclose(f);
	return found;
}

const char *
hd_rcfile_learner(const char *given)
{
	const char *v;

	if (given != NULL)
		return given;
	if ((v = getenv("HDSIM_LEARNER")) != NULL && v[0] != '\0')
		return v;
	if ((v = hd_rcfile_file_learner()) != NULL)
		return v;
	if ((v = getenv("USER")) != NULL && v[0] != '\0')
		return v;
	return "learner";
}
