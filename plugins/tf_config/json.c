/*
 * tf_config: parsing the JSON, and Python's semantics on top of cJSON.
 *
 * TensorFlow parses TF_CONFIG with Python's json module.  Where cJSON
 * differs, this file restores Python's behaviour where it matters:
 *  - the syntax is checked strictly first (syntax.c), so what json.loads
 *    refuses is refused here too, with the same byte offset;
 *  - duplicate keys: Python keeps the last value (tfc_member);
 *  - integer strings follow int(): surrounding whitespace, a sign, digits
 *    with single underscores between them (tfc_parse_int).
 * Still different: NaN and Infinity, which Python accepts, are refused (a
 * TF_CONFIG has no use for them), and so are a lone UTF-16 surrogate
 * escape and \u0000 (syntax.c).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tf_config.h"

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

void tfc_quote(char *buf, size_t size, const char *s, size_t len)
{
	size_t o = 0, i;

	if (size < 8) {
		if (size > 0)
			buf[0] = '\0';
		return;
	}
	buf[o++] = '"';
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[8];
		size_t n;

		if (c == '"' || c == '\\')
			n = (size_t)snprintf(esc, sizeof(esc), "\\%c", c);
		else if (c == '\n')
			n = (size_t)snprintf(esc, sizeof(esc), "\\n");
		else if (c == '\t')
			n = (size_t)snprintf(esc, sizeof(esc), "\\t");
		else if (c < 0x20 || c >= 0x7f)
			n = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", c);
		else
			n = (size_t)snprintf(esc, sizeof(esc), "%c", c);
		/* Keep room for: closing quote, "...", NUL. */
		if (o + n + 5 > size) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		memcpy(buf + o, esc, n);
		o += n;
	}
	buf[o++] = '"';
	buf[o] = '\0';
}

static muster_status syntax_error(const struct tfc_run *run, const char *text, size_t len,
                                  size_t pos, const char *what)
{
	char excerpt[80];
	size_t from, to;
	unsigned long line, col;

	if (pos > len)
		pos = len;
	line_col(text, pos, &line, &col);
	if (pos >= len) {
		run->host->fail(run->call,
		                "%s is not valid JSON: unexpected end of input at byte %zu "
		                "(line %lu, column %lu)",
		                run->src, pos, line, col);
		return MUSTER_STATUS_UNAVAIL;
	}
	from = pos > 16 ? pos - 16 : 0;
	to = len - pos > 16 ? pos + 16 : len;
	tfc_quote(excerpt, sizeof(excerpt), text + from, to - from);
	run->host->fail(run->call, "%s is not valid JSON: %s at byte %zu (line %lu, column %lu) near %s",
	                run->src, what, pos, line, col, excerpt);
	return MUSTER_STATUS_UNAVAIL;
}

muster_status tfc_parse(const struct tfc_run *run, const char *text, size_t len,
                        struct tfc_doc *doc)
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
	switch (tfc_syntax_error(text, len, &pos, &what)) {
	case TFC_SYNTAX_OK:
		break;
	case TFC_SYNTAX_TOO_DEEP:
		line_col(text, pos, &line, &col);
		run->host->fail(run->call,
		                "%s is not valid JSON: nested deeper than %d levels at byte %zu "
		                "(line %lu, column %lu)",
		                run->src, CJSON_NESTING_LIMIT, pos, line, col);
		return MUSTER_STATUS_UNAVAIL;
	default:
		return syntax_error(run, text, len, pos, what);
	}
	/* Then the tree; the scan has already refused what it cannot hold. */
	switch (tfc_tree(text, len, doc, &pos)) {
	case 0:
		break;
	case 1:
		return syntax_error(run, text, len, pos, "syntax error");
	default:
		run->host->fail(run->call, "%s: out of memory", run->src);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (!cJSON_IsObject(doc->root)) {
		run->host->fail(run->call, "%s must be a JSON object, not %s", run->src,
		                tfc_kind(doc->root));
		tfc_doc_free(doc);
		return MUSTER_STATUS_UNAVAIL;
	}
	return MUSTER_STATUS_SUCCESS;
}

const cJSON *tfc_member(const cJSON *object, const char *key)
{
	const cJSON *c, *found = NULL;

	for (c = object->child; c != NULL; c = c->next)
		if (c->string != NULL && strcmp(c->string, key) == 0)
			found = c;
	return found;
}

const char *tfc_kind(const cJSON *item)
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

/* Python's str.isspace() over ASCII, which int() strips. */
static int is_py_space(char c)
{
	return (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f) || c == ' ';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

enum tfc_int_result tfc_parse_int(const char *s, long *out)
{
	unsigned long v = 0;
	int negative = 0, over = 0;

	while (is_py_space(*s))
		s++;
	if (*s == '+' || *s == '-')
		negative = *s++ == '-';
	if (!is_digit(*s))
		return TFC_INT_INVALID;
	for (;;) {
		if (is_digit(*s)) {
			if (!over) {
				v = v * 10 + (unsigned long)(*s - '0');
				over = v > (unsigned long)TFC_MAX_INDEX;
			}
			s++;
		} else if (*s == '_' && is_digit(s[1])) {
			s++; /* PEP 515: "1_000"; only between digits */
		} else {
			break;
		}
	}
	while (is_py_space(*s))
		s++;
	if (*s != '\0')
		return TFC_INT_INVALID;
	if (negative && (over || v != 0)) /* int("-0") is 0 */
		return TFC_INT_NEGATIVE;
	if (over)
		return TFC_INT_RANGE;
	*out = (long)v;
	return TFC_INT_OK;
}

enum tfc_int_result tfc_number_index(double d, long *out)
{
	if (d != d)
		return TFC_INT_INVALID;
	if (d <= -1.0) {
		if (d < -1e18) /* integral at that size, and out of long long's range */
			return TFC_INT_NEGATIVE;
		return d == (double)(long long)d ? TFC_INT_NEGATIVE : TFC_INT_INVALID;
	}
	if (d > (double)TFC_MAX_INDEX)
		return TFC_INT_RANGE;
	if (d != (double)(long)d)
		return TFC_INT_INVALID;
	*out = (long)d;
	return TFC_INT_OK;
}
