/* Hostfiles for MPI-style launchers: muster_launch_hostfile(). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "jsonw.h"
#include "launch.h"

struct slot {
	char host[256];
	long slots;
};

/* Hosts in node order, each once, with the sum of its tasks' slots. */
static size_t collect(struct slot *s, const struct launch_nodes *nodes, long per_node)
{
	size_t n = 0;
	for (size_t i = 0; i < nodes->count; i++) {
		char host[256], port[6];
		size_t j;
		if (launch_split_address(nodes->node[i].task->address, host, sizeof(host), port) != 0)
			continue;
		for (j = 0; j < n && strcmp(s[j].host, host) != 0; j++)
			;
		if (j == n) {
			strcpy(s[n].host, host);
			s[n++].slots = 0;
		}
		s[j].slots += per_node;
	}
	return n;
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
	if (l->size < sizeof(muster_launch) || l->nproc_per_node < 1)
		return error_set(err, MUSTER_EINVAL, "processes per node: %ld is not at least 1",
		                 l->nproc_per_node);
	if (strcmp(l->framework, "openmpi") == 0 || strcmp(l->framework, "deepspeed") == 0)
		sep = " slots=";
	else if (strcmp(l->framework, "mpich") == 0 || strcmp(l->framework, "horovod") == 0)
		sep = ":";
	else
		return error_set(err, MUSTER_EINVAL, "unknown hostfile form '%s' (openmpi, mpich, "
		                 "horovod or deepspeed)", l->framework);
	if ((rc = launch_nodes_build(&nodes, r, l, 0, err)) != 0)
		return rc;
	struct slot *s = malloc(nodes.count * sizeof(*s));
	if (!s) {
		launch_nodes_free(&nodes);
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	}
	size_t n = collect(s, &nodes, l->nproc_per_node);
	struct jsonw w;
	jsonw_init(&w);
	for (size_t i = 0; i < n; i++) {
		jsonw_raw(&w, s[i].host);
		jsonw_raw(&w, sep);
		jsonw_long(&w, s[i].slots);
		jsonw_char(&w, '\n');
	}
	free(s);
	launch_nodes_free(&nodes);
	*out = jsonw_finish(&w);
	return *out ? 0 : error_set(err, MUSTER_ENOMEM, "out of memory");
}
