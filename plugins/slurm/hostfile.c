/*
 * A Slurm host file (SLURM_HOSTFILE), read as Slurm's slurm_read_hostfile
 * reads it: lines of comma-separated host names, "name*N" for N of them,
 * '#' starting a comment unless escaped as "\\#", blank lines skipped,
 * every other line starting with a letter or digit; trailing blanks are
 * cut (a CRLF file).  Only the first `max` hosts are taken, as Slurm takes
 * as many as the step has tasks, so a "name*1000000000" costs nothing.
 */
#include <config.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"

/* One line, cut in place: its comment and trailing blanks removed, "\\#"
 * made '#'. */
static void clean_line(char *line)
{
	char *w = line, *p;

	for (p = line; *p != '\0'; p++) {
		if (*p == '#' && (p == line || p[-1] != '\\'))
			break;
		if (*p == '#')
			w--; /* the backslash before it */
		*w++ = *p;
	}
	while (w > line && isspace((unsigned char)w[-1]))
		w--;
	*w = '\0';
}

int slurm_hostfile_parse(char *data, size_t len, size_t max, const char **hosts, size_t *n,
                         char *why, size_t whylen)
{
	char *line = data, *end = data + len;
	long number = 0;

	*n = 0;
	if (memchr(data, '\0', len) != NULL) {
		snprintf(why, whylen, "a NUL byte: not a text file");
		return -1;
	}
	while (line < end && *n < max) {
		char *nl = memchr(line, '\n', (size_t)(end - line)), *next, *item, *save = NULL;

		number++;
		next = nl != NULL ? nl + 1 : end;
		*(nl != NULL ? nl : end) = '\0';
		clean_line(line);
		if (*line != '\0' && !isalnum((unsigned char)*line)) {
			snprintf(why, whylen, "line %ld does not start with a host name (a letter or "
			         "digit)", number);
			return -1;
		}
		for (item = strtok_r(line, ",", &save); item != NULL && *n < max;
		     item = strtok_r(NULL, ",", &save)) {
			char *star = strchr(item, '*');
			long times = star != NULL ? atol(star + 1) : 0;

			if (times > 0)
				*star = '\0';
			if (item[0] == '\0') {
				snprintf(why, whylen, "line %ld: \"*%ld\" repeats no host name", number,
				         times);
				return -1;
			}
			for (long k = 0; k < (times > 0 ? times : 1) && *n < max; k++)
				hosts[(*n)++] = item;
		}
		line = next;
	}
	return 0;
}
