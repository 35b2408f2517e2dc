/*
 * pcie.c - a GPU's PCIe link from sysfs, and the generation of its speed
 * string (pcie.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "real/pcie.h"

/* Transfer rates of the PCIe generations, in GT/s: generation = index + 1. */
static const double gen_gts[] = { 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };

/* A speed string is within this of a generation's rate ("8 GT/s", "7.99"). */
#define GTS_TOLERANCE 0.25

int
hd_pcie_gen(const char *speed)
{
	char *end;
	double gts;
	size_t i;

	if (speed == NULL)
		return 0;
	gts = strtod(speed, &end);
	if (end == speed)
		return 0; /* no number: "Unknown", "" */
	for (i = 0; i < HD_ARRAY_LEN(gen_gts); i++)
		if (gts > gen_gts[i] - GTS_TOLERANCE && gts < gen_gts[i] + GTS_TOLERANCE)
			return (int)i + 1;
	return 0;
}

int
hd_pcie_read_line(const char *dir, const char *file, char *dst, size_t n)
{
	char path[512];
	FILE *f;
	int got;

	dst[0] = '\0';
	if (dir != NULL)
		snprintf(path, sizeof path, "%s/%s", dir, file);
	else
		snprintf(path, sizeof path, "%s", file);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	got = fgets(dst, (int)n, f) != NULL;
	fclose(f);
	if (!got) {
		dst[0] = '\0';
		return -1;
	}
	dst[strcspn(dst, "\n")] = '\0';
	return 0;
}

int
hd_pcie_link_read(const char *dir, struct hd_pcie_link *l)
{
	int rc = 0;

	memset(l, 0, sizeof *l);
	if (hd_pcie_read_line(dir, "current_link_speed", l->speed_cur, sizeof l->speed_cur) != 0)
		rc = -1;
	if (hd_pcie_read_line(dir, "current_link_width", l->width_cur, sizeof l->width_cur) != 0)
		rc = -1;
	hd_pcie_read_line(dir, "max_link_speed", l->speed_max, sizeof l->speed_max);
	hd_pcie_read_line(dir, "max_link_width", l->width_max, sizeof l->width_max);
	l->gen_cur = hd_pcie_gen(l->speed_cur);
	l->gen_max = hd_pcie_gen(l->speed_max);
	l->lanes_cur = atoi(l->width_cur);
	l->lanes_max = atoi(l->width_max);
	return rc;
}
