/*
 * Strict JSON: whether the text is JSON, strictly (RFC 8259, as Python's
 * json.loads), and if not, where it goes wrong and how.  cJSON is more
 * lenient (raw control characters in strings, a byte order mark, leading
 * zeros) and only says that parsing failed, at an approximate offset (one
 * byte past a bad string's opening quote, for instance).  This scan runs
 * first, to refuse what Python refuses and name the exact byte and what
 * was expected there.  Beyond Python, it refuses invalid UTF-8 (which
 * Python's decoding of a file, or TF's encoding of a name, would raise on),
 * a \u0000 escape and a lone UTF-16 surrogate escape, at their byte: none
 * can be part of a name or an address.  It keeps its container stack in a
 * fixed array as deep as cJSON's limit, never recursing.
 */
#include <config.h>

#include <stddef.h>

#include "strict_json_impl.h"

struct scan {
	const char *s;
	size_t len, pos;
};

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static void skip_space(struct scan *sc)
{
	while (sc->pos < sc->len && is_space(sc->s[sc->pos]))
		sc->pos++;
}

static unsigned hex4(const char *p)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++)
		v = v * 16 + (unsigned)(is_digit(p[i]) ? p[i] - '0' : (p[i] | 0x20) - 'a' + 10);
	return v;
}

/* The length of the UTF-8 sequence at s[0] (a byte >= 0x80), or 0 when it
 * is not one: no overlong form, no surrogate, nothing above U+10FFFF. */
static size_t utf8_length(const unsigned char *s, size_t avail)
{
	size_t n, i;
	unsigned lo = 0x80, hi = 0xbf;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (n > avail)
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* At a "\\u" escape whose four hex digits are checked: past it (and its
 * low surrogate), or the error.  Python would keep U+0000 and a lone
 * surrogate; neither can be part of a name or an address. */
static const char *unicode_escape(struct scan *sc, size_t *at)
{
	static const char lone_high[] =
		"a lone UTF-16 surrogate escape (a high half with no low half after it)";
	unsigned u = hex4(sc->s + sc->pos + 2);

	*at = sc->pos;
	if (u == 0)
		return "a \\u0000 (NUL) escape in a string";
	if (u >= 0xdc00 && u <= 0xdfff)
		return "a lone UTF-16 surrogate escape (a low half with no high half before it)";
	if (u >= 0xd800 && u <= 0xdbff) {
		const char *n = sc->s + sc->pos + 6;
		size_t left = sc->len - sc->pos - 6;
		int i;

		if (left < 6 || n[0] != '\\' || n[1] != 'u')
			return lone_high;
		for (i = 2; i < 6; i++)
			if (!is_hex(n[i]))
				return lone_high;
		u = hex4(n + 2);
		if (u < 0xdc00 || u > 0xdfff)
			return lone_high;
		sc->pos += 6;
	}
	sc->pos += 6;
	return NULL;
}

/* At a '"': past the closing quote, or the error. */
static const char *string(struct scan *sc, size_t *at)
{
	size_t start = sc->pos++;
	const char *err;

	for (;;) {
		unsigned char c;

		if (sc->pos >= sc->len) {
			*at = start;
			return "unterminated string starting";
		}
		c = (unsigned char)sc->s[sc->pos];
		if (c == '"') {
			sc->pos++;
			return NULL;
		}
		if (c < 0x20) {
			*at = sc->pos;
			return "invalid control character in a string";
		}
		if (c >= 0x80) {
			size_t n = utf8_length((const unsigned char *)sc->s + sc->pos, sc->len - sc->pos);

			if (n == 0) {
				*at = sc->pos;
				return "invalid UTF-8";
			}
			sc->pos += n;
			continue;
		}
		if (c != '\\') {
			sc->pos++;
			continue;
		}
		if (sc->pos + 1 >= sc->len) {
			*at = start;
			return "unterminated string starting";
		}
		c = (unsigned char)sc->s[sc->pos + 1];
		if (c == 'u') {
			int i;

			for (i = 2; i < 6; i++) {
				if (sc->pos + (size_t)i >= sc->len || !is_hex(sc->s[sc->pos + (size_t)i])) {
					*at = sc->pos;
					return "invalid \\uXXXX escape";
				}
			}
			if ((err = unicode_escape(sc, at)) != NULL)
				return err;
		} else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' ||
		           c == 'r' || c == 't') {
			sc->pos += 2;
		} else {
			*at = sc->pos;
			return "invalid escape";
		}
	}
}

/* At '-' or a digit: past the number; 0 when it is not one. */
static int number(struct scan *sc)
{
	const char *s = sc->s;
	size_t p = sc->pos, len = sc->len;

	if (s[p] == '-')
		p++;
	if (p < len && s[p] == '0')
		p++;
	else if (p < len && is_digit(s[p]))
		while (p < len && is_digit(s[p]))
			p++;
	else
		return 0;
	/* As Python: "1." and "1e" end the number before the dot or e. */
	if (p + 1 < len && s[p] == '.' && is_digit(s[p + 1]))
		for (p += 1; p < len && is_digit(s[p]);)
			p++;
	if (p < len && (s[p] == 'e' || s[p] == 'E')) {
		size_t q = p + 1;

		if (q < len && (s[q] == '+' || s[q] == '-'))
			q++;
		if (q < len && is_digit(s[q])) {
			while (q < len && is_digit(s[q]))
				q++;
			p = q;
		}
	}
	sc->pos = p;
	return 1;
}

static int literal(struct scan *sc, const char *word)
{
	size_t i;

	for (i = 0; word[i] != '\0'; i++)
		if (sc->pos + i >= sc->len || sc->s[sc->pos + i] != word[i])
			return 0;
	sc->pos += i;
	return 1;
}

enum sjson_syntax_result sjson_syntax_error(const char *text, size_t len, size_t *at,
                                            const char **what)
{
	char stack[CJSON_NESTING_LIMIT];
	size_t depth = 0;
	struct scan sc;
	const char *err;

	sc.s = text;
	sc.len = len;
	sc.pos = 0;
value:
	skip_space(&sc);
	if (sc.pos >= len)
		goto expecting_value;
	switch (text[sc.pos]) {
	case '{':
	case '[':
		if (depth >= sizeof(stack)) {
			*at = sc.pos;
			return SJSON_SYNTAX_TOO_DEEP;
		}
		stack[depth++] = text[sc.pos++];
		skip_space(&sc);
		if (sc.pos < len && text[sc.pos] == (stack[depth - 1] == '{' ? '}' : ']')) {
			sc.pos++;
			depth--;
			goto after_value;
		}
		if (stack[depth - 1] == '{')
			goto key;
		goto value;
	case '"':
		err = string(&sc, at);
		if (err != NULL) {
			*what = err;
			return SJSON_SYNTAX_ERROR;
		}
		goto after_value;
	case 't':
		if (literal(&sc, "true"))
			goto after_value;
		goto expecting_value;
	case 'f':
		if (literal(&sc, "false"))
			goto after_value;
		goto expecting_value;
	case 'n':
		if (literal(&sc, "null"))
			goto after_value;
		goto expecting_value;
	default:
		if ((text[sc.pos] == '-' || is_digit(text[sc.pos])) && number(&sc))
			goto after_value;
		goto expecting_value;
	}
key:
	skip_space(&sc);
	if (sc.pos >= len || text[sc.pos] != '"') {
		*at = sc.pos;
		*what = "expecting a property name in double quotes";
		return SJSON_SYNTAX_ERROR;
	}
	err = string(&sc, at);
	if (err != NULL) {
		*what = err;
		return SJSON_SYNTAX_ERROR;
	}
	skip_space(&sc);
	if (sc.pos >= len || text[sc.pos] != ':') {
		*at = sc.pos;
		*what = "expecting ':'";
		return SJSON_SYNTAX_ERROR;
	}
	sc.pos++;
	goto value;
after_value:
	skip_space(&sc);
	if (depth == 0) {
		if (sc.pos >= len)
			return SJSON_SYNTAX_OK;
		*at = sc.pos;
		*what = text[sc.pos] == '\0' ? "a NUL byte after the value" : "extra data after the value";
		return SJSON_SYNTAX_ERROR;
	}
	if (sc.pos < len && text[sc.pos] == ',') {
		sc.pos++;
		if (stack[depth - 1] == '{')
			goto key;
		goto value;
	}
	if (sc.pos < len && text[sc.pos] == (stack[depth - 1] == '{' ? '}' : ']')) {
		sc.pos++;
		depth--;
		goto after_value;
	}
	*at = sc.pos;
	*what = stack[depth - 1] == '{' ? "expecting ',' or '}'" : "expecting ',' or ']'";
	return SJSON_SYNTAX_ERROR;
expecting_value:
	*at = sc.pos;
	*what = "expecting a value";
	return SJSON_SYNTAX_ERROR;
}
