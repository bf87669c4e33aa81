/* A growable text buffer with a JSON string writer.  The writer escapes as
 * Go's encoding/json does (<, >, & and U+2028/9 as \u escapes, invalid
 * UTF-8 as U+FFFD), because TF_CONFIG must match what the Kubeflow
 * operator writes byte for byte; cJSON's printer escapes differently. */
#ifndef MUSTER_JSONW_H
#define MUSTER_JSONW_H

#include <stddef.h>

struct jsonw {
	char *buf;
	size_t len, cap;
	int failed; /* out of memory: every later write is a no-op */
};

void jsonw_init(struct jsonw *w);
void jsonw_raw(struct jsonw *w, const char *s);
void jsonw_char(struct jsonw *w, char c);
void jsonw_string(struct jsonw *w, const char *s);
void jsonw_long(struct jsonw *w, long v);
/* Hands the text to the caller (free with free()); NULL when out of memory. */
char *jsonw_finish(struct jsonw *w);

#endif
