/* "Did you mean": the nearest known name to a typo. */
#ifndef MUSTER_SUGGEST_H
#define MUSTER_SUGGEST_H

#include <stddef.h>

/* The candidate nearest to `word` (Damerau-Levenshtein), or NULL when none
 * is near enough to be a typing mistake. */
const char *suggest_nearest(const char *word, const char *const *candidates, size_t n);

/* The plugin name nearest to `name` among the built-ins and the NAME.so
 * files in `dirs`; copied into `out`, which is "" when none is near. */
void suggest_plugin(const char *name, char *const *dirs, size_t ndirs, char *out, size_t len);

#endif
