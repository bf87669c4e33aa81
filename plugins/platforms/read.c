/*
 * Reading a platform's environment: one reader (lib/env.h) per resolve,
 * which words every error with the variable's name and value and notes
 * every variable it looks at for muster resolve --explain.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platforms.h"
#include "plugins/common/buf.h"

static void note(void *data, const char *name, const char *value)
{
	struct pf_run *run = data;

	muster_plugin_note_input(run->host, run->call, name, value);
}

void pf_run_init(struct pf_run *run, const muster_host *host, muster_call *call,
                 const struct pf_conf *conf)
{
	memset(run, 0, sizeof(*run));
	run->host = host;
	run->call = call;
	run->conf = conf;
	run->env.record = note;
	run->env.record_data = run;
}

muster_status pf_env_failed(struct pf_run *run)
{
	return pf_unavail(run, "%s", run->env.why);
}

unsigned pf_which(struct pf_run *run, const char *const *names, const char **missing)
{
	unsigned set = 0;

	*missing = NULL;
	for (unsigned i = 0; names[i] != NULL && i < 32; i++) {
		if (env_str(&run->env, names[i]) != NULL)
			set |= 1u << i;
		else if (*missing == NULL)
			*missing = names[i];
	}
	return set;
}

muster_status pf_half(struct pf_run *run, const char *platform, const char *const *names,
                      const char *missing)
{
	const char *present = NULL;

	for (size_t i = 0; names[i] != NULL && present == NULL; i++)
		if (env_get(names[i]) != NULL)
			present = names[i];
	return pf_unavail(run, "%s is not set, but %s is: %s sets them together", missing,
	                  present != NULL ? present : "another of its variables", platform);
}

int pf_hostname(struct pf_run *run, char *buf, size_t size)
{
	if (gethostname(buf, size) != 0) {
		run->host->fail(run->call, "gethostname failed: %s", strerror(errno));
		return -1;
	}
	buf[size - 1] = '\0';
	muster_plugin_note_input(run->host, run->call, "gethostname()", buf);
	return 0;
}

int pf_read_file(struct pf_run *run, const char *path, const char *from, char **data,
                 size_t *len)
{
	char why[256];

	if (plugin_read_file(path, PF_MAX_FILE, data, len) == 0) {
		muster_plugin_note_input(run->host, run->call, path, *data);
		return 1;
	}
	muster_plugin_note_input(run->host, run->call, path, NULL);
	if (errno == ENOENT)
		return 0;
	run->host->fail(run->call, "cannot read %s%s%s%s: %s", path, from ? " (" : "",
	                from ? from : "", from ? ")" : "",
	                plugin_read_error(path, errno, PF_MAX_FILE, why, sizeof(why)));
	return -1;
}
