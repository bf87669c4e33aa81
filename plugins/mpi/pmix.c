/*
 * Every rank's host, asked of the launcher's PMIx server: PMIx_Init as a
 * client of our own namespace, PMIX_HOSTNAME of each rank (data the
 * server registered at launch, so no rank waits for another), then
 * PMIx_Finalize.  libpmix is dlopen()ed here only, so a process outside a
 * PMIx launch never loads it (inside one, it stays loaded); its few entry points are declared below
 * with PMIx's stable ABI (the standard's v2 to v5 layout), so no headers
 * are needed to build.
 *
 * Inside a program that also uses MPI, resolve after MPI_Init: PMIx counts
 * initialisations, so our finalize then leaves MPI's connection open.
 */
#include <config.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "plugins/common/layout.h"

#define PMIX_MAX_NSLEN 255
#define PMIX_MAX_KEYLEN 511
#define PMIX_RANK_WILDCARD (UINT32_MAX - 1)
#define PMIX_INT 6
#define PMIX_STRING 3
#define PMIX_UINT32 14
#define PMIX_HOSTNAME "pmix.hname"
#define PMIX_JOB_SIZE "pmix.job.size"
#define PMIX_TIMEOUT "pmix.timeout"

typedef struct {
	char nspace[PMIX_MAX_NSLEN + 1];
	uint32_t rank;
} pmix_proc;

typedef struct {
	uint16_t type;
	union {
		char *string;
		uint32_t uint32;
		int integer;
		uint64_t pad[3]; /* the widest member of PMIx's union */
	} data;
} pmix_value;

typedef struct {
	char key[PMIX_MAX_KEYLEN + 1];
	uint32_t flags;
	pmix_value value;
} pmix_info;

struct pmix_lib {
	void *dl;
	int (*init)(pmix_proc *proc, pmix_info *info, size_t ninfo);
	int (*get)(const pmix_proc *proc, const char *key, const pmix_info *info, size_t ninfo,
	           pmix_value **val);
	int (*finalize)(const pmix_info *info, size_t ninfo);
};

static int load(const muster_host *host, muster_call *call, const char *library,
                struct pmix_lib *lib)
{
	const char *err;

	lib->dl = dlopen(library, RTLD_NOW | RTLD_LOCAL);
	if (lib->dl == NULL) {
		err = dlerror();
		host->fail(call, "PMIX_NAMESPACE is set but %s cannot be loaded (%.200s): install "
		                 "libpmix2 or set pmix_library", library, err ? err : "unknown");
		return -1;
	}
	*(void **)&lib->init = dlsym(lib->dl, "PMIx_Init");
	*(void **)&lib->get = dlsym(lib->dl, "PMIx_Get");
	*(void **)&lib->finalize = dlsym(lib->dl, "PMIx_Finalize");
	if (lib->init == NULL || lib->get == NULL || lib->finalize == NULL) {
		host->fail(call, "%s lacks PMIx_Init, PMIx_Get or PMIx_Finalize: not libpmix",
		           library);
		dlclose(lib->dl);
		return -1;
	}
	return 0;
}

static void free_value(pmix_value *v)
{
	if (v != NULL && v->type == PMIX_STRING)
		free(v->data.string);
	free(v);
}

static int job_size(const muster_host *host, muster_call *call, struct pmix_lib *lib,
                    const pmix_proc *me, const pmix_info *timeout, long *size)
{
	pmix_proc job = *me;
	pmix_value *v = NULL;
	int rc;

	job.rank = PMIX_RANK_WILDCARD;
	rc = lib->get(&job, PMIX_JOB_SIZE, timeout, 1, &v);
	if (rc != 0 || v == NULL || v->type != PMIX_UINT32 || v->data.uint32 < 1 ||
	    v->data.uint32 > LAYOUT_MAX_TASKS) {
		host->fail(call, "the PMIx server gives no job size from 1 to %ld (status %d)",
		           LAYOUT_MAX_TASKS, rc);
		free_value(v);
		return -1;
	}
	*size = (long)v->data.uint32;
	free_value(v);
	return 0;
}

static int rank_hosts(const muster_host *host, muster_call *call, struct pmix_lib *lib,
                      const pmix_proc *me, const pmix_info *timeout, long size, char **hosts)
{
	pmix_proc p = *me;
	pmix_value *v;
	int rc;

	for (long r = 0; r < size; r++) {
		v = NULL;
		p.rank = (uint32_t)r;
		rc = lib->get(&p, PMIX_HOSTNAME, timeout, 1, &v);
		if (rc != 0 || v == NULL || v->type != PMIX_STRING || v->data.string == NULL) {
			host->fail(call, "the PMIx server gives no host name for rank %ld (status %d)",
			           r, rc);
			free_value(v);
			return -1;
		}
		hosts[r] = v->data.string;
		v->data.string = NULL;
		free(v);
	}
	return 0;
}

muster_status mpi_pmix_hosts(const muster_host *host, muster_call *call, const char *library,
                             struct mpi_env *env, char ***hosts)
{
	struct pmix_lib lib;
	pmix_proc me;
	pmix_info *timeout;
	long ms = host->remaining_ms(call);
	int rc, ok = 0;

	if (load(host, call, library, &lib) != 0)
		return MUSTER_STATUS_UNAVAIL;
	/* Room for PMIx's info struct whatever its union's size. */
	timeout = calloc(1, 2 * sizeof(*timeout));
	if (timeout == NULL) {
		host->fail(call, "out of memory");
		dlclose(lib.dl);
		return MUSTER_STATUS_UNAVAIL;
	}
	snprintf(timeout->key, sizeof(timeout->key), "%s", PMIX_TIMEOUT);
	timeout->value.type = PMIX_INT;
	timeout->value.data.integer = ms > 1000 ? (int)(ms / 1000) : 1;
	memset(&me, 0, sizeof(me));
	rc = lib.init(&me, NULL, 0);
	if (rc != 0) {
		host->fail(call, "PMIx_Init failed (status %d): the launcher's PMIx server "
		                 "(PMIX_SERVER_URI*) does not answer", rc);
	} else {
		if ((env->size > 0 || job_size(host, call, &lib, &me, timeout, &env->size) == 0) &&
		    env->rank < env->size) {
			*hosts = calloc((size_t)env->size, sizeof(**hosts));
			if (*hosts == NULL)
				host->fail(call, "out of memory");
			else
				ok = rank_hosts(host, call, &lib, &me, timeout, env->size, *hosts) == 0;
		} else if (env->size > 0) {
			host->fail(call, "%s is %ld, outside the %ld ranks the PMIx server knows",
			           env->rank_var, env->rank, env->size);
		}
		lib.finalize(NULL, 0);
	}
	free(timeout);
	/* Not unloaded: libpmix keeps process-wide state (its MCA components,
	 * thread pool) past PMIx_Finalize, and a later MPI_Init uses it. */
	return ok ? MUSTER_STATUS_SUCCESS : MUSTER_STATUS_UNAVAIL;
}
