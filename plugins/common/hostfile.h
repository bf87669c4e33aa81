/* A host file as schedulers write them (PBS_NODEFILE, LSF's
 * LSB_DJOB_RANKFILE): one host name per line, repeated once per slot,
 * read and parsed the same way for every scheduler backend. */
#ifndef MUSTER_PLUGIN_COMMON_HOSTFILE_H
#define MUSTER_PLUGIN_COMMON_HOSTFILE_H

#include <stddef.h>

#include "slots.h"

/* The host file at `path` (a variable names it), at most `max` bytes,
 * into *data (NUL-terminated, the caller's to free) and *len: 0, or -1
 * with errno set and the reason in `why` (plugin_read_error()'s words:
 * "not a regular file but a character device" for /dev/zero). */
int hostfile_read(const char *path, size_t max, char **data, size_t *len, char *why,
                  size_t whylen);

/* `data` (len bytes, NUL-terminated, cut in place) into hosts and their
 * slots, in order of first appearance.  With skip_first, the first host
 * line is left out and pointed to by *first (LSF's launch host).  0, or -1
 * with the line and reason in `why`. */
int hostfile_parse(char *data, size_t len, int skip_first, const char **first,
                   struct slots *s, char *why, size_t whylen);

#endif
