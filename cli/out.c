/* Standard output: buffered by stdio, flushed and checked once at the end,
 * so that a full disk or a closed pipe is an error (exit 70), never a
 * silently truncated answer. */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void out_puts(const char *s)
{
	fputs(s, stdout);
}

void out_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
}

void out_line_free(char *s)
{
	fputs(s, stdout);
	fputc('\n', stdout);
	muster_free(s);
}

int out_finish(int status)
{
	int failed = 0, saved = 0;

	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		failed = 1;
		saved = errno;
	}
	/* fclose reports what a network file system defers to close().  EBADF
	 * after a clean flush means stdout was closed and nothing was written
	 * to it (`muster check >&-`): not an error. */
	errno = 0;
	if (fclose(stdout) != 0 && !failed && errno != EBADF) {
		failed = 1;
		saved = errno;
	}
	if (failed) {
		if (saved != 0)
			cli_error("error writing to standard output: %s", strerror(saved));
		else
			cli_error("error writing to standard output");
		return CLI_EXIT_SOFTWARE;
	}
	return status;
}
