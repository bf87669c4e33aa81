/* Results whose backend knows a member's place but not its address (the
 * placeholder hosts of lib/address.h): what needs every address says
 * which are missing, rather than print a name that never resolves. */
#include <config.h>

#include <stdio.h>

#include "lib/address.h"
#include "lib/error.h"
#include "model.h"

/* The members named in a refusal; the rest are counted. */
#define NAMED 3

int model_refuse_placeholders(const muster_result *r, const char *what, muster_error *err)
{
	char names[256];
	size_t unknown = 0, total = 0, used = 0;

	names[0] = '\0';
	for (size_t j = 0; j < r->njobs; j++) {
		const struct job *job = &r->jobs[j];
		total += job->ntasks;
		for (size_t i = 0; i < job->ntasks; i++) {
			if (!address_is_placeholder(job->address[i]))
				continue;
			if (unknown++ < NAMED && used < sizeof(names))
				used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s:%ld",
				                         used ? ", " : "", job->name,
				                         model_task_index(job, i));
		}
	}
	if (unknown == 0)
		return 0;
	return error_set(err, MUSTER_EUNAVAIL,
	                 "%s needs every task's address, but %s does not know %zu of the %zu (%s%s): "
	                 "its platform publishes only the master's; muster env and muster run "
	                 "need no more than that", what, r->source ? r->source : "the backend",
	                 unknown, total, names, unknown > NAMED ? ", ..." : "");
}
