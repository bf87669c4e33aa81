/* Why a getaddrinfo() failed, in the words every lookup of the project
 * uses: `muster run`'s wait for its master, the interface probe and
 * `muster doctor` say the same thing for the same failure. */
#ifndef MUSTER_LIB_LOOKUP_REASON_H
#define MUSTER_LIB_LOOKUP_REASON_H

#include <stddef.h>

/* getaddrinfo()'s return `rc` (not 0) into `why`; `saved` is the errno it
 * left, read for EAI_SYSTEM. */
void lookup_reason(char *why, size_t size, int rc, int saved);

#endif
