/* The launch's master port, the one number every process of a launch must
 * agree on without talking: MUSTER_MASTER_PORT, else the config's
 * master_port, else derived from the launcher's job id, else the master
 * task's own port (TensorFlow-style clusters give each task its port). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/error.h"
#include "config/settings.h"
#include "launch.h"

/* Outside Linux's default ephemeral range (32768..60999), where the
 * kernel picks the ports of outgoing connections: 1024..32767 then
 * 61000..65535. */
#define LOW_FIRST 1024
#define LOW_COUNT (32768 - 1024)
#define HIGH_FIRST 61000
#define HIGH_COUNT (65536 - 61000)

/*
 * FNV-1a (64 bits) of the id, reduced onto the 36,280 ports.  A pure
 * function of the id, so every process of a job computes the same port
 * without talking.  Two different ids get the same port with probability
 * 1/36,280 (about 0.003 %), as a uniform hash does; k jobs sharing a host
 * have some pair colliding with probability about k(k-1)/72,560 (0.12 %
 * for 10 jobs).  The modulo bias of a 64-bit hash onto 36,280 values is
 * below 2^-48.
 */
int launch_derived_port(const char *job_id)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (const unsigned char *p = (const unsigned char *)job_id; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ULL;
	}
	uint64_t i = h % (LOW_COUNT + HIGH_COUNT);
	return i < LOW_COUNT ? LOW_FIRST + (int)i : HIGH_FIRST + (int)(i - LOW_COUNT);
}

/* A port written in decimal, 1..65535; 0 when `s` is not one. */
static int parse_port(const char *s)
{
	char *end;
	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	long v = strtol(s, &end, 10);
	return errno || *end || v < 1 || v > 65535 ? 0 : (int)v;
}

int plan_master_port(const muster_result *r, const char *task_port, int *port, muster_error *err)
{
	const char *env = settings_getenv("MUSTER_MASTER_PORT");
	if (env && *env) {
		if (!(*port = parse_port(env)))
			return error_set(err, MUSTER_EINVAL,
			                 "MUSTER_MASTER_PORT: '%.64s' is not a port from 1 to 65535", env);
		return 0;
	}
	if (r->master_port > 0)
		*port = (int)r->master_port;
	else if (r->job_id)
		*port = launch_derived_port(r->job_id);
	else if (!(*port = parse_port(task_port)))
		return error_set(err, MUSTER_ENOENT, "the master task's port '%s' is not a port",
		                 task_port);
	return 0;
}
