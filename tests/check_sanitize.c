/*
 * check_sanitize.c - each sink's sanitiser (base/sanitize.h) against the
 * attacks it is for: terminal escapes, C1 controls, bidi overrides, invalid
 * UTF-8, formula-leading CSV cells, text that closes a comment.
 */
#include <string.h>

#include "base/sanitize.h"
#include "base/util.h"
#include "tests/testutil.h"

/* hd_san_term of s, compared with want. */
static void
term_is(const char *s, bool multiline, const char *want)
{
	char *got = hd_san_term_dup(s, multiline);

	ck_assert_msg(strcmp(got, want) == 0, "hd_san_term(\"%s\") gave \"%s\", wanted \"%s\"", s,
		      got, want);
	ck_assert(hd_san_term_ok(s, multiline) == (strcmp(s, want) == 0));
	free(got);
}

START_TEST(term_passes_text)
{
	term_is("pinned vs pageable", false, "pinned vs pageable");
	term_is("größe 64 MiB → µs", false, "größe 64 MiB → µs");
	term_is("tab\tstays", false, "tab\tstays");
	term_is("two\nlines", true, "two\nlines");
	term_is("", false, "");
}
END_TEST

START_TEST(term_escapes_controls)
{
	/* a colour escape, a title-setting OSC, a bell, DEL, CR */
	term_is("\x1b[31mred\x1b[0m", false, "\\x1b[31mred\\x1b[0m");
	term_is("\x1b]0;owned\x07", false, "\\x1b]0;owned\\x07");
	term_is("a\x7f"
		"b\rc",
		false, "a\\x7fb\\x0dc");
	term_is("one\nline", false, "one\\x0aline");
	/* C1: CSI as one code point (U+009B), and NEL (U+0085) */
	term_is("\xc2\x9b"
		"31m",
		false, "\\u009b31m");
	term_is("\xc2\x85", false, "\\u0085");
	/* bidi overrides and isolates (the "Trojan Source" characters) */
	term_is("abc\xe2\x80\xae"
		"fed",
		false, "abc\\u202efed");
	term_is("\xe2\x81\xa6x\xe2\x81\xa9", false, "\\u2066x\\u2069");
	term_is("\xe2\x80\xa8", true, "\\u2028");
}
END_TEST

START_TEST(term_escapes_bad_utf8)
{
	term_is("\xff", false, "\\xff");
	term_is("\xc0\xaf", false, "\\xc0\\xaf");                   /* overlong '/' */
	term_is("\xed\xa0\x80", false, "\\xed\\xa0\\x80");          /* a surrogate */
	term_is("\xe2\x82", false, "\\xe2\\x82");                   /* cut short */
	term_is("\xf4\x90\x80\x80", false, "\\xf4\\x90\\x80\\x80"); /* past U+10FFFF */
	term_is("ok\xe2", false, "ok\\xe2");
}
END_TEST

START_TEST(csv_leading_formula)
{
	static const char *const bad[] = { "=HYPERLINK(\"x\")", "+1",  "-2+3",
					   "@SUM(A1)",          "\tx", "\rx" };
	static const char *const good[] = { "ada", "1e3", "", " =x", "a=b" };
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(bad); i++) {
		struct hd_buf b;

		hd_buf_init(&b);
		hd_san_csv_lead(&b, bad[i]);
		ck_assert(hd_san_csv_needs_quote(bad[i]));
		ck_assert_int_eq(b.s[0], '\'');
		ck_assert_str_eq(b.s + 1, bad[i]);
		hd_buf_free(&b);
	}
	for (i = 0; i < HD_ARRAY_LEN(good); i++) {
		struct hd_buf b;

		hd_buf_init(&b);
		hd_san_csv_lead(&b, good[i]);
		ck_assert(!hd_san_csv_needs_quote(good[i]));
		ck_assert_str_eq(b.s != NULL ? b.s : "", good[i]);
		hd_buf_free(&b);
	}
}
END_TEST

START_TEST(comments_stay_comments)
{
	struct hd_buf b;

	hd_buf_init(&b);
	hd_san_c_comment(&b, "title */ int evil(void); /* more\nsystem(\"rm\");");
	ck_assert_ptr_null(strstr(b.s, "*/"));
	ck_assert_ptr_null(strchr(b.s, '\n'));
	ck_assert_str_eq(b.s, "title * / int evil(void); /* more system(\"rm\");");
	hd_buf_free(&b);

	hd_buf_init(&b);
	hd_san_py_comment(&b, "title\nimport os\r\nos.system('x')\xe2\x80\xa8y");
	ck_assert_ptr_null(strchr(b.s, '\n'));
	ck_assert_ptr_null(strchr(b.s, '\r'));
	ck_assert_ptr_null(strstr(b.s, "\xe2\x80\xa8"));
	ck_assert_str_eq(b.s, "title import os  os.system('x') y");
	hd_buf_free(&b);

	hd_buf_init(&b);
	hd_san_c_comment(&b, "x\xe2\x80\xaey");
	ck_assert_str_eq(b.s, "x\\u202ey");
	hd_buf_free(&b);
}
END_TEST

static Suite *
sanitize_suite(void)
{
	Suite *s = suite_create("sanitize");
	TCase *tc = tcase_create("sinks");

	tcase_add_test(tc, term_passes_text);
	tcase_add_test(tc, term_escapes_controls);
	tcase_add_test(tc, term_escapes_bad_utf8);
	tcase_add_test(tc, csv_leading_formula);
	tcase_add_test(tc, comments_stay_comments);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(sanitize_suite());
}
