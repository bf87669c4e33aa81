/* The @include directives of a config file, checked before libconfig reads
 * it: libconfig 1.5 ends the whole process (exit 2, "input in flex scanner
 * failed") on an @include of a directory, and would read a FIFO or a
 * device until it ends. */
#ifndef MUSTER_INCLUDES_H
#define MUSTER_INCLUDES_H

#include <muster/muster.h>

/* 0 when every @include of `path` (and of the files it includes) that
 * exists names a regular file; else MUSTER_ECONFIG naming file:line.
 * `dir`: where relative include paths start (libconfig's include dir). */
int includes_check(const char *path, const char *dir, muster_error *err);

#endif
