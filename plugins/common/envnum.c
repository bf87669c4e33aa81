#include "config.h"

#include "envnum.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "buf.h"

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int envnum_parse(const char *s, long lo, long hi, long *out)
{
	const char *p;
	char *end;
	long v;

	for (p = s; blank(*p); p++)
		;
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	v = strtol(p, &end, 10);
	while (blank(*end))
		end++;
	if (*end != '\0' || errno != 0 || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int env_long(const char *name, long lo, long hi, long *out, char *why, size_t whylen)
{
	const char *s = plugin_getenv(name);

	if (s == NULL)
		return 0;
	if (envnum_parse(s, lo, hi, out) != 0) {
		snprintf(why, whylen, "%s must be an integer from %ld to %ld, not \"%.40s\"", name, lo,
		         hi, s);
		return -1;
	}
	return 1;
}

int env_first(const char *const *names)
{
	for (int i = 0; names[i] != NULL; i++)
		if (plugin_getenv(names[i]) != NULL)
			return i;
	return -1;
}
