/*
 * Host files: lines are stripped of blanks as TensorFlow's PBS resolver
 * and Lightning's LSF environment do; trailing empty lines are allowed, an
 * empty line before a host is not.  A host file is not a Slurm hostlist,
 * so brackets and commas are refused rather than expanded.
 */
#include <config.h>

#include "hostfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "lib/reason.h"
#include "layout.h"

int hostfile_read(const char *path, size_t max, char **data, size_t *len, char *why,
                  size_t whylen)
{
	int err;

	if (plugin_read_file(path, max, data, len) == 0)
		return 0;
	err = errno;
	plugin_read_error(path, err, max, why, whylen);
	errno = err;
	return -1;
}

static int space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

int hostfile_parse(char *data, size_t len, int skip_first, const char **first,
                   struct slots *s, char *why, size_t whylen)
{
	char *p = data, *end = data + len, *nl, *name, *e;
	const char *nul = memchr(data, '\0', len);
	long line = 0, empty_at = 0;

	if (nul != NULL)
		return reason_fail(why, whylen, "a NUL byte at offset %zu: not a text file",
		                   (size_t)(nul - data));
	while (p < end) {
		line++;
		nl = memchr(p, '\n', (size_t)(end - p));
		e = nl != NULL ? nl : end;
		name = p;
		p = nl != NULL ? nl + 1 : end;
		while (name < e && space(*name))
			name++;
		while (e > name && space(e[-1]))
			e--;
		if (e == name) {
			if (empty_at == 0)
				empty_at = line;
			continue;
		}
		if (empty_at != 0)
			return reason_fail(why, whylen, "line %ld is empty", empty_at);
		*e = '\0';
		if (strpbrk(name, "[],") != NULL)
			return reason_fail(why, whylen,
			                   "line %ld: \"%.64s\" is not a host name (one host per "
			                   "line, without brackets or commas)", line, name);
		if (skip_first) {
			skip_first = 0;
			*first = name;
			continue;
		}
		if (slots_add(s, name, 1, LAYOUT_MAX_TASKS) < 0)
			return reason_fail(why, whylen,
			                   "line %ld: more than %ld slots, or out of memory", line,
			                   LAYOUT_MAX_TASKS);
	}
	if (s->total == 0)
		return reason_fail(why, whylen,
		                   "no %shost in the file", *first != NULL ? "compute " : "");
	return 0;
}
