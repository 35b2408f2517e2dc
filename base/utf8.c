/*
 * utf8.c - the one UTF-8 decoder (utf8.h).
 */
#include "base/utf8.h"

size_t
hd_utf8_seq(const unsigned char *p, size_t rem, unsigned long *cp)
{
	unsigned long v;
	size_t n, i;

	if (rem == 0)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		v = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		v = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		v = p[0] & 0x07;
	} else
		return 0;
	if (rem < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10ffff)) ||
	    (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}
