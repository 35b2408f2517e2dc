/*
 * cudagen.c - print a scenario as the CUDA C program the real backend runs,
 * and as the PyTorch a learner would write (see cudagen.h).
 *
 * Both printers walk the flat op list with a stack of open blocks, so loops
 * and rank blocks come out as nested `for` / `if` blocks, and in the
 * printers' form of a scenario (ir.h, "Conditions") a lesson's `if` on a
 * loop index comes out as an `if` / `else` on the loop's variable.  Host
 * threads (ir/threads.h) come out as pthreads and a bounded queue of a mutex
 * and two condition variables in C, and in Python as threading and
 * queue.Queue, or, for the input pipeline's shape (workers that prepare
 * batches into a queue, perhaps a thread that copies them into pinned
 * memory, the main thread taking them), as the DataLoader that runs that
 * pipeline.  Graphs are captured in the set-up, as the real backend captures
 * them before the run (stream capture in C, torch.cuda.graph in PyTorch),
 * and each launch is one cudaGraphLaunch (g.replay()).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/sanitize.h"
#include "ir/opfacts.h"
#include "ir/threads.h"
#include "real/cudagen.h"

#define MAX_DEPTH 64

static void
indent(struct hd_buf *b, int depth)
{
	int i;

	for (i = 0; i < depth; i++)
		hd_buf_puts(b, "    ");
}

static const char *const memcpy_kind_c[HD_COPY__COUNT] = {
	[HD_COPY_H2D] = "cudaMemcpyHostToDevice",   [HD_COPY_D2H] = "cudaMemcpyDeviceToHost",
	[HD_COPY_D2D] = "cudaMemcpyDeviceToDevice", [HD_COPY_H2H] = "cudaMemcpyHostToHost",
	[HD_COPY_P2P] = "cudaMemcpyDefault",
};

/* Words a lesson's names must not become in the printed code. */
static const char *const reserved_c[] = {
	"auto",    "break",   "case",     "char",   "const",     "continue", "default",
	"do",      "double",  "else",     "enum",   "extern",    "float",    "for",
	"goto",    "if",      "inline",   "int",    "long",      "register", "restrict",
	"return",  "short",   "signed",   "sizeof", "static",    "struct",   "switch",
	"typedef", "union",   "unsigned", "void",   "volatile",  "while",    "main",
	"rank",    "scratch", "landing",  "big",    "on_device", "on_host",  "busy_cpu_ns",
	"free",    "malloc",  "memset",   "exit",   "CK",        "capture",  "captured",
	NULL,
};
static const char *const reserved_py[] = {
	"and",    "as",   "assert", "async",  "await",  "break",    "class",    "continue",
	"def",    "del",  "elif",   "else",   "except", "finally",  "for",      "from",
	"global", "if",   "import", "in",     "is",     "lambda",   "nonlocal", "not",
	"or",     "pass", "raise",  "return", "try",    "while",    "with",     "yield",
	"None",   "True", "False",  "torch",  "time",   "busy_cpu", "clock_hz", "total",
	"rank",   "big",  "print",  "mm_x",   NULL,
};

/* ... and those of host threads' code (pthreads and queues; threading, queues
 * and the DataLoader). */
static const char *const reserved_thr_c[] = {
	"queue", "q_init", "q_put", "q_get", "memmove", NULL,
};
static const char *const reserved_thr_py[] = {
	"threading", "queue_mod", "DataLoader", "Dataset", "Batches",
	"loader",    "loader_it", "worker",     NULL,
};

static int reserved_lang; /* 0: C, 1: Python; set by the printer in use */
static int in_worker;     /* printing a host thread's body */

/* The input pipeline's shape, which PyTorch's DataLoader runs (see loader_shape). */
struct loader {
	int wop;      /* the workers block */
	int pop;      /* the pin-memory thread, or -1 */
	int wput;     /* the workers' put */
	int q;        /* the queue the main thread gets from */
	int wq;       /* the queue the workers put into */
	int batch;    /* the buffer a got batch stands for, or -1 */
	uint64_t n;   /* batches the workers make */
	uint64_t ret; /* bytes of one batch */
};
static struct loader py_loader; /* the scenario's, when py_loader.wop >= 0 */

/*
 * Print a lesson name as an identifier: '-' becomes '_', and a name that is
 * a keyword, one of the program's own names, or a loop variable (i0, i1 ...)
 * gets a trailing '_'.
 */
static void
put_ident(struct hd_buf *b, const char *name)
{
	const char *const *r = reserved_lang ? reserved_py : reserved_c;
	const char *p;
	int clash = name[0] == 'i' && name[1] != '\0' &&
	    strspn(name + 1, "0123456789") == strlen(name + 1);

	/* the threads' functions and lists: worker_fn_N, th_N */
	if (strncmp(name, "worker_fn_", 10) == 0 && name[10] != '\0' &&
	    strspn(name + 10, "0123456789") == strlen(name + 10))
		clash = 1;
	if (strncmp(name, "th_", 3) == 0 && name[3] != '\0' &&
	    strspn(name + 3, "0123456789") == strlen(name + 3))
		clash = 1;

	for (; !clash && *r; r++)
		clash = strcmp(*r, name) == 0;
	for (r = reserved_lang ? reserved_thr_py : reserved_thr_c; !clash && *r; r++)
		clash = strcmp(*r, name) == 0;
	for (p = name; *p; p++)
		hd_buf_putc(b, *p == '-' ? '_' : *p);
	if (clash)
		hd_buf_putc(b, '_');
}

static void
put_stream(struct hd_buf *b, const struct hd_scenario *sc, int i)
{
	if (i == HD_STREAM_LEGACY)
		hd_buf_puts(b, reserved_lang ? "torch.cuda.default_stream()" : "cudaStreamLegacy");
	else if (i == HD_STREAM_PER_THREAD)
		hd_buf_puts(b,
			    reserved_lang ? "torch.cuda.current_stream()" : "cudaStreamPerThread");
	else
		put_ident(b, sc->streams[i].name);
}

/* The stream as the current language spells it, into out. */
static const char *
stream_name(const struct hd_scenario *sc, int i, char *out, size_t n)
{
	struct hd_buf t;

	hd_buf_init(&t);
	if (i < 0 || i >= sc->nstreams)
		i = HD_STREAM_LEGACY;
	put_stream(&t, sc, i);
	snprintf(out, n, "%s", t.s);
	hd_buf_free(&t);
	return out;
}

static void
put_buf_ident(struct hd_buf *b, const struct hd_scenario *sc, int i)
{
	put_ident(b, sc->buffers[i].name);
}

/* `touch`: the set-up's allocation fills pageable memory; an alloc op does not */
static void
c_alloc(struct hd_buf *b, const struct hd_scenario *sc, int i, int depth, int touch)
{
	const struct hd_buffer *buf = &sc->buffers[i];
	char size[32];

	hd_fmt_bytes(size, sizeof size, buf->bytes);
	indent(b, depth);
	switch (buf->mem) {
	case HD_MEM_PAGEABLE:
		hd_buf_puts(b, "");
		put_buf_ident(b, sc, i);
		hd_buf_printf(b, " = (char *)malloc(%" PRIu64 "ULL);  /* %s pageable */\n",
			      buf->bytes, size);
		if (!touch)
			return;
		indent(b, depth);
		hd_buf_puts(b, "memset(");
		put_buf_ident(b, sc, i);
		hd_buf_printf(b, ", 1, %" PRIu64 "ULL);  /* touch every page */\n", buf->bytes);
		return;
	case HD_MEM_PINNED:
		hd_buf_puts(b, "CK(cudaMallocHost((void **)&");
		break;
	case HD_MEM_MANAGED:
		hd_buf_puts(b, "CK(cudaMallocManaged((void **)&");
		break;
	case HD_MEM_DEVICE:
	case HD_MEM__COUNT:
		hd_buf_puts(b, "CK(cudaMalloc((void **)&");
		break;
	}
	put_buf_ident(b, sc, i);
	hd_buf_printf(b, ", %" PRIu64 "ULL%s));  /* %s %s */\n", buf->bytes,
		      buf->mem == HD_MEM_MANAGED ? ", cudaMemAttachGlobal" : "", size,
		      hd_mem_name(buf->mem));
}

static void
c_free(struct hd_buf *b, const struct hd_scenario *sc, int i, int depth)
{
	static const char *const fn[HD_MEM__COUNT] = {
		[HD_MEM_PAGEABLE] = "free(",
		[HD_MEM_PINNED] = "CK(cudaFreeHost(",
		[HD_MEM_MANAGED] = "CK(cudaFree(",
		[HD_MEM_DEVICE] = "CK(cudaFree(",
	};
	enum hd_mem m = sc->buffers[i].mem;

	indent(b, depth);
	hd_buf_puts(b, fn[m]);
	put_buf_ident(b, sc, i);
	hd_buf_puts(b, m == HD_MEM_PAGEABLE ? ");\n" : "));\n");
}

static int
explicit_alloc(const struct hd_scenario *sc, int buf)
{
	int j;

	for (j = 0; j < sc->nops; j++)
		if (sc->ops[j].kind == HD_OP_ALLOC && sc->ops[j].dst == buf)
			return 1;
	return 0;
}

static void
c_kernel(struct hd_buf *b, const struct hd_scenario *sc, const struct hd_op *op, const char *s)
{
	char t[32];

	switch (op->kernel) {
	case HD_KERNEL_SPIN:
		hd_fmt_time(t, sizeof t, op->duration);
		hd_buf_printf(b, "CK(hd_kernel_spin(%s, %" PRId64 "ULL, %u));  /* spins %s */\n", s,
			      op->duration / HD_NS, op->grid ? op->grid : 1, t);
		break;
	case HD_KERNEL_COMPUTE:
		hd_buf_printf(b,
			      "CK(hd_kernel_compute(%s, scratch, %.6g, %u, NULL));  "
			      "/* %.3g FLOP of FMA */\n",
			      s, op->flops, op->grid, op->flops);
		break;
	case HD_KERNEL_MEMORY:
		hd_buf_printf(b, "CK(hd_kernel_memory(%s, ", s);
		if (op->src >= 0)
			put_buf_ident(b, sc, op->src);
		else
			hd_buf_puts(b, "big");
		hd_buf_printf(b, ", %" PRIu64 "ULL, %u));  /* bytes through device memory */\n",
			      op->bytes, op->grid);
		break;
	case HD_KERNEL_FILL:
		hd_buf_printf(b, "CK(hd_kernel_fill(%s, ", s);
		put_buf_ident(b, sc, op->dst);
		hd_buf_printf(b,
			      ", %" PRIu64 "ULL, 0x3f800000u, %u));  /* create on the device */\n",
			      sc->buffers[op->dst].bytes, op->grid);
		break;
	case HD_KERNEL_REDUCE:
		hd_buf_printf(b, "CK(hd_kernel_reduce(%s, ", s);
		put_buf_ident(b, sc, op->src);
		hd_buf_printf(b, ", %" PRIu64 "ULL, scratch, %u));\n", sc->buffers[op->src].bytes,
			      op->grid);
		break;
	case HD_KERNEL__COUNT:
		hd_buf_puts(b, "/* unknown kernel */\n");
		break;
	}
}

static void
c_op(struct hd_buf *b, const struct hd_scenario *sc, const struct hd_op *op, int depth)
{
	char sbuf[80];
	const char *s = stream_name(sc, op->stream, sbuf, sizeof sbuf);
	char t[32];

	if (op->label != NULL) {
		indent(b, depth);
		hd_buf_printf(b, "/* %s */\n", op->label);
	}
	/* alloc and free indent their own lines */
	if (op->kind != HD_OP_ALLOC && op->kind != HD_OP_FREE)
		indent(b, depth);
	switch (op->kind) {
	case HD_OP_ALLOC:
		c_alloc(b, sc, op->dst, depth, 0);
		break;
	case HD_OP_FREE:
		c_free(b, sc, op->dst, depth);
		break;
	case HD_OP_PIN:
		hd_buf_puts(b, "CK(cudaHostRegister(");
		put_buf_ident(b, sc, op->dst);
		hd_buf_printf(b, ", %" PRIu64 "ULL, cudaHostRegisterDefault));\n",
			      sc->buffers[op->dst].bytes);
		break;
	case HD_OP_COPY:
		if (in_worker) { /* a host thread's copy: a plain memcpy (the buffers may be one) */
			hd_buf_puts(b, "memmove(");
			put_buf_ident(b, sc, op->dst);
			hd_buf_puts(b, ", ");
			put_buf_ident(b, sc, op->src);
			hd_buf_printf(b, ", %" PRIu64 "ULL);\n", op->bytes);
			break;
		}
		hd_buf_puts(b, op->async ? "CK(cudaMemcpyAsync(" : "CK(cudaMemcpy(");
		put_buf_ident(b, sc, op->dst);
		hd_buf_puts(b, ", ");
		put_buf_ident(b, sc, op->src);
		hd_buf_printf(b, ", %" PRIu64 "ULL, %s", op->bytes, memcpy_kind_c[op->copy]);
		if (op->async)
			hd_buf_printf(b, ", %s", s);
		hd_buf_puts(b, "));\n");
		break;
	case HD_OP_KERNEL:
		c_kernel(b, sc, op, s);
		break;
	case HD_OP_LAUNCH:
		hd_buf_puts(b, "CK(cudaGraphLaunch(");
		put_ident(b, sc->ops[op->graph].text);
		hd_buf_printf(b, ", %s));  /* the whole graph: one call */\n", s);
		break;
	case HD_OP_PREFETCH:
		hd_buf_printf(b, "CK(cudaMemPrefetchAsync(");
		put_buf_ident(b, sc, op->dst);
		hd_buf_printf(b, ", %" PRIu64 "ULL, %s, 0, %s));\n", sc->buffers[op->dst].bytes,
			      op->to_device ? "on_device" : "on_host", s);
		break;
	case HD_OP_RECORD:
		hd_buf_puts(b, "CK(cudaEventRecord(");
		put_ident(b, sc->events[op->event].name);
		hd_buf_printf(b, ", %s));\n", s);
		break;
	case HD_OP_WAIT:
		hd_buf_printf(b, "CK(cudaStreamWaitEvent(%s, ", s);
		put_ident(b, sc->events[op->event].name);
		hd_buf_puts(b, ", 0));\n");
		break;
	case HD_OP_EVENT_SYNC:
		hd_buf_puts(b, "CK(cudaEventSynchronize(");
		put_ident(b, sc->events[op->event].name);
		hd_buf_puts(b, "));\n");
		break;
	case HD_OP_EVENT_QUERY:
		hd_buf_puts(b, "(void)cudaEventQuery(");
		put_ident(b, sc->events[op->event].name);
		hd_buf_puts(b, ");  /* cudaSuccess or cudaErrorNotReady; never waits */\n");
		break;
	case HD_OP_STREAM_SYNC:
		hd_buf_printf(b, "CK(cudaStreamSynchronize(%s));\n", s);
		break;
	case HD_OP_DEVICE_SYNC:
		hd_buf_puts(b, "CK(cudaDeviceSynchronize());\n");
		break;
	case HD_OP_HOST:
		hd_fmt_time(t, sizeof t, op->duration);
		hd_buf_printf(b, "busy_cpu_ns(%" PRId64 "LL);  /* %s of host work */\n",
			      op->duration / HD_NS, t);
		break;
	case HD_OP_READ:
		hd_buf_puts(b, "CK(cudaMemcpy(landing, ");
		put_buf_ident(b, sc, op->src);
		hd_buf_printf(b,
			      ", %" PRIu64 "ULL, cudaMemcpyDeviceToHost));  "
			      "/* what print(t) or t.item() does */\n",
			      op->bytes);
		break;
	case HD_OP_PUT:
	case HD_OP_GET:
		hd_buf_puts(b, op->kind == HD_OP_PUT ? "q_put(&" : "q_get(&");
		put_ident(b, sc->queues[op->queue].name);
		hd_buf_puts(b,
			    op->kind == HD_OP_PUT ? ");  /* waits while the queue is full */\n" :
						    ");  /* waits while the queue is empty */\n");
		break;
	case HD_OP_SEND:
	case HD_OP_RECV:
	case HD_OP_COLL:
	case HD_OP_BARRIER:
	case HD_OP_REPEAT: /* walk() prints blocks: not reached */
	case HD_OP_ON_RANK:
	case HD_OP_WORKERS:
	case HD_OP_GRAPH: /* captured in the set-up: not reached */
	case HD_OP__COUNT:
		hd_buf_printf(b, "/* %s: runs with one process per rank (NCCL) */\n",
			      hd_op_api_name(op));
		break;
	}
}

/* --- conditions (the printers' form) ------------------------------------------- */

/* How each node of a condition prints, and its precedence (both languages
 * order these alike; `not` binds looser than a comparison in Python, so
 * its operand is always put in parentheses). */
static const struct {
	const char *c, *py;
	int prec;
} cx_ops[HD_CX__COUNT] = {
	[HD_CX_NUM] = { NULL, NULL, 9 },    [HD_CX_INDEX] = { NULL, NULL, 9 },
	[HD_CX_NEG] = { "-", "-", 7 },      [HD_CX_ADD] = { " + ", " + ", 5 },
	[HD_CX_SUB] = { " - ", " - ", 5 },  [HD_CX_MUL] = { " * ", " * ", 6 },
	[HD_CX_DIV] = { " / ", " / ", 6 },  [HD_CX_MOD] = { " % ", " % ", 6 },
	[HD_CX_LT] = { " < ", " < ", 4 },   [HD_CX_LE] = { " <= ", " <= ", 4 },
	[HD_CX_GT] = { " > ", " > ", 4 },   [HD_CX_GE] = { " >= ", " >= ", 4 },
	[HD_CX_EQ] = { " == ", " == ", 4 }, [HD_CX_NE] = { " != ", " != ", 4 },
	[HD_CX_NOT] = { "!", "not ", 3 },   [HD_CX_AND] = { " && ", " and ", 2 },
	[HD_CX_OR] = { " || ", " or ", 1 },
};

static const struct hd_cx *
cx_at(const struct hd_cblock *k, int n)
{
	static const struct hd_cx zero = { HD_CX_NUM, 0, HD_NONE, HD_NONE, HD_NONE };

	return n >= 0 && n < k->ncx ? &k->cx[n] : &zero;
}

/* Is node n a whole number in C (a long): indices, whole constants and
 * sums, products and remainders of those? */
static bool
cx_int(const struct hd_cblock *k, int n)
{
	const struct hd_cx *x = cx_at(k, n);

	switch (x->kind) {
	case HD_CX_NUM:
		return x->num == floor(x->num) && fabs(x->num) < 9e15;
	case HD_CX_INDEX:
		return true;
	case HD_CX_NEG:
		return cx_int(k, x->a);
	case HD_CX_ADD:
	case HD_CX_SUB:
	case HD_CX_MUL:
	case HD_CX_MOD:
		return cx_int(k, x->a) && cx_int(k, x->b);
	case HD_CX_DIV:
	case HD_CX_LT:
	case HD_CX_LE:
	case HD_CX_GT:
	case HD_CX_GE:
	case HD_CX_EQ:
	case HD_CX_NE:
	case HD_CX_NOT:
	case HD_CX_AND:
	case HD_CX_OR:
	case HD_CX__COUNT:
		break;
	}
	return false;
}

/* Is node n never negative (so Python's % agrees with C's fmod)? */
static bool
cx_nonneg(const struct hd_cblock *k, int n)
{
	const struct hd_cx *x = cx_at(k, n);

	if (x->kind == HD_CX_NUM)
		return x->num >= 0;
	if (x->kind == HD_CX_INDEX)
		return true;
	if (x->kind == HD_CX_ADD || x->kind == HD_CX_MUL || x->kind == HD_CX_DIV)
		return cx_nonneg(k, x->a) && cx_nonneg(k, x->b);
	if (x->kind == HD_CX_MOD)
		return cx_nonneg(k, x->a);
	return false;
}

/* A remainder that needs fmod: C's % takes whole numbers only; Python's %
 * follows the divisor's sign, fmod the dividend's, as the lesson does. */
static bool
cx_fmod(const struct hd_cblock *k, int n, int torch)
{
	const struct hd_cx *x = cx_at(k, n);

	if (torch)
		return !(cx_nonneg(k, x->a) && cx_at(k, x->b)->kind == HD_CX_NUM &&
			 cx_at(k, x->b)->num > 0);
	return !(cx_int(k, x->a) && cx_int(k, x->b));
}

static void
cx_put(struct hd_buf *b, const struct hd_scenario *sc, const struct hd_cblock *k, int n,
       int parent_prec, int torch)
{
	const struct hd_cx *x = cx_at(k, n);
	int prec = (unsigned)x->kind < HD_CX__COUNT ? cx_ops[x->kind].prec : 9;
	int paren = prec < parent_prec;

	switch (x->kind) {
	case HD_CX_NUM:
		if (x->num == floor(x->num) && fabs(x->num) < 9e15)
			hd_buf_printf(b, x->num < 0 ? "(%.0f)" : "%.0f", x->num);
		else
			hd_buf_printf(b, x->num < 0 ? "(%.17g)" : "%.17g", x->num);
		return;
	case HD_CX_INDEX:
		if (x->loop >= 0 && x->loop < sc->nops && sc->ops[x->loop].index_name != NULL)
			put_ident(b, sc->ops[x->loop].index_name);
		else
			hd_buf_puts(b, "0");
		return;
	case HD_CX_NEG:
	case HD_CX_NOT:
		hd_buf_puts(b, torch ? cx_ops[x->kind].py : cx_ops[x->kind].c);
		cx_put(b, sc, k, x->a, cx_at(k, x->a)->kind == HD_CX_INDEX ? 0 : 10, torch);
		return;
	case HD_CX_MOD:
		if (cx_fmod(k, n, torch)) {
			hd_buf_puts(b, torch ? "math.fmod(" : "fmod(");
			cx_put(b, sc, k, x->a, 0, torch);
			hd_buf_puts(b, ", ");
			cx_put(b, sc, k, x->b, 0, torch);
			hd_buf_puts(b, ")");
			return;
		}
		break;
	case HD_CX_DIV:
	case HD_CX_ADD:
	case HD_CX_SUB:
	case HD_CX_MUL:
	case HD_CX_LT:
	case HD_CX_LE:
	case HD_CX_GT:
	case HD_CX_GE:
	case HD_CX_EQ:
	case HD_CX_NE:
	case HD_CX_AND:
	case HD_CX_OR:
		break;
	case HD_CX__COUNT:
		hd_buf_puts(b, "0");
		return;
	}
	if (paren)
		hd_buf_putc(b, '(');
	/* C divides whole numbers whole; the lesson does not */
	if (x->kind == HD_CX_DIV && !torch && cx_int(k, x->a))
		hd_buf_puts(b, "(double)");
	/* `a || (b && c)`: the parentheses compilers ask for, though not needed */
	cx_put(b, sc, k, x->a,
	       x->kind == HD_CX_DIV && !torch && cx_int(k, x->a) ? 10 :
		   x->kind == HD_CX_OR                           ? prec + 2 :
								   prec,
	       torch);
	hd_buf_puts(b, torch ? cx_ops[x->kind].py : cx_ops[x->kind].c);
	cx_put(b, sc, k, x->b, x->kind == HD_CX_OR ? prec + 2 : prec + 1, torch);
	if (paren)
		hd_buf_putc(b, ')');
}

/* Does a condition of sc need fmod (C: math.h; Python: import math)? */
static bool
needs_fmod(const struct hd_scenario *sc, int torch)
{
	int i, n;

	for (i = 0; i < sc->ncblocks; i++)
		for (n = 0; n < sc->cblocks[i].ncx; n++)
			if (sc->cblocks[i].cx[n].kind == HD_CX_MOD &&
			    cx_fmod(&sc->cblocks[i], n, torch))
				return true;
	return false;
}

/* `if (COND) {` / `if COND:` for block cb (negated: its else branch alone),
 * with the lesson's words in a comment. */
static void
put_if(struct hd_buf *b, const struct hd_scenario *sc, int cb, bool negated, int depth, int torch)
{
	const struct hd_cblock *k = &sc->cblocks[cb - 1];

	indent(b, depth);
	hd_buf_puts(b, torch ? "if " : "if (");
	if (negated)
		hd_buf_puts(b, torch ? "not (" : "!(");
	cx_put(b, sc, k, k->ncx - 1, 0, torch);
	hd_buf_puts(b, negated ? ")" : "");
	hd_buf_puts(b, torch ? ":  # if " : ") {  /* if ");
	if (torch)
		hd_san_py_comment(b, k->text != NULL ? k->text : "");
	else
		hd_san_c_comment(b, k->text != NULL ? k->text : "");
	hd_buf_puts(b, negated ? (torch ? ", else\n" : ", else */\n") : (torch ? "\n" : " */\n"));
}

/* What walk() has open: a loop or rank block until op `end`, or (end < 0) a
 * branch of condition block `cblock`. */
struct open_blk {
	int end;
	int cblock;
	bool in_else;
};

/* Is op in branch (cb, in_else), at any depth? */
static bool
in_branch(const struct hd_scenario *sc, const struct hd_op *op, int cb, bool in_else)
{
	int c = op->cblock;
	bool e = op->cblock_else;

	/* a block's parent was made before it: the chain ends */
	while (c > 0 && c <= sc->ncblocks) {
		if (c == cb && e == in_else)
			return true;
		e = sc->cblocks[c - 1].parent_else;
		if (sc->cblocks[c - 1].parent >= c)
			break;
		c = sc->cblocks[c - 1].parent;
	}
	return false;
}

/* Print the `}` of a then-branch whose `else` did not follow. */
static void
flush_then(struct hd_buf *b, int *pending, int depth, int torch)
{
	if (*pending == 0)
		return;
	*pending = 0;
	if (!torch) {
		indent(b, depth);
		hd_buf_puts(b, "}\n");
	}
}

/* Open the branches op is in that are not open yet, outermost first. */
static void
open_branches(struct hd_buf *b, const struct hd_scenario *sc, const struct hd_op *op,
	      struct open_blk *open, int *depth, int depth0, int *pending, int torch)
{
	int chain[MAX_DEPTH], n = 0, c = op->cblock, i, j;
	bool els[MAX_DEPTH], e = op->cblock_else;

	while (c > 0 && c <= sc->ncblocks && n < MAX_DEPTH) {
		chain[n] = c;
		els[n++] = e;
		e = sc->cblocks[c - 1].parent_else;
		if (sc->cblocks[c - 1].parent >= c)
			break;
		c = sc->cblocks[c - 1].parent;
	}
	for (i = n - 1; i >= 0; i--) {
		for (j = 0; j < *depth; j++)
			if (open[j].end < 0 && open[j].cblock == chain[i] &&
			    open[j].in_else == els[i])
				break;
		if (j < *depth || *depth >= MAX_DEPTH)
			continue;
		if (els[i] && *pending == chain[i]) {
			*pending = 0;
			indent(b, depth0 + *depth);
			hd_buf_puts(b, torch ? "else:\n" : "} else {\n");
		} else {
			flush_then(b, pending, depth0 + *depth, torch);
			put_if(b, sc, chain[i], els[i], depth0 + *depth, torch);
		}
		open[*depth].end = -1;
		open[*depth].cblock = chain[i];
		open[(*depth)++].in_else = els[i];
	}
}

/* A node of a graph, enqueued on the capturing stream (C). */
static void
c_node(struct hd_buf *b, const struct hd_scenario *sc, const struct hd_op *op, int depth)
{
	if (op->label != NULL) {
		indent(b, depth);
		hd_buf_printf(b, "/* %s */\n", op->label);
	}
	indent(b, depth);
	if (op->kind == HD_OP_KERNEL) {
		c_kernel(b, sc, op, "capture");
		return;
	}
	hd_buf_puts(b, "CK(cudaMemcpyAsync(");
	put_buf_ident(b, sc, op->dst);
	hd_buf_puts(b, ", ");
	put_buf_ident(b, sc, op->src);
	hd_buf_printf(b, ", %" PRIu64 "ULL, %s, capture));\n", op->bytes, memcpy_kind_c[op->copy]);
}

/*
 * The body of graph op g, its loops as `for` blocks (C) or `for ... in
 * range` (Python), each node through node().
 */
static void
graph_body(struct hd_buf *b, const struct hd_scenario *sc, int g, int depth0, int torch,
	   void (*node)(struct hd_buf *, const struct hd_scenario *, const struct hd_op *, int))
{
	int ends[MAX_DEPTH], depth = 0, i, end = g + 1 + sc->ops[g].body_len;

	for (i = g + 1; i <= end; i++) {
		while (depth > 0 && ends[depth - 1] == i) {
			depth--;
			if (!torch) {
				indent(b, depth0 + depth);
				hd_buf_puts(b, "}\n");
			}
		}
		if (i == end)
			break;
		if (sc->ops[i].kind == HD_OP_REPEAT) {
			indent(b, depth0 + depth);
			if (torch)
				hd_buf_printf(b, "for i%d in range(%" PRIu64 "):\n", depth,
					      sc->ops[i].count);
			else
				hd_buf_printf(b,
					      "for (long i%d = 0; i%d < %" PRIu64 "L; i%d++) {\n",
					      depth, depth, sc->ops[i].count, depth);
			if (depth < MAX_DEPTH)
				ends[depth++] = i + 1 + sc->ops[i].body_len;
			if (sc->ops[i].body_len == 0 && torch) {
				indent(b, depth0 + depth);
				hd_buf_puts(b, "pass\n");
			}
			continue;
		}
		node(b, sc, &sc->ops[i], depth0 + depth);
	}
}

/* Every graph of sc captured and instantiated (C), as the set-up does it. */
static void
c_graphs(struct hd_buf *b, const struct hd_scenario *sc)
{
	int i;

	for (i = 0; i < sc->nops; i++) {
		if (sc->ops[i].kind != HD_OP_GRAPH)
			continue;
		hd_buf_puts(b, "    /* graph ");
		hd_san_c_comment(b, sc->ops[i].text);
		hd_buf_printf(b, ": captured once, %" PRIu64 " nodes, launched below */\n",
			      sc->ops[i].count);
		hd_buf_puts(
		    b, "    CK(cudaStreamBeginCapture(capture, cudaStreamCaptureModeGlobal));\n");
		graph_body(b, sc, i, 1, 0, c_node);
		hd_buf_puts(
		    b,
		    "    CK(cudaStreamEndCapture(capture, &captured));\n    CK(cudaGraphInstantiate(&");
		put_ident(b, sc->ops[i].text);
		hd_buf_puts(b, ", captured, 0));\n    CK(cudaGraphDestroy(captured));\n");
		i += sc->ops[i].body_len;
	}
}

/* The function a workers block's threads run (and its number, k). */
static int
workers_index(const struct hd_scenario *sc, int op)
{
	int i, k = 0;

	for (i = 0; i < op; i++)
		k += sc->ops[i].kind == HD_OP_WORKERS;
	return k;
}

/* What a workers block is, as a comment: "workers 4" / "thread pinner". */
static void
workers_what(struct hd_buf *b, const struct hd_op *op)
{
	if (op->text != NULL)
		hd_buf_printf(b, "thread %s", op->text);
	else
		hd_buf_printf(b, "workers %" PRIu64, op->count);
}

/* Where the main thread reaches a workers block: its threads start. */
static void
workers_start(struct hd_buf *b, const struct hd_scenario *sc, int i, int depth, int torch)
{
	const struct hd_op *op = &sc->ops[i];
	int k = workers_index(sc, i);

	indent(b, depth);
	if (torch && py_loader.wop >= 0) {
		hd_buf_puts(b, "# ");
		workers_what(b, op);
		hd_buf_puts(b,
			    i == py_loader.wop ? ": the DataLoader's workers (loader, above)\n" :
						 ": the DataLoader's pin-memory thread\n");
		return;
	}
	if (torch) {
		hd_buf_printf(b,
			      "th_%d = [threading.Thread(target=worker_fn_%d, args=(w,)) "
			      "for w in range(%" PRIu64 ")]  # ",
			      k, k, op->count);
		workers_what(b, op);
		hd_buf_putc(b, '\n');
		indent(b, depth);
		hd_buf_printf(b, "list(map(threading.Thread.start, th_%d))\n", k);
		return;
	}
	hd_buf_puts(b, "/* ");
	workers_what(b, op);
	hd_buf_printf(b, ": its threads run worker_fn_%d */\n", k);
	indent(b, depth);
	hd_buf_printf(b, "pthread_t th_%d[%" PRIu64 "];\n", k, op->count);
	indent(b, depth);
	hd_buf_printf(b, "for (long w = 0; w < %" PRIu64 "; w++)\n", op->count);
	indent(b, depth + 1);
	hd_buf_printf(b,
		      "if (pthread_create(&th_%d[w], NULL, worker_fn_%d, (void *)w) != 0) "
		      "{ fprintf(stderr, \"pthread_create failed\\n\"); exit(1); }\n",
		      k, k);
}

/* Walk ops [from, to), calling each op printer; open and close blocks for
 * loops; a workers block starts its threads and its body is theirs. */
static void
walk_range(struct hd_buf *b, const struct hd_scenario *sc, int from, int to, int depth0, int torch,
	   void (*print)(struct hd_buf *, const struct hd_scenario *, const struct hd_op *, int))
{
	struct open_blk open[MAX_DEPTH];
	int depth = 0, i, loopvar = 0, pending = 0, pending_depth = 0;

	for (i = from; i <= to; i++) {
		const struct hd_op *cur = i < to ? &sc->ops[i] : NULL;

		while (depth > 0) {
			const struct open_blk *t = &open[depth - 1];

			if (t->end >= 0 ? t->end != i :
					  cur != NULL && in_branch(sc, cur, t->cblock, t->in_else))
				break;
			flush_then(b, &pending, depth0 + pending_depth, torch);
			depth--;
			if (t->end < 0 && !t->in_else) {
				pending = t->cblock; /* `} else {` may follow */
				pending_depth = depth;
			} else if (!torch) {
				indent(b, depth0 + depth);
				hd_buf_puts(b, "}\n");
			}
		}
		if (i == to) {
			flush_then(b, &pending, depth0 + pending_depth, torch);
			break;
		}
		if (sc->ops[i].kind == HD_OP_GRAPH) { /* captured in the set-up */
			i += sc->ops[i].body_len;
			continue;
		}
		open_branches(b, sc, cur, open, &depth, depth0, &pending, torch);
		flush_then(b, &pending, depth0 + pending_depth, torch);
		if (sc->ops[i].kind == HD_OP_WORKERS) {
			workers_start(b, sc, i, depth0 + depth, torch);
			i += sc->ops[i].body_len;
			continue;
		}
		if (sc->ops[i].kind == HD_OP_REPEAT || sc->ops[i].kind == HD_OP_ON_RANK) {
			const struct hd_op *op = &sc->ops[i];

			indent(b, depth0 + depth);
			if (op->kind == HD_OP_REPEAT && op->index_name != NULL) {
				hd_buf_puts(b, torch ? "for " : "for (long ");
				put_ident(b, op->index_name);
				if (torch)
					hd_buf_printf(b, " in range(%" PRIu64 "):\n", op->count);
				else {
					hd_buf_puts(b, " = 0; ");
					put_ident(b, op->index_name);
					hd_buf_printf(b, " < %" PRIu64 "L; ", op->count);
					put_ident(b, op->index_name);
					hd_buf_puts(b, "++) {\n");
				}
			} else if (op->kind == HD_OP_REPEAT && torch)
				hd_buf_printf(b, "for i%d in range(%" PRIu64 "):\n", loopvar++,
					      op->count);
			else if (op->kind == HD_OP_REPEAT)
				hd_buf_printf(b,
					      "for (long i%d = 0; i%d < %" PRIu64 "L; i%d++) {\n",
					      loopvar, loopvar, op->count, loopvar),
				    loopvar++;
			else
				hd_buf_printf(b, torch ? "if rank == %d:\n" : "if (rank == %d) {\n",
					      op->rank);
			if (depth < MAX_DEPTH) {
				open[depth].cblock = 0;
				open[depth].in_else = false;
				open[depth++].end = i + 1 + op->body_len;
			}
			if (op->body_len == 0 && torch) {
				indent(b, depth0 + depth);
				hd_buf_puts(b, "pass\n");
			}
			continue;
		}
		print(b, sc, &sc->ops[i], depth0 + depth);
	}
}

static void
walk(struct hd_buf *b, const struct hd_scenario *sc, int depth0, int torch,
     void (*print)(struct hd_buf *, const struct hd_scenario *, const struct hd_op *, int))
{
	walk_range(b, sc, 0, sc->nops, depth0, torch, print);
}

/* The most bytes any op of `kind` needs from a program-owned buffer. */
static uint64_t
max_bytes(const struct hd_scenario *sc, enum hd_op_kind kind, int no_src_only)
{
	uint64_t m = 0;
	int i;

	for (i = 0; i < sc->nops; i++)
		if (sc->ops[i].kind == kind && (!no_src_only || sc->ops[i].src < 0) &&
		    sc->ops[i].bytes > m)
			m = sc->ops[i].bytes;
	return m;
}

/* The C of a bounded queue between host threads, and host work as CPU time. */
static const char c_queue[] =
    "/* A bounded queue between host threads: put waits while it is full, get\n"
    " * while it is empty.  Its items carry no data: \"a batch is ready\". */\n"
    "struct queue {\n"
    "    pthread_mutex_t mu;\n"
    "    pthread_cond_t data, room;\n"
    "    unsigned items, depth;\n"
    "};\n\n"
    "static void q_init(struct queue *q, unsigned depth)\n{\n"
    "    pthread_mutex_init(&q->mu, NULL);\n"
    "    pthread_cond_init(&q->data, NULL);\n"
    "    pthread_cond_init(&q->room, NULL);\n"
    "    q->items = 0;\n    q->depth = depth;\n}\n\n"
    "static void q_put(struct queue *q)\n{\n"
    "    pthread_mutex_lock(&q->mu);\n"
    "    while (q->items == q->depth)\n"
    "        pthread_cond_wait(&q->room, &q->mu);\n"
    "    q->items++;\n"
    "    pthread_cond_signal(&q->data);\n"
    "    pthread_mutex_unlock(&q->mu);\n}\n\n"
    "static void q_get(struct queue *q)\n{\n"
    "    pthread_mutex_lock(&q->mu);\n"
    "    while (q->items == 0)\n"
    "        pthread_cond_wait(&q->data, &q->mu);\n"
    "    q->items--;\n"
    "    pthread_cond_signal(&q->room);\n"
    "    pthread_mutex_unlock(&q->mu);\n}\n\n";

/* File-scope buffers and queues, then one function per workers block. */
static void
c_threads(struct hd_buf *b, const struct hd_scenario *sc)
{
	int i;

	hd_buf_puts(b, c_queue);
	hd_buf_puts(b, "/* what the host threads and the main thread share */\n");
	for (i = 0; i < sc->nbuffers; i++) {
		hd_buf_puts(b, "static char *");
		put_buf_ident(b, sc, i);
		hd_buf_puts(b, " = NULL;\n");
	}
	for (i = 0; i < sc->nqueues; i++) {
		hd_buf_puts(b, "static struct queue ");
		put_ident(b, sc->queues[i].name);
		hd_buf_printf(b, ";  /* holds %u */\n", sc->queues[i].depth);
	}
	hd_buf_puts(b, "\n");
	in_worker = 1;
	for (i = 0; i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];

		if (op->kind != HD_OP_WORKERS)
			continue;
		hd_buf_puts(b, "/* ");
		workers_what(b, op);
		hd_buf_printf(b,
			      ": each of its threads runs this (arg = 0 .. %" PRIu64
			      ") */\nstatic void *worker_fn_%d(void *arg)\n{\n"
			      "    (void)arg; /* which of the block's threads: (long)arg */\n",
			      op->count - 1, workers_index(sc, i));
		walk_range(b, sc, i + 1, i + 1 + op->body_len, 1, 0, c_op);
		hd_buf_puts(b, "    return NULL;\n}\n\n");
		i += op->body_len;
	}
	in_worker = 0;
}

void
hd_cudagen_c(const struct hd_scenario *sc, struct hd_buf *b)
{
	int threads = hd_threads_any(sc) || sc->nqueues > 0;
	uint64_t read_bytes = max_bytes(sc, HD_OP_READ, 0);
	uint64_t big_bytes = 0;
	int i, graphs = 0;

	reserved_lang = 0;
	for (i = 0; i < sc->nops; i++)
		if (sc->ops[i].kind == HD_OP_KERNEL && sc->ops[i].kernel == HD_KERNEL_MEMORY &&
		    sc->ops[i].src < 0 && sc->ops[i].bytes > big_bytes)
			big_bytes = sc->ops[i].bytes;

	/* the title is the lesson's text: one comment line it cannot close */
	hd_buf_printf(b, "/*\n * Scenario %s: ", sc->name);
	hd_san_c_comment(b, sc->title);
	hd_buf_putc(b, '\n');
	hd_buf_puts(b,
		    " * The CUDA C that `hdsim --real` executes for this scenario. The kernels\n"
		    " * are in kernels/kernels.cu; hd_kernel_* launch them.\n */\n");
	if (sc->per_thread_default)
		hd_buf_puts(b,
			    "/* as nvcc --default-stream per-thread: cudaMemcpy goes to the\n"
			    " * per-thread stream */\n"
			    "#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1\n");
	hd_buf_puts(b,
		    "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
		    "#include <time.h>\n#include <cuda_runtime.h>\n#include \"kernels.h\"\n");
	hd_buf_puts(b, threads ? "#include <pthread.h>\n\n" : "\n");
	if (needs_fmod(sc, 0))
		hd_buf_puts(b, "#include <math.h>  /* fmod: a remainder of fractions */\n\n");
	hd_buf_puts(
	    b,
	    "#define CK(call) do { int rc_ = (int)(call); if (rc_ != 0) { \\\n"
	    "        fprintf(stderr, \"%s failed: %s\\n\", #call, \\\n"
	    "                cudaGetErrorString((cudaError_t)rc_)); exit(1); } } while (0)\n\n");
	if (threads)
		hd_buf_puts(b,
			    "/* Host work is this thread's own CPU time: threads that share a\n"
			    " * core take longer. */\n");
	hd_buf_printf(
	    b,
	    "static void busy_cpu_ns(long long ns)\n{\n"
	    "    struct timespec a, b;\n\n"
	    "    clock_gettime(%s, &a);\n"
	    "    do clock_gettime(%s, &b);\n"
	    "    while ((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec) < ns);\n}\n\n",
	    threads ? "CLOCK_THREAD_CPUTIME_ID" : "CLOCK_MONOTONIC",
	    threads ? "CLOCK_THREAD_CPUTIME_ID" : "CLOCK_MONOTONIC");
	if (threads)
		c_threads(b, sc);
	hd_buf_puts(b,
		    "int main(void)\n{\n    const int rank = 0;\n"
		    "    struct cudaMemLocation on_device = { cudaMemLocationTypeDevice, 0 };\n"
		    "    struct cudaMemLocation on_host = { cudaMemLocationTypeHost, 0 };\n"
		    "    float *scratch;\n    char *landing = NULL, *big = NULL;\n");
	for (i = 0; i < sc->nbuffers && !threads; i++) {
		hd_buf_puts(b, "    char *");
		put_buf_ident(b, sc, i);
		hd_buf_puts(b, " = NULL;\n");
	}
	for (i = 2; i < sc->nstreams; i++) {
		hd_buf_puts(b, "    cudaStream_t ");
		put_ident(b, sc->streams[i].name);
		hd_buf_puts(b, ";\n");
	}
	for (i = 0; i < sc->nevents; i++) {
		hd_buf_puts(b, "    cudaEvent_t ");
		put_ident(b, sc->events[i].name);
		hd_buf_puts(b, ";\n");
	}
	for (i = 0; i < sc->nops; i++)
		if (sc->ops[i].kind == HD_OP_GRAPH) {
			hd_buf_puts(b, "    cudaGraphExec_t ");
			put_ident(b, sc->ops[i].text);
			hd_buf_puts(b, ";\n");
			graphs++;
		}
	if (graphs > 0)
		hd_buf_puts(b,
			    "    cudaStream_t capture;  /* graphs are captured on it */\n"
			    "    cudaGraph_t captured;\n");
	hd_buf_puts(b,
		    "\n    (void)rank; (void)on_device; (void)on_host; (void)big;\n"
		    "    CK(cudaMalloc((void **)&scratch, 4096));\n");
	if (read_bytes > 0)
		hd_buf_printf(
		    b, "    landing = (char *)malloc(%" PRIu64 "ULL);  /* where reads land */\n",
		    read_bytes);
	if (big_bytes > 0)
		hd_buf_printf(b, "    CK(cudaMalloc((void **)&big, %" PRIu64 "ULL));\n", big_bytes);
	for (i = 0; i < sc->nbuffers; i++)
		if (!explicit_alloc(sc, i))
			c_alloc(b, sc, i, 1, 1);
	for (i = 2; i < sc->nstreams; i++) {
		const struct hd_stream *st = &sc->streams[i];

		hd_buf_puts(b, "    CK(cudaStreamCreateWithPriority(&");
		put_ident(b, st->name);
		hd_buf_printf(b, ", %s, %d));\n",
			      st->flags & HD_STREAM_NONBLOCKING ? "cudaStreamNonBlocking" :
								  "cudaStreamDefault",
			      st->priority);
	}
	for (i = 0; i < sc->nevents; i++) {
		hd_buf_puts(b, "    CK(cudaEventCreateWithFlags(&");
		put_ident(b, sc->events[i].name);
		hd_buf_printf(b, ", %s));\n",
			      sc->events[i].timing ? "cudaEventDefault" : "cudaEventDisableTiming");
	}
	for (i = 0; i < sc->nqueues; i++) {
		hd_buf_puts(b, "    q_init(&");
		put_ident(b, sc->queues[i].name);
		hd_buf_printf(b, ", %u);\n", sc->queues[i].depth);
	}
	if (graphs > 0) {
		hd_buf_puts(
		    b, "    CK(cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking));\n");
		c_graphs(b, sc);
	}
	hd_buf_puts(b, "\n");
	walk(b, sc, 1, 0, c_op);
	for (i = 0; i < sc->nops; i++)
		if (sc->ops[i].kind == HD_OP_WORKERS)
			hd_buf_printf(
			    b,
			    "    for (long w = 0; w < %" PRIu64 "; w++)\n"
			    "        pthread_join(th_%d[w], NULL);  /* its threads end */\n",
			    sc->ops[i].count, workers_index(sc, i));
	hd_buf_puts(b,
		    "    CK(cudaDeviceSynchronize());  /* a run ends with the GPU idle */\n"
		    "    return 0;\n}\n");
}

static void
py_buf(struct hd_buf *b, const struct hd_scenario *sc, int i)
{
	put_buf_ident(b, sc, i);
}

static void
py_op(struct hd_buf *b, const struct hd_scenario *sc, const struct hd_op *op, int depth)
{
	char sbuf[80];
	const char *s = stream_name(sc, op->stream, sbuf, sizeof sbuf);
	int on_stream = op->stream >= 2;
	char t[32];

	if (on_stream &&
	    (op->kind == HD_OP_COPY || op->kind == HD_OP_KERNEL || op->kind == HD_OP_PREFETCH ||
	     op->kind == HD_OP_LAUNCH)) {
		indent(b, depth);
		hd_buf_printf(b, "with torch.cuda.stream(%s):%s%s\n", s, op->label ? "  # " : "",
			      op->label ? op->label : "");
		depth++;
	} else if (op->label != NULL) {
		indent(b, depth);
		hd_buf_printf(b, "# %s\n", op->label);
	}
	indent(b, depth);
	switch (op->kind) {
	case HD_OP_ALLOC:
		py_buf(b, sc, op->dst);
		hd_buf_printf(b, " = torch.empty(%" PRIu64 ", dtype=torch.uint8%s)\n",
			      sc->buffers[op->dst].bytes,
			      sc->buffers[op->dst].mem == HD_MEM_PINNED     ? ", pin_memory=True" :
				  sc->buffers[op->dst].mem == HD_MEM_DEVICE ? ", device=\"cuda\"" :
									      "");
		break;
	case HD_OP_FREE:
		hd_buf_puts(b, "del ");
		py_buf(b, sc, op->dst);
		hd_buf_puts(b, "; torch.cuda.empty_cache()\n");
		break;
	case HD_OP_PIN:
		py_buf(b, sc, op->dst);
		hd_buf_puts(b, " = ");
		py_buf(b, sc, op->dst);
		hd_buf_puts(b, ".pin_memory()  # copies into new page-locked memory\n");
		break;
	case HD_OP_COPY:
		py_buf(b, sc, op->dst);
		hd_buf_printf(b, "[:%" PRIu64 "].copy_(", op->bytes);
		py_buf(b, sc, op->src);
		hd_buf_printf(b, "[:%" PRIu64 "]%s)\n", op->bytes,
			      op->async ? ", non_blocking=True" : "");
		break;
	case HD_OP_KERNEL:
		switch (op->kernel) {
		case HD_KERNEL_SPIN:
			hd_fmt_time(t, sizeof t, op->duration);
			hd_buf_printf(b, "torch.cuda._sleep(int(%.6g * clock_hz))  # spin %s\n",
				      hd_time_to_s(op->duration), t);
			break;
		case HD_KERNEL_COMPUTE: {
			/* An n x n matrix product is 2 n^3 FLOP. */
			long n = (long)(cbrt(op->flops / 2) + 0.5);

			hd_buf_printf(
			    b,
			    "mm_x = torch.ones(%ld, %ld, device=\"cuda\"); torch.mm(mm_x, mm_x)"
			    "  # %.3g FLOP\n",
			    n > 0 ? n : 1, n > 0 ? n : 1, op->flops);
			break;
		}
		case HD_KERNEL_MEMORY:
			if (op->src >= 0) {
				py_buf(b, sc, op->src);
				hd_buf_printf(b, "[%" PRIu64 ":].copy_(", op->bytes / 2);
				py_buf(b, sc, op->src);
				hd_buf_printf(b,
					      "[:%" PRIu64 "])  # %" PRIu64 " bytes of traffic\n",
					      op->bytes / 2, op->bytes);
			} else {
				hd_buf_printf(b,
					      "big = torch.empty(%" PRIu64 ", dtype=torch.uint8, "
					      "device=\"cuda\"); big[%" PRIu64
					      ":].copy_(big[:%" PRIu64 "])\n",
					      op->bytes, op->bytes / 2, op->bytes / 2);
			}
			break;
		case HD_KERNEL_FILL:
			py_buf(b, sc, op->dst);
			hd_buf_puts(b, ".fill_(1)  # create the data on the device\n");
			break;
		case HD_KERNEL_REDUCE:
			hd_buf_puts(b, "total = ");
			py_buf(b, sc, op->src);
			hd_buf_puts(b, ".view(torch.float32).sum()\n");
			break;
		case HD_KERNEL__COUNT:
			hd_buf_puts(b, "pass\n");
			break;
		}
		break;
	case HD_OP_PREFETCH:
		hd_buf_puts(b, "pass  # no PyTorch call: cudaMemPrefetchAsync of managed memory\n");
		break;
	case HD_OP_LAUNCH:
		put_ident(b, sc->ops[op->graph].text);
		hd_buf_puts(b, ".replay()  # the whole graph: one cudaGraphLaunch\n");
		break;
	case HD_OP_RECORD:
		put_ident(b, sc->events[op->event].name);
		hd_buf_printf(b, ".record(%s)\n", s);
		break;
	case HD_OP_WAIT:
		hd_buf_printf(b, "%s.wait_event(", s);
		put_ident(b, sc->events[op->event].name);
		hd_buf_puts(b, ")\n");
		break;
	case HD_OP_EVENT_SYNC:
		put_ident(b, sc->events[op->event].name);
		hd_buf_puts(b, ".synchronize()\n");
		break;
	case HD_OP_EVENT_QUERY:
		put_ident(b, sc->events[op->event].name);
		hd_buf_puts(b, ".query()\n");
		break;
	case HD_OP_STREAM_SYNC:
		hd_buf_printf(b, "%s.synchronize()\n", s);
		break;
	case HD_OP_DEVICE_SYNC:
		hd_buf_puts(b, "torch.cuda.synchronize()\n");
		break;
	case HD_OP_HOST:
		hd_fmt_time(t, sizeof t, op->duration);
		hd_buf_printf(b, "busy_cpu(%.9g)  # %s of host work\n", hd_time_to_s(op->duration),
			      t);
		break;
	case HD_OP_READ:
		hd_buf_puts(b, "print(");
		py_buf(b, sc, op->src);
		hd_buf_printf(b, "[:%" PRIu64 "])  # copies to the host and waits\n", op->bytes);
		break;
	case HD_OP_PUT:
		put_ident(b, sc->queues[op->queue].name);
		hd_buf_puts(b, ".put(None)  # waits while the queue is full\n");
		break;
	case HD_OP_GET:
		if (py_loader.wop >= 0 && !in_worker) {
			if (py_loader.batch >= 0) {
				py_buf(b, sc, py_loader.batch);
				hd_buf_puts(b, " = ");
			}
			hd_buf_puts(b, "next(loader_it)  # the next batch its workers made\n");
			break;
		}
		put_ident(b, sc->queues[op->queue].name);
		hd_buf_puts(b, ".get()  # waits while the queue is empty\n");
		break;
	case HD_OP_SEND:
	case HD_OP_RECV:
	case HD_OP_COLL:
	case HD_OP_BARRIER:
	case HD_OP_REPEAT: /* walk() prints blocks: not reached */
	case HD_OP_ON_RANK:
	case HD_OP_WORKERS:
	case HD_OP_GRAPH: /* captured in the set-up: not reached */
	case HD_OP__COUNT:
		hd_buf_printf(b, "pass  # %s: torch.distributed, one process per rank\n",
			      hd_op_api_name(op));
		break;
	}
}

/*
 * A workers block's body as one batch's work: its ops directly, or one
 * repeat holding them, with no block or condition deeper.  [*first, *end) and how many
 * times a thread runs it, or 0 when it has another shape.
 */
static uint64_t
body_shape(const struct hd_scenario *sc, int wop, int *first, int *end)
{
	const struct hd_op *w = &sc->ops[wop];
	uint64_t times = 1;
	int i;

	*first = wop + 1;
	*end = wop + 1 + w->body_len;
	if (w->body_len > 1 && sc->ops[*first].kind == HD_OP_REPEAT &&
	    sc->ops[*first].body_len == w->body_len - 1) {
		times = sc->ops[*first].count;
		(*first)++;
	}
	/* a loop that names its index, or a condition on one (the printers'
	 * form), is not one batch's plain work: such a body prints as threads */
	if (*first > wop + 1 && sc->ops[wop + 1].index_name != NULL)
		return 0;
	for (i = *first; i < *end; i++)
		if ((hd_op_facts[sc->ops[i].kind].operands & HD_OPND_BODY) ||
		    sc->ops[i].cblock != 0)
			return 0;
	return *first < *end ? times : 0;
}

/*
 * The input pipeline PyTorch's DataLoader runs: one workers block whose
 * threads each make batches (host work, memcpy) and put each into a queue,
 * perhaps one thread that takes each batch, copies it into pinned memory
 * and puts it into a second queue (pin_memory=True), and the main thread,
 * which only gets from the last queue.  Fills *ld, or says no (0).
 */
static int
loader_shape(const struct hd_scenario *sc, struct loader *ld)
{
	int i, ws, we, ps = 0, pe = 0, q, r;
	uint64_t wtimes, ptimes = 0;

	memset(ld, 0, sizeof *ld);
	ld->wop = ld->pop = ld->batch = -1;
	for (i = 0; i < sc->nops; i++) {
		if (sc->ops[i].kind != HD_OP_WORKERS)
			continue;
		if (sc->ops[i].text == NULL && ld->wop < 0)
			ld->wop = i;
		else if (sc->ops[i].text != NULL && ld->pop < 0)
			ld->pop = i;
		else
			return 0;
		i += sc->ops[i].body_len;
	}
	if (ld->wop < 0 || (wtimes = body_shape(sc, ld->wop, &ws, &we)) == 0)
		return 0;
	for (i = ws; i < we - 1; i++)
		if (sc->ops[i].kind != HD_OP_HOST && sc->ops[i].kind != HD_OP_COPY)
			return 0;
		else if (sc->ops[i].kind == HD_OP_COPY) {
			ld->batch = sc->ops[i].dst;
			ld->ret = sc->ops[i].bytes;
		}
	if (sc->ops[we - 1].kind != HD_OP_PUT)
		return 0;
	ld->wput = we - 1;
	q = r = sc->ops[we - 1].queue;
	ld->n = wtimes * sc->ops[ld->wop].count;
	if (ld->pop >= 0) {
		ptimes = body_shape(sc, ld->pop, &ps, &pe);
		if (ptimes * sc->ops[ld->pop].count != ld->n || pe - ps != 3 ||
		    sc->ops[ps].kind != HD_OP_GET || sc->ops[ps].queue != q ||
		    sc->ops[ps + 1].kind != HD_OP_COPY ||
		    sc->buffers[sc->ops[ps + 1].dst].mem != HD_MEM_PINNED ||
		    sc->ops[ps + 2].kind != HD_OP_PUT || sc->ops[ps + 2].queue == q)
			return 0;
		r = sc->ops[ps + 2].queue;
		ld->batch = sc->ops[ps + 1].dst;
		ld->ret = sc->ops[ps + 1].bytes;
	}
	/* the main thread puts nothing and gets from r alone */
	for (i = 0; i < sc->nops; i++) {
		if (i == ld->wop || i == ld->pop) {
			i += sc->ops[i].body_len;
			continue;
		}
		if (sc->ops[i].kind == HD_OP_PUT ||
		    (sc->ops[i].kind == HD_OP_GET && sc->ops[i].queue != r))
			return 0;
	}
	ld->q = r;
	ld->wq = q;
	/* the workers make no copy: the batch is what the main thread copies next */
	for (i = 0; ld->batch < 0 && i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];

		if (i == ld->wop || i == ld->pop)
			i += op->body_len;
		else if (op->kind == HD_OP_COPY && op->src >= 0 &&
			 sc->buffers[op->src].mem != HD_MEM_DEVICE) {
			ld->batch = op->src;
			ld->ret = op->bytes;
		}
	}
	return 1;
}

/* The DataLoader that runs the input pipeline ld describes. */
static void
py_loader_print(struct hd_buf *b, const struct hd_scenario *sc, const struct loader *ld)
{
	const struct hd_op *w = &sc->ops[ld->wop];
	uint32_t depth = sc->queues[ld->wq].depth;
	uint64_t prefetch = (depth + w->count - 1) / w->count;
	int ws, we;

	body_shape(sc, ld->wop, &ws, &we);
	hd_buf_puts(b,
		    "from torch.utils.data import DataLoader, Dataset\n\n\n"
		    "class Batches(Dataset):\n"
		    "    # one item is one whole batch: what a worker does for it\n"
		    "    def __len__(self):\n");
	hd_buf_printf(b, "        return %" PRIu64 "\n\n    def __getitem__(self, i):\n", ld->n);
	in_worker = 1;
	walk_range(b, sc, ws, we - 1, 2, 1, py_op);
	in_worker = 0;
	hd_buf_printf(b, "        return torch.empty(%" PRIu64 ", dtype=torch.uint8)\n\n\n",
		      ld->ret);
	hd_buf_printf(b,
		      "# workers %" PRIu64 " into queue %s of %u batches: num_workers=%" PRIu64
		      ", prefetch_factor=%" PRIu64 "\n",
		      w->count, sc->queues[ld->wq].name, depth, w->count,
		      prefetch > 0 ? prefetch : 1);
	if (ld->pop >= 0)
		hd_buf_printf(b,
			      "# thread %s copies each batch into pinned memory: pin_memory=True\n",
			      sc->ops[ld->pop].text);
	hd_buf_printf(b,
		      "loader = DataLoader(Batches(), batch_size=None, num_workers=%" PRIu64
		      ", pin_memory=%s,\n                    prefetch_factor=%" PRIu64 ")\n"
		      "loader_it = iter(loader)\n",
		      w->count, ld->pop >= 0 ? "True" : "False", prefetch > 0 ? prefetch : 1);
}

/* Python threads and queues: queue.Queue, one function per workers block. */
static void
py_threads(struct hd_buf *b, const struct hd_scenario *sc)
{
	int i;

	hd_buf_puts(b, "import threading\nimport queue as queue_mod\n\n");
	for (i = 0; i < sc->nqueues; i++) {
		put_ident(b, sc->queues[i].name);
		hd_buf_printf(b, " = queue_mod.Queue(maxsize=%u)\n", sc->queues[i].depth);
	}
	in_worker = 1;
	for (i = 0; i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];

		if (op->kind != HD_OP_WORKERS)
			continue;
		hd_buf_puts(b, "\n\n# ");
		workers_what(b, op);
		hd_buf_printf(b, ": each of its threads runs this\ndef worker_fn_%d(worker):\n",
			      workers_index(sc, i));
		if (op->body_len == 0) {
			indent(b, 1);
			hd_buf_puts(b, "pass\n");
		}
		walk_range(b, sc, i + 1, i + 1 + op->body_len, 1, 1, py_op);
		i += op->body_len;
	}
	in_worker = 0;
	hd_buf_puts(b, "\n\n");
}

void
hd_cudagen_torch(const struct hd_scenario *sc, struct hd_buf *b)
{
	int i;

	reserved_lang = 1;
	if (!loader_shape(sc, &py_loader))
		py_loader.wop = -1;
	hd_buf_printf(b, "# Scenario %s: ", sc->name);
	hd_san_py_comment(b, sc->title);
	hd_buf_putc(b, '\n');
	if (needs_fmod(sc, 1))
		hd_buf_puts(b, "import math\n");
	hd_buf_puts(b,
		    "import time\nimport torch\n\n"
		    "def busy_cpu(seconds):\n    end = time.perf_counter() + seconds\n"
		    "    while time.perf_counter() < end:\n        pass\n\n"
		    "clock_hz = 1.98e9  # the GPU's SM clock: torch.cuda._sleep counts cycles\n"
		    "rank = 0\n");
	for (i = 0; i < sc->nbuffers; i++) {
		const struct hd_buffer *buf = &sc->buffers[i];

		if (explicit_alloc(sc, i))
			continue;
		py_buf(b, sc, i);
		if (buf->mem == HD_MEM_MANAGED)
			hd_buf_printf(b,
				      " = None  # managed memory (cudaMallocManaged) has no "
				      "PyTorch tensor; %" PRIu64 " bytes\n",
				      buf->bytes);
		else
			hd_buf_printf(b, " = torch.empty(%" PRIu64 ", dtype=torch.uint8%s)\n",
				      buf->bytes,
				      buf->mem == HD_MEM_PINNED     ? ", pin_memory=True" :
					  buf->mem == HD_MEM_DEVICE ? ", device=\"cuda\"" :
								      "");
	}
	for (i = 2; i < sc->nstreams; i++) {
		put_ident(b, sc->streams[i].name);
		hd_buf_printf(b, " = torch.cuda.Stream(priority=%d)%s\n", sc->streams[i].priority,
			      sc->streams[i].flags & HD_STREAM_NONBLOCKING ?
				  "  # PyTorch streams are created non-blocking" :
				  "");
	}
	for (i = 0; i < sc->nevents; i++) {
		put_ident(b, sc->events[i].name);
		hd_buf_printf(b, " = torch.cuda.Event(enable_timing=%s)\n",
			      sc->events[i].timing ? "True" : "False");
	}
	for (i = 0; i < sc->nops; i++) {
		if (sc->ops[i].kind != HD_OP_GRAPH)
			continue;
		hd_buf_puts(b, "# graph ");
		hd_san_py_comment(b, sc->ops[i].text);
		hd_buf_printf(b, ": captured once, %" PRIu64 " nodes, replayed below\n",
			      sc->ops[i].count);
		put_ident(b, sc->ops[i].text);
		hd_buf_puts(b, " = torch.cuda.CUDAGraph()\nwith torch.cuda.graph(");
		put_ident(b, sc->ops[i].text);
		hd_buf_puts(b, "):\n");
		graph_body(b, sc, i, 1, 1, py_op);
		i += sc->ops[i].body_len;
	}
	hd_buf_puts(b, "\n");
	if (py_loader.wop >= 0)
		py_loader_print(b, sc, &py_loader);
	else if (hd_threads_any(sc) || sc->nqueues > 0)
		py_threads(b, sc);
	walk(b, sc, 0, 1, py_op);
	for (i = 0; i < sc->nops && py_loader.wop < 0; i++)
		if (sc->ops[i].kind == HD_OP_WORKERS)
			hd_buf_printf(
			    b, "list(map(threading.Thread.join, th_%d))  # its threads end\n",
			    workers_index(sc, i));
	hd_buf_puts(b, "torch.cuda.synchronize()  # a run ends with the GPU idle\n");
}
