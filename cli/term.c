/* What the terminal on standard output can take: its width, and whether
 * to colour.  The tables of topo and status both fit and colour by these. */
#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "lib/env.h"

size_t cli_term_width(void)
{
	const char *env = env_get("COLUMNS");
	struct winsize ws;
	char *end;
	long v = env ? strtol(env, &end, 10) : 0;

	if (env && *env && *end == '\0' && v > 0 && v < 100000)
		return (size_t)v;
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 0;
}

/* A terminal that takes escape sequences: not TERM=dumb (Emacs' shell
 * buffers, some CI logs), not unset. */
int cli_term_capable(void)
{
	const char *term = env_get("TERM");

	return isatty(STDOUT_FILENO) && term != NULL && term[0] != '\0' &&
	       strcmp(term, "dumb") != 0;
}

int cli_term_color(void)
{
	const char *no_color = env_get("NO_COLOR");

	/* no-color.org: NO_COLOR present and not empty, whatever its value. */
	return cli_term_capable() && !(no_color != NULL && no_color[0] != '\0');
}
