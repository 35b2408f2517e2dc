/*
 * check_profile.c - hardware profiles: the built-ins are complete and
 * physically plausible, format and parse round-trip exactly, `base`
 * inheritance, every class of error with its position, --profile
 * resolution, and the listings.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/embedded.h"
#include "base/util.h"
#include "profile/profile.h"
#include "tests/testutil.h"

/* Per-direction x16-style theoretical rate of a PCIe link, bytes/s. */
static double
pcie_theoretical(int gen, int lanes)
{
	static const double gts[] = { 0, 2.5, 5, 8, 16, 32, 64 };
	double enc = gen <= 2 ? 8.0 / 10 : 128.0 / 130;

	return lanes * gts[gen] * 1e9 * enc / 8;
}

static const struct hd_profile *
builtin_named(const char *name)
{
	int i;

	for (i = 0; i < hd_profile_builtin_count(); i++)
		if (strcmp(hd_profile_builtin(i)->name, name) == 0)
			return hd_profile_builtin(i);
	return NULL;
}

/* Write text to a fresh temporary file named *.hdp; returns its path. */
static char *
write_temp(const char *text)
{
	char *path = hd_xstrdup("/tmp/hdsim-prof-XXXXXX.hdp");
	int fd = mkstemps(path, 4);
	size_t n = strlen(text);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq((int)write(fd, text, n), (int)n);
	close(fd);
	return path;
}

/* ------------------------------------------------------------------------ */

/* The median of profiles: key by key, odd and even counts, keys all agree
 * on untouched, text from the first. */
START_TEST(median_key_by_key)
{
	struct hd_profile r[4], m;
	int i;

	for (i = 0; i < 4; i++)
		r[i] = *hd_profile_builtin_find("h100-sxm");
	r[0].host_memcpy_d2h_bw = 8e9;
	r[1].host_memcpy_d2h_bw = 13e9;
	r[2].host_memcpy_d2h_bw = 11e9;
	r[3].host_memcpy_d2h_bw = 20e9;
	r[0].pin_base = 130000000; /* 130 us */
	r[1].pin_base = 70000000;
	r[2].pin_base = 90000000;
	r[3].pin_base = 60000000;
	r[0].host_cores = 16;
	r[1].host_cores = 8;
	r[2].host_cores = 12;
	r[3].host_cores = 4;
	snprintf(r[1].description, sizeof r[1].description, "another");
	hd_profile_median(r, 3, &m);
	ck_assert_double_eq(m.host_memcpy_d2h_bw, 11e9);
	ck_assert_int_eq(m.pin_base, 90000000);
	ck_assert_int_eq(m.host_cores, 12);
	ck_assert_double_eq(m.h2d_bw, r[0].h2d_bw);
	ck_assert_str_eq(m.description, r[0].description);
	hd_profile_median(r, 4, &m); /* 8 11 13 20 */
	ck_assert_double_eq(m.host_memcpy_d2h_bw, 12e9);
	ck_assert_int_eq(m.pin_base, 80000000);
	ck_assert_int_eq(m.host_cores, 8);
	hd_profile_median(r, 1, &m);
	ck_assert(hd_profile_equal(&m, &r[0]));
	m = r[2];
	hd_profile_median(r, 3, &r[0]); /* out may be one of in */
	ck_assert_double_eq(r[0].host_memcpy_d2h_bw, 11e9);
	ck_assert_double_eq(m.host_memcpy_d2h_bw, 11e9);
}
END_TEST

/* A key set by name reads back as set, rounded to its type; text, words
 * and unknown keys are refused and change nothing. */
START_TEST(set_value_by_key)
{
	struct hd_profile p = *hd_profile_builtin_find("h200-sxm"), q = p;
	enum hd_dim dim;
	double v;

	ck_assert_int_eq(hd_profile_set_value(&p, "api.launch", 4.88e6 + 0.4), 0);
	ck_assert_int_eq(p.api_launch, 4880000); /* picoseconds, rounded */
	ck_assert_int_eq(hd_profile_value(&p, "api.launch", &v, &dim), 0);
	ck_assert_double_eq(v, 4.88e6);
	ck_assert_int_eq(dim, HD_DIM_TIME);
	ck_assert_int_eq(hd_profile_set_value(&p, "host.memcpy_d2h", 12.5e9), 0);
	ck_assert_double_eq(p.host_memcpy_d2h_bw, 12.5e9);
	ck_assert_int_eq(hd_profile_set_value(&p, "host.cores", 7.0), 0);
	ck_assert_int_eq(p.host_cores, 7);
	ck_assert_int_eq(hd_profile_set_value(&p, "api.nonesuch", 1.0), -1);
	ck_assert_int_eq(hd_profile_set_value(&p, "gpu.name", 1.0), -1);
	ck_assert_str_eq(p.gpu_name, q.gpu_name);
	p.api_launch = q.api_launch;
	p.host_memcpy_d2h_bw = q.host_memcpy_d2h_bw;
	p.host_cores = q.host_cores;
	ck_assert(hd_profile_equal(&p, &q));
}
END_TEST

START_TEST(builtins_present)
{
	int i, n = hd_profile_builtin_count();

	ck_assert_int_eq(n, hd_builtin_profiles_count);
	ck_assert_int_ge(n, 5);
	ck_assert_str_eq(hd_profile_builtin(0)->name, "h100-sxm");
	ck_assert_ptr_null(hd_profile_builtin(n));
	ck_assert_ptr_null(hd_profile_builtin(-1));
	for (i = 0; i < n; i++) {
		const struct hd_profile *p = hd_profile_builtin(i);
		char want[64];

		/* The name is the file's name without ".hdp". */
		snprintf(want, sizeof want, "%s", hd_builtin_profiles[i].name);
		ck_assert_ptr_nonnull(strstr(want, ".hdp"));
		*strstr(want, ".hdp") = '\0';
		ck_assert_str_eq(p->name, want);
		ck_assert_str_eq(p->origin, "built-in");
		ck_assert_ptr_eq(hd_profile_builtin_find(p->name), p);
		ck_assert_ptr_eq(hd_profile_builtin_text(i), hd_builtin_profiles[i].text);
		ck_assert_int_gt((int)strlen(p->description), 10);
		ck_assert_int_gt((int)strlen(p->gpu_name), 3);
	}
	ck_assert_ptr_null(hd_profile_builtin_find("no-such"));
	ck_assert_ptr_nonnull(builtin_named("h200-sxm"));
	ck_assert_ptr_nonnull(builtin_named("a100-pcie"));
	ck_assert_ptr_nonnull(builtin_named("rtx4090"));
	ck_assert_ptr_nonnull(builtin_named("gen3-v100"));
}
END_TEST

/* The binary carries each profile file byte for byte (build-aux/embed.sh
 * escapes backslashes and quotes: a comment with `tr '\n' ,` in it once
 * came out as two lines, the second no key at all). */
START_TEST(builtins_are_their_files)
{
	hd_test_embedded_are_files(hd_builtin_profiles, hd_builtin_profiles_count,
				   HDSIM_SRCDIR "/profiles");
}
END_TEST

/*
 * Parse each built-in's text twice, over a struct of zeros and over one of
 * 0xa5 bytes: every field must come out the same, so the text sets them all.
 */
START_TEST(builtins_set_every_field)
{
	int i;

	for (i = 0; i < hd_profile_builtin_count(); i++) {
		struct hd_profile a, b;
		struct hd_err e;

		memset(&a, 0, sizeof a);
		memset(&b, 0xa5, sizeof b);
		memset(&e, 0, sizeof e);
		ck_assert_int_eq(hd_profile_parse(hd_profile_builtin_text(i), "t", &a, &e), 0);
		ck_assert_int_eq(hd_profile_parse(hd_profile_builtin_text(i), "t", &b, &e), 0);
#define SAME(f) \
	ck_assert_msg(memcmp(&a.f, &b.f, sizeof a.f) == 0, "%s: field " #f " not set", a.name)
		SAME(name);
		SAME(description);
		SAME(pcie_gen);
		SAME(pcie_lanes);
		SAME(h2d_bw);
		SAME(d2h_bw);
		SAME(bidir_bw);
		SAME(copy_latency);
		SAME(copy_engines);
		SAME(host_memcpy_h2d_bw);
		SAME(host_memcpy_d2h_bw);
		SAME(staging_chunk);
		SAME(staging_buffers);
		SAME(pin_bw);
		SAME(pin_base);
		SAME(malloc_cost);
		SAME(free_cost);
		SAME(node_h2d_bw);
		SAME(node_d2h_bw);
		SAME(node_bidir_bw);
		SAME(host_cores);
		SAME(api_launch);
		SAME(api_memcpy);
		SAME(api_event);
		SAME(api_wait);
		SAME(api_sync);
		SAME(sync_wake);
		SAME(stream_queue);
		SAME(gpu_name);
		SAME(sms);
		SAME(hbm_bw);
		SAME(flops);
		SAME(launch_latency);
		SAME(kernel_overhead);
		SAME(max_kernels);
		SAME(d2d_bw);
		SAME(um_page);
		SAME(um_fault);
		SAME(um_fault_bw);
		SAME(um_prefetch_bw);
		SAME(topo);
		SAME(gpus_per_node);
		SAME(nvlinks);
		SAME(nvlink_bw);
		SAME(nvlink_latency);
		SAME(p2p_pcie_bw);
		SAME(nic_bw);
		SAME(net_latency);
#undef SAME
		ck_assert(hd_profile_equal(&a, hd_profile_builtin(i)));
	}
}
END_TEST

/* Relations between figures, not copies of them. */
START_TEST(builtins_plausible)
{
	double gen5 = 0, gen4 = 0, gen3 = 0;
	int n5 = 0, n4 = 0, n3 = 0, i;

	for (i = 0; i < hd_profile_builtin_count(); i++) {
		const struct hd_profile *p = hd_profile_builtin(i);
		double th = pcie_theoretical(p->pcie_gen, p->pcie_lanes);
		char link[32];

		ck_assert_int_ge(p->pcie_gen, 3);
		ck_assert_int_le(p->pcie_gen, 5);
		ck_assert_int_eq(p->pcie_lanes, 16);
		/* Pinned DMA reaches 75-100% of the link after 128b/130b coding. */
		ck_assert_msg(p->h2d_bw >= 0.75 * th && p->h2d_bw <= th,
			      "%s: h2d %g outside 75-100%% of %g", p->name, p->h2d_bw, th);
		ck_assert_msg(p->d2h_bw >= 0.75 * th && p->d2h_bw <= th,
			      "%s: d2h %g outside 75-100%% of %g", p->name, p->d2h_bw, th);
		/* Both directions at once: more than one, less than two. */
		ck_assert(p->bidir_bw > fmax(p->h2d_bw, p->d2h_bw));
		ck_assert(p->bidir_bw <= p->h2d_bw + p->d2h_bw);
		/* The description names the link. */
		snprintf(link, sizeof link, "Gen%d x%d", p->pcie_gen, p->pcie_lanes);
		ck_assert_msg(strstr(p->description, link) != NULL, "%s: '%s' lacks %s", p->name,
			      p->description, link);
		/* Pageable staging is slower than pinned DMA, and so is pinning. */
		ck_assert(p->host_memcpy_h2d_bw < p->h2d_bw);
		ck_assert(p->host_memcpy_d2h_bw < p->d2h_bw);
		ck_assert(p->pin_bw < p->h2d_bw);
		ck_assert(p->staging_chunk >= 4096 && p->staging_chunk <= (64u << 20));
		ck_assert((p->staging_chunk & (p->staging_chunk - 1)) == 0);
		ck_assert_int_ge(p->staging_buffers, 1);
		ck_assert_int_ge(p->copy_engines, 2);
		/* Host API costs: microseconds, not nanoseconds or milliseconds. */
		ck_assert(p->api_launch >= 500 * HD_NS && p->api_launch <= 50 * HD_US);
		ck_assert(p->api_memcpy >= 500 * HD_NS && p->api_memcpy <= 50 * HD_US);
		ck_assert(p->api_event > 0 && p->api_event <= p->api_launch);
		ck_assert(p->api_wait > 0 && p->api_wait <= p->api_launch);
		ck_assert(p->api_sync > 0 && p->api_sync <= 50 * HD_US);
		ck_assert(p->sync_wake > 0 && p->sync_wake <= 50 * HD_US);
		ck_assert(p->copy_latency >= HD_US && p->copy_latency <= 20 * HD_US);
		ck_assert(p->launch_latency > 0 && p->launch_latency <= 20 * HD_US);
		ck_assert(p->kernel_overhead < p->launch_latency);
		ck_assert_int_ge(p->stream_queue, 16);
		/* GPU: memory faster than PCIe; a copy moves 2 bytes per byte. */
		ck_assert(p->hbm_bw > 10 * p->h2d_bw);
		/* cudaMemcpy D2D reaches a little above half of what the memory kernel
		 * does (H100: 1.47-1.5 against 2.89 TB/s, bench/probe/copy.hds) */
		ck_assert(p->d2d_bw <= p->hbm_bw * 0.55 && p->d2d_bw >= p->hbm_bw / 10);
		ck_assert(p->d2d_bw > p->h2d_bw);
		ck_assert(p->flops >= 1e12 && p->flops <= 1e15);
		ck_assert(p->hbm_bw >= 1e11 && p->hbm_bw <= 2e13);
		ck_assert_int_ge(p->sms, 40);
		ck_assert_int_ge(p->max_kernels, 16);
		/* Unified memory: demand faults slower than prefetch once each fault
		 * group's fixed cost is counted (on an H100 the bytes of a group move
		 * a little faster than a prefetch's, 52.9-55.2 against 46.5-48.6
		 * GB/s, but 7 us a group makes faulting the slower path), both under
		 * PCIe. */
		ck_assert((double)p->um_page /
			      (hd_time_to_s(p->um_fault) + (double)p->um_page / p->um_fault_bw) <
			  p->um_prefetch_bw);
		ck_assert(p->um_prefetch_bw <= p->h2d_bw);
		ck_assert(p->um_page >= 4096 && p->um_fault > 0);
		/* Topology. */
		ck_assert(p->p2p_pcie_bw <= fmax(p->h2d_bw, p->d2h_bw));
		if (p->topo == HD_TOPO_SINGLE)
			ck_assert_int_eq(p->gpus_per_node, 1);
		else
			ck_assert_int_ge(p->gpus_per_node, 2);
		if (p->topo == HD_TOPO_NVSWITCH || p->topo == HD_TOPO_NVLINK_PAIRS)
			ck_assert_int_gt(p->nvlinks, 0);
		if (p->nvlinks > 0) {
			/* Below NVLink's 25 GB/s line rate, and far above PCIe. */
			ck_assert(p->nvlink_bw > 0 && p->nvlink_bw <= 25e9);
			ck_assert(p->nvlinks * p->nvlink_bw > 4 * p->h2d_bw);
			ck_assert(p->nvlink_latency > 0);
		} else {
			ck_assert(p->nvlink_bw == 0);
		}
		ck_assert(p->nic_bw > 0 && p->net_latency > 0);
		if (p->pcie_gen == 5)
			gen5 += p->h2d_bw, n5++;
		if (p->pcie_gen == 4)
			gen4 += p->h2d_bw, n4++;
		if (p->pcie_gen == 3)
			gen3 += p->h2d_bw, n3++;
	}
	/* One profile at least per generation, each about half the next. */
	ck_assert(n5 > 0 && n4 > 0 && n3 > 0);
	gen5 /= n5, gen4 /= n4, gen3 /= n3;
	ck_assert(gen4 / gen5 > 0.4 && gen4 / gen5 < 0.6);
	ck_assert(gen3 / gen4 > 0.4 && gen3 / gen4 < 0.6);
	/* H200 has faster memory than H100 on the same link and compute. */
	ck_assert(builtin_named("h200-sxm")->hbm_bw > builtin_named("h100-sxm")->hbm_bw);
	ck_assert(builtin_named("h200-sxm")->d2d_bw > builtin_named("h100-sxm")->d2d_bw);
}
END_TEST

/* Every key statement of a built-in file has a "# source:" comment above. */
START_TEST(builtins_cite_sources)
{
	int i;

	for (i = 0; i < hd_builtin_profiles_count; i++) {
		const char *s = hd_builtin_profiles[i].text;
		int line = 0, cited = 0, header = 0;

		while (*s != '\0') {
			const char *nl = strchr(s, '\n');
			size_t n = nl ? (size_t)(nl - s) : strlen(s);

			line++;
			if (n == 0 || s[0] == '\n') {
				/* a blank line ends a comment block */
				cited = 0;
			} else if (s[0] == '#') {
				if (strncmp(s, "# source:", 9) == 0)
					cited = 1;
			} else if (!header) {
				header = 1;
			} else if (strncmp(s, "name ", 5) != 0 &&
				   strncmp(s, "description ", 12) != 0) {
				ck_assert_msg(cited, "%s:%d: no '# source:' comment",
					      hd_builtin_profiles[i].name, line);
				cited = 0;
			}
			s += n;
			if (*s == '\n')
				s++;
		}
	}
}
END_TEST

/* ------------------------------------------------------------------------ */

static void
roundtrip(const struct hd_profile *p)
{
	struct hd_profile q;
	struct hd_err e;
	char *text, *again;

	text = hd_profile_format(p);
	memset(&q, 0, sizeof q);
	memset(&e, 0, sizeof e);
	memcpy(q.origin, p->origin, sizeof q.origin);
	ck_assert_msg(hd_profile_parse(text, "rt", &q, &e) == 0, "%s: %s: %s\n%s", p->name, e.where,
		      e.msg, text);
	ck_assert_msg(hd_profile_equal(&q, p), "%s: round trip differs:\n%s", p->name, text);
	again = hd_profile_format(&q);
	ck_assert_str_eq(again, text);
	free(again);
	free(text);
}

START_TEST(roundtrip_builtins)
{
	int i;

	for (i = 0; i < hd_profile_builtin_count(); i++) {
		const struct hd_profile *p = hd_profile_builtin(i);
		struct hd_profile q;
		struct hd_err e;
		char *text = hd_profile_format(p);

		roundtrip(p);
		/* Exactly equal, byte for byte. */
		memset(&q, 0, sizeof q);
		memset(&e, 0, sizeof e);
		memcpy(q.origin, p->origin, sizeof q.origin);
		ck_assert_int_eq(hd_profile_parse(text, "rt", &q, &e), 0);
		ck_assert(memcmp(&q, p, sizeof q) == 0);
		free(text);
	}
}
END_TEST

/*
 * A profile written before the node-wide DMA keys existed (every other key,
 * no base) still loads, with no node cap; any other key left out is still
 * an error that names it.
 */
START_TEST(older_profile_without_optional_keys)
{
	const struct hd_profile *p = builtin_named("h200-sxm");
	char *text = hd_profile_format(p), *line;
	struct hd_profile q;
	struct hd_err e;
	static const char *const drop[] = { "host.dma_h2d", "host.dma_d2h", "host.dma_bidir",
					    "host.cores" };
	size_t i;

	ck_assert(p->node_h2d_bw > 0);
	for (i = 0; i < HD_ARRAY_LEN(drop); i++) {
		line = strstr(text, drop[i]);
		ck_assert_ptr_nonnull(line);
		*line = '#'; /* the line becomes a comment */
	}
	memset(&q, 0, sizeof q);
	memset(&e, 0, sizeof e);
	ck_assert_msg(hd_profile_parse(text, "old", &q, &e) == 0, "%s", e.msg);
	ck_assert(q.node_h2d_bw == 0 && q.node_d2h_bw == 0 && q.node_bidir_bw == 0);
	ck_assert_int_eq(q.host_cores, 0); /* no cores named: a core per thread */
	ck_assert(q.h2d_bw == p->h2d_bw);
	line = strstr(text, "host.pin_base");
	ck_assert_ptr_nonnull(line);
	*line = '#';
	ck_assert_int_ne(hd_profile_parse(text, "old", &q, &e), 0);
	ck_assert_ptr_nonnull(strstr(e.msg, "missing key: host.pin_base"));
	free(text);
}
END_TEST

#define HDR_BASE_ZERO "hdsim-profile 1\nbase = rtx4090\nnvlink.rate = -0 GB/s\n"

/* Awkward values: many digits, odd sizes, escapes in strings. */
START_TEST(roundtrip_awkward)
{
	struct hd_profile p = *hd_profile_builtin(0);
	unsigned long long x = 88172645463325252ULL;
	int round;

	snprintf(p.description, sizeof p.description, "quote \" back\\slash\ttab # hash");
	snprintf(p.gpu_name, sizeof p.gpu_name, "GPU \"X\"");
	p.h2d_bw = 12345678901.234567;
	p.d2h_bw = 1.0 / 3.0 * 1e10;
	p.flops = 6.02214076e13;
	p.api_launch = 1234567;
	p.nvlink_latency = 1;
	p.staging_chunk = 12345;
	p.um_page = 3ULL << 30;
	p.nvlink_bw = 0;
	p.nvlinks = 0;
	p.topo = HD_TOPO_PCIE;
	roundtrip(&p);
	/* "-0" is zero. */
	{
		struct hd_profile q;
		struct hd_err e;

		memset(&q, 0, sizeof q);
		memset(&e, 0, sizeof e);
		ck_assert_int_eq(hd_profile_parse(HDR_BASE_ZERO, "z", &q, &e), 0);
		ck_assert(!signbit(q.nvlink_bw) && q.nvlink_bw == 0);
		roundtrip(&q);
	}
	/* Pseudo-random rates and times (xorshift; deterministic). */
	for (round = 0; round < 2000; round++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		p.h2d_bw = (double)(x % 1000000007ULL) * 1e3 / 7.0 + 1;
		p.hbm_bw = (double)(x >> 11) / 9007199254740992.0 * 1e13 + 1;
		p.api_memcpy = (hd_time)(x % 100000000000ULL);
		p.pin_base = (hd_time)(x % 997);
		p.staging_chunk = (x % 100000000ULL) + 1;
		p.sms = (int)(x % 5000) + 1;
		roundtrip(&p);
	}
}
END_TEST

/* ------------------------------------------------------------------------ */

START_TEST(base_inheritance)
{
	const struct hd_profile *h100 = builtin_named("h100-sxm");
	struct hd_profile p, want;
	struct hd_err e;

	memset(&p, 0, sizeof p);
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_profile_parse("hdsim-profile 1\n"
					  "# my machine\n"
					  "base = h100-sxm   # start from the default\n"
					  "name = \"mine\"\n"
					  "pcie.h2d = 40 GB/s\n"
					  "api.launch = 2.5us\n"
					  "staging.chunk = 1 MiB\n"
					  "topo.kind = single\n"
					  "topo.gpus_per_node = 1\n",
					  "mine.hdp", &p, &e),
			 0);
	want = *h100;
	snprintf(want.name, sizeof want.name, "mine");
	want.h2d_bw = 40e9;
	want.api_launch = 2500 * HD_NS;
	want.staging_chunk = 1 << 20;
	want.topo = HD_TOPO_SINGLE;
	want.gpus_per_node = 1;
	ck_assert(hd_profile_equal(&p, &want));
	ck_assert(!hd_profile_equal(&p, h100));
	/* origin is not a key: parse leaves it alone. */
	ck_assert_str_eq(p.origin, "");

	/* A base other than the default. */
	memset(&p, 0, sizeof p);
	ck_assert_int_eq(hd_profile_parse("hdsim-profile 1\nbase = gen3-v100\n", "x", &p, &e), 0);
	ck_assert(hd_profile_equal(&p, builtin_named("gen3-v100")));
}
END_TEST

struct bad {
	const char *text;
	int line, col;
	const char *frag;
};

#define HDR  "hdsim-profile 1\n"
#define BASE HDR "base = h100-sxm\n"

static const struct bad bads[] = {
	{ "name = \"x\"\n", 1, 1, "expected 'hdsim-profile 1'" },
	{ "", 1, 1, "empty file" },
	{ "# only a comment\n", 1, 1, "only comments" },
	{ "hdsim-profile 2\n", 1, 15, "version 2 is not supported" },
	{ "hdsim-profile one\n", 1, 15, "version number" },
	{ "hdsim-profile 1 x\n", 1, 17, "unexpected text" },
	{ BASE "pcie.h2dd = 5 GB/s\n", 3, 1, "unknown key 'pcie.h2dd'; did you mean 'pcie.h2d'?" },
	{ BASE "h2d = 5 GB/s\n", 3, 1, "did you mean 'pcie.h2d'?" },
	{ BASE "topology = pcie\n", 3, 1, "did you mean 'topo.kind'?" },
	{ BASE "zzzzzzzzzzzz = 1\n", 3, 1, "unknown key 'zzzzzzzzzzzz' (doc/" },
	{ BASE "pcie.h2d = 50 GB\n", 3, 12,
	  "pcie.h2d expects a rate such as 50 GB/s, found a size '50 GB'" },
	{ BASE "pcie.h2d = 50\n", 3, 12, "found a plain number '50'" },
	{ BASE "api.launch = 5 GB/s\n", 3, 14, "api.launch expects a time such as 5 us" },
	{ BASE "staging.chunk = 2 ms\n", 3, 17, "expects a size such as 2 MiB, found a time" },
	{ BASE "gpu.fp32 = 60 GB/s\n", 3, 12, "expects a compute rate" },
	{ BASE "pcie.h2d = fast\n", 3, 12, "found 'fast'" },
	{ BASE "pcie.h2d = -5 GB/s\n", 3, 12, "pcie.h2d must not be negative" },
	{ BASE "api.launch = -1 us\n", 3, 14, "must not be negative" },
	{ BASE "pcie.h2d = 0 GB/s\n", 3, 12, "pcie.h2d must be greater than zero" },
	{ BASE "staging.chunk = 0 B\n", 3, 17, "greater than zero" },
	{ BASE "staging.chunk = 0 KiB\n", 3, 17, "greater than zero" },
	{ BASE "staging.chunk = 1.5 B\n", 3, 17, "whole number of bytes" },
	{ BASE "pcie.lanes = 2.5\n", 3, 14, "pcie.lanes expects a whole number" },
	{ BASE "pcie.lanes = 16 MiB\n", 3, 14, "whole number" },
	{ BASE "pcie.gen = 7\n", 3, 12, "pcie.gen must be between 1 and 6, found 7" },
	{ BASE "pcie.copy_engines = 0\n", 3, 21, "between 1 and 64" },
	{ BASE "pcie.h2d = 5 GB/s\n# x\npcie.h2d = 6 GB/s\n", 5, 1,
	  "duplicate key 'pcie.h2d' (first set on line 3)" },
	{ BASE "name = \"abc\n", 3, 8, "unterminated string" },
	{ BASE "name = abc\n", 3, 8, "name expects a string in double quotes" },
	{ BASE "name = \"a\" b\n", 3, 12, "unexpected text after the string" },
	{ BASE "name = \"a\\qb\"\n", 3, 10, "unknown escape" },
	{ BASE "name = \"0123456789012345678901234567890123456789012345678901234567890123\"\n", 3,
	  8, "name is too long (at most 63 bytes)" },
	{ BASE "pcie.h2d = \"5 GB/s\"\n", 3, 12, "not a string" },
	{ BASE "topo.kind = mesh\n", 3, 13,
	  "topo.kind expects one of single, nvswitch, nvlink-pairs, pcie; found 'mesh'" },
	{ HDR "name = \"x\"\nbase = h100-sxm\n", 3, 8, "base must come first" },
	{ HDR "base = h10\n", 2, 8, "unknown base profile 'h10'; the built-ins are h100-sxm" },
	{ BASE "pcie.h2d 5 GB/s\n", 3, 10, "expected '=' after 'pcie.h2d'" },
	{ BASE "pcie.h2d =   # nothing\n", 3, 14, "missing value after 'pcie.h2d ='" },
	{ BASE "= 5\n", 3, 1, "expected 'key = value'" },
	{ HDR "name = \"x\"\ndescription = \"y\"\n", 1, 1,
	  "missing keys: pcie.gen, pcie.lanes, pcie.h2d" },
	{ "# lead\n" HDR "name = \"x\"\n", 2, 1,
	  " more (a profile without 'base = NAME' must set every key)" },
	{ HDR "base = rtx4090\nnvlink.links = 2\n", 3, 1, "nvlink.rate must be greater than zero" },
	{ BASE "nvlink.links = 0\n", 3, 1, "need nvlink.links of 1 or more" },
	{ BASE "topo.kind = single\n", 3, 1, "topo.kind single needs topo.gpus_per_node = 1" },
	{ HDR "base = h100-sxm\r\npcie.h2d = 5 GB\r\n", 3, 12, "found a size '5 GB'" },
	{ HDR "base = h100-sxm\n\tpcie.gen\t=\t9\n", 3, 13, "between 1 and 6" },
};

START_TEST(errors)
{
	const struct bad *b = &bads[_i];
	struct hd_profile p;
	struct hd_err e;
	char where[64], *caret;
	int k;

	memset(&p, 0, sizeof p);
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_profile_parse(b->text, "t.hdp", &p, &e), -1);
	ck_assert(e.set);
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	snprintf(where, sizeof where, "t.hdp:%d:%d", b->line, b->col);
	ck_assert_str_eq(e.where, where);
	ck_assert_msg(strstr(e.msg, b->frag) != NULL, "message '%s' lacks '%s'", e.msg, b->frag);
	/* Context: the line, then a caret under the column. */
	caret = strchr(e.context, '\n');
	ck_assert_ptr_nonnull(caret);
	caret++;
	for (k = 1; k < b->col; k++, caret++)
		ck_assert(*caret == ' ' || *caret == '\t');
	ck_assert_int_eq(*caret, '^');
}
END_TEST

/* Random edits of the built-in texts: parse succeeds or fails cleanly. */
START_TEST(mutations_never_crash)
{
	static const char alphabet[] = "= #\"\\\n\t.-0123456789eE GB/sMiBus"
				       "abcxyz\xc2\xb5\xff";
	unsigned long long x = 0x9e3779b97f4a7c15ULL;
	int i, round, bad = 0;

	for (i = 0; i < hd_profile_builtin_count(); i++) {
		const char *orig = hd_profile_builtin_text(i);
		size_t n = strlen(orig);
		char *t = hd_xmalloc(n + 16);

		for (round = 0; round < 400; round++) {
			struct hd_profile p;
			struct hd_err e;
			int k, edits;

			memcpy(t, orig, n + 1);
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			edits = 1 + (int)(x % 4);
			for (k = 0; k < edits; k++) {
				size_t at, len = strlen(t);

				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				at = (size_t)(x >> 8) % len;
				switch (x % 3) {
				case 0: /* replace */
					t[at] = alphabet[(x >> 32) % (sizeof alphabet - 1)];
					break;
				case 1: /* delete */
					memmove(t + at, t + at + 1, len - at);
					break;
				default: /* insert */
					memmove(t + at + 1, t + at, len - at + 1);
					t[at] = alphabet[(x >> 32) % (sizeof alphabet - 1)];
					break;
				}
			}
			memset(&p, 0, sizeof p);
			memset(&e, 0, sizeof e);
			if (hd_profile_parse(t, "m.hdp", &p, &e) != 0) {
				ck_assert(e.set && e.status == HD_EXIT_INPUT);
				ck_assert(strncmp(e.where, "m.hdp:", 6) == 0);
				ck_assert(e.msg[0] != '\0');
				bad++;
			}
		}
		free(t);
	}
	/* Most edits break something. */
	ck_assert_int_gt(bad, hd_profile_builtin_count() * 100);
}
END_TEST

/* ------------------------------------------------------------------------ */

START_TEST(resolve_builtin)
{
	struct hd_profile p;
	struct hd_err e;

	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_profile_resolve(NULL, &p, &e), 0);
	ck_assert_str_eq(p.name, "h100-sxm");
	ck_assert_int_eq(hd_profile_resolve("", &p, &e), 0);
	ck_assert_str_eq(p.name, hd_profile_builtin(0)->name);
	ck_assert_int_eq(hd_profile_resolve("a100-pcie", &p, &e), 0);
	ck_assert(hd_profile_equal(&p, builtin_named("a100-pcie")));
	ck_assert_str_eq(p.origin, "built-in");
	ck_assert(!e.set);
}
END_TEST

START_TEST(resolve_file)
{
	struct hd_profile p;
	struct hd_err e;
	char *path, *slash, want[64];

	/* A complete file: the rtx4090 profile under another name. */
	{
		struct hd_profile src = *builtin_named("rtx4090");
		char *t;

		snprintf(src.name, sizeof src.name, "desk");
		t = hd_profile_format(&src);
		path = write_temp(t);
		free(t);
		memset(&e, 0, sizeof e);
		ck_assert_msg(hd_profile_resolve(path, &p, &e) == 0, "%s: %s", e.where, e.msg);
		ck_assert(hd_profile_equal(&p, &src));
		slash = strrchr(path, '/');
		ck_assert_str_eq(p.origin, slash + 1);
		unlink(path);
		free(path);
	}

	/* A file from `base` without a name is called after the file. */
	path = write_temp("hdsim-profile 1\nbase = h200-sxm\npcie.h2d = 30 GB/s\n");
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_profile_resolve(path, &p, &e), 0);
	slash = strrchr(path, '/');
	snprintf(want, sizeof want, "%s", slash + 1);
	*strstr(want, ".hdp") = '\0';
	ck_assert_str_eq(p.name, want);
	ck_assert(p.h2d_bw == 30e9);
	ck_assert(p.hbm_bw == builtin_named("h200-sxm")->hbm_bw);
	unlink(path);
	free(path);

	/* An error in a file names the file, line and column. */
	path = write_temp("hdsim-profile 1\nbase = h200-sxm\npcie.h2d = 30 GB\n");
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_profile_resolve(path, &p, &e), -1);
	snprintf(want, sizeof want, "%s:3:12", path);
	ck_assert_str_eq(e.where, want);
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	unlink(path);
	free(path);
}
END_TEST

START_TEST(resolve_bad)
{
	struct hd_profile p;
	struct hd_err e;

	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_profile_resolve("h10", &p, &e), -1);
	ck_assert(e.set);
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	ck_assert_str_eq(e.where, "h10");
	ck_assert_ptr_nonnull(strstr(e.msg,
				     "unknown profile 'h10': not a built-in (h100-sxm, "
				     "h200-sxm, "));
	ck_assert_ptr_nonnull(strstr(e.msg, "gen3-v100) and no such file"));
	ck_assert_ptr_nonnull(strstr(e.msg, "did you mean 'h100-sxm'?"));

	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_profile_resolve("/nonexistent/dir/x.hdp", &p, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "no such file"));
	ck_assert_ptr_null(strstr(e.msg, "did you mean"));

	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_profile_resolve("/tmp", &p, &e), -1);
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	ck_assert_ptr_nonnull(strstr(e.msg, "directory"));
}
END_TEST

/* ------------------------------------------------------------------------ */

START_TEST(list_table)
{
	struct hd_buf b;
	char *line, *save = NULL;
	int rows = 0, i;
	size_t len0 = 0;

	hd_buf_init(&b);
	hd_profile_list(&b, 0);
	for (i = 0; i < hd_profile_builtin_count(); i++) {
		const char *g = hd_profile_builtin(i)->gpu_name;

		ck_assert_ptr_nonnull(strstr(b.s, hd_profile_builtin(i)->name));
		if (strncmp(g, "NVIDIA ", 7) == 0)
			g += 7;
		if (strncmp(g, "Tesla ", 6) == 0)
			g += 6;
		ck_assert_ptr_nonnull(strstr(b.s, g));
	}
	ck_assert_ptr_nonnull(strstr(b.s, "Gen5 x16"));
	ck_assert_ptr_nonnull(strstr(b.s, "H2D"));
	ck_assert_ptr_nonnull(strstr(b.s, "GB/s"));
	ck_assert_ptr_null(strstr(b.s, "NVIDIA "));
	/* Aligned: the last column is right-aligned, so every line ends together. */
	for (line = strtok_r(b.s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (rows++ == 0)
			len0 = strlen(line);
		ck_assert_uint_eq(strlen(line), len0);
	}
	ck_assert_int_eq(rows, hd_profile_builtin_count() + 2);
	hd_buf_free(&b);

	/* An 80-column terminal has room for every column; 72 narrows GPU. */
	hd_buf_init(&b);
	hd_profile_list(&b, 80);
	ck_assert_ptr_nonnull(strstr(b.s, "H100 80GB HBM3"));
	ck_assert_ptr_nonnull(strstr(b.s, "V100-PCIE-16GB "));
	ck_assert_ptr_nonnull(strstr(b.s, "LAUNCH"));
	for (line = strtok_r(b.s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		ck_assert_int_le((int)strlen(line), 80);
	hd_buf_free(&b);

	hd_buf_init(&b);
	hd_profile_list(&b, 72);
	ck_assert_ptr_nonnull(strstr(b.s, "LAUNCH"));
	ck_assert_ptr_nonnull(strstr(b.s, "GeForce RTX"));
	for (line = strtok_r(b.s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		ck_assert_int_le((int)strlen(line), 72);
	hd_buf_free(&b);

	/* Narrow: the GPU column goes, then columns from the right. */
	hd_buf_init(&b);
	hd_profile_list(&b, 50);
	ck_assert_ptr_null(strstr(b.s, "H100 80GB HBM3"));
	ck_assert_ptr_nonnull(strstr(b.s, "h100-sxm"));
	ck_assert_ptr_null(strstr(b.s, "LAUNCH"));
	for (line = strtok_r(b.s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		ck_assert_int_le((int)strlen(line), 50);
	hd_buf_free(&b);
}
END_TEST

START_TEST(describe_every_key)
{
	const struct hd_profile *p = builtin_named("a100-pcie");
	char *d = hd_profile_describe(p);
	const char *k, *help;
	int i;

	ck_assert_ptr_nonnull(strstr(d, p->description));
	ck_assert_ptr_nonnull(strstr(d, "nvlink-pairs"));
	ck_assert_ptr_nonnull(strstr(d, "25 GB/s"));
	for (i = 0; (k = hd_profile_key(i, &help)) != NULL; i++) {
		if (strcmp(k, "name") == 0 || strcmp(k, "description") == 0)
			continue;
		ck_assert_msg(strstr(d, k) != NULL, "describe lacks %s", k);
		ck_assert_msg(strstr(d, help) != NULL, "describe lacks help of %s", k);
	}
	ck_assert_int_eq(i, hd_profile_key_count());
	ck_assert_ptr_null(hd_profile_key(-1, NULL));
	free(d);
	ck_assert_str_eq(hd_topo_name(HD_TOPO_NVSWITCH), "nvswitch");
}
END_TEST

/* doc/profile-format.md documents every key. */
START_TEST(doc_lists_every_key)
{
	struct hd_err e;
	char *doc, needle[80];
	const char *k;
	int i;

	memset(&e, 0, sizeof e);
	doc = hd_read_file(HDSIM_SRCDIR "/doc/profile-format.md", NULL, &e);
	ck_assert_msg(doc != NULL, "%s", e.msg);
	for (i = 0; (k = hd_profile_key(i, NULL)) != NULL; i++) {
		snprintf(needle, sizeof needle, "`%s`", k);
		ck_assert_msg(strstr(doc, needle) != NULL, "doc lacks %s", needle);
	}
	free(doc);
}
END_TEST

/* The complete example in the doc is the default built-in. */
START_TEST(doc_example_parses)
{
	struct hd_profile p;
	struct hd_err e;
	char *doc, *s, *end;

	memset(&e, 0, sizeof e);
	memset(&p, 0, sizeof p);
	doc = hd_read_file(HDSIM_SRCDIR "/doc/profile-format.md", NULL, &e);
	ck_assert_ptr_nonnull(doc);
	s = strstr(doc, "## A complete example");
	ck_assert_ptr_nonnull(s);
	s = strstr(s, "```\n");
	ck_assert_ptr_nonnull(s);
	s += 4;
	end = strstr(s, "```");
	ck_assert_ptr_nonnull(end);
	*end = '\0';
	ck_assert_msg(hd_profile_parse(s, "doc", &p, &e) == 0, "%s: %s", e.where, e.msg);
	ck_assert(hd_profile_equal(&p, builtin_named("h100-sxm")));
	free(doc);
}
END_TEST

static Suite *
profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, builtins_present);
	tcase_add_test(tc, builtins_are_their_files);
	tcase_add_test(tc, builtins_set_every_field);
	tcase_add_test(tc, builtins_plausible);
	tcase_add_test(tc, builtins_cite_sources);
	tcase_add_test(tc, roundtrip_builtins);
	tcase_add_test(tc, older_profile_without_optional_keys);
	tcase_add_test(tc, roundtrip_awkward);
	tcase_add_test(tc, base_inheritance);
	tcase_add_loop_test(tc, errors, 0, (int)HD_ARRAY_LEN(bads));
	tcase_add_test(tc, mutations_never_crash);
	tcase_add_test(tc, resolve_builtin);
	tcase_add_test(tc, resolve_file);
	tcase_add_test(tc, resolve_bad);
	tcase_add_test(tc, list_table);
	tcase_add_test(tc, describe_every_key);
	tcase_add_test(tc, doc_lists_every_key);
	tcase_add_test(tc, doc_example_parses);
	tcase_add_test(tc, median_key_by_key);
	tcase_add_test(tc, set_value_by_key);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(profile_suite());
}
