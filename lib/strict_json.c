/*
 * Strict JSON: the parse (the strict scan, then the tree), its reasons,
 * and the small helpers that give Python's semantics on cJSON's nodes.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "quote.h"
#include "strict_json_impl.h"

/* Line and column (1-based, in bytes) of offset `pos`. */
static void line_col(const char *text, size_t pos, unsigned long *line, unsigned long *col)
{
	size_t i, start = 0;

	*line = 1;
	for (i = 0; i < pos; i++) {
		if (text[i] == '\n') {
			++*line;
			start = i + 1;
		}
	}
	*col = (unsigned long)(pos - start + 1);
}

/* The reason for a syntax error at `pos`: where, and the text around it. */
static void syntax_reason(const char *text, size_t len, size_t pos, const char *what, char *why,
                          size_t whylen)
{
	char excerpt[80];
	size_t from, to;
	unsigned long line, col;

	if (pos > len)
		pos = len;
	line_col(text, pos, &line, &col);
	if (pos >= len) {
		snprintf(why, whylen,
		         "not valid JSON: unexpected end of input at byte %zu (line %lu, column %lu)",
		         pos, line, col);
		return;
	}
	from = pos > 16 ? pos - 16 : 0;
	to = len - pos > 16 ? pos + 16 : len;
	quote_text(excerpt, sizeof(excerpt), text + from, to - from);
	snprintf(why, whylen, "not valid JSON: %s at byte %zu (line %lu, column %lu) near %s", what,
	         pos, line, col, excerpt);
}

enum sjson_result sjson_parse(const char *text, size_t len, struct sjson_doc *doc, char *why,
                              size_t whylen)
{
	const char *what = NULL;
	size_t pos = 0;
	unsigned long line, col;

	memset(doc, 0, sizeof(*doc));
	/*
	 * First the strict scan: it rejects what Python's json.loads rejects
	 * and cJSON lets through (control characters in strings, a byte
	 * order mark, leading zeros, text after the value, a NUL byte), and
	 * names the exact byte of any error.
	 */
	switch (sjson_syntax_error(text, len, &pos, &what)) {
	case SJSON_SYNTAX_OK:
		break;
	case SJSON_SYNTAX_TOO_DEEP:
		line_col(text, pos, &line, &col);
		snprintf(why, whylen,
		         "not valid JSON: nested deeper than %d levels at byte %zu (line %lu, "
		         "column %lu)",
		         CJSON_NESTING_LIMIT, pos, line, col);
		return SJSON_INVALID;
	default:
		syntax_reason(text, len, pos, what, why, whylen);
		return SJSON_INVALID;
	}
	/* Then the tree; the scan has already refused what it cannot hold. */
	switch (sjson_tree(text, len, doc, &pos)) {
	case 0:
		return SJSON_OK;
	case 1:
		syntax_reason(text, len, pos, "syntax error", why, whylen);
		return SJSON_INVALID;
	default:
		snprintf(why, whylen, "out of memory");
		return SJSON_NOMEM;
	}
}

const cJSON *sjson_member(const cJSON *object, const char *key)
{
	const cJSON *c, *found = NULL;

	if (!cJSON_IsObject(object))
		return NULL;
	for (c = object->child; c != NULL; c = c->next)
		if (c->string != NULL && strcmp(c->string, key) == 0)
			found = c;
	return found;
}

const char *sjson_kind(const cJSON *item)
{
	if (cJSON_IsString(item))
		return "a string";
	if (cJSON_IsNumber(item))
		return "a number";
	if (cJSON_IsObject(item))
		return "an object";
	if (cJSON_IsArray(item))
		return "an array";
	if (cJSON_IsBool(item))
		return "a boolean";
	if (cJSON_IsNull(item))
		return "null";
	return "of an unknown kind";
}
