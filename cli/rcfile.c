/*
 * rcfile.c - the configuration file's reader and the choice of learner
 * (--learner, $HDSIM_LEARNER, the file, $USER) and of their learner id
 * ($HDSIM_LEARNER_ID, the file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cli/rcfile.h"
#include "store/store.h"

/* The configuration file's path (newly allocated), or NULL with no home. */
static char *
config_path(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg != NULL && xdg[0] == '/')
		return hd_xasprintf("%s/hdsim/config", xdg);
	if (home != NULL && home[0] != '\0')
		return hd_xasprintf("%s/.config/hdsim/config", home);
	return NULL;
}

/* The value of the last "key = value" line of the file into buf (n bytes,
 * cut to fit), or NULL when there is none or it is empty. */
static const char *
file_value(const char *key, char *buf, size_t n)
{
	char *path = config_path(), line[512], *k, *v, *end;
	size_t klen = strlen(key);
	const char *found = NULL;
	FILE *f;

	if (path == NULL)
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
		if ((size_t)(end - k) != klen || strncmp(k, key, klen) != 0)
			continue;
		for (v++; *v == ' ' || *v == '\t'; v++)
			;
		for (end = v + strlen(v); end > v &&
		     (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t');
		     end--)
			;
		if (end > v) {
			snprintf(buf, n, "%.*s", (int)(end - v), v);
			found = buf;
		}
	}
	if (f != NULL)
		fclose(f);
	return found;
}

const char *
hd_rcfile_file_learner(void)
{
	static char name[HD_STORE_NAME_MAX + 2];

	return file_value("learner", name, sizeof name);
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

const char *
hd_rcfile_learner_id(const char **from)
{
	static char id[HD_STORE_NAME_MAX + 2], where[512];
	const char *v;
	char *path;

	if ((v = getenv("HDSIM_LEARNER_ID")) != NULL && v[0] != '\0') {
		if (from != NULL)
			*from = "$HDSIM_LEARNER_ID";
		return v;
	}
	if ((v = file_value("learner-id", id, sizeof id)) != NULL && from != NULL) {
		path = config_path();
		snprintf(where, sizeof where, "%s", path != NULL ? path : "the configuration file");
		free(path);
		*from = where;
	}
	return v;
}
