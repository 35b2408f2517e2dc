/*
 * utf8.h - the one UTF-8 decoder: what every reader of text (the lexer, the
 * sanitisers, the writers of each format) agrees is valid.
 */
#ifndef HD_UTF8_H
#define HD_UTF8_H

#include <stddef.h>

/*
 * Decode the sequence at p, of which rem bytes may be read.  Returns its
 * length (1 to 4) with the code point in *cp, or 0 when it is not valid
 * UTF-8: a stray continuation byte, an overlong form, a surrogate, a value
 * past U+10FFFF, or a sequence cut short by rem.
 */
size_t hd_utf8_seq(const unsigned char *p, size_t rem, unsigned long *cp);

/* Is cp a C1 control (U+0080 - U+009F)? */
#define HD_UTF8_C1(cp) ((cp) >= 0x80 && (cp) <= 0x9f)
/* Is cp a bidirectional control: the Arabic letter mark, the left-to-right
 * and right-to-left marks, embeddings, overrides and isolates? */
#define HD_UTF8_BIDI(cp) \
	((cp) == 0x061c || (cp) == 0x200e || (cp) == 0x200f || \
	 ((cp) >= 0x202a && (cp) <= 0x202e) || ((cp) >= 0x2066 && (cp) <= 0x2069))

#endif
