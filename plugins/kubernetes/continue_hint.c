/*
 * kubernetes: a page's continue token, read from its leading bytes.
 *
 * The API server writes a list as {"kind", "apiVersion", "metadata",
 * "items"}, so the token for the next page sits in the first few hundred
 * bytes.  Reading it there, before the page is checked and walked, lets
 * the next request go out while this page is walked (list.c).  It is a
 * guess and only ever used as one: the walk's own token is compared with
 * it, and a page that turns out invalid fails as it would have anyway.
 *
 * The guess follows the walk's rule (the first string `continue` of a root
 * `metadata`, nulls ignored) over the simplest shapes only: members before
 * `items` that are scalars, strings without escapes, and a flat metadata
 * object.  Anything else answers "no guess", and the listing waits for
 * the walk's token as it would with a single thread.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "k8s.h"

struct scan {
	const char *p, *end;
};

static void skip_space(struct scan *sc)
{
	while (sc->p < sc->end && (*sc->p == ' ' || *sc->p == '\t' || *sc->p == '\n' ||
	                           *sc->p == '\r'))
		sc->p++;
}

static int next_is(struct scan *sc, char c)
{
	skip_space(sc);
	if (sc->p < sc->end && *sc->p == c) {
		sc->p++;
		return 1;
	}
	return 0;
}

/* A string with neither escapes nor control characters: *s, *len. */
static int plain_string(struct scan *sc, const char **s, size_t *len)
{
	const char *q;

	if (!next_is(sc, '"'))
		return 0;
	for (q = sc->p; q < sc->end && *q != '"'; q++)
		if (*q == '\\' || (unsigned char)*q < 0x20)
			return 0;
	if (q == sc->end)
		return 0;
	*s = sc->p;
	*len = (size_t)(q - sc->p);
	sc->p = q + 1;
	return 1;
}

/* A number or literal's characters (the walk checks them): its length. */
static size_t scalar(struct scan *sc)
{
	static const char chars[] = "0123456789+-.eEtruefalsn";
	const char *start;

	skip_space(sc);
	start = sc->p;
	while (sc->p < sc->end && *sc->p != '\0' && strchr(chars, *sc->p) != NULL)
		sc->p++;
	return (size_t)(sc->p - start);
}

/* A member's value that is not looked into: 1 when plain, 0 otherwise. */
static int plain_value(struct scan *sc, const char **s, size_t *len, int *is_null)
{
	size_t n;

	*s = NULL;
	*is_null = 0;
	skip_space(sc);
	if (sc->p < sc->end && *sc->p == '"')
		return plain_string(sc, s, len);
	if ((n = scalar(sc)) == 0)
		return 0;
	*is_null = n == 4 && memcmp(sc->p - 4, "null", 4) == 0;
	return 1;
}

static int is_key(const char *k, size_t len, const char *want)
{
	return len == strlen(want) && memcmp(k, want, len) == 0;
}

/* A root metadata object's members: the first string continue into *tok.
 * 0 when the object is not flat and plain. */
static int metadata(struct scan *sc, const char **tok, size_t *toklen)
{
	const char *k, *v;
	size_t klen, vlen;
	int null;

	if (next_is(sc, '}'))
		return 1;
	do {
		if (!plain_string(sc, &k, &klen) || !next_is(sc, ':') ||
		    !plain_value(sc, &v, &vlen, &null))
			return 0;
		if (is_key(k, klen, "continue") && !null) {
			if (v == NULL)
				return 0; /* not a string: the walk says what is wrong */
			if (*tok == NULL) {
				*tok = v;
				*toklen = vlen;
			}
		}
	} while (next_is(sc, ','));
	return next_is(sc, '}');
}

char *k8s_continue_hint(const char *p, size_t len)
{
	struct scan sc;
	const char *k, *v, *tok = NULL;
	size_t klen, vlen, toklen = 0;
	int null;

	if (p == NULL)
		return NULL;
	sc.p = p;
	sc.end = p + len;
	if (!next_is(&sc, '{'))
		return NULL;
	do {
		if (!plain_string(&sc, &k, &klen) || !next_is(&sc, ':'))
			return NULL;
		if (is_key(k, klen, "items"))
			return tok != NULL && toklen > 0 ? strndup(tok, toklen) : NULL;
		if (is_key(k, klen, "metadata") && next_is(&sc, '{')) {
			if (!metadata(&sc, &tok, &toklen))
				return NULL;
		} else if (!plain_value(&sc, &v, &vlen, &null)) {
			return NULL;
		}
	} while (next_is(&sc, ','));
	return NULL; /* no items: the walk says so */
}
