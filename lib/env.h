/*
 * The environment, read one way by every part of muster.
 *
 * env_get() is getenv() that a setuid or setgid program does not trust
 * (secure_getenv): the caller's environment must not choose a privileged
 * program's configuration, plugins or cluster.
 *
 * A backend reads its launcher's variables through a reader, which checks
 * each value and words the error a user sees, naming the variable, its
 * value (quoted, escaped, cut when long) and what was expected:
 *
 *     RANK must be an integer from 0 to 65535, not "x1"
 *     RANK must be an index below 4 (WORLD_SIZE), not "7"
 *     TPU_WORKER_HOSTNAMES="a,,b": item 2 is empty
 *     VC_WORKER_HOSTS item 2 must be a host name or IP address, not "b c": ' ' cannot be in a host name
 *
 * and which tells an optional recorder each variable it looked up, with its
 * value (NULL: unset), so that `muster resolve --explain` can list what
 * decided.  In a backend's resolve():
 *
 *     static const char *const marks[] = { "RANK", "WORLD_SIZE", NULL };
 *     struct env_reader env = ENV_READER_INIT;  // or { .record = fn, .record_data = p }
 *     struct env_list hosts;
 *     long size, rank;
 *
 *     if (env_any(&env, marks) < 0)
 *             return notfound(call, "neither RANK nor WORLD_SIZE is set");
 *     if (env_int(&env, "WORLD_SIZE", 1, MAX_TASKS, &size) <= 0 ||
 *         env_index(&env, "RANK", size, "WORLD_SIZE", &rank) <= 0 ||
 *         env_hosts(&env, "TPU_WORKER_HOSTNAMES", ",", (size_t)size, &hosts) <= 0) {
 *             host->fail(call, "%s", env.why);  // unset too: "RANK is not set"
 *             return MUSTER_STATUS_UNAVAIL;
 *     }
 *     ...
 *     env_list_free(&hosts);
 *
 * Every read returns 1 when the variable is set and valid, 0 when it is
 * unset (env.why then says so, for a variable the caller needs), -1 when it
 * is set but bad (env.why says why).  Set means present, even empty: an
 * empty number is a bad number, an empty list a bad list.
 */
#ifndef MUSTER_LIB_ENV_H
#define MUSTER_LIB_ENV_H

#include <stddef.h>

/* getenv(), but NULL in a setuid or setgid program. */
const char *env_get(const char *name);

struct env_reader {
	/* Called for each variable looked up, value NULL when unset; NULL:
	 * nothing is recorded. */
	void (*record)(void *data, const char *name, const char *value);
	void *record_data;
	char why[320]; /* the last read's reason when it returned 0 or -1 */
};
#define ENV_READER_INIT { NULL, NULL, "" }

/* The value as it is, recorded; NULL when unset. */
const char *env_str(struct env_reader *r, const char *name);

/* Detection: the position in `names` (NULL-terminated) of the first one
 * that is set, or -1 when none is ("neither A nor B is set", "none of A,
 * B and C is set"). */
int env_any(struct env_reader *r, const char *const *names);

/* A decimal integer from lo to hi (0 <= lo <= hi): digits only, blanks
 * around them allowed. */
int env_int(struct env_reader *r, const char *name, long lo, long hi, long *out);
/* env_int() of the first of `names` that is set (launchers that name one
 * thing differently: OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK), *which
 * naming it. */
int env_int_first(struct env_reader *r, const char *const *names, long lo, long hi, long *out,
                  const char **which);

/* env_int()'s reading of a string that is no variable (an item of a
 * list): 0 with *out, or -1. */
int env_parse_int(const char *s, long lo, long hi, long *out);

/* An integer from 0 to count - 1, such as a rank below the world size;
 * `count_from` (NULL: none) names where the count came from. */
int env_index(struct env_reader *r, const char *name, long count, const char *count_from,
              long *out);

/* A list of 1 to `max` items, separated by any byte of `seps` (",", "\n",
 * ", \n"), each item trimmed of blanks (space, tab, CR, LF).  An empty
 * item is an error ("a,,b"), but blanks around the whole value are
 * ignored (a final newline) and a run of blank separators is one ("a  b",
 * "a,\nb"). */
struct env_list {
	char **items;
	size_t n;
	char *text; /* the copy the items point into */
};
int env_list(struct env_reader *r, const char *name, const char *seps, size_t max,
             struct env_list *out);
/* Safe on a list that a read left empty. */
void env_list_free(struct env_list *l);

/* A host (address.h's address_check_host: a DNS name, IPv4, or IPv6), and
 * a list of them. */
int env_host(struct env_reader *r, const char *name, const char **out);
int env_hosts(struct env_reader *r, const char *name, const char *seps, size_t max,
              struct env_list *out);

/* env_hosts() of text that is no variable (a file's lines), `name`
 * naming it in the reasons; 1, or -1 (empty text is an empty list). */
int env_hosts_text(struct env_reader *r, const char *name, const char *text, const char *seps,
                   size_t max, struct env_list *out);

/* "HOST:PORT" (address.h's address_check). */
int env_address(struct env_reader *r, const char *name, const char **out);

#endif
