/*
 * embedded.h - text files compiled into the binary (build-aux/embed.sh):
 * the built-in lessons and profiles.
 */
#ifndef HD_EMBEDDED_H
#define HD_EMBEDDED_H

struct hd_embedded {
	const char *name; /* file name, e.g. "01-pinned-vs-pageable.hds" */
	const char *text;
};

extern const struct hd_embedded hd_builtin_lessons[];
extern const int hd_builtin_lessons_count;
extern const struct hd_embedded hd_builtin_profiles[];
extern const int hd_builtin_profiles_count;

#endif
