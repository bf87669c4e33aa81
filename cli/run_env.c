/* Each worker's environment: the caller's, less what the launch replaces,
 * plus the launch's variables and its GPU slice. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

extern char **environ;

#define MAX_EXTRA 32

struct extra {
	char *var[MAX_EXTRA]; /* "NAME=value", malloc()ed */
	size_t n;
	const char *drop[4];  /* names removed without a replacement */
	size_t ndrop;
};

static int add(struct extra *x, const char *name, const char *value)
{
	size_t len = strlen(name) + strlen(value) + 2;
	if (x->n == MAX_EXTRA || (x->var[x->n] = malloc(len)) == NULL)
		return -1;
	snprintf(x->var[x->n++], len, "%s=%s", name, value);
	return 0;
}

static int same_name(const char *a, const char *b)
{
	size_t n = strcspn(a, "=");
	return strncmp(a, b, n) == 0 && (b[n] == '=' || b[n] == '\0');
}

/* "NAME=value": replaces the variable of that name, or is added. */
static int set_var(struct extra *x, const char *var)
{
	for (size_t i = 0; i < x->n; i++) {
		if (same_name(var, x->var[i])) {
			char *copy = strdup(var);
			if (!copy)
				return -1;
			free(x->var[i]);
			x->var[i] = copy;
			return 0;
		}
	}
	if (x->n == MAX_EXTRA || (x->var[x->n] = strdup(var)) == NULL)
		return -1;
	x->n++;
	return 0;
}

/* The caller's variables that the launch leaves alone, then the launch's;
 * the launch's strings pass to the envp (from *kept on). */
static char **merge(struct extra *x, size_t *kept)
{
	size_t n = 0, o = 0;
	while (environ[n] != NULL)
		n++;
	char **envp = malloc((n + x->n + 1) * sizeof(*envp));
	if (!envp)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int replaced = 0;
		for (size_t j = 0; j < x->n && !replaced; j++)
			replaced = same_name(x->var[j], environ[i]);
		for (size_t j = 0; j < x->ndrop && !replaced; j++)
			replaced = same_name(x->drop[j], environ[i]);
		if (!replaced)
			envp[o++] = environ[i];
	}
	*kept = o;
	for (size_t j = 0; j < x->n; j++)
		envp[o++] = x->var[j];
	envp[o] = NULL;
	x->n = 0;
	return envp;
}

/* The local GPUs, which --gpus-per-proc slices. */
static int gpu_slice(struct extra *x, const muster_devices *d, long first, long k,
                     char *jax_ids, size_t size, const char *command)
{
	char ids[1024] = "";
	const char *vendor0 = NULL, *kind, *vendor, *id;
	long seen = 0, taken = 0;
	size_t o = 0, jo = 0;

	for (size_t i = 0; muster_devices_at(d, i, &kind, &vendor, &id) == 0 && taken < k; i++) {
		if (strcmp(kind, "GPU") != 0 || seen++ < first)
			continue;
		if (vendor0 && strcmp(vendor0, vendor) != 0) {
			cli_error("%s: --gpus-per-proc: one process's slice would mix %s and %s GPUs",
			          command, vendor0, vendor);
			return CLI_EXIT_USAGE;
		}
		vendor0 = vendor;
		o += (size_t)snprintf(ids + o, sizeof(ids) - o, "%s%s", taken ? "," : "", id);
		jo += (size_t)snprintf(jax_ids + jo, size - jo, "%s%ld", taken ? "," : "", taken);
		taken++;
	}
	if (o >= sizeof(ids) || jo >= size)
		return CLI_EXIT_USAGE;
	if (vendor0 && strcmp(vendor0, "amd") == 0) {
		/* HIP's variable indexes ROCr's list: left set, it would re-filter. */
		x->drop[x->ndrop++] = "HIP_VISIBLE_DEVICES";
		return add(x, "ROCR_VISIBLE_DEVICES", ids) < 0 ? CLI_EXIT_SOFTWARE : 0;
	}
	/* The ids are in PCI bus order; CUDA's own default is fastest first. */
	if (add(x, "CUDA_VISIBLE_DEVICES", ids) < 0 || add(x, "CUDA_DEVICE_ORDER", "PCI_BUS_ID") < 0)
		return CLI_EXIT_SOFTWARE;
	return 0;
}

static long count_gpus(const muster_devices *d)
{
	const char *kind;
	long n = 0;
	for (size_t i = 0; muster_devices_at(d, i, &kind, NULL, NULL) == 0; i++)
		n += strcmp(kind, "GPU") == 0;
	return n;
}

static int one_worker(struct run_worker *w, const muster_plan *plan, long i, long local,
                      const muster_devices *d, long gpus_per_proc,
                      const muster_result *port_holder, char *const *set, const char *command)
{
	struct extra x = { .n = 0, .ndrop = 0 };
	muster_error err = { 0, "" };
	char jax_ids[512], **env = NULL;
	int rc = 0;

	if (d != NULL)
		rc = gpu_slice(&x, d, local * gpus_per_proc, gpus_per_proc, jax_ids, sizeof(jax_ids),
		               command);
	if (rc == 0 && (rc = muster_plan_env(&env, plan, i, d != NULL ? jax_ids : NULL, &err)) != 0)
		rc = cli_fail(rc, &err);
	for (size_t k = 0; rc == 0 && env[k] != NULL; k++) {
		const char *eq = strchr(env[k], '=');
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(eq - env[k]), env[k]);
		/* --gpus-per-proc's slice of the local GPUs was asked for: it wins. */
		if (d != NULL && strcmp(name, "CUDA_VISIBLE_DEVICES") == 0)
			continue;
		if (add(&x, name, eq + 1) < 0)
			rc = CLI_EXIT_SOFTWARE;
		if (strcmp(name, "RANK") == 0 || strcmp(name, "JAX_PROCESS_ID") == 0)
			w->rank = strtol(eq + 1, NULL, 10);
	}
	muster_free(env);
	for (size_t k = 0; rc == 0 && set != NULL && set[k] != NULL; k++)
		if (set_var(&x, set[k]) < 0)
			rc = CLI_EXIT_SOFTWARE;
	if (rc == 0 && i == 0 && port_holder && muster_result_reserved_port(port_holder) > 0) {
		char port[16];
		snprintf(port, sizeof(port), "%d", muster_result_reserved_port(port_holder));
		if (add(&x, "MUSTER_RESERVED_PORT", port) < 0 ||
		    add(&x, "TENSORFLOW_PORT", port) < 0)
			rc = CLI_EXIT_SOFTWARE;
	}
	if (rc == 0 && (w->envp = merge(&x, &w->kept)) == NULL)
		rc = CLI_EXIT_SOFTWARE;
	for (size_t k = 0; k < x.n; k++)
		free(x.var[k]);
	if (rc == CLI_EXIT_SOFTWARE)
		cli_error("%s", muster_strerror(MUSTER_ENOMEM));
	return rc;
}

int run_build_env(struct run_plan *p, const muster_plan *plan, const char *command,
                  long gpus_per_proc, char *const *set)
{
	muster_error err = { 0, "" };
	muster_devices *d = NULL;
	/* The node's processes before this task's: under processes placement
	 * several tasks of one host each slice the host's GPUs, by local rank. */
	long first = muster_plan_first_local_rank(plan) > 0 ? muster_plan_first_local_rank(plan) : 0;
	int rc = 0;

	/* --numa-binding needs where the GPUs sit, the same list with more. */
	if (gpus_per_proc > 0 || p->numa) {
		rc = p->numa ? muster_local_topology(&d, NULL, 0, &err)
		             : muster_local_devices(&d, NULL, &err);
		if (rc != 0)
			return cli_fail(rc, &err);
	}
	if (gpus_per_proc > 0) {
		long have = count_gpus(d);
		if (have < (first + p->n) * gpus_per_proc) {
			cli_error("%s: %ld processes x %ld GPU each need %ld GPUs; this machine shows "
			          "%ld (visible-devices variables applied)", command, first + p->n,
			          gpus_per_proc, (first + p->n) * gpus_per_proc, have);
			muster_devices_free(d);
			return CLI_EXIT_NOENT;
		}
	}
	for (long i = 0; i < p->n && rc == 0; i++) {
		p->w[i].rank = i;
		rc = one_worker(&p->w[i], plan, i, first + i, gpus_per_proc > 0 ? d : NULL,
		                gpus_per_proc, p->res, set, command);
	}
	p->first_local = first;
	if (rc == 0 && p->numa)
		rc = run_numa_plan(p, d, gpus_per_proc, command);
	muster_devices_free(d);
	return rc;
}

void run_free_env(struct run_plan *p)
{
	for (long i = 0; i < p->n; i++) {
		char **e = p->w[i].envp;
		for (size_t j = p->w[i].kept; e != NULL && e[j] != NULL; j++)
			free(e[j]);
		free(e);
		p->w[i].envp = NULL;
		if (p->w[i].cpus)
			CPU_FREE(p->w[i].cpus);
		p->w[i].cpus = NULL;
	}
}
