/* What the plugin SDK's option tables (muster_popt_read) leave to each
 * plugin, shared: keys that one mode of a plugin does not take, groups
 * whose members the user names (jobs, accelerator kinds). */
#ifndef MUSTER_PLUGIN_COMMON_POPTS_H
#define MUSTER_PLUGIN_COMMON_POPTS_H

#include <muster/plugin.h>

/* A failed option as one expression: open_error() at `at` (NULL: the
 * entry), then -1, what a reader returns:
 *
 *     return popt_fail(o, node, "%s must be a list", key);
 */
#define popt_fail(o, at, ...) ((o)->host->open_error((o)->pc, (at), __VA_ARGS__), -1)

/* The first of `keys` (NULL-terminated) that o->group sets: open_error()
 * at it, "KEY does not apply to WHY", and -1; 0 when none is set. */
int popt_refuse(const muster_popts *o, const char *const *keys, const char *why);

/* A group whose members the user names, `jobs = { worker = [...]; ps =
 * "..."; };`: what a member is and how one is read. */
struct popt_members {
	const char *shape; /* one member, for what is not a group: "job = [\"glob\", ...]" */
	const char *noun;  /* "job": "jobs must name at least one job" */
	size_t min, max;   /* how many members (max 0: no bound) */
	size_t size;       /* an entry's, whose first field (char *) gets the member's name */
	/* One member's value into its entry, "KEY.NAME" naming it in errors:
	 * 0, or -1 after open_error(). */
	int (*read)(const muster_popts *o, const muster_cfg *el, const char *what, void *entry);
};

/* The members of the group at `node`, in order, into a fresh array of
 * zeroed entries (`array` is the address of the caller's pointer to its
 * entry type), *count those set: 0, or -1 after open_error().  The caller
 * frees what the array holds also on failure. */
int popt_members(const muster_popts *o, const muster_cfg *node, const struct popt_members *m,
                 void *array, size_t *count);

/* Frees the n strings of `v` and `v`. */
void popt_strings_free(char **v, size_t n);

#endif
