/*
 * Fuzz target: Slurm's compact lists as a task's environment gives them,
 * SLURM_STEP_NODELIST and then (after FUZZ_SEP) SLURM_STEP_TASKS_PER_NODE,
 * then a SLURM_HOSTFILE's text.  Whatever the input, the expansion stays
 * within its limits, and a host file gives at most the hosts asked for,
 * each a non-empty name inside the text.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hostlist.h"

static char *string_of(const uint8_t *p, size_t len)
{
	char *s = malloc(len + 1);
	if (s) {
		memcpy(s, p, len);
		s[len] = '\0';
	}
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *part;
	size_t len;
	char why[256];

	if ((part = fuzz_part(&data, &size, &len)) != NULL) {
		char *list = string_of(part, len);
		struct hostlist h;
		if (list && hostlist_expand(list, &h, why, sizeof(why)) == 0) {
			if (h.n > SLURM_MAX_HOSTS)
				abort();
			for (size_t i = 0; i < h.n; i++)
				if (strlen(h.names[i]) > SLURM_MAX_NAME)
					abort();
			hostlist_free(&h);
		}
		free(list);
	}
	if ((part = fuzz_part(&data, &size, &len)) != NULL) {
		char *list = string_of(part, len);
		long *counts;
		size_t n;
		if (list && tasks_per_node_expand(list, SLURM_MAX_HOSTS, &counts, &n, why,
		                                  sizeof(why)) == 0) {
			if (n > SLURM_MAX_HOSTS)
				abort();
			free(counts);
		}
		free(list);
	}
	if ((part = fuzz_part(&data, &size, &len)) != NULL) {
		enum { MAX = 64 };
		char *text = string_of(part, len);
		const char *hosts[MAX];
		size_t n;
		if (text && slurm_hostfile_parse(text, len, MAX, hosts, &n, why, sizeof(why)) == 0) {
			if (n > MAX)
				abort();
			for (size_t i = 0; i < n; i++)
				if (hosts[i] < text || hosts[i] >= text + len || hosts[i][0] == '\0')
					abort();
		}
		free(text);
	}
	return 0;
}
