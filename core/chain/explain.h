/* The record of one resolve for `muster resolve --explain`: what each
 * entry answered, and the inputs its plugin noted (note_input), secrets
 * redacted.  Kept only when asked for: a plain resolve notes nothing. */
#ifndef MUSTER_EXPLAIN_H
#define MUSTER_EXPLAIN_H

#include <stddef.h>

#include <muster/muster.h>

/* Bounds on what one entry may note: a plugin looping on note_input()
 * grows nothing without limit (muster(3)). */
#define EXPLAIN_INPUTS_MAX 64
#define EXPLAIN_NAME_MAX 256
#define EXPLAIN_VALUE_MAX 1024

struct explain_input {
	char *name;
	char *value; /* NULL: unset or absent */
};

/* One entry's part, filled while it runs (inputs) and after (the rest). */
struct explain_notes {
	char *instance, *plugin;
	int code;     /* MUSTER_OK or the status's code */
	char *reason; /* NULL on success */
	long ms;
	int used;     /* its answer is in the result */
	int after;    /* asked after the chain ended, only to show whether it matched */
	struct explain_input *inputs;
	size_t ninputs;
	size_t dropped; /* inputs past EXPLAIN_INPUTS_MAX, or lost to a failed allocation */
	struct muster_result *partial; /* a tryagain's ready tasks and pending members; NULL: none */
};

struct muster_explain {
	struct explain_notes *entries;
	size_t count, cap;
};

/* A new entry's record, at the end; NULL when out of memory. */
struct explain_notes *explain_add(struct muster_explain *x, const char *instance,
                                  const char *plugin);
/* Records `name` = `value` (redacted when the name looks secret; a name
 * noted again keeps its place and takes the new value).  Best effort:
 * what cannot be kept is counted in `dropped`. */
void explain_note(struct explain_notes *n, const char *name, const char *value);
/* How the entry ended: `reason` NULL on success. */
void explain_answer(struct explain_notes *n, int code, const char *reason, long ms);

/* Keeps `partial` (owned from here on) as what the entry built before
 * answering tryagain. */
void explain_partial(struct explain_notes *n, struct muster_result *partial);


#endif
