/*
 * Host lists as Slurm 22.05 expands them (checked against its scontrol):
 *  - items are separated by ',', ' ', '\t' or '\n' outside brackets; empty
 *    items are skipped;
 *  - an item is text and bracket groups, `pre[G1]mid[G2]...[Gk]`, with no
 *    text after the last group (Slurm refuses "n[1-2]a");
 *  - a group is a comma list of N or A-B (A <= B, at most 65,536 numbers),
 *    each number zero-padded to the width of its lower bound as written;
 *  - with several groups the last varies fastest, then G1, G2, ... G(k-1)
 *    slowest: Slurm expands the remaining rightmost group outermost.
 * Where scontrol prints garbage for a malformed list (an unterminated
 * bracket, a stray ']', signs or spaces inside brackets) we refuse it.
 */
#include <config.h>

#include "hostlist.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/reason.h"

#define MAX_GROUPS 16
#define MAX_DIGITS 18 /* below 10^18: no overflow in unsigned long long */

struct range {
	unsigned long long lo, hi;
	int width;
};

struct group {
	struct range *ranges;
	size_t n, cap;
	unsigned long long size;   /* numbers in all ranges */
	size_t r;                  /* odometer: current range */
	unsigned long long v;      /* ... and number */
};

struct item {
	const char *text[MAX_GROUPS + 1]; /* text before each group */
	size_t textlen[MAX_GROUPS + 1];
	struct group g[MAX_GROUPS];
	size_t k;
};

struct out {
	struct hostlist *h;
	size_t len, cap, names_cap;
	size_t *offsets;
};

static int is_sep(char c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\n';
}

static int parse_number(const char *s, size_t len, unsigned long long *v)
{
	if (len == 0 || len > MAX_DIGITS)
		return -1;
	*v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (unsigned)(s[i] - '0');
	}
	return 0;
}

/* One "N" or "A-B" of a group. */
static int parse_range(const char *s, size_t len, struct range *r, char *why, size_t whylen)
{
	const char *dash = memchr(s, '-', len);
	size_t lolen = dash ? (size_t)(dash - s) : len;

	if (parse_number(s, lolen, &r->lo) < 0 ||
	    (dash && parse_number(dash + 1, len - lolen - 1, &r->hi) < 0))
		return reason_fail(why, whylen, "invalid range '%.*s' (digits only, A or A-B)",
		                   (int)(len > 40 ? 40 : len), s);
	if (!dash)
		r->hi = r->lo;
	if (r->hi < r->lo)
		return reason_fail(why, whylen,
		                   "reversed range '%.*s'", (int)(len > 40 ? 40 : len), s);
	if (r->hi - r->lo >= SLURM_MAX_HOSTS)
		return reason_fail(why, whylen, "range '%.*s' has more than %d hosts",
		                   (int)(len > 40 ? 40 : len), s, SLURM_MAX_HOSTS);
	r->width = (int)lolen;
	return 0;
}

static int parse_group(const char *s, size_t len, struct group *g, char *why, size_t whylen)
{
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != ',')
			continue;
		if (g->n == g->cap) {
			size_t cap = g->cap ? g->cap * 2 : 4;
			struct range *more = realloc(g->ranges, cap * sizeof(*more));
			if (!more)
				return reason_fail(why, whylen, "out of memory");
			g->ranges = more;
			g->cap = cap;
		}
		struct range *r = &g->ranges[g->n];
		if (parse_range(s + start, i - start, r, why, whylen) < 0)
			return -1;
		g->n++;
		g->size += r->hi - r->lo + 1;
		if (g->size > SLURM_MAX_HOSTS)
			return reason_fail(why, whylen,
			                   "a bracket names more than %d hosts", SLURM_MAX_HOSTS);
		start = i + 1;
	}
	return 0;
}

static void item_free(struct item *it)
{
	for (size_t i = 0; i < it->k; i++)
		free(it->g[i].ranges);
	it->k = 0;
}

/* Splits one item into its texts and groups.  *end: where it stopped. */
static int parse_item(const char *s, struct item *it, const char **end, char *why, size_t whylen)
{
	const char *p = s, *text = s;
	memset(it, 0, sizeof(*it));
	for (;; p++) {
		if (*p == '\0' || is_sep(*p))
			break;
		if (*p == ']')
			return reason_fail(why, whylen, "']' without '['");
		if (*p != '[')
			continue;
		if (it->k == MAX_GROUPS)
			return reason_fail(why, whylen,
			                   "more than %d bracket groups in one name", MAX_GROUPS);
		const char *close = p + 1;
		while (*close && *close != ']' && *close != '[')
			close++;
		if (*close != ']')
			return reason_fail(why, whylen, *close == '[' ? "'[' inside brackets"
			                   : "unterminated '['");
		it->text[it->k] = text;
		it->textlen[it->k] = (size_t)(p - text);
		struct group *g = &it->g[it->k++];
		if (parse_group(p + 1, (size_t)(close - p - 1), g, why, whylen) < 0)
			return -1;
		p = close;
		text = close + 1;
	}
	if (it->k && p != text)
		return reason_fail(why, whylen,
		                   "text after the last ']' ('%.*s'): Slurm refuses a suffix",
		                   (int)(p - text > 40 ? 40 : p - text), text);
	it->text[it->k] = text;
	it->textlen[it->k] = (size_t)(p - text);
	*end = p;
	return 0;
}

static int out_name(struct out *o, const char *name, size_t len, char *why, size_t whylen)
{
	struct hostlist *h = o->h;
	if (len > SLURM_MAX_NAME)
		return reason_fail(why, whylen, "a host name longer than %d bytes", SLURM_MAX_NAME);
	if (h->n == SLURM_MAX_HOSTS)
		return reason_fail(why, whylen, "more than %d hosts", SLURM_MAX_HOSTS);
	if (o->len + len + 1 > o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 256;
		while (cap < o->len + len + 1)
			cap *= 2;
		char *more = realloc(h->text, cap);
		if (!more)
			return reason_fail(why, whylen, "out of memory");
		h->text = more;
		o->cap = cap;
	}
	if (h->n == o->names_cap) {
		size_t cap = o->names_cap ? o->names_cap * 2 : 16;
		size_t *more = realloc(o->offsets, cap * sizeof(*more));
		if (!more)
			return reason_fail(why, whylen, "out of memory");
		o->offsets = more;
		o->names_cap = cap;
	}
	memcpy(h->text + o->len, name, len);
	h->text[o->len + len] = '\0';
	o->offsets[h->n++] = o->len;
	o->len += len + 1;
	return 0;
}

/* The odometer's next step; 0 when it wrapped around (all names made). */
static int group_next(struct group *g)
{
	if (g->v < g->ranges[g->r].hi) {
		g->v++;
		return 1;
	}
	if (g->r + 1 < g->n) {
		g->r++;
		g->v = g->ranges[g->r].lo;
		return 1;
	}
	g->r = 0;
	g->v = g->ranges[0].lo;
	return 0;
}

/* `v` zero-padded to `width` (at most MAX_DIGITS) at `out`; its length.
 * snprintf here was a fifth of expanding a 4,096-node list. */
static size_t put_number(char *out, unsigned long long v, int width)
{
	char digits[MAX_DIGITS + 2];
	size_t n = 0, len = 0;
	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	for (; (int)n + (int)len < width; len++)
		out[len] = '0';
	while (n > 0)
		out[len++] = digits[--n];
	return len;
}

static int expand_item(struct out *o, struct item *it, char *why, size_t whylen)
{
	char name[SLURM_MAX_NAME + 32];
	unsigned long long count = 1;

	for (size_t i = 0; i < it->k; i++) {
		count *= it->g[i].size;
		if (count > SLURM_MAX_HOSTS - o->h->n)
			return reason_fail(why, whylen, "more than %d hosts", SLURM_MAX_HOSTS);
		it->g[i].r = 0;
		it->g[i].v = it->g[i].ranges[0].lo;
	}
	for (unsigned long long made = 0; made < count; made++) {
		size_t len = 0;
		for (size_t i = 0; i <= it->k; i++) {
			if (it->textlen[i] > SLURM_MAX_NAME - len)
				return reason_fail(why, whylen, "a host name longer than %d bytes",
				                   SLURM_MAX_NAME);
			memcpy(name + len, it->text[i], it->textlen[i]);
			len += it->textlen[i];
			if (i == it->k)
				break;
			const struct group *g = &it->g[i];
			len += put_number(name + len, g->v, g->ranges[g->r].width);
			if (len > SLURM_MAX_NAME)
				return reason_fail(why, whylen, "a host name longer than %d bytes",
				                   SLURM_MAX_NAME);
		}
		if (out_name(o, name, len, why, whylen) < 0)
			return -1;
		/* Last group fastest, then the first, second, ... one before last. */
		if (it->k && !group_next(&it->g[it->k - 1]))
			for (size_t i = 0; i + 1 < it->k && !group_next(&it->g[i]); i++)
				;
	}
	return 0;
}

void hostlist_free(struct hostlist *h)
{
	if (!h)
		return;
	free(h->names);
	free(h->text);
	memset(h, 0, sizeof(*h));
}

int hostlist_expand(const char *list, struct hostlist *h, char *why, size_t whylen)
{
	struct out o = { .h = h };
	struct item it;
	const char *p = list;
	int rc = 0;

	memset(h, 0, sizeof(*h));
	while (rc == 0 && *p) {
		if (is_sep(*p)) {
			p++;
			continue;
		}
		rc = parse_item(p, &it, &p, why, whylen);
		if (rc == 0)
			rc = expand_item(&o, &it, why, whylen);
		item_free(&it);
	}
	if (rc == 0 && h->n && !(h->names = malloc(h->n * sizeof(*h->names))))
		rc = reason_fail(why, whylen, "out of memory");
	for (size_t i = 0; rc == 0 && i < h->n; i++)
		h->names[i] = h->text + o.offsets[i];
	free(o.offsets);
	if (rc < 0)
		hostlist_free(h);
	return rc;
}
