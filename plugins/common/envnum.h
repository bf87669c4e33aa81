/* Integers from a launcher's environment (ranks, sizes), read the same way
 * by every scheduler backend: decimal digits only, surrounding blanks
 * allowed, in a range; a bad value is named with the variable. */
#ifndef MUSTER_PLUGIN_COMMON_ENVNUM_H
#define MUSTER_PLUGIN_COMMON_ENVNUM_H

#include <stddef.h>

/* The number `s` is (digits, blanks around them) when it lies in lo..hi:
 * 0 with *out set, else -1.  For items of a list as for whole values. */
int envnum_parse(const char *s, long lo, long hi, long *out);

/* 0 when `name` is unset, 1 with *out set, -1 with a sentence in `why`
 * naming the variable, its value and the range. */
int env_long(const char *name, long lo, long hi, long *out, char *why, size_t whylen);

/* The first of `names` (NULL-terminated) that is set: its position, or -1. */
int env_first(const char *const *names);

#endif
