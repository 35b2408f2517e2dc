/*
 * util.h - allocation, growable buffers and the one error convention.
 *
 * Allocation never returns NULL: hd_xmalloc and friends print a message and
 * exit, as htop's xMalloc and tmux's xmalloc do, so callers stay simple.
 *
 * Errors that a user can cause (a bad lesson, a bad flag, a bad profile) are
 * carried in a struct hd_err up to the edge of the program, which prints
 * them and picks the exit status.  Library code never prints and never exits
 * for such errors.
 */
#ifndef HD_UTIL_H
#define HD_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define HD_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define HD_NORETURN     __attribute__((noreturn))
#else
#define HD_PRINTF(f, a)
#define HD_NORETURN
#endif

#define HD_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Exit statuses shared by every command. */
enum {
	HD_EXIT_OK = 0,
	HD_EXIT_FAIL = 1,        /* a run failed, a claim was refuted, no GPU ... */
	HD_EXIT_INPUT = 2,       /* bad input: lesson file, flag, profile */
	HD_EXIT_INTERRUPT = 130, /* stopped by SIGINT, as shells report it (128 + 2) */
};

void *hd_xmalloc(size_t n);
void *hd_xcalloc(size_t n, size_t size);
void *hd_xrealloc(void *p, size_t n);
/* Grow-by-doubling helper: ensures *cap >= need, reallocating p. */
void *hd_xgrow(void *p, size_t *cap, size_t need, size_t size);
char *hd_xstrdup(const char *s);
char *hd_xstrndup(const char *s, size_t n);
char *hd_xasprintf(const char *fmt, ...) HD_PRINTF(1, 2);
/* Print "hdsim: fatal: ..." and exit(1).  For bugs and exhausted memory. */
void hd_fatal(const char *fmt, ...) HD_PRINTF(1, 2) HD_NORETURN;
/* What hd_fatal calls before it prints (NULL: nothing): the terminal UI
 * gives the screen back there, so the message is not lost with it. */
void hd_fatal_hook(void (*before)(void));

/* A growable NUL-terminated string. */
struct hd_buf {
	char *s;
	size_t len, cap;
};
void hd_buf_init(struct hd_buf *b);
void hd_buf_free(struct hd_buf *b);
void hd_buf_putc(struct hd_buf *b, char c);
void hd_buf_puts(struct hd_buf *b, const char *s);
void hd_buf_putn(struct hd_buf *b, const char *s, size_t n);
void hd_buf_printf(struct hd_buf *b, const char *fmt, ...) HD_PRINTF(2, 3);
void hd_buf_vprintf(struct hd_buf *b, const char *fmt, va_list ap);
/* Append s as a JSON string literal, quotes included, NULL as "" (the
 * writer and its rules are base/json.h). */
void hd_buf_json_str(struct hd_buf *b, const char *s);
/* Take ownership of the string; the buffer is left empty. */
char *hd_buf_take(struct hd_buf *b);

/*
 * An error a user can act on.  `where` is "file:line:col" or a name such as
 * "--profile" (may be empty); `msg` says what was wrong and what was expected;
 * `context` is the source line and a caret under the column (may be empty).
 */
struct hd_err {
	int set;
	int status; /* exit status the edge should use */
	char where[256];
	char msg[768];
	char context[1024];
};
void hd_err_set(struct hd_err *e, int status, const char *where, const char *fmt, ...)
    HD_PRINTF(4, 5);
/* Write "where: error: msg\ncontext" to f (a FILE *). */
void hd_err_print(const struct hd_err *e, void *f);

/* Read a whole regular file; NULL with e set on failure.  *len gets the
 * size.  A FIFO, device or socket is refused without waiting on it, and a
 * file longer than HD_READ_MAX bytes is refused, read no further. */
#define HD_READ_MAX (16u << 20)
char *hd_read_file(const char *path, size_t *len, struct hd_err *e);

#endif
