/* Slurm's compact lists, expanded without Slurm: host lists
 * ("n[001-004,7],gpu[1-2]x[3-4]") exactly as Slurm 22.05's
 * `scontrol show hostnames` expands them, and tasks-per-node lists
 * ("2(x3),1").  Pure functions over strings, so the plugin, the fuzz target
 * and the benchmark share them. */
#ifndef MUSTER_SLURM_HOSTLIST_H
#define MUSTER_SLURM_HOSTLIST_H

#include <stddef.h>

/* Slurm's own cap on one bracket range, and ours on a whole list: it
 * bounds memory at SLURM_MAX_HOSTS names of at most SLURM_MAX_NAME bytes. */
#define SLURM_MAX_HOSTS 65536
#define SLURM_MAX_NAME 255

struct hostlist {
	char **names; /* n names, in Slurm's order, duplicates kept */
	size_t n;
	char *text;   /* the names' bytes, NUL-separated */
};

/* 0, or -1 with the reason in `why` (the list itself is not repeated). */
int hostlist_expand(const char *list, struct hostlist *out, char *why, size_t whylen);
void hostlist_free(struct hostlist *h);

/* "N" or "N(xK)" items, comma-separated, into *n counts (at most `max`);
 * 0, or -1 with the reason. */
int tasks_per_node_expand(const char *list, size_t max, long **counts, size_t *n, char *why,
                          size_t whylen);

#endif
