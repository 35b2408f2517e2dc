/*
 * wire.h - what rank processes say to each other: framed messages on a
 * stream socket, a scenario's IR and a trace as bytes.
 *
 * The coordinator sends each rank the scenario itself, serialised field by
 * field, rather than the lesson to re-parse: the worker runs exactly the IR
 * the coordinator lowered, whatever file, built-in or knob values it came
 * from.  Spans come back as a whole serialised trace.  The byte order is the
 * host's: every process of a run is this same binary on one node (MPI runs
 * across nodes use the same encoding between like machines).
 */
#ifndef HD_WIRE_H
#define HD_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "ir/ir.h"
#include "ir/trace.h"

/* A growable byte buffer being written. */
struct hd_wbuf {
	unsigned char *p;
	size_t len, cap;
};
/* A byte buffer being read; `bad` is set on any read past the end. */
struct hd_rbuf {
	const unsigned char *p;
	size_t len, off;
	int bad;
};

void hd_wbuf_u32(struct hd_wbuf *w, uint32_t v);
void hd_wbuf_u64(struct hd_wbuf *w, uint64_t v);
void hd_wbuf_str(struct hd_wbuf *w, const char *s); /* NULL allowed */
void hd_wbuf_bytes(struct hd_wbuf *w, const void *p, size_t n);
void hd_wbuf_free(struct hd_wbuf *w);
uint32_t hd_rbuf_u32(struct hd_rbuf *r);
uint64_t hd_rbuf_u64(struct hd_rbuf *r);
char *hd_rbuf_str(struct hd_rbuf *r); /* allocated; NULL if it was */
void hd_rbuf_bytes(struct hd_rbuf *r, void *p, size_t n);

/* Append sc to w. */
void hd_wire_put_scenario(struct hd_wbuf *w, const struct hd_scenario *sc);
/* Read a scenario written by hd_wire_put_scenario; NULL with e set if the
 * bytes are short or out of range. */
struct hd_scenario *hd_wire_get_scenario(struct hd_rbuf *r, struct hd_err *e);

/* Append a whole trace: lanes, strings, spans. */
void hd_wire_put_trace(struct hd_wbuf *w, const struct hd_trace *t);
/* Read a trace and replay it into sink (lanes and labels renumbered by the
 * sink).  0, or -1 with e set. */
int hd_wire_get_trace(struct hd_rbuf *r, const struct hd_sink *sink, struct hd_err *e);

/*
 * Messages: a 4-byte type, a 4-byte length, then the payload.  Sends never
 * raise SIGPIPE.  hd_msg_recv waits at most until `deadline_ns`
 * (CLOCK_MONOTONIC; 0 waits for ever) and returns 0, or -1 with errno set:
 * EPIPE when the other side closed, ETIMEDOUT when the deadline passed.  The
 * payload is allocated (free it); an empty payload leaves *p NULL.
 */
int hd_msg_send(int fd, uint32_t type, const void *p, size_t n);
int hd_msg_recv(int fd, uint32_t *type, unsigned char **p, size_t *n, int64_t deadline_ns);

/* CLOCK_MONOTONIC in nanoseconds: one clock for every process on a node. */
int64_t hd_wire_now_ns(void);

#endif
