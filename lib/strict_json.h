/*
 * Strict JSON: the one way every backend reads a JSON document from the
 * environment or a file (TF_CONFIG, SM_HOSTS, resourceconfig.json, ...),
 * so that the same text means the same thing wherever it comes in.
 *
 *  - The syntax is RFC 8259 as Python's json.loads checks it, refused with
 *    the exact byte and what was expected there; beyond Python, invalid
 *    UTF-8, a \u0000 escape and a lone UTF-16 surrogate escape are refused
 *    (none can be part of a name or an address), and NaN and Infinity.
 *  - The tree is cJSON's node type, read with cJSON's accessors, but built
 *    in a few blocks (a 9 MB document is not a million malloc() calls):
 *    free it with sjson_free(), never cJSON_Delete().
 *  - A key given twice: the last value wins, as in Python (sjson_member;
 *    cJSON's own lookup would give the first).
 *
 * It depends on cJSON, the C library and lib/quote.c (strings in its
 * messages, quoted as quote.h says) only.
 */
#ifndef MUSTER_LIB_STRICT_JSON_H
#define MUSTER_LIB_STRICT_JSON_H

#include <stddef.h>

#include <cJSON.h>

struct sjson_block;

/* A parsed document; all zero before sjson_parse() and after sjson_free(). */
struct sjson_doc {
	cJSON *root;
	struct sjson_block *blocks; /* the nodes */
	char *strings;              /* every decoded string and key */
};

enum sjson_result {
	SJSON_OK = 0,
	SJSON_INVALID = 1, /* not (strict) JSON: `why` says where and why */
	SJSON_NOMEM = 2    /* out of memory */
};

/* `text` is len bytes with text[len] == '\0'.  On SJSON_INVALID, `why`
 * holds "not valid JSON: expecting ',' or ']' at byte 9 (line 1, column
 * 10) near \"...\"" (or "unexpected end of input at ...", "nested deeper
 * than 1000 levels at ..."), for the caller to put after the source's
 * name.  The text may be freed once this returns. */
enum sjson_result sjson_parse(const char *text, size_t len, struct sjson_doc *doc, char *why,
                              size_t whylen);
void sjson_free(struct sjson_doc *doc);

/* Member `key` of an object, compared exactly: with duplicate keys the
 * last, as Python's json module keeps; NULL when absent or not an object. */
const cJSON *sjson_member(const cJSON *object, const char *key);
/* "a string", "a number", "an object", "an array", "a boolean", "null". */
const char *sjson_kind(const cJSON *item);

#endif
