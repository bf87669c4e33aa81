/* The media type of an HTTP answer, to say "the server answered text/html,
 * not JSON" where a proxy's error page stands in for the API's answer. */
#ifndef MUSTER_PLUGIN_COMMON_MEDIA_H
#define MUSTER_PLUGIN_COMMON_MEDIA_H

#include <stddef.h>

/* A Content-Type header's value (`len` bytes, after the colon) to its
 * media type: no parameters, lower case, printable, cut to fit `out`. */
void media_type(const char *value, size_t len, char *out, size_t size);
/* Whether an answer of this media type cannot be JSON: text/html and the
 * other text/ types.  An absent type ("") may be JSON. */
int media_not_json(const char *type);

#endif
