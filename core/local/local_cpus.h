/* Sets of CPUs, read from and written as the kernel's lists ("0-3,8"). */
#ifndef MUSTER_CORE_LOCAL_CPUS_H
#define MUSTER_CORE_LOCAL_CPUS_H

#include <limits.h>
#include <stddef.h>

/* CPU numbers from 0 to CPUS_MAX - 1; the kernel's NR_CPUS is at most
 * 8192.  A list that names a larger one is refused as malformed. */
#define CPUS_MAX 16384
#define CPUS_WORD_BITS (sizeof(unsigned long) * CHAR_BIT)

struct cpus {
	unsigned long w[CPUS_MAX / CPUS_WORD_BITS];
};

/* Parses a list (blanks and a newline around it allowed; "" is the empty
 * set): 0, or -1 when it is malformed or names a CPU past CPUS_MAX. */
int cpus_parse(struct cpus *s, const char *text);
/* A list file under root (e.g. a node's cpulist): 0, or -1 when it cannot
 * be read or is malformed. */
int cpus_read(struct cpus *s, const char *root, const char *path);
/* The list, malloc()ed ("" for the empty set); NULL when out of memory. */
char *cpus_format(const struct cpus *s);

int cpus_has(const struct cpus *s, long cpu);
void cpus_add(struct cpus *s, long cpu);
void cpus_and(struct cpus *s, const struct cpus *other);
void cpus_or(struct cpus *s, const struct cpus *other);
/* The lowest CPU at or after `from`; -1 when none. */
long cpus_next(const struct cpus *s, long from);
long cpus_count(const struct cpus *s);

#endif
