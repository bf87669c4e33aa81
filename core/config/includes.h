/* A config file read with its @include directives expanded by muster, so
 * that libconfig opens no file itself:
 *  - every file, the top-level one and each it includes, gets the same
 *    checks before a byte of it is read: a regular file (libconfig 1.5
 *    ends the whole process on a directory, and would read a FIFO or a
 *    device until it ends), within the size cap;
 *  - an absolute include path is read as written, a relative one against
 *    the directory of the file that includes it (libconfig 1.5 prefixes
 *    every path, absolute ones too, with one include directory).
 * The directives are found as libconfig's scanner finds them: at a line's
 * start, outside comments and strings. */
#ifndef MUSTER_INCLUDES_H
#define MUSTER_INCLUDES_H

#include <stddef.h>

#include <muster/muster.h>

#include "cfgsource.h"

/* The most bytes a config file, with everything it includes, may hold:
 * libconfig aborts on out-of-memory, and the bound keeps that out of reach
 * of anything but a broken machine. */
#define CONFIG_MAX_BYTES (64 << 20)
/* libconfig's own nesting limit. */
#define CONFIG_MAX_INCLUDE_DEPTH 10
/* Files that include others several times would otherwise cost
 * (includes per file)^depth reads. */
#define CONFIG_MAX_INCLUDES 1000

/* The text of `path` with its includes in place (*text malloc'd; a file
 * with a NUL byte is refused) and `src`, where its lines come from
 * (released by the caller, also on failure).  MUSTER_ECONFIG names the
 * file (and the including file:line) and the reason. */
int includes_expand(const char *path, char **text, struct cfgsource *src, muster_error *err);

/* After includes_expand, libconfig must not open a file of its own: an
 * @include it would still see (one that follows another on the line an
 * include ended) fails rather than being read unchecked. */
void includes_refuse(config_t *cfg);

#endif
