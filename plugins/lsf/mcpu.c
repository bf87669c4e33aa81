/*
 * LSB_MCPU_HOSTS: "hostA 1 hostB 4 hostC 4", each host with its slots.
 * The first pair is the launch host, which Lightning and LSF's job step
 * manager leave out of the compute hosts.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/reason.h"
#include "lsf.h"
#include "plugins/common/layout.h"

static char *next_word(char **p)
{
	char *w = *p + strspn(*p, " \t\n");

	if (*w == '\0')
		return NULL;
	*p = w + strcspn(w, " \t\n");
	if (**p != '\0')
		*(*p)++ = '\0';
	return w;
}

int lsf_mcpu_parse(char *text, const char **first, struct slots *s, char *why, size_t whylen)
{
	char *p = text, *name, *count, *end;
	long pair = 0, n;

	while ((name = next_word(&p)) != NULL) {
		pair++;
		count = next_word(&p);
		if (count == NULL)
			return reason_fail(why, whylen,
			                   "host \"%.64s\" (pair %ld) has no slot count", name, pair);
		errno = 0;
		n = strtol(count, &end, 10);
		if (*count < '0' || *count > '9' || *end != '\0' || errno != 0 || n < 1 ||
		    n > LAYOUT_MAX_TASKS) {
			return reason_fail(why, whylen,
			                   "host \"%.64s\": \"%.20s\" is not a slot count from 1 to "
			                   "%ld", name, count, LAYOUT_MAX_TASKS);
		}
		if (strpbrk(name, "[],") != NULL)
			return reason_fail(why, whylen, "\"%.64s\" is not a host name", name);
		if (pair == 1) {
			*first = name;
			continue;
		}
		if (slots_add(s, name, n, LAYOUT_MAX_TASKS) < 0)
			return reason_fail(why, whylen,
			                   "more than %ld slots, or out of memory", LAYOUT_MAX_TASKS);
	}
	if (s->total == 0)
		return reason_fail(why, whylen,
		                   pair == 0 ? "no host" : "no compute host after the launch host");
	return 0;
}
