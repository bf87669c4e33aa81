/*
 * hostfile: an example muster plugin, built outside muster's tree.
 *
 * It reads the cluster from a plain text file, one task per line:
 *
 *     # job    address             accelerators (optional)
 *     worker   w0.example:2222     GPU=8
 *     worker   w1.example:2222     GPU=8
 *     ps       [fd00::5]:2222
 *
 * Tasks of a job are numbered 0, 1, 2, ... in the order they appear.
 * `#` starts a comment; blank lines are ignored.
 *
 * Its chain entry in muster.conf:
 *
 *     plugin_path = "/usr/local/lib/muster/plugins";   // if not installed in the default dir
 *     chain = (
 *       { plugin = "hostfile";
 *         config = { file = "/etc/cluster.hosts";   // required
 *                    match_hostname = true;         // optional: find our own task
 *                    rpc_layer = "grpc"; };          // optional
 *       },
 *       { plugin = "static"; config = { ... }; }
 *     );
 *
 * Answers (see muster/plugin.h): success with the cluster; notfound when
 * the file does not exist or lists no task (this machine is not part of
 * such a cluster, so the chain moves on); unavail when it cannot be read or
 * a line is malformed, with `file:line` in the reason.
 *
 * Build:  cc $(pkg-config --cflags muster-plugin) -shared -fPIC -o hostfile.so hostfile.c
 *
 * The file name must be the plugin's name: muster loads plugin "hostfile"
 * from <dir>/hostfile.so and checks that the descriptor says "hostfile".
 */
#define _POSIX_C_SOURCE 200809L /* getline, strdup, strerror_r, gethostname */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The only header a plugin needs.  It declares no function to link against:
 * everything the plugin may call arrives in the muster_host table, and the
 * option reader is inline code over it. */
#include <muster/plugin.h>

/*
 * Everything open() learns from the config lives here; resolve() only
 * reads it.  No mutable globals: two chain entries may use this plugin with
 * different files, and the core may call resolve() from several threads at
 * once (we declare MUSTER_PLUGIN_THREADSAFE below).
 */
struct hostfile {
	char *file;
	char *rpc_layer;    /* NULL: leave the core's default */
	int match_hostname; /* set our own task from gethostname() */
};

static void hostfile_close(void *state)
{
	struct hostfile *hf = state;

	if (hf) {
		free(hf->file);
		free(hf->rpc_layer);
		free(hf);
	}
}

/*
 * The options, one row each: key, type, field and default.  One call in
 * open() reads them all, checking types with file:line in the messages;
 * keys not in the table are reported by the core as unknown options.
 */
static const muster_popt options[] = {
	MUSTER_POPT_REQUIRED_STRING("file", struct hostfile, file, 0, "the host file to read"),
	MUSTER_POPT_STRING("rpc_layer", struct hostfile, rpc_layer, MUSTER_POPT_EMPTY, NULL),
	MUSTER_POPT_BOOL("match_hostname", struct hostfile, match_hostname, 0),
};

/*
 * open(): read and check the config, keep what resolve() needs.  It must
 * not touch the backend itself (here: not open the file), because the core
 * opens every entry of the chain up front, also those never consulted.
 */
static int hostfile_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	/* The struct, zeroed and filled from the table; NULL after an error
	 * was reported, what was read freed by hostfile_close().  NULL: no
	 * rules between the options to check after them. */
	*state = muster_plugin_conf_read(host, pc, sizeof(struct hostfile), options,
	                                 MUSTER_POPT_COUNT(options), NULL, hostfile_close);
	return *state != NULL ? 0 : -1;
}

/* "host:port", "[v6]:port": the host part (brackets stripped) and its
 * length, or -1 when the address has no host or no valid port. */
static int split_address(const char *addr, const char **host, size_t *len)
{
	const char *colon = strrchr(addr, ':');
	const char *p;
	long port = 0;

	if (!colon || colon == addr || colon[1] == '\0')
		return -1;
	for (p = colon + 1; *p; p++) {
		if (*p < '0' || *p > '9' || (port = port * 10 + (*p - '0')) > 65535)
			return -1;
	}
	if (port == 0)
		return -1;
	*host = addr;
	*len = (size_t)(colon - addr);
	if (addr[0] == '[') {
		if (*len < 3 || colon[-1] != ']')
			return -1;
		*host = addr + 1;
		*len -= 2;
	}
	return 0;
}

/* Tasks seen so far per job, to know the index of each line's task. */
struct job_count {
	char *job;
	long n;
};

struct parse {
	const muster_host *host;
	muster_call *call;
	const struct hostfile *hf;
	struct job_count *jobs;
	size_t njobs;
	char hostname[256]; /* "" when not matching */
	long tasks;
};

/* The next index of `job`, counting this task; -1 when out of memory. */
static long next_index(struct parse *ps, const char *job)
{
	struct job_count *grown;
	size_t i;

	for (i = 0; i < ps->njobs; i++)
		if (strcmp(ps->jobs[i].job, job) == 0)
			return ps->jobs[i].n++;
	grown = realloc(ps->jobs, (ps->njobs + 1) * sizeof(*grown));
	if (!grown)
		return -1;
	ps->jobs = grown;
	if (!(grown[ps->njobs].job = strdup(job)))
		return -1;
	grown[ps->njobs++].n = 1;
	return 0;
}

/* One line of the file: UNAVAIL (with the reason recorded) or SUCCESS. */
static muster_status parse_line(struct parse *ps, char *line, long lineno)
{
	const muster_host *host = ps->host;
	const char *sep = " \t\r\n";
	char *save, *job, *addr, *acc, *hash, *end;
	const char *h;
	size_t hlen;
	long index, count;

	if ((hash = strchr(line, '#')))
		*hash = '\0';
	if (!(job = strtok_r(line, sep, &save)))
		return MUSTER_STATUS_SUCCESS; /* blank or comment */
	if (!(addr = strtok_r(NULL, sep, &save))) {
		host->fail(ps->call, "%s:%ld: job '%s' has no address", ps->hf->file, lineno, job);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (split_address(addr, &h, &hlen) != 0) {
		host->fail(ps->call, "%s:%ld: '%s' is not host:port", ps->hf->file, lineno, addr);
		return MUSTER_STATUS_UNAVAIL;
	}
	if ((index = next_index(ps, job)) < 0) {
		host->fail(ps->call, "out of memory");
		return MUSTER_STATUS_UNAVAIL;
	}
	/* The builder copies every string and validates names; on -1 the
	 * reason is already recorded, so just answer unavail. */
	if (host->add_task(ps->call, job, index, addr) != 0)
		return MUSTER_STATUS_UNAVAIL;
	ps->tasks++;

	while ((acc = strtok_r(NULL, sep, &save))) {
		char *eq = strchr(acc, '=');

		if (!eq || eq == acc || eq[1] == '\0') {
			host->fail(ps->call, "%s:%ld: '%s' is not KIND=COUNT", ps->hf->file, lineno,
			           acc);
			return MUSTER_STATUS_UNAVAIL;
		}
		*eq = '\0';
		errno = 0;
		count = strtol(eq + 1, &end, 10);
		if (errno || *end || count < 0) {
			host->fail(ps->call, "%s:%ld: bad count '%s' for %s", ps->hf->file, lineno,
			           eq + 1, acc);
			return MUSTER_STATUS_UNAVAIL;
		}
		if (host->add_accelerator(ps->call, job, index, acc, count) != 0)
			return MUSTER_STATUS_UNAVAIL;
	}

	/* Self identity: the first task on this machine is ours. */
	if (ps->hostname[0] && strlen(ps->hostname) == hlen &&
	    strncmp(ps->hostname, h, hlen) == 0) {
		if (host->set_task(ps->call, job, index) != 0)
			return MUSTER_STATUS_UNAVAIL;
		ps->hostname[0] = '\0';
	}
	return MUSTER_STATUS_SUCCESS;
}

/*
 * resolve(): answer once.  Reading a local file needs no timeout; a plugin
 * that talks to a network service must bound every wait by
 * host->remaining_ms(call).
 */
static muster_status hostfile_resolve(void *state, const muster_host *host, muster_call *call)
{
	const struct hostfile *hf = state;
	struct parse ps = { host, call, hf, NULL, 0, "", 0 };
	muster_status st = MUSTER_STATUS_SUCCESS;
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0;
	size_t i;
	FILE *f;

	f = fopen(hf->file, "r");
	if (!f) {
		int e = errno;
		char why[128];

		if (strerror_r(e, why, sizeof(why)) != 0)
			snprintf(why, sizeof(why), "error %d", e);
		host->fail(call, "cannot open %s: %s", hf->file, why);
		/* No file: not a hostfile cluster, let the chain go on.  Any other
		 * failure (permissions, I/O) is a broken backend. */
		return e == ENOENT ? MUSTER_STATUS_NOTFOUND : MUSTER_STATUS_UNAVAIL;
	}
	if (hf->match_hostname && gethostname(ps.hostname, sizeof(ps.hostname) - 1) != 0)
		ps.hostname[0] = '\0';

	while (st == MUSTER_STATUS_SUCCESS && getline(&line, &cap, f) != -1)
		st = parse_line(&ps, line, ++lineno);
	if (st == MUSTER_STATUS_SUCCESS && ferror(f)) {
		host->fail(call, "%s: read error", hf->file);
		st = MUSTER_STATUS_UNAVAIL;
	}
	if (st == MUSTER_STATUS_SUCCESS && ps.tasks == 0) {
		host->fail(call, "%s lists no task", hf->file);
		st = MUSTER_STATUS_NOTFOUND;
	}
	if (st == MUSTER_STATUS_SUCCESS && hf->rpc_layer &&
	    host->set_rpc_layer(call, hf->rpc_layer) != 0)
		st = MUSTER_STATUS_UNAVAIL;
	/* master(): the address of the asked-for task, by default our own. */
	if (st == MUSTER_STATUS_SUCCESS && host->set_master_rule(call, MUSTER_MASTER_TASK) != 0)
		st = MUSTER_STATUS_UNAVAIL;

	free(line);
	fclose(f);
	for (i = 0; i < ps.njobs; i++)
		free(ps.jobs[i].job);
	free(ps.jobs);
	return st;
}

/*
 * The descriptor: read-only, static, returned by the one exported symbol.
 * MUSTER_PLUGIN_HEADER fills in the ABI version and struct size this file
 * was compiled with; the core refuses a plugin built for another major.
 */
static const muster_plugin hostfile_plugin = {
	MUSTER_PLUGIN_HEADER,
	MUSTER_PLUGIN_THREADSAFE, /* resolve() only reads its state */
	"hostfile",               /* must match the file name: hostfile.so */
	"1.0",
	hostfile_open,
	hostfile_resolve,
	hostfile_close,
};

/* Defines muster_plugin_entry_v1, the plugin's only visible symbol (the
 * Cflags of muster-plugin.pc include -fvisibility=hidden). */
MUSTER_PLUGIN_DEFINE(hostfile_plugin)
