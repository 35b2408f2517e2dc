/*
 * check_base.c - the JSON writer (base/json.h), the data folder and
 * folder making (base/paths.h), and SHA-256 (base/sha256.h).
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/json.h"
#include "base/paths.h"
#include "base/sha256.h"
#include "base/util.h"
#include "tests/jsoncheck.h"
#include "tests/testutil.h"

/* s through hd_json_str, as a fresh string. */
static char *
json_of(const char *s)
{
	struct hd_buf b;

	hd_buf_init(&b);
	hd_json_str(&b, s);
	return hd_buf_take(&b);
}

static void
assert_json(const char *in, const char *want)
{
	char *got = json_of(in);

	ck_assert_str_eq(got, want);
	ck_assert_msg(hd_test_json_valid(got), "%s does not parse", got);
	free(got);
}

#define FFFD "\xef\xbf\xbd"

START_TEST(json_bad_utf8)
{
	/* valid UTF-8 is copied as it is, one, two, three and four bytes long */
	assert_json("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		    "\"caf\xc3\xa9 \xe2\x82\xac "
		    "\xf0\x9f\x98\x80\"");
	/* each byte that starts no valid sequence becomes U+FFFD */
	assert_json("a\xff"
		    "b",
		    "\"a" FFFD "b\"");
	assert_json("\x80", "\"" FFFD "\"");                   /* stray continuation */
	assert_json("\xe2\x82", "\"" FFFD FFFD "\"");          /* cut short at the end */
	assert_json("\xe2\x82z", "\"" FFFD FFFD "z\"");        /* cut short in the middle */
	assert_json("\xc0\xaf", "\"" FFFD FFFD "\"");          /* overlong '/' */
	assert_json("\xed\xa0\x80", "\"" FFFD FFFD FFFD "\""); /* a surrogate */
	assert_json("\xf4\x90\x80\x80", "\"" FFFD FFFD FFFD FFFD "\""); /* past U+10FFFF */
	ck_assert_int_eq(hd_json_utf8_len((const unsigned char *)"\xf4\x8f\xbf\xbf"), 4);
	ck_assert_int_eq(hd_json_utf8_len((const unsigned char *)"\xf8\x88\x80\x80"), 0);
}
END_TEST

START_TEST(json_controls_quotes_backslashes)
{
	assert_json("say \"hi\"", "\"say \\\"hi\\\"\"");
	assert_json("C:\\dir\\", "\"C:\\\\dir\\\\\"");
	assert_json("a\nb\rc\td", "\"a\\nb\\rc\\td\"");
	assert_json("\x01\x08\x0c\x1b\x1f", "\"\\u0001\\u0008\\u000c\\u001b\\u001f\"");
	assert_json("del\x7f", "\"del\x7f\""); /* JSON lets DEL stand */
	assert_json("", "\"\"");
	assert_json(NULL, "null");
}
END_TEST

/* The old name keeps its one difference: NULL is the empty string. */
START_TEST(json_buf_str_is_the_writer)
{
	struct hd_buf b;

	hd_buf_init(&b);
	hd_buf_json_str(&b, NULL);
	hd_buf_json_str(&b, "x\xff\n");
	ck_assert_str_eq(b.s, "\"\"\"x" FFFD "\\n\"");
	hd_buf_free(&b);
}
END_TEST

static char *
num_of(double v)
{
	struct hd_buf b;

	hd_buf_init(&b);
	hd_json_num(&b, v);
	return hd_buf_take(&b);
}

START_TEST(json_numbers)
{
	static const struct {
		double v;
		const char *text;
	} cases[] = {
		{ 0, "0" },
		{ -0.0, "0" },
		{ 3, "3" },
		{ -42, "-42" },
		{ 1.5, "1.5" },
		{ 0.1, "0.1" },
		{ 1.0 / 3, "0.3333333333333333" },
		{ 0.1 + 0.2, "0.30000000000000004" },
		{ 1e15, "1000000000000000" },
		/* huge: past 9e15 integers are written in %g form, still exactly */
		{ 9007199254740992.0, "9007199254740992" },
		{ 1e300, "1e+300" },
		{ -2.5e20, "-2.5e+20" },
		{ DBL_MAX, "1.7976931348623157e+308" },
		/* tiny */
		{ 1e-300, "1e-300" },
		{ 5e-324, "4.94065645841247e-324" },
		{ -1.25e-7, "-1.25e-07" },
		/* not numbers in JSON */
		{ NAN, "null" },
		{ INFINITY, "null" },
		{ -INFINITY, "null" },
	};
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(cases); i++) {
		char *got = num_of(cases[i].v);

		ck_assert_msg(strcmp(got, cases[i].text) == 0, "%.17g: got %s, want %s", cases[i].v,
			      got, cases[i].text);
		ck_assert(hd_test_json_valid(got));
		/* every finite number reads back to the same double */
		if (isfinite(cases[i].v))
			ck_assert(strtod(got, NULL) == cases[i].v);
		free(got);
	}
}
END_TEST

START_TEST(json_integers_and_keys)
{
	struct hd_buf b;

	hd_buf_init(&b);
	hd_buf_putc(&b, '{');
	hd_json_key(&b, "min");
	hd_json_i64(&b, INT64_MIN);
	hd_buf_putc(&b, ',');
	hd_json_key(&b, "max");
	hd_json_i64(&b, INT64_MAX);
	hd_buf_putc(&b, ',');
	hd_json_kstr(&b, "odd \"key\"", NULL);
	hd_buf_putc(&b, ',');
	hd_json_kstr(&b, "s", "v");
	hd_buf_putc(&b, '}');
	ck_assert_str_eq(b.s,
			 "{\"min\":-9223372036854775808,\"max\":9223372036854775807,"
			 "\"odd \\\"key\\\"\":null,\"s\":\"v\"}");
	ck_assert(hd_test_json_valid(b.s));
	hd_buf_free(&b);
}
END_TEST

START_TEST(paths_data_folder)
{
	char *p;

	setenv("XDG_DATA_HOME", "/xdg/data", 1);
	setenv("HOME", "/home/ada", 1);
	p = hd_paths_data("hdsim.db");
	ck_assert_str_eq(p, "/xdg/data/hdsim/hdsim.db");
	free(p);
	p = hd_paths_data(NULL);
	ck_assert_str_eq(p, "/xdg/data/hdsim");
	free(p);
	/* a relative XDG_DATA_HOME is ignored, as the specification says */
	setenv("XDG_DATA_HOME", "rel", 1);
	p = hd_paths_data("profiles");
	ck_assert_str_eq(p, "/home/ada/.local/share/hdsim/profiles");
	free(p);
	/* no usable HOME: the account's home folder, never the current folder */
	unsetenv("XDG_DATA_HOME");
	setenv("HOME", "", 1);
	p = hd_paths_data("profiles");
	ck_assert(p == NULL || p[0] == '/');
	free(p);
	setenv("HOME", "relative/home", 1);
	p = hd_paths_data("profiles");
	ck_assert(p == NULL || (p[0] == '/' && strstr(p, "relative") == NULL));
	free(p);
}
END_TEST

START_TEST(paths_mkdir)
{
	char dir[64], *deep, *file, *under;
	struct hd_err e = { 0 };
	struct stat st;
	FILE *f;

	hd_test_mkdtemp(dir, sizeof dir, "paths");
	deep = hd_xasprintf("%s/a/b//c/", dir);
	/* one level does not make parents ... */
	ck_assert_int_eq(hd_paths_mkdir(deep, 0700, &e), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(e.status, HD_EXIT_FAIL);
	ck_assert_str_eq(e.where, deep);
	ck_assert_str_eq(e.msg, "cannot create the folder: No such file or directory");
	/* ... mkdir -p does, with the mode asked for, and again is fine */
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_paths_mkdir_p(deep, 0700, &e), 0);
	ck_assert_int_eq(hd_paths_mkdir_p(deep, 0700, &e), 0);
	ck_assert_int_eq(hd_paths_mkdir(deep, 0700, &e), 0);
	ck_assert(!e.set);
	ck_assert_int_eq(stat(deep, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	/* a file in the way: the error names the folder that could not be made */
	file = hd_xasprintf("%s/file", dir);
	under = hd_xasprintf("%s/file/x/y", dir);
	ck_assert_ptr_nonnull(f = fopen(file, "w"));
	fclose(f);
	ck_assert_int_eq(hd_paths_mkdir_p(under, 0755, &e), -1);
	ck_assert_int_eq(errno, ENOTDIR);
	ck_assert_str_eq(e.msg, "cannot create the folder: Not a directory");
	free(deep);
	deep = hd_xasprintf("%s/file/x", dir);
	ck_assert_str_eq(e.where, deep);
	free(deep);
	free(file);
	free(under);
	hd_test_rmtree(dir);
}
END_TEST

/* FIPS 180-4's examples, and lengths at the padding's edges (55, 56, 64
 * bytes: one block or two) against values from sha256sum. */
START_TEST(sha256_vectors)
{
	static const struct {
		const char *in;
		size_t len;
		const char *hex;
	} v[] = {
		{ "", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 55,
		  "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 64,
		  "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
	};
	char hex[HD_SHA256_HEX];
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(v); i++) {
		hd_sha256_hex(v[i].in, v[i].len, hex);
		ck_assert_str_eq(hex, v[i].hex);
	}
}
END_TEST

static Suite *
base_suite(void)
{
	Suite *s = suite_create("base");
	TCase *tc = tcase_create("json");

	tcase_add_test(tc, json_bad_utf8);
	tcase_add_test(tc, json_controls_quotes_backslashes);
	tcase_add_test(tc, json_buf_str_is_the_writer);
	tcase_add_test(tc, json_numbers);
	tcase_add_test(tc, json_integers_and_keys);
	suite_add_tcase(s, tc);
	tc = tcase_create("paths");
	tcase_add_test(tc, paths_data_folder);
	tcase_add_test(tc, paths_mkdir);
	suite_add_tcase(s, tc);
	tc = tcase_create("sha256");
	tcase_add_test(tc, sha256_vectors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(base_suite());
}
