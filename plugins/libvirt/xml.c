/*
 * libvirt: a small, non-validating XML reader for what libvirt writes
 * (domain and node-device descriptions): elements, attributes in either
 * quote, text with the predefined and numeric character references,
 * comments, CDATA, processing instructions and namespace prefixes.  No
 * DTDs and no entities beyond the five predefined (nothing to expand, fetch
 * or blow up), a depth limit, and a size limit.  It keeps the plugin free
 * of a libxml2 build dependency that configure does not check for; the
 * input is libvirt's own formatter output, which is always well-formed,
 * but anything else gets -1, never a crash.
 */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <stdlib.h>
#include <string.h>

#include "virt.h"

#define VX_MAX_DEPTH 64
#define VX_MAX_INPUT ((size_t)64 * 1024 * 1024)

struct vx_parser {
	const char *p, *end;
};

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.' || c == ':' || (unsigned char)c >= 0x80;
}

static void skip_space(struct vx_parser *x)
{
	while (x->p < x->end && is_space(*x->p))
		x->p++;
}

static int starts(const struct vx_parser *x, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(x->end - x->p) >= n && memcmp(x->p, s, n) == 0;
}

/* Skips past `term`; -1 when it never comes. */
static int skip_past(struct vx_parser *x, const char *term)
{
	const char *q = memmem(x->p, (size_t)(x->end - x->p), term, strlen(term));

	if (q == NULL)
		return -1;
	x->p = q + strlen(term);
	return 0;
}

static char *name(struct vx_parser *x)
{
	const char *s = x->p;

	while (x->p < x->end && is_name_char(*x->p))
		x->p++;
	if (x->p == s)
		return NULL;
	return strndup(s, (size_t)(x->p - s));
}

/* Appends UTF-8 for code point `cp`. */
static size_t put_utf8(char *o, unsigned long cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Decodes [s, e) with character references into a fresh string. */
static char *decode(const char *s, const char *e)
{
	char *out = malloc((size_t)(e - s) + 1), *o = out;

	if (out == NULL)
		return NULL;
	while (s < e) {
		const char *semi;

		if (*s != '&') {
			*o++ = *s++;
			continue;
		}
		semi = memchr(s, ';', (size_t)(e - s));
		if (semi == NULL || semi - s > 12)
			goto bad;
		if (semi - s == 3 && memcmp(s, "&lt", 3) == 0)
			*o++ = '<';
		else if (semi - s == 3 && memcmp(s, "&gt", 3) == 0)
			*o++ = '>';
		else if (semi - s == 4 && memcmp(s, "&amp", 4) == 0)
			*o++ = '&';
		else if (semi - s == 5 && memcmp(s, "&quot", 5) == 0)
			*o++ = '"';
		else if (semi - s == 5 && memcmp(s, "&apos", 5) == 0)
			*o++ = '\'';
		else if (s[1] == '#') {
			char num[16], *end;
			unsigned long cp;
			int hex = s[2] == 'x' || s[2] == 'X';
			size_t len = (size_t)(semi - s) - 2 - (size_t)hex;

			if (len == 0 || len >= sizeof(num))
				goto bad;
			memcpy(num, s + 2 + hex, len);
			num[len] = '\0';
			cp = strtoul(num, &end, hex ? 16 : 10);
			if (*end != '\0' || cp == 0 || cp > 0x10ffff)
				goto bad;
			/* a reference is at least 4 bytes: UTF-8 never needs more */
			o += put_utf8(o, cp);
		} else {
			goto bad;
		}
		s = semi + 1;
	}
	*o = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

static void node_free(struct vx_node *n)
{
	struct vx_node *c, *next;
	size_t i;

	if (n == NULL)
		return;
	for (c = n->child; c != NULL; c = next) {
		next = c->next;
		node_free(c);
	}
	free(n->name);
	for (i = 0; i < n->nattrs; i++) {
		free(n->attrs[i].name);
		free(n->attrs[i].value);
	}
	free(n->attrs);
	free(n->text);
	free(n);
}

void vx_free(struct vx_node *root)
{
	node_free(root);
}

static int add_text(struct vx_node *n, const char *s, size_t len)
{
	size_t old = n->text != NULL ? strlen(n->text) : 0;
	char *t = realloc(n->text, old + len + 1);

	if (t == NULL)
		return -1;
	memcpy(t + old, s, len);
	t[old + len] = '\0';
	n->text = t;
	return 0;
}

static struct vx_node *element(struct vx_parser *x, struct vx_node *parent, int depth);

/* Content up to the parent's end tag. */
static int content(struct vx_parser *x, struct vx_node *n, int depth)
{
	struct vx_node **tail = &n->child;

	for (;;) {
		const char *s = x->p;

		while (x->p < x->end && *x->p != '<')
			x->p++;
		if (x->p > s) {
			char *t = decode(s, x->p);
			int rc;

			if (t == NULL)
				return -1;
			rc = add_text(n, t, strlen(t));
			free(t);
			if (rc < 0)
				return -1;
		}
		if (x->p >= x->end)
			return -1;
		if (starts(x, "</")) {
			char *nm;
			int ok;

			x->p += 2;
			if ((nm = name(x)) == NULL)
				return -1;
			ok = strcmp(nm, n->name) == 0;
			free(nm);
			skip_space(x);
			if (!ok || x->p >= x->end || *x->p != '>')
				return -1;
			x->p++;
			return 0;
		}
		if (starts(x, "<!--")) {
			if (skip_past(x, "-->") < 0)
				return -1;
		} else if (starts(x, "<![CDATA[")) {
			const char *b = x->p + 9;

			if (skip_past(x, "]]>") < 0 || add_text(n, b, (size_t)(x->p - 3 - b)) < 0)
				return -1;
		} else if (starts(x, "<?")) {
			if (skip_past(x, "?>") < 0)
				return -1;
		} else if (starts(x, "<!")) {
			return -1; /* no DTD inside content */
		} else {
			struct vx_node *c = element(x, n, depth + 1);

			if (c == NULL)
				return -1;
			*tail = c;
			tail = &c->next;
		}
	}
}

static struct vx_node *element(struct vx_parser *x, struct vx_node *parent, int depth)
{
	struct vx_node *n;

	if (depth > VX_MAX_DEPTH || x->p >= x->end || *x->p != '<')
		return NULL;
	x->p++;
	if ((n = calloc(1, sizeof(*n))) == NULL)
		return NULL;
	n->parent = parent;
	if ((n->name = name(x)) == NULL)
		goto bad;
	for (;;) {
		struct vx_attr *grown;
		const char *v;
		char q, *an;

		skip_space(x);
		if (x->p >= x->end)
			goto bad;
		if (*x->p == '>') {
			x->p++;
			if (content(x, n, depth) < 0)
				goto bad;
			return n;
		}
		if (starts(x, "/>")) {
			x->p += 2;
			return n;
		}
		if ((an = name(x)) == NULL)
			goto bad;
		grown = realloc(n->attrs, (n->nattrs + 1) * sizeof(*n->attrs));
		if (grown == NULL) {
			free(an);
			goto bad;
		}
		n->attrs = grown;
		n->attrs[n->nattrs].name = an;
		n->attrs[n->nattrs].value = NULL;
		n->nattrs++;
		skip_space(x);
		if (x->p >= x->end || *x->p != '=')
			goto bad;
		x->p++;
		skip_space(x);
		if (x->p >= x->end || (*x->p != '"' && *x->p != '\''))
			goto bad;
		q = *x->p++;
		v = x->p;
		while (x->p < x->end && *x->p != q && *x->p != '<')
			x->p++;
		if (x->p >= x->end || *x->p != q)
			goto bad;
		if ((n->attrs[n->nattrs - 1].value = decode(v, x->p)) == NULL)
			goto bad;
		x->p++;
	}
bad:
	node_free(n);
	return NULL;
}

struct vx_node *vx_parse(const char *s)
{
	struct vx_parser x;
	struct vx_node *root;
	size_t len = strlen(s);

	if (len > VX_MAX_INPUT)
		return NULL;
	x.p = s;
	x.end = s + len;
	if (len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		x.p += 3;
	for (;;) {
		skip_space(&x);
		if (starts(&x, "<?")) {
			if (skip_past(&x, "?>") < 0)
				return NULL;
		} else if (starts(&x, "<!--")) {
			if (skip_past(&x, "-->") < 0)
				return NULL;
		} else {
			break;
		}
	}
	if (starts(&x, "<!"))
		return NULL; /* DOCTYPE: libvirt never writes one */
	if ((root = element(&x, NULL, 0)) == NULL)
		return NULL;
	for (;;) {
		skip_space(&x);
		if (x.p >= x.end)
			return root;
		if (starts(&x, "<!--") ? skip_past(&x, "-->") < 0
		    : starts(&x, "<?") ? skip_past(&x, "?>") < 0
		                       : 1) {
			vx_free(root);
			return NULL;
		}
	}
}

const char *vx_attr(const struct vx_node *n, const char *name)
{
	size_t i;

	for (i = 0; i < n->nattrs; i++)
		if (strcmp(n->attrs[i].name, name) == 0)
			return n->attrs[i].value;
	return NULL;
}

const char *vx_local(const struct vx_node *n)
{
	const char *c = strchr(n->name, ':');

	return c != NULL ? c + 1 : n->name;
}

const char *vx_ns(const struct vx_node *n)
{
	const char *c = strchr(n->name, ':');
	char decl[160];
	const struct vx_node *a;

	if (c != NULL) {
		size_t plen = (size_t)(c - n->name);

		if (plen + 7 > sizeof(decl))
			return NULL;
		memcpy(decl, "xmlns:", 6);
		memcpy(decl + 6, n->name, plen);
		decl[6 + plen] = '\0';
	} else {
		strcpy(decl, "xmlns");
	}
	for (a = n; a != NULL; a = a->parent) {
		const char *v = vx_attr(a, decl);

		if (v != NULL)
			return v[0] != '\0' ? v : NULL;
	}
	return NULL;
}

const struct vx_node *vx_child(const struct vx_node *n, const char *name)
{
	const struct vx_node *c;

	for (c = n->child; c != NULL; c = c->next)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}
