/*
 * sha256.h - SHA-256 (FIPS 180-4) of a byte string, as 64 hex digits: the
 * content hash that names a version of a lesson in the store.
 */
#ifndef HD_SHA256_H
#define HD_SHA256_H

#include <stddef.h>

#define HD_SHA256_HEX 65 /* 64 hex digits and the NUL */

/* The SHA-256 of data[0 .. len) into hex (lower-case, NUL-terminated). */
void hd_sha256_hex(const void *data, size_t len, char hex[HD_SHA256_HEX]);

#endif
