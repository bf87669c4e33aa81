/*
 * kubernetes: the answer — addresses, self identity, accelerators.
 *
 *   address = "pod_ip"   the pod's IP (default; IPv6 in brackets)
 *             "host_ip"  the node's IP (TF's choice)
 *             "kubeflow" <job>-<type>-<index>.<namespace>.svc[.<domain>], the
 *                        names the training operator writes into TF_CONFIG
 *   port: the container port named `port_name` when a pod has one, else
 *   `port` (8470, TF's; 2222 and tfjob-port with kubeflow addresses).
 *
 * A pod whose address is not HOST:PORT (lib/address.h: a pod IP with a
 * port or brackets of its own, a label no DNS name has) is left out, with
 * the reason at info level; the pods after it in the job move up one
 * index, as if it were not listed (with order = "label", its index stays
 * empty).
 *
 * Self identity: the pod named by `self_pod`, else $POD_NAME, else
 * $HOSTNAME, else the host name (a pod's host name is its name).  With
 * all_namespaces, $POD_NAMESPACE (when set) must match too.
 */
#include <config.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "k8s.h"
#include "lib/address.h"
#include "lib/env.h"

static char *kubeflow_address(const struct k8s_run *run, const struct k8s_podvec *v,
                              const struct k8s_pod *p, long port)
{
	const char *domain = run->conf->cluster_domain != NULL ? run->conf->cluster_domain
	                                                       : env_get("CUSTOM_CLUSTER_DOMAIN");
	const char *ns = p->ns != 0 ? k8s_str(v, p->ns)
	                 : run->conf->namespace != NULL ? run->conf->namespace
	                 : run->conn.namespace != NULL  ? run->conn.namespace
	                                                : "default";
	const char *kf_job = k8s_str(v, p->kf_job);
	char *s = plugin_asprintf("%s-%s-%ld.%s.svc%s%s:%ld", kf_job, k8s_str(v, p->kf_type),
	                          (long)p->kf_index, ns, domain != NULL && domain[0] ? "." : "",
	                          domain != NULL ? domain : "", port);
	char *c;
	size_t jl;

	if (s == NULL)
		return NULL;
	/* GenGeneralName: lower-case replica type, '/' in the job name → '-'. */
	jl = strlen(kf_job);
	for (c = s; c < s + jl; c++)
		if (*c == '/')
			*c = '-';
	for (c = s + jl + 1; *c && *c != '-'; c++)
		*c = (char)tolower((unsigned char)*c);
	return s;
}

/* ip:port, [ip]:port for IPv6, into `buf` when it fits (a large job has
 * a hundred thousand of them: formatted by hand, no allocation), else into
 * fresh memory the caller frees; NULL when out of memory. */
static char *ip_address(char *buf, size_t size, const char *ip, long port)
{
	size_t n = strlen(ip), at = 0;
	int v6 = memchr(ip, ':', n) != NULL;
	char digits[24];
	size_t d = sizeof(digits), need;

	do
		digits[--d] = (char)('0' + port % 10);
	while ((port /= 10) > 0 && d > 0);
	need = n + 4 + (sizeof(digits) - d); /* [ ] : NUL */
	if (need > size && (buf = malloc(need)) == NULL)
		return NULL;
	if (v6)
		buf[at++] = '[';
	memcpy(buf + at, ip, n);
	at += n;
	if (v6)
		buf[at++] = ']';
	buf[at++] = ':';
	memcpy(buf + at, digits + d, sizeof(digits) - d);
	buf[at + sizeof(digits) - d] = '\0';
	return buf;
}

static const char *self_name(const struct k8s_conf *conf, char *buf, size_t size)
{
	const char *s;

	if (conf->self_pod != NULL)
		return conf->self_pod;
	if ((s = env_get("POD_NAME")) != NULL && s[0] != '\0')
		return s;
	if ((s = env_get("HOSTNAME")) != NULL && s[0] != '\0')
		return s;
	if (gethostname(buf, size) == 0) {
		buf[size - 1] = '\0';
		return buf;
	}
	return NULL;
}

/* Not ready: why, as "Pending", "Terminating", "Running but has no pod IP yet". */
const char *k8s_not_ready(const struct k8s_run *run, const struct k8s_podvec *v,
                          const struct k8s_pod *p, char *buf, size_t size)
{
	const char *phase = k8s_str(v, p->phase), *ip = k8s_str(v, p->ip);

	if (phase == NULL)
		return "without a phase";
	if (strcmp(phase, "Running") != 0) {
		snprintf(buf, size, "%s", phase);
		return buf;
	}
	if (p->terminating)
		return "Terminating";
	if (run->conf->address != K8S_ADDR_KUBEFLOW && (ip == NULL || ip[0] == '\0'))
		return run->conf->address == K8S_ADDR_HOST_IP ? "Running but has no host IP yet"
		                                              : "Running but has no pod IP yet";
	return NULL;
}

/* A job's pods not ready, and a job without any, as pending members. */
static int pend(const struct k8s_run *run, const struct k8s_podvec *v, const struct k8s_pod *p,
                const char *job, long index, const char *why)
{
	return muster_plugin_add_pending(run->host, run->call, job, index,
	                                 p != NULL ? k8s_str(v, p->name) : NULL, why);
}

muster_status k8s_build(struct k8s_run *run, struct k8s_podvec *jobs, int partial)
{
	const struct k8s_conf *conf = run->conf;
	const muster_host *h = run->host;
	char hostbuf[256];
	const char *self = self_name(conf, hostbuf, sizeof(hostbuf));
	const char *self_ns = conf->all_namespaces ? env_get("POD_NAMESPACE") : NULL;
	int self_found = 0;
	size_t j, i, k;

	for (j = 0; j < conf->njobs; j++) {
		const char *job = conf->jobs[j].name;
		long left_out = 0;

		if (h->add_job(run->call, job) < 0)
			return MUSTER_STATUS_UNAVAIL;
		if (partial && jobs[j].n == 0) {
			char why[320];

			snprintf(why, sizeof(why), "no pod matches \"%s\"%s", conf->jobs[j].selectors[0],
			         conf->jobs[j].nselectors > 1 ? " or its other selectors" : "");
			pend(run, NULL, NULL, job, -1, why);
		}
		for (i = 0; i < jobs[j].n; i++) {
			const struct k8s_podvec *v = &jobs[j];
			const struct k8s_pod *p = &v->pods[i];
			const char *name = k8s_str(v, p->name), *ip = k8s_str(v, p->ip), *ns;
			const int32_t *counts = k8s_counts(v, p);
			long port = p->port >= 0 ? p->port : conf->port;
			long index = conf->order == K8S_ORDER_LABEL ? p->index : p->index - left_out;
			char buf[128], why[400], *addr;
			const char *waiting;
			int rc;

			if (partial && (waiting = k8s_not_ready(run, v, p, why, sizeof(why))) != NULL) {
				pend(run, v, p, job, index, waiting);
				continue;
			}
			if (conf->address == K8S_ADDR_KUBEFLOW)
				addr = kubeflow_address(run, v, p, port);
			else
				addr = ip_address(buf, sizeof(buf), ip, port);
			if (addr == NULL)
				return k8s_nomem(run);
			if (address_check(addr, why, sizeof(why)) < 0) {
				h->log(conf->pc, MUSTER_LOG_INFO, "job %s: pod %s is left out: %s", job, name,
				       why);
				left_out++;
				rc = 1;
			} else
				rc = h->add_task(run->call, job, index, addr);
			if (addr != buf)
				free(addr);
			if (rc < 0)
				return MUSTER_STATUS_UNAVAIL;
			if (rc > 0)
				continue;
			for (k = 0; counts != NULL && k < conf->nkinds; k++)
				if (counts[k] > 0 && h->add_accelerator(run->call, job, index,
				                                        conf->kinds[k].kind, counts[k]) < 0)
					return MUSTER_STATUS_UNAVAIL;
			ns = k8s_str(v, p->ns);
			if (!self_found && self != NULL && strcmp(name, self) == 0 &&
			    (self_ns == NULL || self_ns[0] == '\0' ||
			     (ns != NULL && strcmp(ns, self_ns) == 0))) {
				self_found = 1;
				if (h->set_task(run->call, job, index) < 0)
					return MUSTER_STATUS_UNAVAIL;
				h->log(conf->pc, MUSTER_LOG_DEBUG, "this process is pod %s: task %s:%ld",
				       name, job, index);
			}
		}
	}
	if (h->set_rpc_layer(run->call, conf->rpc_layer) < 0 ||
	    h->set_master_rule(run->call, MUSTER_MASTER_TASK) < 0)
		return MUSTER_STATUS_UNAVAIL;
	return MUSTER_STATUS_SUCCESS;
}
