/* Opening a plugin so that the file checked is the file loaded: every
 * directory from / down is opened and checked in turn (openat, no symbolic
 * link followed), then the file through its own descriptor, which the
 * loader dlopen()s as /proc/self/fd/N. */
#ifndef MUSTER_TRUST_H
#define MUSTER_TRUST_H

#include <stddef.h>

/*
 * Opens the canonical absolute path `real` read-only if the file and each
 * of its ancestors is owned by root or the effective user and writable by
 * no one else (a sticky directory may be).  Returns the descriptor, or -1
 * with the reason in `why`.
 */
int trust_open(const char *real, char *why, size_t whylen);

/*
 * Writes to `name` the path through which descriptor `fd` (opened by
 * trust_open for `real`) is loaded, having checked that it names that very
 * file.  Returns 0, or -1 with the reason in `why` (no /proc).
 */
int trust_fd_name(int fd, const char *real, char *name, size_t namelen, char *why,
                  size_t whylen);

#endif
