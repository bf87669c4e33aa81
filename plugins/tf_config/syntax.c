/*
 * tf_config: whether the text is JSON, strictly (RFC 8259, as Python's
 * json.loads), and if not, where it goes wrong and how.  cJSON is more
 * lenient (raw control characters in strings, a byte order mark, leading
 * zeros) and only says that parsing failed, at an approximate offset (one
 * byte past a bad string's opening quote, for instance).  This scan runs
 * first, to refuse what Python refuses and name the exact byte and what
 * was expected there.  It keeps its container stack in a fixed array as
 * deep as cJSON's limit, never recursing.
 */
#include "config.h"

#include <stddef.h>

#include "tf_config.h"

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

/* At a '"': past the closing quote, or the error. */
static const char *string(struct scan *sc, size_t *at)
{
	size_t start = sc->pos++;

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
			sc->pos += 6;
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

enum tfc_syntax_result tfc_syntax_error(const char *text, size_t len, size_t *at,
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
			return TFC_SYNTAX_TOO_DEEP;
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
			return TFC_SYNTAX_ERROR;
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
		return TFC_SYNTAX_ERROR;
	}
	err = string(&sc, at);
	if (err != NULL) {
		*what = err;
		return TFC_SYNTAX_ERROR;
	}
	skip_space(&sc);
	if (sc.pos >= len || text[sc.pos] != ':') {
		*at = sc.pos;
		*what = "expecting ':'";
		return TFC_SYNTAX_ERROR;
	}
	sc.pos++;
	goto value;
after_value:
	skip_space(&sc);
	if (depth == 0) {
		if (sc.pos >= len)
			return TFC_SYNTAX_OK;
		*at = sc.pos;
		*what = text[sc.pos] == '\0' ? "a NUL byte after the value" : "extra data after the value";
		return TFC_SYNTAX_ERROR;
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
	return TFC_SYNTAX_ERROR;
expecting_value:
	*at = sc.pos;
	*what = "expecting a value";
	return TFC_SYNTAX_ERROR;
}
