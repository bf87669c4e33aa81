/* A host file as schedulers write them (PBS_NODEFILE, LSF's
 * LSB_DJOB_RANKFILE): one host name per line, repeated once per slot. */
#ifndef MUSTER_PLUGIN_COMMON_HOSTFILE_H
#define MUSTER_PLUGIN_COMMON_HOSTFILE_H

#include <stddef.h>

#include "slots.h"

/* `data` (len bytes, NUL-terminated, cut in place) into hosts and their
 * slots, in order of first appearance.  With skip_first, the first host
 * line is left out and pointed to by *first (LSF's launch host).  0, or -1
 * with the line and reason in `why`. */
int hostfile_parse(char *data, size_t len, int skip_first, const char **first,
                   struct slots *s, char *why, size_t whylen);

#endif
