/* Hostfiles for MPI-style launchers: muster_launch_hostfile(). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "emit/jsonw.h"
#include "launch.h"
#include "model/nameindex.h"

struct slot {
	const char *host; /* in the plan's text */
	long slots;
};

/* The plan's nodes by host, in node order, each host once with the sum of
 * its nodes' processes: under nodes placement two tasks at one address are
 * two nodes but one hostfile line.  A hashed index, as a cluster may have
 * hundreds of thousands of tasks.  (size_t)-1 when out of memory. */
static size_t collect(struct slot *s, const struct muster_plan *p)
{
	const struct plan_node *node =
		p->placement == MUSTER_PLACEMENT_PROCESSES ? p->node : plan_lazy_nodes(p);
	struct name_index ix = { NULL, 0, 0 };
	size_t n = 0;
	if (!node)
		return (size_t)-1;
	for (size_t i = 0; i < p->nnodes; i++) {
		uint32_t j;
		if (!name_index_get(&ix, node[i].host, &j)) {
			if (name_index_put(&ix, node[i].host, (uint32_t)n) < 0) {
				n = (size_t)-1;
				break;
			}
			j = (uint32_t)n;
			s[n].host = node[i].host;
			s[n++].slots = 0;
		}
		s[j].slots += node[i].nproc;
	}
	name_index_release(&ix);
	return n;
}

/* The first host of `s` that the launcher cannot take, or NULL.  MPICH's
 * Hydra cuts a hostfile line at its first ':' (strtok(":"), host then
 * process count); horovodrun turns each `HOST slots=N` line of its
 * --hostfile into `HOST:N` and splits that at every ':' (exactly two
 * fields).  Neither takes brackets, so an IPv6 address, the only host
 * with a ':', has no spelling either reads. */
static const char *unwritable_host(const struct slot *s, size_t n, const char *flavor)
{
	if (strcmp(flavor, "mpich") != 0 && strcmp(flavor, "horovod") != 0)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strchr(s[i].host, ':') != NULL)
			return s[i].host;
	return NULL;
}

/* A host as the hostfile writes it: an IPv6 address without brackets. */
static void put_host(struct jsonw *w, const char *host)
{
	size_t len = strlen(host);
	if (len < 2 || host[0] != '[' || host[len - 1] != ']') {
		jsonw_raw(w, host);
		return;
	}
	for (size_t i = 1; i + 1 < len; i++)
		jsonw_char(w, host[i]);
}

MUSTER_API int muster_plan_hostfile(char **out, const muster_plan *p, const char *flavor,
                                    muster_error *err)
{
	const char *sep;
	int rc;

	if (!out || !p)
		return error_set(err, MUSTER_EINVAL, "muster_plan_hostfile: NULL argument");
	*out = NULL;
	if ((rc = model_refuse_placeholders(p->r, "a hostfile", err)) != 0)
		return rc;
	if (!flavor)
		flavor = p->framework ? p->framework : "";
	/* horovodrun --hostfile reads `HOST slots=N` only (its -H takes
	 * HOST:N, comma-separated, on the command line). */
	if (strcmp(flavor, "openmpi") == 0 || strcmp(flavor, "deepspeed") == 0 ||
	    strcmp(flavor, "horovod") == 0)
		sep = " slots=";
	else if (strcmp(flavor, "mpich") == 0)
		sep = ":";
	else
		return error_set(err, MUSTER_EINVAL, "unknown hostfile form '%s' (openmpi, mpich, "
		                 "horovod or deepspeed)", flavor);
	if (p->tensorflow)
		return error_set(err, MUSTER_EINVAL, "muster_plan_hostfile: a tensorflow plan has "
		                 "no nodes");
	struct slot *s = malloc((p->nnodes ? p->nnodes : 1) * sizeof(*s));
	if (!s)
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	size_t n = collect(s, p);
	const char *ipv6 = n == (size_t)-1 ? NULL : unwritable_host(s, n, flavor);
	if (ipv6) {
		int len = (int)strlen(ipv6) - 2; /* written in brackets */
		rc = error_set(err, MUSTER_ENOENT, "hostfile for %s: host %.*s is an IPv6 address, which "
		               "%s cannot read (it splits HOST:N at every ':' and takes no brackets); "
		               "give the task a host name", flavor, len, ipv6 + 1,
		               strcmp(flavor, "mpich") == 0 ? "MPICH's Hydra" : "horovodrun");
		free(s);
		return rc;
	}
	struct jsonw w;
	jsonw_init(&w);
	if (n == (size_t)-1)
		w.failed = 1;
	for (size_t i = 0; n != (size_t)-1 && i < n; i++) {
		put_host(&w, s[i].host);
		jsonw_raw(&w, sep);
		jsonw_long(&w, s[i].slots);
		jsonw_char(&w, '\n');
	}
	free(s);
	*out = jsonw_finish(&w);
	return *out ? 0 : error_set(err, MUSTER_ENOMEM, "out of memory");
}

MUSTER_API int muster_launch_hostfile(char **out, const muster_result *r,
                                      const muster_launch *l, muster_error *err)
{
	muster_plan *p = NULL;
	int rc;

	if (!out || !r || !l || !l->framework)
		return error_set(err, MUSTER_EINVAL, "muster_launch_hostfile: NULL argument");
	*out = NULL;
	if (strcmp(l->framework, "openmpi") != 0 && strcmp(l->framework, "deepspeed") != 0 &&
	    strcmp(l->framework, "mpich") != 0 && strcmp(l->framework, "horovod") != 0)
		return error_set(err, MUSTER_EINVAL, "unknown hostfile form '%s' (openmpi, mpich, "
		                 "horovod or deepspeed)", l->framework);
	if ((rc = muster_launch_plan(&p, r, l, err)) == 0)
		rc = muster_plan_hostfile(out, p, NULL, err);
	muster_plan_free(p);
	return rc;
}
