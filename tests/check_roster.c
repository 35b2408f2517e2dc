/*
 * check_roster.c - Canvas's roster read as Canvas writes it (a byte-order
 * mark, CRLF, the Points Possible and Manual Posting rows, the test
 * student, semicolons, split names, columns in any order), hostile rosters
 * refused with the line and the limit named, learners found by id and by
 * name, and the join of a class to a roster: what matches, what is
 * reported, what stays empty, and how its rows are graded (--grade, the
 * stored lesson version's points).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/export.h"
#include "export/gradebook.h"
#include "export/roster.h"
#include "lang/lesson.h"
#include "store/store.h"
#include "tests/testutil.h"

static char dir[64];

static void
setup(void)
{
	hd_test_mkdtemp(dir, sizeof dir, "roster");
}

static void
teardown(void)
{
	hd_test_rmtree(dir);
}

/* Canvas's own export: a BOM, CRLF, "    Points Possible", a manual
 * posting row, an assignment and totals, the test student last. */
static const char canvas[] =
    "\xef\xbb\xbfStudent,ID,SIS User ID,SIS Login ID,Integration ID,Section,"
    "Quiz 1 (111),Current Score,Final Score\r\n"
    ",,,,,,Manual Posting,,\r\n"
    "    Points Possible,,,,,,10.00,(read only),(read only)\r\n"
    "\"Lovelace, Ada\",1001,S-1001,alovelace,,Section A,9.00,90.00,90.00\r\n"
    "\"Hopper, Grace \"\"Amazing\"\"\",1002,S-1002,GHopper,,\"Section A and Section B\","
    ",,\r\n"
    "Zoë Ünicode,1003,,zunicode,,Section B,\"7.5\",\"note,\r\nwith a line break\",\r\n"
    "\"Student, Test\",9999,,,,Section A,,,\r\n";

START_TEST(canvas_export_read)
{
	struct hd_roster r;
	struct hd_err e = { 0 };
	size_t rows[4];

	ck_assert_msg(hd_roster_parse(&r, "roster.csv", canvas, sizeof canvas - 1, &e) == 0, "%s",
		      e.msg);
	ck_assert_uint_eq(r.nrows, 4);
	ck_assert(r.has[HD_ROSTER_SIS_USER] && r.has[HD_ROSTER_SIS_LOGIN]);
	ck_assert_str_eq(r.rows[0].cell[HD_ROSTER_STUDENT], "Lovelace, Ada");
	ck_assert_str_eq(r.rows[0].cell[HD_ROSTER_ID], "1001");
	ck_assert_str_eq(r.rows[0].cell[HD_ROSTER_SIS_USER], "S-1001");
	ck_assert_str_eq(r.rows[0].cell[HD_ROSTER_SIS_LOGIN], "alovelace");
	ck_assert_str_eq(r.rows[0].cell[HD_ROSTER_SECTION], "Section A");
	ck_assert_int_eq(r.rows[0].line, 4);
	ck_assert_str_eq(r.rows[1].cell[HD_ROSTER_STUDENT], "Hopper, Grace \"Amazing\"");
	ck_assert_str_eq(r.rows[1].cell[HD_ROSTER_SECTION], "Section A and Section B");
	ck_assert_str_eq(r.rows[2].cell[HD_ROSTER_STUDENT], "Zoë Ünicode");
	ck_assert_str_eq(r.rows[2].cell[HD_ROSTER_SIS_USER], "");
	/* the quoted line break in a column hdsim skips counts as a line */
	ck_assert_int_eq(r.rows[2].line, 6);
	ck_assert_int_eq(r.rows[3].line, 8);
	ck_assert(hd_roster_test_student(&r.rows[3]));
	ck_assert(!hd_roster_test_student(&r.rows[0]));

	/* ids: any of the three columns, letter case aside */
	ck_assert_uint_eq(hd_roster_find_id(&r, "s-1001", rows, 4), 1);
	ck_assert_uint_eq(rows[0], 0);
	ck_assert_uint_eq(hd_roster_find_id(&r, "ghopper", rows, 4), 1);
	ck_assert_uint_eq(rows[0], 1);
	ck_assert_uint_eq(hd_roster_find_id(&r, "1003", rows, 4), 1);
	ck_assert_uint_eq(rows[0], 2);
	ck_assert_uint_eq(hd_roster_find_id(&r, "1004", rows, 4), 0);
	ck_assert_uint_eq(hd_roster_find_id(&r, "", rows, 4), 0);
	/* names: case, spaces and the order of "Last, First" aside */
	ck_assert_uint_eq(hd_roster_find_name(&r, "ada lovelace", rows, 4), 1);
	ck_assert_uint_eq(rows[0], 0);
	ck_assert_uint_eq(hd_roster_find_name(&r, "  LOVELACE,Ada ", rows, 4), 1);
	ck_assert_uint_eq(hd_roster_find_name(&r, "Ada  Lovelace", rows, 4), 1);
	ck_assert_uint_eq(hd_roster_find_name(&r, "zoë   Ünicode", rows, 4), 1);
	/* letter case is folded in ASCII only */
	ck_assert_uint_eq(hd_roster_find_name(&r, "zoë ünicode", rows, 4), 0);
	ck_assert_uint_eq(rows[0], 2);
	ck_assert_uint_eq(hd_roster_find_name(&r, "Ada", rows, 4), 0);
	ck_assert_uint_eq(hd_roster_find_name(&r, "Lovelace", rows, 4), 0);
	hd_roster_free(&r);
	hd_roster_free(&r); /* twice is harmless */
	hd_roster_free(NULL);
}
END_TEST

START_TEST(other_layouts_read)
{
	/* semicolons (Canvas in some locales), split names, columns in another
	 * order, no SIS User ID, LF line ends, no final line end */
	static const char semi[] = "Student;ID;SIS Login ID;Section;Lab (4)\n"
				   "Points Possible;;;;5\n"
				   "\"Turing; Alan\";77;aturing;B;4";
	static const char split[] = "LastName,FirstName,ID,SIS User ID,SIS Login ID,Section\n"
				    "Noether,Emmy,5,s5,enoether,A\n";
	static const char order[] = "section,sis login id,student\r"
				    "A,eve,\"Eve, Adams\"\r";
	struct hd_roster r;
	struct hd_err e = { 0 };
	size_t rows[2];

	ck_assert_msg(hd_roster_parse(&r, "semi.csv", semi, sizeof semi - 1, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(r.nrows, 1);
	ck_assert_str_eq(r.rows[0].cell[HD_ROSTER_STUDENT], "Turing; Alan");
	ck_assert_str_eq(r.rows[0].cell[HD_ROSTER_SIS_LOGIN], "aturing");
	ck_assert(!r.has[HD_ROSTER_SIS_USER]);
	ck_assert_str_eq(r.rows[0].cell[HD_ROSTER_SIS_USER], "");
	hd_roster_free(&r);

	ck_assert_msg(hd_roster_parse(&r, "split.csv", split, sizeof split - 1, &e) == 0, "%s",
		      e.msg);
	ck_assert_uint_eq(r.nrows, 1);
	ck_assert_str_eq(r.rows[0].cell[HD_ROSTER_STUDENT], "Noether, Emmy");
	ck_assert_uint_eq(hd_roster_find_name(&r, "Emmy Noether", rows, 2), 1);
	hd_roster_free(&r);

	ck_assert_msg(hd_roster_parse(&r, "order.csv", order, sizeof order - 1, &e) == 0, "%s",
		      e.msg);
	ck_assert_uint_eq(r.nrows, 1);
	ck_assert_str_eq(r.rows[0].cell[HD_ROSTER_STUDENT], "Eve, Adams");
	ck_assert_str_eq(r.rows[0].cell[HD_ROSTER_SECTION], "A");
	ck_assert_int_eq(r.rows[0].line, 2);
	hd_roster_free(&r);
}
END_TEST

/* text with "@" replaced by n copies of c */
static char *
with_run(const char *text, char c, size_t n, size_t *len)
{
	const char *at = strchr(text, '@');
	size_t head = (size_t)(at - text), tail = strlen(at + 1);
	char *s = hd_xmalloc(head + n + tail + 1);

	memcpy(s, text, head);
	memset(s + head, c, n);
	memcpy(s + head + n, at + 1, tail + 1);
	*len = head + n + tail;
	return s;
}

START_TEST(hostile_rosters_refused)
{
	static const char head[] = "Student,ID,SIS User ID,SIS Login ID,Section\r\n";
	static const struct {
		const char *text, *where, *says;
	} cases[] = {
		{ "", "r.csv:1", "empty" },
		{ "\xef\xbb\xbf", "r.csv:1", "empty" },
		{ "Student,ID,SIS Login ID\r\n", "r.csv:1", "no student" },
		{ "Name,Email\r\nAda,a@x\r\n", "r.csv:1", "not a Canvas roster" },
		{ "Student,Section\r\nAda,A\r\n", "r.csv:1", "ID, SIS User ID or SIS Login ID" },
		{ "Student,ID,id\r\n", "r.csv:1", "two 'ID' columns (fields 2 and 3)" },
		{ "Student,ID\r\n\"Lovelace, Ada,1\r\n2\r\n", "r.csv:2", "never closed" },
		{ "Student,ID\r\nLove\"lace,1\r\n", "r.csv:2", "a quote inside field 1" },
		{ "Student,ID\r\n\"Lovelace\" Ada,1\r\n", "r.csv:2", "after the closing quote" },
		{ "Student,ID\r\nLovelace, Ada,1\r\n", "r.csv:2", "more fields than the header" },
		{ "Student,ID\r\n\"Ada\nLovelace\",1\r\n", "r.csv:2", "line break" },
		{ "Student,ID,SIS Login ID\r\nAda,1,a\x1b[2J\r\n", "r.csv:2",
		  "control character (byte 0x1b)" },
		{ "Student,ID\r\nAda,=cmd|' /C calc'!A0\r\n", "r.csv:2",
		  "is not a Canvas user id" },
		{ "Student,ID\r\nAda,12a\r\n", "r.csv:2", "not a Canvas user id" },
		{ "Student,ID\r\nAda,1\r\nBob,2\r\n\r\nEve,1\r\n", "r.csv:5",
		  "ID '1' is also the ID of line 2" },
		{ "Student,ID,SIS Login ID\r\nAda,1,ADA\r\nBob,2,ada\r\n", "r.csv:3",
		  "SIS Login ID 'ada' is also the SIS Login ID of line 2" },
		{ "Student,ID\r\nLatin \xe9t\xe9,1\r\n", "r.csv:2", "byte 0xe9 is not UTF-8" },
	};
	struct hd_roster r;
	size_t i, len;
	char *text;

	for (i = 0; i < HD_ARRAY_LEN(cases); i++) {
		struct hd_err e = { 0 };
		ck_assert_int_eq(
		    hd_roster_parse(&r, "r.csv", cases[i].text, strlen(cases[i].text), &e), -1);
		ck_assert_msg(strcmp(e.where, cases[i].where) == 0 &&
				  strstr(e.msg, cases[i].says) != NULL,
			      "case %zu: %s: %s", i, e.where, e.msg);
		ck_assert_int_eq(e.status, HD_EXIT_INPUT);
		ck_assert_ptr_null(r.rows);
	}
	/* a NUL byte, which no string of the table can hold */
	{
		static const char nul[] = "Student,ID\r\n\r\nAda,1\r\nB\0b,2\r\n";
		struct hd_err e = { 0 };

		ck_assert_int_eq(hd_roster_parse(&r, "r.csv", nul, sizeof nul - 1, &e), -1);
		ck_assert_str_eq(e.where, "r.csv:4");
		ck_assert_ptr_nonnull(strstr(e.msg, "a NUL byte"));
	}
	/* limits: a field, a kept cell, the fields of a row, the students */
	{
		struct hd_err e = { 0 };
		struct hd_buf b;
		int k;

		text = with_run("Student,ID,Notes\r\nAda,1,\"@\"\r\n", 'x', HD_ROSTER_FIELD_MAX + 1,
				&len);
		ck_assert_int_eq(hd_roster_parse(&r, "r.csv", text, len, &e), -1);
		ck_assert_msg(strstr(e.msg, "field 3 is longer than 65536 bytes") &&
				  strcmp(e.where, "r.csv:2") == 0,
			      "%s: %s", e.where, e.msg);
		free(text);
		text = with_run("Student,ID,Notes\r\nAda,1,@\r\n", 'x', HD_ROSTER_FIELD_MAX, &len);
		ck_assert_msg(hd_roster_parse(&r, "r.csv", text, len, &e) == 0, "%s", e.msg);
		hd_roster_free(&r);
		free(text);
		text = with_run("Student,ID\r\n@,1\r\n", 'x', HD_ROSTER_CELL_MAX + 1, &len);
		ck_assert_int_eq(hd_roster_parse(&r, "r.csv", text, len, &e), -1);
		ck_assert_ptr_nonnull(strstr(e.msg, "the Student cell is 257 bytes long"));
		free(text);
		text = with_run("Student,ID@\r\n", ',', HD_ROSTER_COLS_MAX, &len);
		ck_assert_int_eq(hd_roster_parse(&r, "r.csv", text, len, &e), -1);
		ck_assert_ptr_nonnull(strstr(e.msg, "more than 5000 fields"));
		free(text);

		/* HD_ROSTER_ROWS_MAX students are read, one more is refused */
		hd_buf_init(&b);
		hd_buf_puts(&b, head);
		for (k = 1; k <= HD_ROSTER_ROWS_MAX; k++)
			hd_buf_printf(&b, "\"Same, Name\",%d,,login%d,A\r\n", k, k);
		ck_assert_msg(hd_roster_parse(&r, "r.csv", b.s, b.len, &e) == 0, "%s", e.msg);
		ck_assert_uint_eq(r.nrows, HD_ROSTER_ROWS_MAX);
		{
			/* 20,000 rows of one name: found in O(max), counted to max + 1 */
			size_t rows[2];

			ck_assert_uint_eq(hd_roster_find_name(&r, "name same", rows, 2), 3);
			ck_assert_uint_eq(rows[0], 0);
			ck_assert_uint_eq(rows[1], 1);
		}
		hd_roster_free(&r);
		hd_buf_puts(&b, "Extra,99999,,extra,A\r\n");
		ck_assert_int_eq(hd_roster_parse(&r, "r.csv", b.s, b.len, &e), -1);
		ck_assert_ptr_nonnull(strstr(e.msg, "more than 20000 students"));
		hd_buf_free(&b);
	}
}
END_TEST

START_TEST(roster_file_refused)
{
	struct hd_roster r;
	struct hd_err e = { 0 };
	char path[128];

	snprintf(path, sizeof path, "%s/none.csv", dir);
	ck_assert_int_eq(hd_roster_load(&r, path, &e), -1);
	ck_assert_str_eq(e.where, path);
	ck_assert_int_eq(hd_roster_load(&r, dir, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "directory"));
	ck_assert_int_eq(hd_roster_load(&r, "/dev/zero", &e), -1);
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
}
END_TEST

/* ---- the join ------------------------------------------------------------- */

static void
answer(const char *db, const char *who, const char *id, const char *lesson, int correct)
{
	struct hd_err e = { 0 };
	struct hd_store *s = hd_store_open(db, HD_STORE_RW, &e);
	struct hd_store_progress p = { .learner = who,
				       .lesson = lesson,
				       .question = "q1",
				       .answer = "a",
				       .correct = correct };

	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_msg(hd_store_progress_add(s, &p, NULL, &e) == 0, "%s", e.msg);
	if (id != NULL)
		ck_assert_msg(hd_store_learner_set_roster_id(s, who, id, &e) == 0, "%s", e.msg);
	hd_store_close(s);
}

/* The report's text (what went to standard error). */
static char *
slurp_stream(FILE *f)
{
	long n = ftell(f);
	char *s = hd_xcalloc((size_t)n + 1, 1);

	rewind(f);
	ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
	return s;
}

START_TEST(class_joined_to_roster)
{
	static const char roster[] =
	    "Student,ID,SIS User ID,SIS Login ID,Section\r\n"
	    "\"Lovelace, Ada\",1001,S-1001,alovelace,A\r\n" /* ada: by learner id */
	    "\"Hopper, Grace\",1002,S-1002,ghopper,A\r\n"   /* grace: by name */
	    "\"Turing, Alan\",1003,S-1003,aturing,B\r\n"    /* two learners claim it */
	    "\"Noether, Emmy\",1004,S-1004,enoether,B\r\n"  /* no learner */
	    "\"Twin, Same\",1005,,twin1,B\r\n"              /* a name on two rows */
	    "\"Twin, Same\",1006,,twin2,B\r\n"
	    "\"Byron, Ada\",1007,,-abyron,B\r\n" /* a formula-looking login */
	    "\"Student, Test\",9999,,,A\r\n";
	char *d1 = hd_xasprintf("%s/a.db", dir), *d2 = hd_xasprintf("%s/b.db", dir);
	char *dbs[2] = { d1, d2 }, *text;
	struct hd_export_class c;
	struct hd_export_class_opts opts = { HD_EXPORT_GRADE_FIRST, false, NULL };
	struct hd_gradebook_join j;
	struct hd_roster r;
	struct hd_err e = { 0 };
	FILE *rep = tmpfile();
	struct hd_exw w;
	size_t i;

	answer(d1, "ada", "s-1001", "pinned-vs-pageable", 1);       /* by SIS User ID */
	answer(d1, "Grace  HOPPER", NULL, "pinned-vs-pageable", 0); /* by name */
	answer(d1, "alan", "aturing", "pinned-vs-pageable", 1);
	answer(d2, "a. turing", "ATURING", "pinned-vs-pageable", 0); /* the same row */
	answer(d2, "Same Twin", NULL, "pinned-vs-pageable", 1);
	answer(d2, "nobody", "x999", "pinned-vs-pageable", 1);
	answer(d1, "sam", "s1", "two-streams", 1); /* one name, two ids */
	answer(d2, "sam", "s2", "two-streams", 1);
	answer(d2, "Alan Turing", NULL, "two-streams", 1); /* by name; aturing has it by id */
	ck_assert_msg(hd_roster_parse(&r, "roster.csv", roster, sizeof roster - 1, &e) == 0, "%s",
		      e.msg);
	ck_assert_msg(hd_export_class_load(&c, dbs, 2, &opts, &e) == 0, "%s", e.msg);
	ck_assert_msg(hd_gradebook_join(&j, &c, &r, rep, &e) == 0, "%s", e.msg);
	text = slurp_stream(rep);

	ck_assert_str_eq(j.learner[0], "ada");
	ck_assert_int_eq(j.how[0], HD_GRADEBOOK_BY_ID);
	ck_assert_str_eq(j.learner[1], "Grace  HOPPER");
	ck_assert_int_eq(j.how[1], HD_GRADEBOOK_BY_NAME);
	for (i = 2; i < r.nrows; i++)
		ck_assert_msg(j.learner[i] == NULL, "row %zu has %s", i, j.learner[i]);
	ck_assert_uint_eq(j.by_id, 1);
	ck_assert_uint_eq(j.by_name, 1);
	ck_assert_uint_eq(j.orphans, 6);
	{
		static const char *const says[] = {
			"roster.csv:4 ('Turing, Alan') is matched by learner id by learner 'a. "
			"turing'",
			"roster.csv:4 ('Turing, Alan') is matched by learner id by learner 'alan'",
			"roster.csv:4 ('Turing, Alan') is matched by name by learner 'Alan Turing'",
			"learner 'Same Twin' (",
			"has the name of roster.csv:6 and of roster.csv:7",
			"learner 'nobody' (",
			"gives learner id 'x999', which no roster row has",
			"learner 'nobody' (",
			"matches no roster row by name: left out",
			"learner 'sam' gives two learner ids, 's1' (",
			"roster.csv:5: no learner for 'Noether, Emmy' (SIS Login ID enoether)",
			"roster.csv:8: the SIS Login ID '-abyron' starts like a spreadsheet formula",
			"roster roster.csv: 7 students and Canvas's test student, 2 with a "
			"learner (1 by learner id, 1 by name); 6 learners of 8 left out",
		};

		for (i = 0; i < HD_ARRAY_LEN(says); i++)
			ck_assert_msg(strstr(text, says[i]) != NULL, "the report lacks '%s':\n%s",
				      says[i], text);
		/* the test student is not reported */
		ck_assert_ptr_null(strstr(text, "Student, Test"));
	}

	/* the file: the roster's rows and ids, a score where a learner is */
	c.join = &j;
	hd_exw_init(&w, NULL);
	hd_export_class_gradebook(&c, &w);
	ck_assert_ptr_nonnull(strstr(w.b.s,
				     "Student,ID,SIS User ID,SIS Login ID,Section,"
				     "hdsim pinned-vs-pageable (grade: first),"
				     "hdsim two-streams (grade: first)\r\n"
				     "Points Possible,,,,,1,1\r\n"
				     "\"Lovelace, Ada\",1001,S-1001,alovelace,A,1,\r\n"
				     "\"Hopper, Grace\",1002,S-1002,ghopper,A,0,\r\n"
				     "\"Turing, Alan\",1003,S-1003,aturing,B,,\r\n"));
	ck_assert_ptr_nonnull(strstr(w.b.s,
				     "\"Byron, Ada\",1007,,'-abyron,B,,\r\n"
				     "\"Student, Test\",9999,,,A,,\r\n"));
	hd_exw_free(&w);

	free(text);
	fclose(rep);
	hd_gradebook_join_free(&j);
	hd_gradebook_join_free(NULL);
	hd_export_class_free(&c);
	hd_roster_free(&r);
	free(d1);
	free(d2);
}
END_TEST

/* The gradebook a roster fills is graded by the class's policy, with the
 * points of the stored lesson version (no lesson file on any path): a wrong
 * answer given before the run was shown, then a right one after it. */
START_TEST(roster_rows_graded_by_policy)
{
	static const char lesson[] = "hdsim 1\nlesson worth\ntitle \"Worth\"\n"
				     "question q1 choice \"Which?\"\n"
				     "  option a \"A\"\n  option b \"B\"\n"
				     "  answer a\n  points 3\nend\n"
				     "question q2 choice \"And?\"\n"
				     "  option a \"A\"\n  option b \"B\"\n"
				     "  answer b\n  points 2\nend\n"
				     "scenario s\n  host 1ms\nend\n";
	static const char roster[] = "Student,ID,SIS User ID,SIS Login ID,Section\r\n"
				     "\"Lovelace, Ada\",1001,S-1001,alovelace,A\r\n"
				     "\"Hopper, Grace\",1002,S-1002,ghopper,A\r\n";
	static const struct {
		enum hd_export_grade g;
		const char *file;
	} want[] = {
		{ HD_EXPORT_GRADE_FIRST,
		  "Student,ID,SIS User ID,SIS Login ID,Section,"
		  "hdsim worth (grade: first)\r\n"
		  "Points Possible,,,,,5\r\n"
		  "\"Lovelace, Ada\",1001,S-1001,alovelace,A,0\r\n"
		  "\"Hopper, Grace\",1002,S-1002,ghopper,A,\r\n" },
		{ HD_EXPORT_GRADE_BEST,
		  "Student,ID,SIS User ID,SIS Login ID,Section,"
		  "hdsim worth (grade: best)\r\n"
		  "Points Possible,,,,,5\r\n"
		  "\"Lovelace, Ada\",1001,S-1001,alovelace,A,3\r\n"
		  "\"Hopper, Grace\",1002,S-1002,ghopper,A,\r\n" },
		{ HD_EXPORT_GRADE_LAST,
		  "Student,ID,SIS User ID,SIS Login ID,Section,"
		  "hdsim worth (grade: last)\r\n"
		  "Points Possible,,,,,5\r\n"
		  "\"Lovelace, Ada\",1001,S-1001,alovelace,A,3\r\n"
		  "\"Hopper, Grace\",1002,S-1002,ghopper,A,\r\n" },
	};
	char *db = hd_xasprintf("%s/ada.db", dir);
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_parse(lesson, sizeof lesson - 1, "worth.hds", &e);
	struct hd_store_snapshot *snap;
	struct hd_store_progress p = { .learner = "ada",
				       .lesson = "worth",
				       .question = "q1",
				       .answer = "b",
				       .correct = 0,
				       .confidence = 5,
				       .seen = 0 };
	struct hd_store *st;
	struct hd_roster r;
	size_t i;

	ck_assert_msg(l != NULL, "%s", e.msg);
	snap = hd_store_snapshot_of(l);
	p.snapshot = snap;
	st = hd_store_open(db, HD_STORE_RW, &e);
	ck_assert_msg(st != NULL, "%s", e.msg);
	ck_assert_msg(hd_store_progress_add(st, &p, NULL, &e) == 0, "%s", e.msg);
	p.answer = "a";
	p.correct = 1;
	p.seen = 1;
	ck_assert_msg(hd_store_progress_add(st, &p, NULL, &e) == 0, "%s", e.msg);
	ck_assert_msg(hd_store_learner_set_roster_id(st, "ada", "alovelace", &e) == 0, "%s", e.msg);
	hd_store_close(st);
	ck_assert_msg(hd_roster_parse(&r, "roster.csv", roster, sizeof roster - 1, &e) == 0, "%s",
		      e.msg);

	for (i = 0; i < HD_ARRAY_LEN(want); i++) {
		struct hd_export_class_opts opts = { want[i].g, false, NULL };
		struct hd_export_class c;
		struct hd_gradebook_join j;
		struct hd_exw w;

		ck_assert_msg(hd_export_class_load(&c, &db, 1, &opts, &e) == 0, "%s", e.msg);
		ck_assert_msg(hd_gradebook_join(&j, &c, &r, NULL, &e) == 0, "%s", e.msg);
		ck_assert_uint_eq(j.by_id, 1);
		c.join = &j;
		hd_exw_init(&w, NULL);
		hd_export_class_gradebook(&c, &w);
		ck_assert_str_eq(w.b.s, want[i].file);
		hd_exw_free(&w);
		hd_gradebook_join_free(&j);
		hd_export_class_free(&c);
	}
	hd_roster_free(&r);
	hd_store_snapshot_free(snap);
	hd_lesson_free(l);
	free(db);
}
END_TEST

START_TEST(lesson_ids_as_columns)
{
	ck_assert(hd_gradebook_lesson_ok("pinned-vs-pageable"));
	ck_assert(hd_gradebook_lesson_ok("_x9"));
	ck_assert(!hd_gradebook_lesson_ok(""));
	ck_assert(!hd_gradebook_lesson_ok("quiz (4757)"));
	ck_assert(!hd_gradebook_lesson_ok("9lives"));
	ck_assert(!hd_gradebook_lesson_ok("a-"));
	ck_assert(!hd_gradebook_lesson_ok("a--b"));
	ck_assert(!hd_gradebook_lesson_ok("=cmd"));
}
END_TEST

static Suite *
roster_suite(void)
{
	Suite *s = suite_create("roster");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, canvas_export_read);
	tcase_add_test(tc, other_layouts_read);
	tcase_add_test(tc, hostile_rosters_refused);
	tcase_add_test(tc, roster_file_refused);
	tcase_add_test(tc, class_joined_to_roster);
	tcase_add_test(tc, roster_rows_graded_by_policy);
	tcase_add_test(tc, lesson_ids_as_columns);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(roster_suite());
}
