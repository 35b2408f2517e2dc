/*
 * flow.h - fluid bandwidth sharing among transfers.
 *
 * Resources (a PCIe direction, the host side of the root complex, HBM, later
 * NVLink ports and NICs) have capacities in bytes/s.  A flow moves a number
 * of bytes through a set of resources, optionally capped at its own rate.
 * Rates are max-min fair, found by progressive filling, and recomputed
 * whenever a flow starts or ends; between those moments every rate is
 * constant, so each flow's finish time is exact up to rounding to whole
 * picoseconds.  Latency is not modelled here: callers pay it before
 * starting a flow, so it occupies no bandwidth (as in SimGrid and ASTRA-sim).
 *
 * Rounding rule: a finish time is rounded up to the next whole picosecond,
 * ignoring less than a thousandth of a picosecond (floating-point noise), so
 * 64 MiB at 50 GB/s takes exactly 1342177280 ps.
 */
#ifndef HD_FLOW_H
#define HD_FLOW_H

#include <stdint.h>

#include "base/units.h"

#define HD_FLOW_MAXRES 8 /* resources one flow may cross */

struct hd_flownet;

struct hd_flownet *hd_flow_new(void);
void hd_flow_free(struct hd_flownet *n); /* accepts NULL */

/* Add a resource of `capacity` bytes/s (<= 0: unlimited); returns its id. */
int hd_flow_resource(struct hd_flownet *n, double capacity);

/*
 * Start a flow of `bytes` at time `now` across resources res[0..nres-1]
 * (nres <= HD_FLOW_MAXRES), capped at `cap` bytes/s (<= 0: no own cap).
 * `tag` comes back from hd_flow_done.  Returns the flow's id.  `now` must
 * not go backwards between calls.
 */
int hd_flow_start(struct hd_flownet *n, hd_time now, double bytes, double cap, const int *res,
		  int nres, uint64_t tag);

/*
 * Take one flow that has finished by `now` (the lowest id first) and return
 * 1 with its tag in *tag; return 0 when none is left, after which rates are
 * current again.  Call it until it returns 0 whenever now reaches
 * hd_flow_next().
 */
int hd_flow_done(struct hd_flownet *n, hd_time now, uint64_t *tag);

/* The earliest finish time of the flows in progress, or HD_TIME_MAX. */
hd_time hd_flow_next(struct hd_flownet *n);

/* Current rate of flow `id` in bytes/s (0 if it is not in progress). */
double hd_flow_rate(const struct hd_flownet *n, int id);
/* Flows in progress. */
int hd_flow_active(const struct hd_flownet *n);

#endif
