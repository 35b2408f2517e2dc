/*
 * util.c - allocation that never fails quietly, growable strings, and the
 * struct hd_err convention (see util.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "base/sanitize.h"
#include "base/util.h"

static void (*fatal_before)(void);

void
hd_fatal_hook(void (*before)(void))
{
	fatal_before = before;
}

void
hd_fatal(const char *fmt, ...)
{
	va_list ap;

	/* a full-screen terminal first gives the screen back, so the message
	 * is seen on the normal screen instead of vanishing with the alternate */
	if (fatal_before != NULL)
		fatal_before();
	fflush(stdout);
	fputs("hdsim: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(HD_EXIT_FAIL);
}

void *
hd_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		hd_fatal("out of memory allocating %zu bytes", n);
	return p;
}

void *
hd_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		hd_fatal("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

void *
hd_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		hd_fatal("out of memory reallocating %zu bytes", n);
	return q;
}

void *
hd_xgrow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap;

	if (need <= c)
		return p;
	if (c < 8)
		c = 8;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			hd_fatal("size overflow growing an array to %zu items", need);
		c *= 2;
	}
	if (size != 0 && c > SIZE_MAX / size)
		hd_fatal("size overflow growing an array to %zu items", need);
	p = hd_xrealloc(p, c * size);
	*cap = c;
	return p;
}

char *
hd_xstrdup(const char *s)
{
	return hd_xstrndup(s, strlen(s));
}

char *
hd_xstrndup(const char *s, size_t n)
{
	char *p = hd_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
hd_xasprintf(const char *fmt, ...)
{
	struct hd_buf b;
	va_list ap;

	hd_buf_init(&b);
	va_start(ap, fmt);
	hd_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return hd_buf_take(&b);
}

void
hd_buf_init(struct hd_buf *b)
{
	b->s = NULL;
	b->len = b->cap = 0;
}

void
hd_buf_free(struct hd_buf *b)
{
	if (b == NULL)
		return;
	free(b->s);
	hd_buf_init(b);
}

/* Make room for n more bytes plus the terminating NUL. */
static void
buf_reserve(struct hd_buf *b, size_t n)
{
	if (n > SIZE_MAX - b->len - 1)
		hd_fatal("string too long");
	b->s = hd_xgrow(b->s, &b->cap, b->len + n + 1, 1);
}

void
hd_buf_putn(struct hd_buf *b, const char *s, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void
hd_buf_putc(struct hd_buf *b, char c)
{
	hd_buf_putn(b, &c, 1);
}

void
hd_buf_puts(struct hd_buf *b, const char *s)
{
	hd_buf_putn(b, s, strlen(s));
}

void
hd_buf_vprintf(struct hd_buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		hd_fatal("bad format string '%s'", fmt);
	buf_reserve(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void
hd_buf_printf(struct hd_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hd_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void
hd_buf_json_str(struct hd_buf *b, const char *s)
{
	hd_json_str(b, s != NULL ? s : "");
}

char *
hd_buf_take(struct hd_buf *b)
{
	char *s = b->s ? b->s : hd_xstrdup("");

	hd_buf_init(b);
	return s;
}

void
hd_err_set(struct hd_err *e, int status, const char *where, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return;
	e->set = 1;
	e->status = status;
	snprintf(e->where, sizeof e->where, "%s", where ? where : "");
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	e->context[0] = '\0';
}

void
hd_err_print(const struct hd_err *e, void *fp)
{
	FILE *f = fp;
	size_t n;

	/* where, msg and context may quote a file or a database: never raw */
	char *where = hd_san_term_dup(e->where, false), *msg = hd_san_term_dup(e->msg, false);
	char *ctx = hd_san_term_dup(e->context, true);

	if (where[0] != '\0')
		fprintf(f, "%s: error: %s\n", where, msg);
	else
		fprintf(f, "hdsim: error: %s\n", msg);
	n = strlen(ctx);
	if (n > 0)
		fprintf(f, "%s%s", ctx, ctx[n - 1] == '\n' ? "" : "\n");
	free(where);
	free(msg);
	free(ctx);
}

char *
hd_read_file(const char *path, size_t *len, struct hd_err *e)
{
	struct hd_buf b;
	struct stat st;
	char chunk[65536];
	FILE *f;
	size_t n;
	int fd;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0) {
		hd_err_set(e, HD_EXIT_INPUT, path, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		hd_err_set(e, HD_EXIT_INPUT, path, "is a directory, not a file");
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		hd_err_set(e, HD_EXIT_INPUT, path,
			   "is not a regular file (a FIFO, device or "
			   "socket): lessons and profiles are read from files");
		return NULL;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
	    (f = fdopen(fd, "rb")) == NULL) {
		hd_err_set(e, HD_EXIT_INPUT, path, "cannot open: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	hd_buf_init(&b);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		hd_buf_putn(&b, chunk, n);
		/* /dev/zero or a runaway file: stop, do not fill memory */
		if (b.len > HD_READ_MAX) {
			hd_err_set(e, HD_EXIT_INPUT, path,
				   "file is more than %u bytes long; "
				   "the limit is %u bytes",
				   HD_READ_MAX, HD_READ_MAX);
			fclose(f);
			hd_buf_free(&b);
			return NULL;
		}
	}
	if (ferror(f)) {
		hd_err_set(e, HD_EXIT_INPUT, path, "cannot read: %s", strerror(errno));
		fclose(f);
		hd_buf_free(&b);
		return NULL;
	}
	fclose(f);
	if (len != NULL)
		*len = b.len;
	return hd_buf_take(&b);
}
