/*
 * muster reserve --size N [--port P | --port-range A-B] [--host H]
 *                [--timeout S] [--output FILE] [--port-file FILE]
 *                [--auth-key-file F] [--idle-timeout S]
 *                [--max-connections N] [--max-per-address N]
 *                [--metrics-port P [--metrics-host H]]
 *
 * A TensorFlowOnSpark-compatible reservation server: waits until N
 * executors have registered and fetched the list, then prints the
 * ClusterSpec.  Progress goes to stderr through the log callback.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <muster/reserve.h>

#include "cli.h"

/* For the signal handler: the server to stop. */
static muster_reserve *volatile running;

static void on_signal(int sig)
{
	(void)sig;
	if (running != NULL)
		muster_reserve_stop(running);
}

static int parse_long(const char *what, const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0 || v < lo || v > hi)
		return cli_usage_error("reserve: %s must be an integer from %ld to %ld, not '%s'", what,
		                       lo, hi, s);
	*out = v;
	return 0;
}

/* "A-B", inclusive, as TFOS_SERVER_PORT; or one port "P". */
static int parse_range(const char *s, int *lo, int *hi)
{
	const char *dash = strchr(s, '-');
	char first[16];
	long a, b;
	int rc;

	if (dash == NULL || (size_t)(dash - s) >= sizeof first)
		return cli_usage_error("reserve: --port-range must be A-B, not '%s'", s);
	memcpy(first, s, (size_t)(dash - s));
	first[dash - s] = '\0';
	if ((rc = parse_long("the first port", first, 1, 65535, &a)) != 0 ||
	    (rc = parse_long("the last port", dash + 1, 1, 65535, &b)) != 0)
		return rc;
	if (b < a)
		return cli_usage_error("reserve: --port-range %s is empty", s);
	*lo = (int)a;
	*hi = (int)b;
	return 0;
}

/* Seconds, fractions allowed; 0 is "never" (-1). */
static int parse_timeout(const char *what, const char *s, long *ms)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !(v >= 0) || v > (double)LONG_MAX / 1000)
		return cli_usage_error("reserve: %s must be a number of seconds, not '%s'", what, s);
	*ms = v == 0 ? -1 : (long)(v * 1000 + 0.999);
	return 0;
}

/* Write `text` and a newline to `path` (through a temporary file and a
 * rename, so that whoever waits for it never reads half of it); 0 or the
 * exit status. */
static int write_file(const char *path, const char *text)
{
	size_t n = strlen(path) + 8;
	char *tmp = malloc(n);
	FILE *f;
	int failed;

	if (tmp == NULL) {
		cli_error("%s", muster_strerror(MUSTER_ENOMEM));
		return CLI_EXIT_SOFTWARE;
	}
	snprintf(tmp, n, "%s.tmp", path);
	f = fopen(tmp, "w");
	if (f == NULL) {
		free(tmp);
		cli_error("reserve: cannot write %s: %s", path, strerror(errno));
		return CLI_EXIT_SOFTWARE;
	}
	failed = fputs(text, f) == EOF || fputc('\n', f) == EOF;
	failed |= fclose(f) != 0;
	failed = failed || rename(tmp, path) != 0;
	if (failed) {
		cli_error("reserve: error writing %s: %s", path, strerror(errno));
		remove(tmp);
		free(tmp);
		return CLI_EXIT_SOFTWARE;
	}
	free(tmp);
	return 0;
}

/* After the run: the spec to stdout or FILE. */
static int emit_spec(muster_reserve *srv, const char *output)
{
	muster_error err = { 0, "" };
	char *spec = NULL;
	int rc = muster_reserve_cluster_spec(&spec, srv, &err);

	if (rc != 0)
		return cli_fail(rc, &err);
	if (output != NULL) {
		rc = write_file(output, spec);
		muster_free(spec);
		return rc;
	}
	out_line_free(spec);
	return 0;
}

/* Every executor holds a connection until it has the list, and a flood
 * should meet the caps before the descriptor limit: this process may have as
 * many descriptors as the hard limit allows (the library leaves the limit
 * to its host). */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_max == RLIM_INFINITY ||
	    rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	(void)setrlimit(RLIMIT_NOFILE, &rl);
}

static int serve(const struct cli_global *g, muster_reserve_options *o, const char *output,
                 const char *port_file)
{
	muster_error err = { 0, "" };
	muster_reserve *srv = NULL;
	struct sigaction sa, old_int, old_term;
	char buf[16];
	int rc;

	o->log = cli_log;
	o->log_level = g->verbosity < 0 ? MUSTER_LOG_ERR
	               : g->verbosity == 0 ? MUSTER_LOG_NOTICE
	               : g->verbosity == 1 ? MUSTER_LOG_INFO
	                                   : MUSTER_LOG_DEBUG;
	raise_fd_limit();
	rc = muster_reserve_open(&srv, o, &err);
	if (rc != 0)
		return cli_fail(rc, &err);
	if (port_file != NULL) {
		snprintf(buf, sizeof buf, "%d", muster_reserve_port(srv));
		if ((rc = write_file(port_file, buf)) != 0) {
			muster_reserve_free(srv);
			return rc;
		}
	}

	/* SIGINT/SIGTERM end the wait like a timeout, naming what is missing. */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	running = srv;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	/* A peer that closes early must not kill the server. */
	signal(SIGPIPE, SIG_IGN);

	rc = muster_reserve_run(srv, &err);

	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	running = NULL;
	if (rc != 0)
		rc = cli_fail(rc, &err);
	else
		rc = emit_spec(srv, output);
	muster_reserve_free(srv);
	return out_finish(rc);
}
int cmd_reserve(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, 'n' },
		{ "port", required_argument, NULL, 'p' },
		{ "port-range", required_argument, NULL, 'r' },
		{ "host", required_argument, NULL, 'H' },
		{ "timeout", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "port-file", required_argument, NULL, 'P' },
		{ "auth-key-file", required_argument, NULL, 'k' },
		{ "idle-timeout", required_argument, NULL, 'i' },
		{ "max-connections", required_argument, NULL, 'm' },
		{ "max-per-address", required_argument, NULL, 'a' },
		{ "metrics-port", required_argument, NULL, 'M' },
		{ "metrics-host", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	muster_reserve_options o = MUSTER_RESERVE_OPTIONS_INIT;
	const char *output = NULL, *port_file = NULL;
	int have_port = 0;
	long v;
	int c, rc;

	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if ((rc = parse_long("--size", optarg, 1, 1000000, &v)) != 0)
				return rc;
			o.cluster_size = v;
			break;
		case 'p':
			if (have_port++)
				return cli_usage_error("reserve: give one --port or --port-range");
			if ((rc = parse_long("--port", optarg, 0, 65535, &v)) != 0)
				return rc;
			o.port_min = o.port_max = (int)v;
			break;
		case 'r':
			if (have_port++)
				return cli_usage_error("reserve: give one --port or --port-range");
			if ((rc = parse_range(optarg, &o.port_min, &o.port_max)) != 0)
				return rc;
			break;
		case 'H':
			o.host = optarg;
			break;
		case 't':
			if ((rc = parse_timeout("--timeout", optarg, &o.timeout_ms)) != 0)
				return rc;
			break;
		case 'i':
			if ((rc = parse_timeout("--idle-timeout", optarg, &o.idle_timeout_ms)) != 0)
				return rc;
			break;
		case 'm':
			if ((rc = parse_long("--max-connections", optarg, 1, 100000000, &v)) != 0)
				return rc;
			o.max_connections = v;
			break;
		case 'a':
			if ((rc = parse_long("--max-per-address", optarg, 1, 100000000, &v)) != 0)
				return rc;
			o.max_per_address = v;
			break;
		case 'M':
			if ((rc = parse_long("--metrics-port", optarg, 0, 65535, &v)) != 0)
				return rc;
			o.metrics_port = (int)v;
			break;
		case 'A':
			o.metrics_host = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'P':
			port_file = optarg;
			break;
		case 'k':
			o.auth_key_file = optarg;
			break;
		default:
			return cli_getopt_default(c, argv, "reserve");
		}
	}
	if (optind < argc)
		return cli_usage_error("reserve: unexpected argument '%s'", argv[optind]);
	if (o.cluster_size <= 0)
		return cli_usage_error("reserve: --size N is required");
	if (o.metrics_host != NULL && o.metrics_port < 0)
		return cli_usage_error("reserve: --metrics-host goes with --metrics-port");
	/* Without the reservation server, opening it fails, saying so. */
	return serve(g, &o, output, port_file);
}
