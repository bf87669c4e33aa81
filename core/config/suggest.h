/* "Did you mean": the nearest known name to a typo. */
#ifndef MUSTER_SUGGEST_H
#define MUSTER_SUGGEST_H

#include <stddef.h>

/* Longer words are never compared: the table of distances is on the stack. */
#define SUGGEST_MAX_WORD 64

/* The candidate nearest to `word` (Damerau-Levenshtein), or NULL when none
 * is near enough to be a typing mistake. */
const char *suggest_nearest(const char *word, const char *const *candidates, size_t n);

#endif
