/* The `detect` check, before a plugin is loaded: getenv() for a name, one
 * walk of the environment for a prefix, stat() for a file. */
#include <config.h>

#include "gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include "explain.h"

extern char **environ;

/* A setuid or setgid program: the caller's environment chooses nothing. */
static int untrusted_environment(void)
{
	return getauxval(AT_SECURE) != 0;
}

/* The first variable whose name starts with the `n` bytes of `prefix`:
 * its "NAME=value" entry, or NULL. */
static const char *prefixed(const char *prefix, size_t n)
{
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, prefix, n) == 0 && strchr(*e + n, '=') != NULL)
			return *e;
	return NULL;
}

/* Whether `item` is there, noting what was found. */
static int present(const char *item, int untrusted, struct explain_notes *notes)
{
	size_t n = strlen(item);
	if (item[0] == '/') {
		struct stat st;
		int there = stat(item, &st) == 0;
		if (notes)
			explain_note(notes, item, there ? "present" : NULL);
		return there;
	}
	if (item[n - 1] == '*') {
		const char *entry = untrusted ? NULL : prefixed(item, n - 1);
		if (notes && entry) {
			char name[EXPLAIN_NAME_MAX];
			const char *eq = strchr(entry, '=');
			snprintf(name, sizeof(name), "%.*s", (int)(eq - entry), entry);
			explain_note(notes, name, eq + 1);
		} else if (notes) {
			explain_note(notes, item, NULL);
		}
		return entry != NULL;
	}
	const char *value = untrusted ? NULL : getenv(item);
	if (notes)
		explain_note(notes, item, value);
	return value != NULL;
}

int gate_open(const char *const *detect, struct explain_notes *notes, char *why, size_t len)
{
	int untrusted = untrusted_environment(), open = 0;
	size_t count = 0, used = 0;
	for (; detect[count]; count++)
		if (present(detect[count], untrusted, notes)) {
			open = 1;
			if (!notes) /* nobody wants the others' state */
				return 1;
		}
	if (open)
		return 1;
	if (count == 1)
		snprintf(why, len, "%s %s", detect[0],
		         detect[0][0] == '/' ? "does not exist" : "is not set");
	else if (count == 2)
		snprintf(why, len, "neither %s nor %s is set", detect[0], detect[1]);
	else
		for (size_t k = 0; k < count && used < len; k++)
			used += (size_t)snprintf(why + used, len - used, "%s%s%s",
			                         k == 0 ? "none of " : k == count - 1 ? " and " : ", ",
			                         detect[k], k == count - 1 ? " is set" : "");
	return 0;
}
