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

int env_long(const char *name, long lo, long hi, long *out, char *why, size_t whylen)
{
	const char *s = plugin_getenv(name), *p;
	char *end;
	long v;

	if (s == NULL)
		return 0;
	for (p = s; blank(*p); p++)
		;
	errno = 0;
	v = (*p >= '0' && *p <= '9') ? strtol(p, &end, 10) : (end = (char *)p, -1);
	if (end != p)
		while (blank(*end))
			end++;
	if (end == p || *end != '\0' || errno != 0 || v < lo || v > hi) {
		snprintf(why, whylen, "%s must be an integer from %ld to %ld, not \"%.40s\"", name, lo,
		         hi, s);
		return -1;
	}
	*out = v;
	return 1;
}

int env_first(const char *const *names)
{
	for (int i = 0; names[i] != NULL; i++)
		if (plugin_getenv(names[i]) != NULL)
			return i;
	return -1;
}
