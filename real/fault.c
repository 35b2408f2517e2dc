/*
 * fault.c - the call-failure hook of fault.h, for test programs.
 *
 * The counts are plain statics: each rank of a multi-GPU run is its own
 * process, and a process checks its calls from one thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "real/fault.h"

#define FAULT_KEEP 4096 /* call names remembered */

static int configured;     /* spec read (from the environment or set) */
static char want_name[64]; /* fail a call of this name ("" any) */
static int want_n;         /* ... the want_n-th of them (0: none) */
static int calls, name_calls;
static char injected[128];
static char *names[FAULT_KEEP];

/* The call's name: its text up to '(' (or all of it), at most n - 1 bytes. */
static void
call_name(const char *text, char *out, size_t n)
{
	size_t len = strcspn(text, "(");

	if (len >= n)
		len = n - 1;
	memcpy(out, text, len);
	out[len] = '\0';
}

int
hd_fault_set(const char *spec)
{
	const char *colon;
	char *end;
	long n;
	int i;

	for (i = 0; i < FAULT_KEEP; i++) {
		free(names[i]);
		names[i] = NULL;
	}
	configured = spec != NULL;
	calls = name_calls = 0;
	injected[0] = '\0';
	want_name[0] = '\0';
	want_n = 0;
	if (spec == NULL || *spec == '\0')
		return 0;
	colon = strchr(spec, ':');
	if (spec[0] >= '0' && spec[0] <= '9') {
		n = strtol(spec, &end, 10);
		if (*end != '\0' || n < 1 || n > 1000000000)
			return -1;
		want_n = (int)n;
		return 0;
	}
	if (colon == NULL) {
		call_name(spec, want_name, sizeof want_name);
		want_n = 1;
		return 0;
	}
	if ((size_t)(colon - spec) >= sizeof want_name)
		return -1;
	memcpy(want_name, spec, (size_t)(colon - spec));
	want_name[colon - spec] = '\0';
	n = strtol(colon + 1, &end, 10);
	if (*end != '\0' || n < 1 || n > 1000000000 || want_name[0] == '\0')
		return -1;
	want_n = (int)n;
	return 0;
}

int
hd_fault_hit(const char *text)
{
	char name[64];

	if (!configured) {
		const char *env = getenv("HDSIM_FAULT");

		if (hd_fault_set(env != NULL ? env : "") != 0)
			hd_fatal("HDSIM_FAULT='%s': expected N, NAME or NAME:N", env);
	}
	call_name(text, name, sizeof name);
	calls++;
	if (calls <= FAULT_KEEP)
		names[calls - 1] = hd_xstrdup(name);
	if (want_n == 0)
		return 0;
	if (want_name[0] == '\0') {
		if (calls != want_n)
			return 0;
	} else if (strcmp(name, want_name) != 0 || ++name_calls != want_n) {
		return 0;
	}
	snprintf(injected, sizeof injected, "%s", text);
	return 1;
}

int
hd_fault_releases(const char *text)
{
	static const char *const words[] = { "Free", "Destroy", "Unregister", "Abort" };
	char name[64];
	size_t i;

	call_name(text, name, sizeof name);
	for (i = 0; i < HD_ARRAY_LEN(words); i++)
		if (strstr(name, words[i]) != NULL)
			return 1;
	return 0;
}

int
hd_fault_calls(void)
{
	return calls;
}

const char *
hd_fault_call_name(int n)
{
	return n >= 1 && n <= calls && n <= FAULT_KEEP ? names[n - 1] : NULL;
}

const char *
hd_fault_injected(void)
{
	return injected[0] != '\0' ? injected : NULL;
}
