#include <config.h>

#include "env.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "address.h"
#include "quote.h"
#include "reason.h"

/* Room for a value as errors show it: about 60 bytes of it. */
#define SHOWN 72

const char *env_get(const char *name)
{
#ifdef HAVE_SECURE_GETENV
	return secure_getenv(name);
#else
	return getenv(name);
#endif
}

const char *env_str(struct env_reader *r, const char *name)
{
	const char *value = env_get(name);

	if (r->record != NULL)
		r->record(r->record_data, name, value);
	if (value == NULL)
		reason_fail(r->why, sizeof(r->why), "%s is not set", name);
	return value;
}

int env_any(struct env_reader *r, const char *const *names)
{
	size_t used = 0;
	int i;

	for (i = 0; names[i] != NULL; i++)
		if (env_str(r, names[i]) != NULL)
			return i;
	if (i < 2)
		return -1; /* env_str() said "NAME is not set" */
	if (i == 2) {
		snprintf(r->why, sizeof(r->why), "neither %s nor %s is set", names[0], names[1]);
		return -1;
	}
	for (int k = 0; k < i && used < sizeof(r->why); k++)
		used += (size_t)snprintf(r->why + used, sizeof(r->why) - used, "%s%s",
		                         k == 0 ? "none of " : k == i - 1 ? " and " : ", ", names[k]);
	if (used < sizeof(r->why))
		snprintf(r->why + used, sizeof(r->why) - used, " is set");
	return -1;
}

/* "NAME must be WHAT, not "VALUE"", and -1. */
static int expected(struct env_reader *r, const char *name, const char *value, const char *what)
{
	char shown[SHOWN];

	quote_text(shown, sizeof(shown), value, strlen(value));
	return reason_fail(r->why, sizeof(r->why), "%s must be %s, not %s", name, what, shown);
}

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int env_parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	while (blank(*s))
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	while (blank(*end))
		end++;
	if (*end != '\0' || errno != 0 || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* env_int() of a value already looked up. */
static int int_value(struct env_reader *r, const char *name, const char *value, long lo, long hi,
                     long *out)
{
	char what[80];

	if (value == NULL)
		return 0;
	if (env_parse_int(value, lo, hi, out) < 0) {
		snprintf(what, sizeof(what), "an integer from %ld to %ld", lo, hi);
		return expected(r, name, value, what);
	}
	return 1;
}

int env_int(struct env_reader *r, const char *name, long lo, long hi, long *out)
{
	return int_value(r, name, env_str(r, name), lo, hi, out);
}

int env_int_first(struct env_reader *r, const char *const *names, long lo, long hi, long *out,
                  const char **which)
{
	int i = env_any(r, names);

	if (i < 0)
		return 0;
	*which = names[i];
	return int_value(r, names[i], env_get(names[i]), lo, hi, out);
}

int env_index(struct env_reader *r, const char *name, long count, const char *count_from,
              long *out)
{
	const char *value = env_str(r, name);
	char what[160];

	if (value == NULL)
		return 0;
	if (count < 1 || env_parse_int(value, 0, count - 1, out) < 0) {
		snprintf(what, sizeof(what), "an index below %ld%s%s%s", count,
		         count_from ? " (" : "", count_from ? count_from : "", count_from ? ")" : "");
		return expected(r, name, value, what);
	}
	return 1;
}

/* "NAME="VALUE": REASON", and -1. */
static int list_bad(struct env_reader *r, const char *name, const char *value, const char *fmt,
                    ...) __attribute__((format(printf, 4, 5)));
static int list_bad(struct env_reader *r, const char *name, const char *value, const char *fmt,
                    ...)
{
	char shown[SHOWN], reason[160];
	va_list ap;

	quote_text(shown, sizeof(shown), value, strlen(value));
	va_start(ap, fmt);
	reason_vfail(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return reason_fail(r->why, sizeof(r->why), "%s=%s: %s", name, shown, reason);
}

/* env_list() of `value`, which `name` names. */
static int list_of(struct env_reader *r, const char *name, const char *value, const char *seps,
                   size_t max, struct env_list *out)
{
	const char *start;
	size_t slots = 1, len, i, item = 0;
	char *p, *end, sep = 0, before = ',';

	memset(out, 0, sizeof(*out));
	if (value == NULL)
		return 0;
	for (start = value; blank(*start); start++)
		;
	for (len = strlen(start); len > 0 && blank(start[len - 1]); len--)
		;
	if (len == 0)
		return reason_fail(r->why, sizeof(r->why), "%s is empty", name);
	for (i = 0; i < len; i++)
		slots += strchr(seps, start[i]) != NULL;
	out->text = malloc(len + 1);
	out->items = calloc(slots, sizeof(*out->items));
	if (out->text == NULL || out->items == NULL) {
		env_list_free(out);
		return reason_fail(r->why, sizeof(r->why), "%s: out of memory", name);
	}
	memcpy(out->text, start, len);
	out->text[len] = '\0';
	for (p = out->text;; p = end + 1, before = sep) {
		end = p + strcspn(p, seps);
		sep = *end;
		*end = '\0';
		while (blank(*p))
			p++;
		for (char *q = end; q > p && blank(q[-1]); *--q = '\0')
			;
		item++;
		/* Runs of blank separators are one ("a  b", "a,\nb"). */
		if (*p == '\0' && !blank(before) && !blank(sep)) {
			env_list_free(out);
			return list_bad(r, name, value, "item %zu is empty", item);
		}
		if (*p != '\0' && out->n == max) {
			env_list_free(out);
			return list_bad(r, name, value, "more than %zu items", max);
		}
		if (*p != '\0')
			out->items[out->n++] = p;
		if (sep == '\0')
			return 1;
	}
}

int env_list(struct env_reader *r, const char *name, const char *seps, size_t max,
             struct env_list *out)
{
	return list_of(r, name, env_str(r, name), seps, max, out);
}

void env_list_free(struct env_list *l)
{
	free(l->items);
	free(l->text);
	memset(l, 0, sizeof(*l));
}

/* "NAME[ item N] must be a host name or IP address, not "HOST": REASON"
 * and -1 when `host` is not one; else 0. */
static int host_bad(struct env_reader *r, const char *name, size_t item, const char *host)
{
	char reason[160], shown[SHOWN], label[32] = "";

	if (address_check_host(host, reason, sizeof(reason)) == 0)
		return 0;
	if (item > 0)
		snprintf(label, sizeof(label), " item %zu", item);
	quote_text(shown, sizeof(shown), host, strlen(host));
	return reason_fail(r->why, sizeof(r->why), "%s%s must be a host name or IP address, not %s: %s",
	                   name, label, shown, reason);
}

int env_host(struct env_reader *r, const char *name, const char **out)
{
	const char *value = env_str(r, name);

	if (value == NULL)
		return 0;
	if (host_bad(r, name, 0, value) < 0)
		return -1;
	*out = value;
	return 1;
}

/* Each item of a list that a read gave (rc 1) checked as a host. */
static int hosts_checked(struct env_reader *r, const char *name, int rc, struct env_list *out)
{
	for (size_t i = 0; rc > 0 && i < out->n; i++)
		if (host_bad(r, name, i + 1, out->items[i]) < 0) {
			env_list_free(out);
			rc = -1;
		}
	return rc;
}

int env_hosts(struct env_reader *r, const char *name, const char *seps, size_t max,
              struct env_list *out)
{
	return hosts_checked(r, name, env_list(r, name, seps, max, out), out);
}

int env_hosts_text(struct env_reader *r, const char *name, const char *text, const char *seps,
                   size_t max, struct env_list *out)
{
	return hosts_checked(r, name, list_of(r, name, text, seps, max, out), out);
}

int env_address(struct env_reader *r, const char *name, const char **out)
{
	const char *value = env_str(r, name);
	char why[240];

	if (value == NULL)
		return 0;
	if (address_check(value, why, sizeof(why)) < 0)
		return reason_fail(r->why, sizeof(r->why), "%s: %s", name, why);
	*out = value;
	return 1;
}
