/*
 * The launcher pod of an MPI Operator v2 MPIJob (docs/platforms.md §4), or
 * of a Kubeflow Trainer v2 TrainJob on the MPI runtime (§3.3): the host
 * file the controller mounted for mpirun.
 *
 * Detect: K_MPI_JOB_ROLE (launcher or worker), or, in a pod
 * (KUBERNETES_SERVICE_HOST), the host file's variable: Open MPI's
 * OMPI_MCA_orte_default_hostfile, Intel MPI's I_MPI_HYDRA_HOST_FILE,
 * MPICH's HYDRA_HOST_FILE (the Trainer sets no role).  Outside a pod such
 * a variable is a user's own mpirun default, not a job: notfound.
 *
 * The launcher gets the job as mpirun will lay it out: the host file's
 * hosts in order, each with its slots ("host slots=N", "host:N", or a
 * bare host with OMPI_MCA_orte_set_default_slots or 1), one task per slot
 * (rank r in the r-th slot: mpirun's default by-slot mapping), the k-th of
 * a host at port_base + k; placement processes, no own task — the
 * launcher runs mpirun, it is no rank.  `muster hostfile` there gives the
 * file back in any launcher's form.  Under mpirun each rank has
 * OMPI_COMM_WORLD_* and the mpi entry, earlier in the chain, answers.  A
 * worker pod outside mpirun (its main process is sshd) is no rank either:
 * unavail, saying so.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/address.h"
#include "platforms.h"
#include "plugins/common/slots.h"

#define DEFAULT_HOSTFILE "/etc/mpi/hostfile"

static const char *const file_vars[] = { "OMPI_MCA_orte_default_hostfile",
                                         "I_MPI_HYDRA_HOST_FILE", "HYDRA_HOST_FILE", NULL };

/* One line's slots: "slots=N" among its words, or after "host:". */
static int line_slots(char *words, long fallback, long *slots)
{
	char *save = NULL;

	*slots = fallback;
	for (char *w = strtok_r(words, " \t", &save); w != NULL; w = strtok_r(NULL, " \t", &save)) {
		if (strncmp(w, "slots=", 6) == 0 && env_parse_int(w + 6, 1, PF_MAX_TASKS, slots) < 0)
			return -1;
		/* max_slots and other Open MPI keywords limit oversubscription only. */
	}
	return 0;
}

/* The file's hosts and slots, in order; 0, or -1 after fail(). */
static int parse(struct pf_run *run, const char *path, char *text, long fallback,
                 struct slots *s)
{
	char why[300];
	long line = 0;

	for (char *next, *p = text; p != NULL; p = next) {
		long slots;
		char *colon, *host;

		line++;
		if ((next = strchr(p, '\n')) != NULL)
			*next++ = '\0';
		p[strcspn(p, "#\r")] = '\0';
		p += strspn(p, " \t");
		if (*p == '\0')
			continue;
		host = p;
		p += strcspn(p, " \t");
		if (*p != '\0')
			*p++ = '\0';
		if ((colon = strchr(host, ':')) != NULL && host[0] != '[') {
			*colon = '\0';
			if (env_parse_int(colon + 1, 1, PF_MAX_TASKS, &slots) < 0) {
				run->host->fail(run->call, "%s line %ld: \"%s\" is no slot count", path,
				                line, colon + 1);
				return -1;
			}
		} else if (line_slots(p, fallback, &slots) != 0) {
			run->host->fail(run->call, "%s line %ld: slots= must be a count from 1 to %ld",
			                path, line, PF_MAX_TASKS);
			return -1;
		}
		if (address_check_host(host, why, sizeof(why)) != 0) {
			run->host->fail(run->call, "%s line %ld: %s", path, line, why);
			return -1;
		}
		if (slots_add(s, host, slots, PF_MAX_TASKS) < 0) {
			run->host->fail(run->call, "%s: more than %ld slots, or out of memory", path,
			                PF_MAX_TASKS);
			return -1;
		}
	}
	if (s->nhosts == 0) {
		run->host->fail(run->call, "%s lists no host", path);
		return -1;
	}
	return 0;
}

static muster_status build(struct pf_run *run, const struct slots *s)
{
	long first = 0;

	if (muster_plugin_add_job_sized(run->host, run->call, "worker", s->total) != 0)
		return MUSTER_STATUS_UNAVAIL;
	for (size_t h = 0; h < s->nhosts; h++) {
		if (run->conf->port_base + s->hosts[h].tasks - 1 > 65535)
			return pf_unavail(run, "host %s has %ld slots: port_base %ld + %ld is past 65535",
			                  s->hosts[h].name, s->hosts[h].tasks, run->conf->port_base,
			                  s->hosts[h].tasks - 1);
		if (run->host->add_task_range(run->call, "worker", first, s->hosts[h].tasks,
		                              s->hosts[h].name, run->conf->port_base) != 0)
			return MUSTER_STATUS_UNAVAIL;
		first += s->hosts[h].tasks;
	}
	return pf_finish(run, NULL, -1, MUSTER_PLACEMENT_PROCESSES);
}

muster_status pf_mpi_operator(struct pf_run *run)
{
	struct env_reader *env = &run->env;
	const char *role = env_str(env, "K_MPI_JOB_ROLE"), *path = NULL, *from = NULL, *unset;
	long fallback = 1;
	char *text = NULL;
	size_t len;
	struct slots s;
	muster_status st;
	int rc;

	for (size_t i = 0; file_vars[i] != NULL && path == NULL; i++)
		if ((path = env_str(env, file_vars[i])) != NULL)
			from = file_vars[i];
	if (role == NULL && (path == NULL || env_str(env, "KUBERNETES_SERVICE_HOST") == NULL))
		return pf_notfound(run, "K_MPI_JOB_ROLE is not set%s: not an MPIJob's pod",
		                   path ? " and not in a pod" : "");
	if (role != NULL && strcmp(role, "worker") == 0)
		return pf_unavail(run, "an MPIJob's worker pod (K_MPI_JOB_ROLE=worker) is no rank: "
		                       "mpirun on the launcher starts the ranks here, and inside them "
		                       "the mpi entry answers");
	if (role != NULL && strcmp(role, "launcher") != 0)
		return pf_unavail(run, "K_MPI_JOB_ROLE must be launcher or worker, not \"%s\"", role);
	if (path == NULL) {
		path = DEFAULT_HOSTFILE;
		pf_which(run, file_vars, &unset);
	}
	if (env_int(env, "OMPI_MCA_orte_set_default_slots", 1, PF_MAX_TASKS, &fallback) < 0)
		return pf_env_failed(run);
	if ((rc = pf_read_file(run, path, from, &text, &len)) <= 0)
		return rc < 0 ? MUSTER_STATUS_UNAVAIL
		              : pf_unavail(run, "%s does not exist%s%s%s: an MPIJob's launcher has "
		                                "its host file there", path, from ? " (" : "",
		                           from ? from : "", from ? ")" : "");
	slots_init(&s);
	st = parse(run, path, text, fallback, &s) == 0 ? build(run, &s) : MUSTER_STATUS_UNAVAIL;
	slots_free(&s);
	free(text);
	return st;
}
