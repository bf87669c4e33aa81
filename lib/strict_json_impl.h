/* Strict JSON's parts (strict_json.c, strict_json_syntax.c,
 * strict_json_tree.c), between themselves: callers use strict_json.h. */
#ifndef MUSTER_LIB_STRICT_JSON_IMPL_H
#define MUSTER_LIB_STRICT_JSON_IMPL_H

#include "strict_json.h"

/* A strict RFC 8259 check of `text`.  On an error, the byte where the text
 * stops being JSON and what was expected there, as Python's json module
 * places it; SJSON_SYNTAX_TOO_DEEP at the first container beyond cJSON's
 * nesting limit. */
enum sjson_syntax_result {
	SJSON_SYNTAX_OK = 0,
	SJSON_SYNTAX_ERROR = 1,
	SJSON_SYNTAX_TOO_DEEP = 2
};
enum sjson_syntax_result sjson_syntax_error(const char *text, size_t len, size_t *at,
                                            const char **what);

/* The tree of `text`, which sjson_syntax_error() has passed: 0; -1 when
 * out of memory; 1 at a lone UTF-16 surrogate escape, which cJSON refuses,
 * *at its byte. */
int sjson_tree(const char *text, size_t len, struct sjson_doc *doc, size_t *at);

#endif
