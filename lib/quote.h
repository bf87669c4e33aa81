/* Text from outside (an environment variable, a file, an answer) as an
 * error message shows it: in double quotes, escaped, cut when long, so
 * that no control byte reaches a terminal and the message stays one line. */
#ifndef MUSTER_LIB_QUOTE_H
#define MUSTER_LIB_QUOTE_H

#include <stddef.h>

/* The `len` bytes at `s` into `buf` as "...": '"' and '\\' escaped with a
 * backslash, newline and tab as \n and \t, other control bytes and bytes
 * past ASCII as \xNN; cut with "..." to fit `size`.  Below 8 bytes of room,
 * "" (an empty string, no quotes). */
void quote_text(char *buf, size_t size, const char *s, size_t len);

#endif
