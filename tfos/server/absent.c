/*
 * <muster/reserve.h> in a libmuster built without the reservation server
 * (configure found no libcrypto headers, so neither the spark backend nor
 * `muster reserve` is built).  The calls exist whatever configure found, so
 * that a program built against one libmuster runs against another: opening
 * a server fails, saying why, and the rest have no server to act on.
 */
#include <config.h>

#include <stddef.h>

#include <muster/reserve.h>

#include "lib/error.h"

int muster_reserve_open(muster_reserve **out, const muster_reserve_options *o, muster_error *err)
{
	(void)o;
	if (out != NULL)
		*out = NULL;
	return error_set(err, MUSTER_EUNAVAIL,
	                 "reserve: this libmuster was built without the reservation server "
	                 "(configure found no libcrypto; install libssl-dev and rebuild)");
}

int muster_reserve_port(const muster_reserve *s)
{
	(void)s;
	return -1;
}

int muster_reserve_run(muster_reserve *s, muster_error *err)
{
	(void)s;
	return error_set(err, MUSTER_EINVAL, "reserve: no server");
}

void muster_reserve_stop(muster_reserve *s)
{
	(void)s;
}

long muster_reserve_registered(const muster_reserve *s)
{
	(void)s;
	return 0;
}

int muster_reserve_cluster_spec(char **out, const muster_reserve *s, muster_error *err)
{
	(void)s;
	if (out != NULL)
		*out = NULL;
	return error_set(err, MUSTER_EINVAL, "reserve: no server");
}

size_t muster_reserve_missing_count(const muster_reserve *s, int which)
{
	(void)s;
	(void)which;
	return 0;
}

long muster_reserve_missing_at(const muster_reserve *s, int which, size_t i)
{
	(void)s;
	(void)which;
	(void)i;
	return -1;
}

int muster_reserve_metrics_port(const muster_reserve *s)
{
	(void)s;
	return -1;
}

void muster_reserve_free(muster_reserve *s)
{
	(void)s;
}
