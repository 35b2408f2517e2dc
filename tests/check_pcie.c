/*
 * check_pcie.c - the PCIe link as sysfs reports it (real/pcie.c): the
 * generation of every speed string the kernel writes, and a link read from
 * a folder laid out as sysfs lays out a device's.  No GPU, no CUDA.
 */
#include <stdio.h>
#include <string.h>

#include "real/pcie.h"
#include "tests/testutil.h"

START_TEST(speed_strings)
{
	static const struct {
		const char *speed;
		int gen;
	} cases[] = {
		{ "2.5 GT/s PCIe", 1 },
		{ "2.5 GT/s", 1 },
		{ "5.0 GT/s PCIe", 2 },
		{ "5 GT/s", 2 },
		{ "8.0 GT/s PCIe", 3 },
		{ "8 GT/s", 3 },
		{ "16.0 GT/s PCIe", 4 },
		{ "16 GT/s", 4 },
		{ "32.0 GT/s PCIe", 5 },
		{ "32.0 GT/s", 5 },
		{ " 32.0 GT/s\n", 5 },
		{ "64.0 GT/s PCIe", 6 },
		{ "Unknown", 0 },
		{ "Unknown speed", 0 },
		{ "", 0 },
		{ "GT/s", 0 },
		{ "12 GT/s", 0 },
		{ "128.0 GT/s", 0 },
		{ "0", 0 },
		{ "-8 GT/s", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ck_assert_msg(hd_pcie_gen(cases[i].speed) == cases[i].gen, "'%s': %d, want %d",
			      cases[i].speed, hd_pcie_gen(cases[i].speed), cases[i].gen);
	ck_assert_int_eq(hd_pcie_gen(NULL), 0);
}
END_TEST

static void
put(const char *dir, const char *file, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

START_TEST(link_from_sysfs)
{
	struct hd_pcie_link l;
	char dir[64], line[16];

	hd_test_mkdtemp(dir, sizeof dir, "pcie");
	/* nothing there: unreadable, all empty */
	ck_assert_int_eq(hd_pcie_link_read(dir, &l), -1);
	ck_assert_int_eq(l.gen_cur, 0);
	ck_assert_str_eq(l.speed_cur, "");
	put(dir, "current_link_speed", "16.0 GT/s PCIe\n");
	/* the width is missing: still unreadable, the speed filled in */
	ck_assert_int_eq(hd_pcie_link_read(dir, &l), -1);
	ck_assert_int_eq(l.gen_cur, 4);
	put(dir, "current_link_width", "8\n");
	put(dir, "max_link_speed", "32.0 GT/s PCIe\n");
	put(dir, "max_link_width", "16\n");
	ck_assert_int_eq(hd_pcie_link_read(dir, &l), 0);
	ck_assert_str_eq(l.speed_cur, "16.0 GT/s PCIe");
	ck_assert_str_eq(l.width_cur, "8");
	ck_assert_int_eq(l.gen_cur, 4);
	ck_assert_int_eq(l.lanes_cur, 8);
	ck_assert_int_eq(l.gen_max, 5);
	ck_assert_int_eq(l.lanes_max, 16);
	put(dir, "current_link_speed", "Unknown\n");
	ck_assert_int_eq(hd_pcie_link_read(dir, &l), 0);
	ck_assert_int_eq(l.gen_cur, 0);
	ck_assert_str_eq(l.speed_cur, "Unknown");
	/* an empty file has no line */
	put(dir, "numa_node", "");
	ck_assert_int_eq(hd_pcie_read_line(dir, "numa_node", line, sizeof line), -1);
	ck_assert_str_eq(line, "");
	hd_test_rmtree(dir);
}
END_TEST

static Suite *
pcie_suite(void)
{
	Suite *s = suite_create("pcie");
	TCase *tc = tcase_create("pcie");

	tcase_add_test(tc, speed_strings);
	tcase_add_test(tc, link_from_sysfs);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(pcie_suite());
}
