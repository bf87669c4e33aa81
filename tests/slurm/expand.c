/* expand LIST: our expansion of a Slurm host list, one name a line, as
 * `scontrol show hostnames` prints it; expand -t LIST: a tasks-per-node
 * list's counts.  Exit 2 with the reason on a malformed list. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"

int main(int argc, char **argv)
{
	char why[256];
	if (argc == 3 && strcmp(argv[1], "-t") == 0) {
		long *counts;
		size_t n;
		if (tasks_per_node_expand(argv[2], SLURM_MAX_HOSTS, &counts, &n, why, sizeof(why)) < 0) {
			fprintf(stderr, "expand: %s\n", why);
			return 2;
		}
		for (size_t i = 0; i < n; i++)
			printf("%ld\n", counts[i]);
		free(counts);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: expand [-t] LIST\n");
		return 64;
	}
	struct hostlist h;
	if (hostlist_expand(argv[1], &h, why, sizeof(why)) < 0) {
		fprintf(stderr, "expand: %s\n", why);
		return 2;
	}
	for (size_t i = 0; i < h.n; i++)
		puts(h.names[i]);
	hostlist_free(&h);
	return 0;
}
