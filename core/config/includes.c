#include "config.h"

#include "includes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/error.h"

/* libconfig's own nesting limit: deeper includes fail there too. */
#define MAX_DEPTH 10
/* Files that include others several times would otherwise cost
 * (includes per file)^depth stats here, and as much parsing in libconfig. */
#define MAX_INCLUDES 1000

/* The quoted path of an "@include" line (libconfig accepts the directive
 * only at a line's start), NUL-terminated in place; NULL for other lines.
 * The path ends at a NUL byte too, as libconfig reads it. */
static char *include_path(char *line)
{
	line += strspn(line, " \t");
	if (strncmp(line, "@include", 8) != 0 || (line[8] != ' ' && line[8] != '\t'))
		return NULL;
	line += 8 + strspn(line + 8, " \t");
	if (*line != '"')
		return NULL;
	line++;
	line[strcspn(line, "\"")] = '\0';
	return line;
}

static int check_file(const char *path, const char *dir, int depth, int *seen,
                      muster_error *err)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 0;
	if (!f)
		return 0; /* libconfig says why it cannot, as before */
	while (rc == 0 && getline(&line, &cap, f) >= 0) {
		lineno++;
		char *inc = include_path(line), *full;
		struct stat st;
		if (!inc)
			continue;
		if (depth >= MAX_DEPTH) {
			rc = error_set(err, MUSTER_ECONFIG,
			               "%s:%d: @include \"%s\": includes nested deeper than %d", path,
			               lineno, inc, MAX_DEPTH);
			break;
		}
		if (++*seen > MAX_INCLUDES) {
			rc = error_set(err, MUSTER_ECONFIG,
			               "%s:%d: @include \"%s\": more than %d @include directives in all",
			               path, lineno, inc, MAX_INCLUDES);
			break;
		}
		if (inc[0] == '/' || !dir)
			full = strdup(inc);
		else if ((full = malloc(strlen(dir) + strlen(inc) + 2)) != NULL)
			sprintf(full, "%s/%s", dir, inc);
		if (!full) {
			rc = error_set(err, MUSTER_ENOMEM, "out of memory");
			break;
		}
		if (stat(full, &st) != 0)
			; /* libconfig says it cannot open it */
		else if (!S_ISREG(st.st_mode))
			rc = error_set(err, MUSTER_ECONFIG, "%s:%d: @include \"%s\": not a regular file",
			               path, lineno, inc);
		else
			rc = check_file(full, dir, depth + 1, seen, err);
		free(full);
	}
	free(line);
	fclose(f);
	return rc;
}

int includes_check(const char *path, const char *dir, muster_error *err)
{
	int seen = 0;
	return check_file(path, dir, 0, &seen, err);
}
