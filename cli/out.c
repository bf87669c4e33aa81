/* Standard output: buffered by stdio, flushed and checked once at the end,
 * so that a full disk or a closed pipe is an error (exit 70), never a
 * silently truncated answer.  Text for a terminal has its control bytes
 * escaped, on stdout and in the error lines on stderr. */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Where out_* writes: stdout, or a frame being drawn (out_capture). */
static FILE *target;

FILE *out_file(void)
{
	return target ? target : stdout;
}

void out_capture(FILE *f)
{
	target = f;
}

void out_puts(const char *s)
{
	fputs(s, out_file());
}

void out_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(out_file(), fmt, ap);
	va_end(ap);
}

/* The length of the valid UTF-8 sequence at s that is not a C1 control,
 * or 0. */
static size_t printable_utf8(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t n, i;

	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		return 0;
	/* No overlong forms, surrogates or code points past U+10FFFF. */
	if (c == 0xC2)
		lo = 0xA0; /* U+0080..U+009F are the C1 controls */
	else if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

void cli_put_escaped(FILE *f, const char *text, int backslash)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t n;

	while (*s != '\0') {
		if (*s == '\\' && backslash) {
			fputs("\\\\", f);
			s++;
		} else if (*s >= 0x20 && *s < 0x7F) {
			fputc(*s++, f);
		} else if ((n = printable_utf8(s)) != 0) {
			fwrite(s, 1, n, f);
			s += n;
		} else {
			fprintf(f, "\\x%02x", *s++);
		}
	}
}

void cli_put_json(FILE *f, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t n;

	fputc('"', f);
	while (*s != '\0') {
		if (*s == '"' || *s == '\\') {
			fprintf(f, "\\%c", *s++);
		} else if (*s >= 0x20 && *s < 0x7F) {
			fputc(*s++, f);
		} else if (*s < 0x20 || *s == 0x7F) {
			fprintf(f, "\\u%04x", *s++);
		} else if ((n = printable_utf8(s)) != 0) {
			fwrite(s, 1, n, f);
			s += n;
		} else if (s[0] == 0xC2 && s[1] >= 0x80 && s[1] <= 0x9F) {
			fprintf(f, "\\u%04x", s[1]); /* a C1 control */
			s += 2;
		} else {
			fputs("\\ufffd", f); /* not UTF-8: JSON text cannot carry it */
			s++;
		}
	}
	fputc('"', f);
}

void cli_error(const char *fmt, ...)
{
	char message[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	/* Escaped: messages quote what backends answered. */
	fputs("muster: ", stderr);
	cli_put_escaped(stderr, message, 0);
	fputc('\n', stderr);
}

void out_text(const char *s)
{
	cli_put_escaped(out_file(), s, 1);
}

void out_line_free(char *s)
{
	fputs(s, out_file());
	fputc('\n', out_file());
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
