/* Numeric-aware name order shared by the bundled plugins: digit runs
 * compare as numbers, so worker-9 comes before worker-10. */
#ifndef MUSTER_PLUGIN_COMMON_NATURAL_H
#define MUSTER_PLUGIN_COMMON_NATURAL_H

int natural_cmp(const char *a, const char *b);

#endif
