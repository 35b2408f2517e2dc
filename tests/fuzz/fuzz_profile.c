/*
 * fuzz_profile.c - libFuzzer target for the profile format: parse any bytes
 * as a profile file (starting from the default built-in, as `base` does);
 * what parses must format to text that parses back equal, key for key.
 *
 * A crash, a sanitizer report, an unequal round trip, a hang (-timeout) or a
 * memory blow-up (-rss_limit_mb) is a bug.  Built and run by tests/fuzz/run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "profile/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hd_err e = { 0 };
	struct hd_profile p, q;
	char *text, *out;

	/* the parser reads NUL-terminated text, as a loaded file gives it */
	text = malloc(size + 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	p = *hd_profile_builtin(0);
	if (hd_profile_parse(text, "fuzz.hdp", &p, &e) != 0) {
		free(text);
		if (!e.set || e.msg[0] == '\0')
			__builtin_trap();
		return 0;
	}
	free(text);
	out = hd_profile_format(&p);
	memset(&q, 0, sizeof(q));
	memset(&e, 0, sizeof(e));
	if (hd_profile_parse(out, "formatted", &q, &e) != 0) {
		fprintf(stderr, "formatted profile does not parse: %s: %s\n%s", e.where, e.msg,
			out);
		abort();
	}
	if (!hd_profile_equal(&p, &q)) {
		fprintf(stderr, "formatted profile parses back different:\n%s", out);
		abort();
	}
	free(out);
	return 0;
}
