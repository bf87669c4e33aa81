/* Hostfiles for MPI-style launchers: muster_launch_hostfile(). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "emit/jsonw.h"
#include "launch.h"
#include "model/nameindex.h"

struct slot {
	const char *host; /* in `text` */
	long slots;
};

/* Hosts in node order, each once (a hashed index: a cluster may have
 * hundreds of thousands of tasks), with the sum of its tasks' slots; the
 * host strings go to `text`, which has room for every address.
 * (size_t)-1 when out of memory. */
static size_t collect(struct slot *s, char *text, const struct launch_nodes *nodes,
                      long per_node)
{
	struct name_index ix = { NULL, 0, 0 };
	size_t n = 0;
	for (size_t i = 0; i < nodes->count; i++) {
		const char *address = nodes->node[i].address;
		char port[6];
		uint32_t j;
		if (launch_split_address(address, text, strlen(address) + 1, port) != 0)
			continue;
		if (!name_index_get(&ix, text, &j)) {
			if (name_index_put(&ix, text, (uint32_t)n) < 0) {
				n = (size_t)-1;
				break;
			}
			j = (uint32_t)n;
			s[n].host = text;
			s[n++].slots = 0;
			text += strlen(text) + 1;
		}
		s[j].slots += per_node;
	}
	name_index_release(&ix);
	return n;
}

/* The first host of `s` that the form cannot hold, or NULL.  MPICH's
 * Hydra cuts a hostfile line at its first ':' (strtok(":"), host then
 * process count) and horovodrun's -H host:slots splits at every ':'
 * (exactly two fields); neither takes brackets.  An IPv6 address, the
 * only host with a ':', has no spelling either reads. */
static const char *unwritable_host(const struct slot *s, size_t n, const char *sep)
{
	if (strcmp(sep, ":") != 0)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strchr(s[i].host, ':') != NULL)
			return s[i].host;
	return NULL;
}

MUSTER_API int muster_launch_hostfile(char **out, const muster_result *r,
                                      const muster_launch *l, muster_error *err)
{
	struct launch_nodes nodes;
	const char *sep;
	int rc;

	if (!out || !r || !l || !l->framework)
		return error_set(err, MUSTER_EINVAL, "muster_launch_hostfile: NULL argument");
	*out = NULL;
	if ((rc = launch_check(l, err)) != 0 ||
	    (rc = model_refuse_placeholders(r, "a hostfile", err)) != 0)
		return rc;
	if (strcmp(l->framework, "openmpi") == 0 || strcmp(l->framework, "deepspeed") == 0)
		sep = " slots=";
	else if (strcmp(l->framework, "mpich") == 0 || strcmp(l->framework, "horovod") == 0)
		sep = ":";
	else
		return error_set(err, MUSTER_EINVAL, "unknown hostfile form '%s' (openmpi, mpich, "
		                 "horovod or deepspeed)", l->framework);
	if ((rc = launch_nodes_build(&nodes, r, l, 0, err)) != 0)
		return rc;
	size_t bytes = 0;
	for (size_t i = 0; i < nodes.count; i++)
		bytes += strlen(nodes.node[i].address) + 1;
	struct slot *s = malloc(nodes.count * sizeof(*s));
	char *text = malloc(bytes);
	if (!s || !text) {
		free(s);
		free(text);
		launch_nodes_free(&nodes);
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	}
	size_t n = collect(s, text, &nodes, l->nproc_per_node);
	const char *ipv6 = n == (size_t)-1 ? NULL : unwritable_host(s, n, sep);
	if (ipv6) {
		rc = error_set(err, MUSTER_ENOENT, "hostfile for %s: host %s is an IPv6 address, which "
		               "%s cannot read (it splits HOST:N at every ':' and takes no brackets); "
		               "give the task a host name", l->framework, ipv6,
		               strcmp(l->framework, "mpich") == 0 ? "MPICH's Hydra" : "horovodrun");
		free(s);
		free(text);
		launch_nodes_free(&nodes);
		return rc;
	}
	struct jsonw w;
	jsonw_init(&w);
	if (n == (size_t)-1)
		w.failed = 1;
	for (size_t i = 0; n != (size_t)-1 && i < n; i++) {
		jsonw_raw(&w, s[i].host);
		jsonw_raw(&w, sep);
		jsonw_long(&w, s[i].slots);
		jsonw_char(&w, '\n');
	}
	free(s);
	free(text);
	launch_nodes_free(&nodes);
	*out = jsonw_finish(&w);
	return *out ? 0 : error_set(err, MUSTER_ENOMEM, "out of memory");
}
