/*
 * pcie.h - a GPU's PCIe link as sysfs reports it, for `hdsim doctor`, the
 * machine facts stored with runs, and calibration's log.
 *
 * One reader of the link files (current_link_speed, max_link_speed,
 * current_link_width, max_link_width) and one tolerant parser of the speed
 * strings the kernel writes there ("16.0 GT/s PCIe", "32.0 GT/s", "8 GT/s",
 * "Unknown").  Plain files only: builds without CUDA have it too.
 */
#ifndef HD_PCIE_H
#define HD_PCIE_H

#include <stddef.h>

/* The link of one PCI device; "" and 0 where sysfs did not say. */
struct hd_pcie_link {
	char speed_cur[64], speed_max[64]; /* as sysfs writes them, one line */
	char width_cur[16], width_max[16];
	int gen_cur, gen_max; /* 1 ... 6, or 0 */
	int lanes_cur, lanes_max;
};

/*
 * The PCIe generation of a link speed as sysfs writes it: a rate in GT/s,
 * optionally followed by anything ("2.5 GT/s", "8 GT/s", "16.0 GT/s PCIe",
 * " 32.0 GT/s\n").  0 when the text holds no rate of a generation
 * ("Unknown", "Unknown speed", "", "12 GT/s", NULL).
 */
int hd_pcie_gen(const char *speed);

/*
 * The first line of the small file `file` in folder `dir` (a sysfs or /proc
 * file; dir may be NULL for a whole path in file) into dst, without its
 * newline: 0, or -1 with dst "" when it cannot be read or is empty.
 */
int hd_pcie_read_line(const char *dir, const char *file, char *dst, size_t n);

/*
 * Read the link of the PCI device whose sysfs folder is `dir`
 * ("/sys/bus/pci/devices/0000:1b:00.0") into *l.  0 when the current speed
 * and width were read; -1 when either could not be (what could be read is
 * still filled in).
 */
int hd_pcie_link_read(const char *dir, struct hd_pcie_link *l);

#endif
