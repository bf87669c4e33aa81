/*
 * Fuzz target: a no_proxy list against a host, as muster doctor matches
 * them (cli/noproxy.c).  The input is the host, a newline, then the list.
 * Whatever the list, appending ",*" covers the host, and a list that is
 * a plain host itself covers it.
 */
#include <config.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "noproxy.h"

/* A name or address as a cluster writes it: letters or digits first, then
 * those, '.', '-' and ':'. */
static int plain_host(const char *s)
{
	if (!isalnum((unsigned char)s[0]))
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '-' && *s != ':')
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *list, *both;

	if (size > 4096 || (text = malloc(size + 1)) == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	list = strchr(text, '\n');
	if (list != NULL)
		*list++ = '\0';
	else
		list = text + size;
	noproxy_covers(list, text);
	if ((both = malloc(strlen(list) + 3)) != NULL) {
		strcpy(both, list);
		strcat(both, ",*");
		if (!noproxy_covers(both, text))
			abort();
		free(both);
	}
	if (plain_host(text) && !noproxy_covers(text, text))
		abort();
	free(text);
	return 0;
}
