/*
 * Strict JSON: the parsed document as a cJSON tree, built without cJSON's
 * parser.  cJSON allocates every node and every string on its own, which
 * made a 9 MB TF_CONFIG cost over a million malloc() calls and most of a
 * resolve's time.  Here nodes are carved from a few large blocks and the
 * decoded strings are packed into one buffer, so the tree is freed in a
 * handful of free() calls.  The text has passed the strict syntax scan
 * first, so this walk only decodes; what it produces is what cJSON would
 * (same node types and fields, a lone UTF-16 surrogate refused as cJSON
 * refuses it), and callers read it through cJSON's own accessors.
 */
#include <config.h>

#include <limits.h>
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strict_json_impl.h"

struct sjson_block {
	struct sjson_block *next;
	size_t used, cap;
	cJSON nodes[];
};

struct walk {
	const char *s;
	size_t pos;
	char *out;               /* next free byte of doc->strings */
	struct sjson_doc *doc;
	char point;              /* the locale's decimal point, for strtod */
};

enum { FIRST_BLOCK = 256, LARGEST_BLOCK = 1 << 16 };

static cJSON *new_node(struct walk *w, int type)
{
	struct sjson_block *b = w->doc->blocks;

	if (b == NULL || b->used == b->cap) {
		size_t cap = b == NULL ? FIRST_BLOCK : b->cap >= LARGEST_BLOCK ? b->cap : b->cap * 2;
		struct sjson_block *nb = malloc(sizeof(*nb) + cap * sizeof(cJSON));

		if (nb == NULL)
			return NULL;
		nb->next = b;
		nb->used = 0;
		nb->cap = cap;
		w->doc->blocks = b = nb;
	}
	cJSON *node = &b->nodes[b->used++];
	memset(node, 0, sizeof(*node));
	node->type = type;
	return node;
}

static void skip_space(struct walk *w)
{
	while (w->s[w->pos] == ' ' || w->s[w->pos] == '\t' || w->s[w->pos] == '\n' ||
	       w->s[w->pos] == '\r')
		w->pos++;
}

static unsigned hex4(const char *s)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = s[i];

		v = v * 16 + (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	return v;
}

static char *put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xC0 | cp >> 6);
		*o++ = (char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xE0 | cp >> 12);
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char)(0x80 | (cp & 0x3F));
	} else {
		*o++ = (char)(0xF0 | cp >> 18);
		*o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char)(0x80 | (cp & 0x3F));
	}
	return o;
}

/* At a '"': the decoded string, NUL-terminated, or NULL at a lone
 * surrogate (w->pos then at its backslash).  Decoding never grows the
 * text, so the buffer, as long as the text, always has room. */
static char *string(struct walk *w)
{
	const char *s = w->s;
	size_t p = w->pos + 1;
	char *start = w->out, *o = w->out;

	for (;;) {
		size_t run = p;

		while (s[p] != '"' && s[p] != '\\')
			p++;
		memcpy(o, s + run, p - run);
		o += p - run;
		if (s[p] == '"')
			break;
		char c = s[p + 1];

		if (c != 'u') {
			static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";

			*o++ = to[strchr(from, c) - from];
			p += 2;
			continue;
		}
		unsigned cp = hex4(s + p + 2);

		if (cp >= 0xDC00 && cp <= 0xDFFF)
			goto lone;
		if (cp >= 0xD800 && cp <= 0xDBFF) {
			unsigned lo;

			if (s[p + 6] != '\\' || s[p + 7] != 'u')
				goto lone;
			lo = hex4(s + p + 8);
			if (lo < 0xDC00 || lo > 0xDFFF)
				goto lone;
			cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			p += 6;
		}
		o = put_utf8(o, cp);
		p += 6;
	}
	*o++ = '\0';
	w->out = o;
	w->pos = p + 1;
	return start;
lone:
	w->pos = p;
	return NULL;
}

static int is_number_char(char c)
{
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* cJSON's reading of a number: strtod in the current locale, with the
 * locale's decimal point, and valueint saturated to int. */
static int number(struct walk *w, cJSON *node)
{
	char small[64], *buf = small;
	size_t n = 0;

	while (is_number_char(w->s[w->pos + n]))
		n++;
	if (n >= sizeof(small) && (buf = malloc(n + 1)) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		buf[i] = w->s[w->pos + i] == '.' ? w->point : w->s[w->pos + i];
	buf[n] = '\0';
	node->valuedouble = strtod(buf, NULL);
	if (buf != small)
		free(buf);
	if (node->valuedouble >= INT_MAX)
		node->valueint = INT_MAX;
	else if (node->valuedouble <= (double)INT_MIN)
		node->valueint = INT_MIN;
	else
		node->valueint = (int)node->valuedouble;
	w->pos += n;
	return 0;
}

/* One value at w->pos: a leaf filled in, or a container left open. */
static cJSON *value(struct walk *w, size_t *at)
{
	cJSON *node;

	switch (w->s[w->pos]) {
	case '{':
	case '[':
		node = new_node(w, w->s[w->pos] == '{' ? cJSON_Object : cJSON_Array);
		w->pos++;
		return node;
	case '"':
		if ((node = new_node(w, cJSON_String)) == NULL)
			return NULL;
		if ((node->valuestring = string(w)) == NULL) {
			*at = w->pos;
			return NULL;
		}
		return node;
	case 't':
		w->pos += 4;
		if ((node = new_node(w, cJSON_True)) != NULL)
			node->valueint = 1;
		return node;
	case 'f':
		w->pos += 5;
		return new_node(w, cJSON_False);
	case 'n':
		w->pos += 4;
		return new_node(w, cJSON_NULL);
	default:
		if ((node = new_node(w, cJSON_Number)) == NULL || number(w, node) < 0)
			return NULL;
		return node;
	}
}

/* Hangs `node` under `parent` after `last`; cJSON's first child's prev
 * is the last child. */
static void attach(cJSON *parent, cJSON *last, cJSON *node, char *key)
{
	node->string = key;
	if (last == NULL) {
		parent->child = node;
	} else {
		last->next = node;
		node->prev = last;
	}
	parent->child->prev = node;
}

int sjson_tree(const char *text, size_t len, struct sjson_doc *doc, size_t *at)
{
	cJSON *open[CJSON_NESTING_LIMIT], *last[CJSON_NESTING_LIMIT];
	size_t depth = 0;
	struct walk w;
	char *key = NULL;
	cJSON *node;

	memset(doc, 0, sizeof(*doc));
	*at = SIZE_MAX;
	if ((doc->strings = malloc(len + 1)) == NULL)
		return -1;
	w.s = text;
	w.pos = 0;
	w.out = doc->strings;
	w.doc = doc;
	w.point = *localeconv()->decimal_point;
	for (;;) {
		skip_space(&w);
		if ((node = value(&w, at)) == NULL)
			goto fail;
		if (depth > 0) {
			attach(open[depth - 1], last[depth - 1], node, key);
			last[depth - 1] = node;
		} else {
			doc->root = node;
		}
		if (cJSON_IsObject(node) || cJSON_IsArray(node)) {
			open[depth] = node;
			last[depth++] = NULL;
			skip_space(&w);
			if (w.s[w.pos] == '}' || w.s[w.pos] == ']') {
				w.pos++;
				depth--;
			}
		}
		/* Close what ends here; then the next value, or the next key. */
		for (;;) {
			skip_space(&w);
			if (depth == 0)
				return 0;
			if (w.s[w.pos] == ',') {
				w.pos++;
				break;
			}
			if (w.s[w.pos] == '}' || w.s[w.pos] == ']') {
				w.pos++;
				depth--;
				continue;
			}
			break; /* the first member of a container just opened */
		}
		key = NULL;
		if (cJSON_IsObject(open[depth - 1])) {
			skip_space(&w);
			if ((key = string(&w)) == NULL) {
				*at = w.pos;
				goto fail;
			}
			skip_space(&w);
			w.pos++; /* ':' */
		}
	}
fail:
	sjson_free(doc);
	return *at == SIZE_MAX ? -1 : 1;
}

void sjson_free(struct sjson_doc *doc)
{
	struct sjson_block *b = doc->blocks;

	while (b != NULL) {
		struct sjson_block *next = b->next;

		free(b);
		b = next;
	}
	free(doc->strings);
	memset(doc, 0, sizeof(*doc));
}
