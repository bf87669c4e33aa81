/* The log callback: "muster: LEVEL: message" on stderr. */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

static const char *level_name(int level)
{
	switch (level) {
	case MUSTER_LOG_ERR:
		return "error";
	case MUSTER_LOG_WARNING:
		return "warning";
	case MUSTER_LOG_NOTICE:
		return "notice";
	case MUSTER_LOG_INFO:
		return "info";
	case MUSTER_LOG_DEBUG:
		return "debug";
	default:
		return level < MUSTER_LOG_ERR ? "error" : "debug";
	}
}

void cli_log(int level, const char *message, void *data)
{
	(void)data;
	/* Locked, so that a line from another thread is never interleaved;
	 * escaped, since reasons quote what backends answered. */
	flockfile(stderr);
	fprintf(stderr, "muster: %s: ", level_name(level));
	cli_put_escaped(stderr, message, 0);
	fputc('\n', stderr);
	funlockfile(stderr);
}

void cli_options(muster_options *opts, const struct cli_global *g)
{
	static const muster_options init = MUSTER_OPTIONS_INIT;

	*opts = init;
	/* Warnings (unknown config keys, a plugin that failed to load, a
	 * backend that failed before another answered) show unless -q; -v
	 * adds informational messages, -vv debug messages. */
	opts->log_level = g->verbosity < 0    ? MUSTER_LOG_ERR
	                  : g->verbosity == 0 ? MUSTER_LOG_WARNING
	                  : g->verbosity == 1 ? MUSTER_LOG_INFO
	                                      : MUSTER_LOG_DEBUG;
	opts->log = cli_log;
	opts->log_data = NULL;
}

static void say_v(const struct cli_global *g, int level, const char *fmt, va_list ap)
{
	char message[1024];

	if (g->verbosity < 0 || (level >= MUSTER_LOG_INFO && g->verbosity < 1))
		return;
	vsnprintf(message, sizeof message, fmt, ap);
	cli_log(level, message, NULL);
}

void cli_say(const struct cli_global *g, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_v(g, level, fmt, ap);
	va_end(ap);
}

void cli_warn(const struct cli_global *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_v(g, MUSTER_LOG_WARNING, fmt, ap);
	va_end(ap);
}
