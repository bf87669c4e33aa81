/*
 * kubernetes: which API server, with which credentials.  The first source
 * that applies wins:
 *   1. explicit settings in the entry's config (`server`, ...);
 *   2. a kubeconfig: `kubeconfig`, else $KUBECONFIG (its first existing
 *      file), else ~/.kube/config;
 *   3. in-cluster: $KUBERNETES_SERVICE_HOST/_PORT and the service account's
 *      token, ca.crt and namespace (`serviceaccount_dir`).
 * None of them → notfound.  Everything is read again on each resolve: bound
 * service-account tokens rotate, kubeconfigs get edited.
 */
#include <config.h>

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "k8s.h"
#include "lib/env.h"

/* Frees a credential, its bytes wiped first. */
static void k8s_blob_clear(struct k8s_blob *b)
{
	free(b->path);
	if (b->data != NULL) {
		/* Key material: do not leave it in freed memory. */
		volatile char *p = b->data;
		size_t i;

		for (i = 0; i < b->len; i++)
			p[i] = 0;
		free(b->data);
	}
	memset(b, 0, sizeof(*b));
}

void k8s_conn_clear(struct k8s_conn *conn)
{
	free(conn->server);
	if (conn->token != NULL) {
		volatile char *p = conn->token;

		while (*p)
			*p++ = 0;
		free(conn->token);
	}
	k8s_blob_clear(&conn->ca);
	k8s_blob_clear(&conn->cert);
	k8s_blob_clear(&conn->key);
	free(conn->namespace);
	memset(conn, 0, sizeof(*conn));
}

static muster_status explicit_settings(struct k8s_run *run)
{
	const struct k8s_conf *conf = run->conf;
	struct k8s_conn *c = &run->conn;

	snprintf(c->source, sizeof(c->source), "the entry's server setting");
	if ((c->server = strdup(conf->server)) == NULL)
		return k8s_nomem(run);
	if (conf->token != NULL && (c->token = strdup(conf->token)) == NULL)
		return k8s_nomem(run);
	if (conf->token_file != NULL &&
	    (c->token = k8s_read_token(run, conf->token_file, "token_file")) == NULL)
		return MUSTER_STATUS_UNAVAIL;
	if (conf->ca_file != NULL && (c->ca.path = strdup(conf->ca_file)) == NULL)
		return k8s_nomem(run);
	if (conf->client_cert != NULL && ((c->cert.path = strdup(conf->client_cert)) == NULL ||
	                                  (c->key.path = strdup(conf->client_key)) == NULL))
		return k8s_nomem(run);
	c->insecure = conf->insecure;
	return MUSTER_STATUS_SUCCESS;
}

/* $KUBECONFIG's first existing file, else ~/.kube/config; NULL: none. */
static char *default_kubeconfig(void)
{
	const char *env = env_get("KUBECONFIG");
	const char *home;
	char *path;

	if (env != NULL && env[0] != '\0') {
		const char *p = env;

		while (*p) {
			size_t n = strcspn(p, ":");

			if (n > 0) {
				path = strndup(p, n);
				if (path == NULL || access(path, F_OK) == 0)
					return path;
				free(path);
			}
			p += n;
			if (*p == ':')
				p++;
		}
		return NULL; /* as kubectl: $KUBECONFIG replaces ~/.kube/config */
	}
	home = env_get("HOME");
	if (home == NULL || home[0] == '\0') {
		struct passwd pw, *res = NULL;
		char buf[1024];

		if (getpwuid_r(getuid(), &pw, buf, sizeof(buf), &res) != 0 || res == NULL)
			return NULL;
		path = plugin_asprintf("%s/.kube/config", pw.pw_dir);
	} else {
		path = plugin_asprintf("%s/.kube/config", home);
	}
	if (path != NULL && access(path, F_OK) != 0) {
		free(path);
		return NULL;
	}
	return path;
}

static muster_status in_cluster(struct k8s_run *run, const char *host)
{
	const struct k8s_conf *conf = run->conf;
	struct k8s_conn *c = &run->conn;
	const char *port = env_get("KUBERNETES_SERVICE_PORT");
	const char *dir = conf->sa_dir != NULL ? conf->sa_dir : K8S_SA_DIR;
	char *path, *ns;
	size_t len;
	int v6 = strchr(host, ':') != NULL;

	snprintf(c->source, sizeof(c->source), "in-cluster service account (%s)", dir);
	if (port == NULL || port[0] == '\0')
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "KUBERNETES_SERVICE_HOST is set but KUBERNETES_SERVICE_PORT "
		                     "is not");
	if (strspn(port, "0123456789") != strlen(port) || strlen(port) > 5)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "KUBERNETES_SERVICE_PORT is \"%.32s\", not a port number",
		                     port);
	c->server = plugin_asprintf("https://%s%s%s:%s", v6 ? "[" : "", host, v6 ? "]" : "", port);
	if (c->server == NULL)
		return k8s_nomem(run);
	if ((path = plugin_asprintf("%s/token", dir)) == NULL)
		return k8s_nomem(run);
	c->token = k8s_read_token(run, path, "the service-account token");
	free(path);
	if (c->token == NULL)
		return MUSTER_STATUS_UNAVAIL;
	if ((c->ca.path = plugin_asprintf("%s/ca.crt", dir)) == NULL)
		return k8s_nomem(run);
	if ((path = plugin_asprintf("%s/namespace", dir)) == NULL)
		return k8s_nomem(run);
	if (plugin_read_file(path, K8S_MAX_FILE, &ns, &len) == 0) {
		while (len > 0 && (ns[len - 1] == '\n' || ns[len - 1] == ' ' || ns[len - 1] == '\r'))
			ns[--len] = '\0';
		if (len > 0)
			c->namespace = ns;
		else
			free(ns);
	}
	free(path);
	return MUSTER_STATUS_SUCCESS;
}

muster_status k8s_connect(struct k8s_run *run)
{
	const struct k8s_conf *conf = run->conf;
	const char *host;
	char *path;
	muster_status st;

	if (conf->server != NULL)
		return explicit_settings(run);
	if (conf->kubeconfig != NULL)
		return k8s_kubeconfig(run, conf->kubeconfig, 1);
	path = default_kubeconfig();
	if (path != NULL) {
		st = k8s_kubeconfig(run, path, 0);
		free(path);
		return st;
	}
	host = env_get("KUBERNETES_SERVICE_HOST");
	if (host != NULL && host[0] != '\0')
		return in_cluster(run, host);
	run->host->fail(run->call, "no API server: no server setting, no kubeconfig (%s), and not "
	                           "in a pod (KUBERNETES_SERVICE_HOST is not set)",
	                env_get("KUBECONFIG") != NULL ? "none of $KUBECONFIG's files exists"
	                                                 : "~/.kube/config does not exist");
	return MUSTER_STATUS_NOTFOUND;
}
