/*
 * jsoncheck.c - a small JSON syntax checker for the test suites (RFC 8259
 * grammar, recursive descent, no semantics): what the JSON and Perfetto
 * exports and `hdsim run --json` write must parse.
 */
#include <string.h>

#include "tests/jsoncheck.h"

static const char *json_value(const char *p, int depth);

static const char *
ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
		p++;
	return p;
}

static const char *
json_string(const char *p)
{
	int i;

	if (*p++ != '"')
		return NULL;
	for (; *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p != '\\')
			continue;
		p++;
		if (*p == 'u') {
			for (i = 1; i <= 4; i++)
				if (strchr("0123456789abcdefABCDEF", p[i]) == NULL || p[i] == '\0')
					return NULL;
			p += 4;
		} else if (strchr("\"\\/bfnrt", *p) == NULL || *p == '\0')
			return NULL;
	}
	return p + 1;
}

static const char *
json_number(const char *p)
{
	const char *d;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (*p == '.') {
		d = ++p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == d)
			return NULL;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		d = p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == d)
			return NULL;
	}
	return p;
}

static const char *
json_value(const char *p, int depth)
{
	if (depth > 64 || p == NULL)
		return NULL;
	p = ws(p);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		int obj = *p == '{';

		p = ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (obj) {
				if ((p = json_string(ws(p))) == NULL)
					return NULL;
				p = ws(p);
				if (*p++ != ':')
					return NULL;
			}
			if ((p = json_value(p, depth + 1)) == NULL)
				return NULL;
			p = ws(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	if (*p == '"')
		return json_string(p);
	if (strncmp(p, "true", 4) == 0)
		return p + 4;
	if (strncmp(p, "false", 5) == 0)
		return p + 5;
	if (strncmp(p, "null", 4) == 0)
		return p + 4;
	return json_number(p);
}

int
hd_test_json_valid(const char *s)
{
	const char *end = json_value(s, 0);

	return end != NULL && *ws(end) == '\0';
}
