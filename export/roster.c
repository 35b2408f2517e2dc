/*
 * roster.c - reading Canvas's roster (its gradebook export) and finding a
 * learner in it (roster.h).
 *
 * One pass checks the bytes (UTF-8, no NUL), one pass reads the CSV record
 * by record, keeping only the five columns a gradebook needs; then the ids
 * and the names are sorted once into lookup tables, where one id on two rows
 * shows as two neighbours.  Every step is linear in the file or n log n in
 * its rows.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/utf8.h"
#include "export/roster.h"

/* One lookup key: an id (lowercased) or a name key, its column, its row. */
struct hd_roster_key {
	char *key;
	int col;
	size_t row;
};

static const char *const col_names[HD_ROSTER__COUNT] = {
	[HD_ROSTER_STUDENT] = "Student",      [HD_ROSTER_ID] = "ID",
	[HD_ROSTER_SIS_USER] = "SIS User ID", [HD_ROSTER_SIS_LOGIN] = "SIS Login ID",
	[HD_ROSTER_SECTION] = "Section",
};

const char *
hd_roster_col_name(enum hd_roster_col c)
{
	return (unsigned)c < HD_ROSTER__COUNT ? col_names[c] : "?";
}

/* The headers read: the kept columns, and the split name some exports
 * have instead of Student. */
enum {
	COL_LAST = HD_ROSTER__COUNT,
	COL_FIRST,
	COL__COUNT
};

static const struct {
	const char *name;
	int col;
} headers[] = {
	{ "Student", HD_ROSTER_STUDENT },
	{ "ID", HD_ROSTER_ID },
	{ "SIS User ID", HD_ROSTER_SIS_USER },
	{ "SIS Login ID", HD_ROSTER_SIS_LOGIN },
	{ "Section", HD_ROSTER_SECTION },
	{ "LastName", COL_LAST },
	{ "FirstName", COL_FIRST },
};

/* ---- the CSV reader ------------------------------------------------------- */

struct csv {
	const char *name;
	const char *p, *end;
	int line;
	char delim;
	struct hd_buf field;
};

static int csv_error(struct csv *c, int line, struct hd_err *e, const char *fmt, ...)
    HD_PRINTF(4, 5);

static int
csv_error(struct csv *c, int line, struct hd_err *e, const char *fmt, ...)
{
	char where[256], msg[600];
	va_list ap;

	snprintf(where, sizeof where, "%s:%d", c->name, line);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hd_err_set(e, HD_EXIT_INPUT, where, "%s", msg);
	return -1;
}

/* Past a line end at c->p (CRLF, LF or a lone CR), counting it. */
static void
csv_eol(struct csv *c)
{
	if (*c->p == '\r' && c->p + 1 < c->end && c->p[1] == '\n')
		c->p++;
	c->p++;
	c->line++;
}

static bool
is_eol(char ch)
{
	return ch == '\r' || ch == '\n';
}

/* Append one byte of a quoted field, counting the lines it spans. */
static void
quoted_byte(struct csv *c)
{
	char ch = *c->p++;

	hd_buf_putc(&c->field, ch);
	if (ch == '\n' || (ch == '\r' && (c->p == c->end || *c->p != '\n')))
		c->line++;
}

/*
 * Read field k (from 1) of the record into c->field; *last tells whether it
 * ended the record (its line end is consumed).  0, or -1 with e set.
 */
static int
csv_field(struct csv *c, int k, bool *last, struct hd_err *e)
{
	int start = c->line;

	c->field.len = 0;
	if (c->field.s != NULL)
		c->field.s[0] = '\0';
	if (c->p < c->end && *c->p == '"') {
		c->p++;
		for (;;) {
			if (c->p == c->end)
				return csv_error(c, start, e,
						 "field %d starts with a quote that is never "
						 "closed",
						 k);
			if (*c->p == '"') {
				if (c->p + 1 < c->end && c->p[1] == '"') {
					hd_buf_putc(&c->field, '"');
					c->p += 2;
					continue;
				}
				c->p++;
				break;
			}
			quoted_byte(c);
			if (c->field.len > HD_ROSTER_FIELD_MAX)
				return csv_error(c, start, e,
						 "field %d is longer than %d bytes, the limit of "
						 "a roster's field",
						 k, HD_ROSTER_FIELD_MAX);
		}
		if (c->p < c->end && *c->p != c->delim && !is_eol(*c->p))
			return csv_error(c, c->line, e,
					 "text after the closing quote of field %d (a quote "
					 "inside a quoted field is written twice: \"\")",
					 k);
	} else {
		const char *s = c->p;

		while (c->p < c->end && *c->p != c->delim && !is_eol(*c->p)) {
			if (*c->p == '"')
				return csv_error(c, c->line, e,
						 "a quote inside field %d, which does not start "
						 "with one (quote the whole field, and write the "
						 "quote twice)",
						 k);
			c->p++;
		}
		if ((size_t)(c->p - s) > HD_ROSTER_FIELD_MAX)
			return csv_error(c, c->line, e,
					 "field %d is longer than %d bytes, the limit of a "
					 "roster's field",
					 k, HD_ROSTER_FIELD_MAX);
		hd_buf_putn(&c->field, s, (size_t)(c->p - s));
	}
	if (c->p < c->end && *c->p == c->delim) {
		c->p++;
		*last = false;
	} else {
		if (c->p < c->end)
			csv_eol(c);
		*last = true;
	}
	return 0;
}

/* ',' unless the first line has more semicolons than commas outside quotes
 * (Canvas writes ';' for some locales). */
static char
sniff_delim(const char *p, const char *end)
{
	int commas = 0, semis = 0;
	bool quoted = false;

	for (; p < end && (quoted || !is_eol(*p)); p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (!quoted && *p == ',')
			commas++;
		else if (!quoted && *p == ';')
			semis++;
	}
	return semis > commas ? ';' : ',';
}

/* The whole file is UTF-8 with no NUL byte: 0, or -1 naming the line. */
static int
check_bytes(const char *name, const char *text, size_t len, struct hd_err *e)
{
	const unsigned char *p = (const unsigned char *)text, *end = p + len;
	char where[256];
	int line = 1;

	while (p < end) {
		unsigned long cp;
		size_t n;

		if (*p == 0) {
			snprintf(where, sizeof where, "%s:%d", name, line);
			hd_err_set(e, HD_EXIT_INPUT, where,
				   "a NUL byte: this is not a CSV file (export the roster "
				   "from Canvas: Grades, Export)");
			return -1;
		}
		if (*p < 0x80) {
			if (*p == '\n' || (*p == '\r' && (p + 1 == end || p[1] != '\n')))
				line++;
			p++;
			continue;
		}
		if ((n = hd_utf8_seq(p, (size_t)(end - p), &cp)) == 0) {
			snprintf(where, sizeof where, "%s:%d", name, line);
			hd_err_set(e, HD_EXIT_INPUT, where,
				   "byte 0x%02x is not UTF-8: save the roster as \"CSV UTF-8\" "
				   "(Canvas's own export is UTF-8)",
				   *p);
			return -1;
		}
		p += n;
	}
	return 0;
}

/* ---- cells ------------------------------------------------------------------ */

/* A kept cell, trimmed of spaces, checked: a fresh string, or NULL with e set. */
static char *
keep_cell(struct csv *c, int line, int col, const char *s, size_t n, struct hd_err *e)
{
	const char *what = col < HD_ROSTER__COUNT ? col_names[col] :
	    col == COL_LAST                       ? "LastName" :
						    "FirstName";
	size_t i;

	while (n > 0 && s[0] == ' ') {
		s++;
		n--;
	}
	while (n > 0 && s[n - 1] == ' ')
		n--;
	if (n > HD_ROSTER_CELL_MAX) {
		csv_error(c, line, e, "the %s cell is %zu bytes long; at most %d are allowed", what,
			  n, HD_ROSTER_CELL_MAX);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		unsigned char b = (unsigned char)s[i];

		if (b == '\n' || b == '\r') {
			csv_error(c, line, e,
				  "the %s cell holds a line break; a name, an id or a section "
				  "is one line",
				  what);
			return NULL;
		}
		if (b < 0x20 || b == 0x7f) {
			csv_error(c, line, e, "the %s cell holds a control character (byte 0x%02x)",
				  what, b);
			return NULL;
		}
		if (col == HD_ROSTER_ID && (b < '0' || b > '9')) {
			csv_error(c, line, e,
				  "the ID '%.*s' is not a Canvas user id, which is a number "
				  "(ids of the school go in SIS User ID or SIS Login ID)",
				  (int)(n < 40 ? n : 40), s);
			return NULL;
		}
	}
	return hd_xstrndup(s, n);
}

/* ---- keys -------------------------------------------------------------------- */

static void
put_lower(struct hd_buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char ch = s[i];

		hd_buf_putc(b, ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch);
	}
}

/* s with ASCII letters lowercased and runs of spaces as one, trimmed. */
static void
put_words(struct hd_buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == ' ' || s[i] == '\t') {
			if (b->len > 0 && b->s[b->len - 1] != ' ')
				hd_buf_putc(b, ' ');
			continue;
		}
		put_lower(b, &s[i], 1);
	}
}

/* The key a name is found by: "first last", lowercased, spaces folded; a
 * name with one comma is read as "Last, First".  Newly allocated. */
static char *
name_key(const char *name)
{
	const char *comma = strchr(name, ',');
	struct hd_buf b;

	hd_buf_init(&b);
	if (comma != NULL && strchr(comma + 1, ',') == NULL) {
		put_words(&b, comma + 1, strlen(comma + 1));
		if (b.len > 0 && b.s[b.len - 1] != ' ')
			hd_buf_putc(&b, ' ');
		put_words(&b, name, (size_t)(comma - name));
	} else
		put_words(&b, name, strlen(name));
	while (b.len > 0 && b.s[b.len - 1] == ' ')
		b.s[--b.len] = '\0';
	if (b.s == NULL)
		hd_buf_puts(&b, "");
	return hd_buf_take(&b);
}

static char *
id_key(const char *id)
{
	struct hd_buf b;

	hd_buf_init(&b);
	hd_buf_puts(&b, "");
	put_lower(&b, id, strlen(id));
	return hd_buf_take(&b);
}

static int
key_cmp(const void *pa, const void *pb)
{
	const struct hd_roster_key *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);

	if (c != 0)
		return c;
	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

/* The lookup tables; -1 with e set when one id is on two rows. */
static int
index_rows(struct hd_roster *r, struct hd_err *e)
{
	static const int id_cols[] = { HD_ROSTER_ID, HD_ROSTER_SIS_USER, HD_ROSTER_SIS_LOGIN };
	size_t i, k;

	r->ids = hd_xcalloc(r->nrows * HD_ARRAY_LEN(id_cols) + 1, sizeof *r->ids);
	r->names = hd_xcalloc(r->nrows + 1, sizeof *r->names);
	for (i = 0; i < r->nrows; i++) {
		for (k = 0; k < HD_ARRAY_LEN(id_cols); k++) {
			const char *v = r->rows[i].cell[id_cols[k]];

			if (v[0] == '\0')
				continue;
			r->ids[r->nids].key = id_key(v);
			r->ids[r->nids].col = id_cols[k];
			r->ids[r->nids++].row = i;
		}
		if (r->rows[i].cell[HD_ROSTER_STUDENT][0] != '\0') {
			r->names[r->nnames].key = name_key(r->rows[i].cell[HD_ROSTER_STUDENT]);
			r->names[r->nnames].col = HD_ROSTER_STUDENT;
			r->names[r->nnames++].row = i;
		}
	}
	if (r->nids > 1)
		qsort(r->ids, r->nids, sizeof *r->ids, key_cmp);
	if (r->nnames > 1)
		qsort(r->names, r->nnames, sizeof *r->names, key_cmp);
	for (i = 1; i < r->nids; i++) {
		const struct hd_roster_key *a = &r->ids[i - 1], *b = &r->ids[i];
		char where[256];

		if (strcmp(a->key, b->key) != 0 || a->col != b->col)
			continue;
		snprintf(where, sizeof where, "%s:%d", r->path, r->rows[b->row].line);
		hd_err_set(e, HD_EXIT_INPUT, where,
			   "%s '%.40s' is also the %s of line %d: a roster has each student "
			   "once",
			   col_names[b->col], r->rows[b->row].cell[b->col], col_names[a->col],
			   r->rows[a->row].line);
		return -1;
	}
	return 0;
}

/* ---- records ------------------------------------------------------------------- */

/* The header: map[k] is field k's column (or -1).  0, or -1 with e set. */
static int
read_header(struct hd_roster *r, struct csv *c, int **map, int *nmap, struct hd_err *e)
{
	int where[COL__COUNT], k = 0, col, line = c->line;
	bool last = false;
	struct hd_buf seen;
	size_t h;

	for (col = 0; col < COL__COUNT; col++)
		where[col] = 0;
	hd_buf_init(&seen);
	while (!last) {
		const char *s;
		size_t n;

		if (k == HD_ROSTER_COLS_MAX) {
			hd_buf_free(&seen);
			return csv_error(c, line, e, "the header has more than %d fields",
					 HD_ROSTER_COLS_MAX);
		}
		if (csv_field(c, k + 1, &last, e) != 0) {
			hd_buf_free(&seen);
			return -1;
		}
		*map = hd_xrealloc(*map, sizeof **map * (size_t)(k + 1));
		(*map)[k] = -1;
		for (s = c->field.s ? c->field.s : "", n = c->field.len; n > 0 && *s == ' ';
		     s++, n--)
			;
		while (n > 0 && s[n - 1] == ' ')
			n--;
		if (k < 6) {
			hd_buf_printf(&seen, "%s'%.*s'", k > 0 ? ", " : "", (int)(n < 30 ? n : 30),
				      s);
		}
		for (h = 0; h < HD_ARRAY_LEN(headers); h++)
			if (strlen(headers[h].name) == n && strncasecmp(s, headers[h].name, n) == 0)
				break;
		k++;
		if (h == HD_ARRAY_LEN(headers))
			continue;
		col = headers[h].col;
		if (where[col] != 0) {
			hd_buf_free(&seen);
			return csv_error(c, line, e, "two '%s' columns (fields %d and %d)",
					 headers[h].name, where[col], k);
		}
		where[col] = k;
		(*map)[k - 1] = col;
	}
	*nmap = k;
	for (col = 0; col < HD_ROSTER__COUNT; col++)
		r->has[col] = where[col] != 0;
	if ((where[HD_ROSTER_STUDENT] == 0 && (where[COL_LAST] == 0 || where[COL_FIRST] == 0)) ||
	    (where[HD_ROSTER_ID] == 0 && where[HD_ROSTER_SIS_USER] == 0 &&
	     where[HD_ROSTER_SIS_LOGIN] == 0)) {
		csv_error(c, line, e,
			  "not a Canvas roster: its header needs Student (or LastName and "
			  "FirstName) and ID, SIS User ID or SIS Login ID, and it begins %s%s "
			  "(export it from Canvas: Grades, Export, Export Entire Gradebook)",
			  seen.s ? seen.s : "''", k > 6 ? ", ..." : "");
		hd_buf_free(&seen);
		return -1;
	}
	r->has[HD_ROSTER_STUDENT] = true;
	hd_buf_free(&seen);
	return 0;
}

static void
row_free(struct hd_roster_row *row)
{
	int i;

	for (i = 0; i < HD_ROSTER__COUNT; i++)
		free(row->cell[i]);
}

/* "Last, First" from the split columns, either part possibly empty. */
static char *
join_name(const char *last, const char *first)
{
	if (last[0] != '\0' && first[0] != '\0')
		return hd_xasprintf("%s, %s", last, first);
	return hd_xstrdup(last[0] != '\0' ? last : first);
}

/* Is this row a student: not Points Possible, not the hidden-assignments
 * row, not a row with no name and no id? */
static bool
is_student(const struct hd_roster_row *row)
{
	int i;

	if (strstr(row->cell[HD_ROSTER_STUDENT], "Points Possible") != NULL)
		return false;
	for (i = 0; i < HD_ROSTER__COUNT; i++)
		if (i != HD_ROSTER_SECTION && row->cell[i][0] != '\0')
			return true;
	return false;
}

/* One record after the header: kept into r when it is a student's.  Its
 * fields are counted before any cell is checked, so that a name with an
 * unquoted comma is named as such. */
static int
read_row(struct hd_roster *r, struct csv *c, const int *map, int nmap, struct hd_err *e)
{
	char *raw[COL__COUNT] = { 0 }, *v[COL__COUNT] = { 0 };
	size_t rawlen[COL__COUNT] = { 0 };
	struct hd_roster_row row;
	int k = 0, line = c->line, col, rc = -1;
	bool last = false;

	memset(&row, 0, sizeof row);
	while (!last) {
		if (csv_field(c, k + 1, &last, e) != 0)
			goto out;
		if (k == nmap) {
			csv_error(c, line, e,
				  "this row has more fields than the header's %d (a name with "
				  "a comma must be in quotes)",
				  nmap);
			goto out;
		}
		col = map[k++];
		if (col < 0)
			continue;
		rawlen[col] = c->field.len;
		raw[col] = hd_xstrndup(c->field.s ? c->field.s : "", c->field.len);
	}
	for (col = 0; col < COL__COUNT; col++)
		if ((v[col] = keep_cell(c, line, col, raw[col] ? raw[col] : "", rawlen[col], e)) ==
		    NULL)
			goto out;
	row.line = line;
	for (col = 0; col < HD_ROSTER__COUNT; col++) {
		row.cell[col] = v[col];
		v[col] = NULL;
	}
	if (row.cell[HD_ROSTER_STUDENT][0] == '\0' &&
	    (v[COL_LAST][0] != '\0' || v[COL_FIRST][0] != '\0')) {
		free(row.cell[HD_ROSTER_STUDENT]);
		row.cell[HD_ROSTER_STUDENT] = join_name(v[COL_LAST], v[COL_FIRST]);
	}
	if (!is_student(&row)) {
		rc = 0;
		goto out;
	}
	if (r->nrows == HD_ROSTER_ROWS_MAX) {
		csv_error(c, line, e, "the roster has more than %d students, the limit",
			  HD_ROSTER_ROWS_MAX);
		goto out;
	}
	r->rows = hd_xgrow(r->rows, &r->rows_cap, r->nrows + 1, sizeof *r->rows);
	r->rows[r->nrows++] = row;
	memset(&row, 0, sizeof row);
	rc = 0;
out:
	row_free(&row);
	for (col = 0; col < COL__COUNT; col++) {
		free(v[col]);
		free(raw[col]);
	}
	return rc;
}

int
hd_roster_parse(struct hd_roster *r, const char *name, const char *text, size_t len,
		struct hd_err *e)
{
	struct csv c = { .name = name, .p = text, .end = text + len, .line = 1 };
	int *map = NULL, nmap = 0, rc = -1;

	memset(r, 0, sizeof *r);
	r->path = hd_xstrdup(name);
	if (check_bytes(name, text, len, e) != 0)
		goto out;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		c.p += 3;
	hd_buf_init(&c.field);
	c.delim = sniff_delim(c.p, c.end);
	if (c.p == c.end) {
		csv_error(&c, 1, e, "the roster is empty");
		goto out;
	}
	if (read_header(r, &c, &map, &nmap, e) != 0)
		goto out;
	while (c.p < c.end)
		if (read_row(r, &c, map, nmap, e) != 0)
			goto out;
	if (r->nrows == 0) {
		csv_error(&c, 1, e, "the roster lists no student, only its header");
		goto out;
	}
	if (index_rows(r, e) != 0)
		goto out;
	rc = 0;
out:
	hd_buf_free(&c.field);
	free(map);
	if (rc != 0)
		hd_roster_free(r);
	return rc;
}

int
hd_roster_load(struct hd_roster *r, const char *path, struct hd_err *e)
{
	size_t len = 0;
	char *text;
	int rc;

	memset(r, 0, sizeof *r);
	if ((text = hd_read_file(path, &len, e)) == NULL)
		return -1;
	rc = hd_roster_parse(r, path, text, len, e);
	free(text);
	return rc;
}

void
hd_roster_free(struct hd_roster *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nrows; i++)
		row_free(&r->rows[i]);
	for (i = 0; i < r->nids; i++)
		free(r->ids[i].key);
	for (i = 0; i < r->nnames; i++)
		free(r->names[i].key);
	free(r->rows);
	free(r->ids);
	free(r->names);
	free(r->path);
	memset(r, 0, sizeof *r);
}

/* ---- finding a learner ------------------------------------------------------------ */

/* The distinct rows of the entries keyed key in v[0 .. n), at most max + 1
 * counted (a row is under at most three ids, so this is O(max) a call). */
static size_t
find(const struct hd_roster_key *v, size_t n, const char *key, size_t *rows, size_t max)
{
	size_t lo = 0, hi = n, count = 0, i, j;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(v[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < n && count <= max && strcmp(v[i].key, key) == 0; i++) {
		/* the same row under two columns is one row */
		for (j = 0; j < count && j < max && rows[j] != v[i].row; j++)
			;
		if (j < count && j < max)
			continue;
		if (count < max)
			rows[count] = v[i].row;
		count++;
	}
	return count;
}

size_t
hd_roster_find_id(const struct hd_roster *r, const char *id, size_t *rows, size_t max)
{
	char *key = id_key(id);
	size_t n = key[0] != '\0' ? find(r->ids, r->nids, key, rows, max) : 0;

	free(key);
	return n;
}

size_t
hd_roster_find_name(const struct hd_roster *r, const char *name, size_t *rows, size_t max)
{
	char *key = name_key(name);
	size_t n = key[0] != '\0' ? find(r->names, r->nnames, key, rows, max) : 0;

	free(key);
	return n;
}

bool
hd_roster_test_student(const struct hd_roster_row *row)
{
	return strcmp(row->cell[HD_ROSTER_STUDENT], "Student, Test") == 0 &&
	    row->cell[HD_ROSTER_SIS_USER][0] == '\0' && row->cell[HD_ROSTER_SIS_LOGIN][0] == '\0';
}
