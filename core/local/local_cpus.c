/* CPU lists as the kernel writes them in sysfs: ranges and single CPUs,
 * separated by commas.  The files are read as untrusted text. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "local_cpus.h"
#include "local_devices.h"

/* A CPU number at *p (decimal, below CPUS_MAX); -1 when there is none. */
static long number(const char **p)
{
	long v = 0;
	if (**p < '0' || **p > '9')
		return -1;
	while (**p >= '0' && **p <= '9') {
		v = v * 10 + (**p - '0');
		if (v >= CPUS_MAX)
			return -1;
		(*p)++;
	}
	return v;
}

int cpus_parse(struct cpus *s, const char *text)
{
	const char *p = text + strspn(text, " \t\n");
	memset(s, 0, sizeof(*s));
	while (*p && !strchr(" \t\n", *p)) {
		long lo = number(&p), hi = lo;
		if (lo >= 0 && *p == '-') {
			p++;
			hi = number(&p);
		}
		if (lo < 0 || hi < lo)
			return -1;
		for (long c = lo; c <= hi; c++)
			cpus_add(s, c);
		if (*p == ',' && p[1] >= '0' && p[1] <= '9')
			p++;
		else if (*p && !strchr(" \t\n", *p))
			return -1;
	}
	return p[strspn(p, " \t\n")] == '\0' ? 0 : -1;
}

int cpus_read(struct cpus *s, const char *root, const char *path)
{
	char text[8192]; /* a sysfs file is at most a page */
	return local_read(root, path, text, sizeof(text)) == 0 ? cpus_parse(s, text) : -1;
}

char *cpus_format(const struct cpus *s)
{
	/* Each range "a-b," takes at most 12 bytes and covers two CPUs or more;
	 * a single CPU takes 6. */
	size_t size = 6 * (size_t)cpus_count(s) + 1, o = 0;
	char *out = malloc(size);
	if (!out)
		return NULL;
	out[0] = '\0';
	for (long c = cpus_next(s, 0); c >= 0;) {
		long end = c;
		while (cpus_has(s, end + 1))
			end++;
		o += (size_t)snprintf(out + o, size - o, o ? ",%ld" : "%ld", c);
		if (end > c)
			o += (size_t)snprintf(out + o, size - o, "-%ld", end);
		c = cpus_next(s, end + 1);
	}
	return out;
}

int cpus_has(const struct cpus *s, long cpu)
{
	return cpu >= 0 && cpu < CPUS_MAX &&
	       (s->w[(size_t)cpu / CPUS_WORD_BITS] >> ((size_t)cpu % CPUS_WORD_BITS) & 1);
}

void cpus_add(struct cpus *s, long cpu)
{
	if (cpu >= 0 && cpu < CPUS_MAX)
		s->w[(size_t)cpu / CPUS_WORD_BITS] |= 1UL << ((size_t)cpu % CPUS_WORD_BITS);
}

void cpus_and(struct cpus *s, const struct cpus *other)
{
	for (size_t i = 0; i < sizeof(s->w) / sizeof(s->w[0]); i++)
		s->w[i] &= other->w[i];
}

void cpus_or(struct cpus *s, const struct cpus *other)
{
	for (size_t i = 0; i < sizeof(s->w) / sizeof(s->w[0]); i++)
		s->w[i] |= other->w[i];
}

long cpus_next(const struct cpus *s, long from)
{
	for (long c = from < 0 ? 0 : from; c < CPUS_MAX; c++) {
		if (s->w[(size_t)c / CPUS_WORD_BITS] == 0) {
			c |= (long)CPUS_WORD_BITS - 1; /* skip the empty word */
			continue;
		}
		if (cpus_has(s, c))
			return c;
	}
	return -1;
}

long cpus_count(const struct cpus *s)
{
	long n = 0;
	for (size_t i = 0; i < sizeof(s->w) / sizeof(s->w[0]); i++)
		n += __builtin_popcountl(s->w[i]);
	return n;
}
