/* Slurm's compact lists, expanded without Slurm: host lists
 * ("n[001-004,7],gpu[1-2]x[3-4]") exactly as Slurm 22.05's
 * `scontrol show hostnames` expands them, tasks-per-node lists
 * ("2(x3),1"), and host files (SLURM_HOSTFILE).  Pure functions over
 * strings, so the plugin, the fuzz target and the benchmark share them. */
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

/* A Slurm host file's text (`len` bytes, NUL-terminated, cut in place):
 * up to `max` hosts into `hosts` (room for `max`, pointing into `data`),
 * one a task, *n of them.  0, or -1 with the line and reason in `why`. */
int slurm_hostfile_parse(char *data, size_t len, size_t max, const char **hosts, size_t *n,
                         char *why, size_t whylen);

#endif
