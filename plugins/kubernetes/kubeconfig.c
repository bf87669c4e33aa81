/*
 * kubernetes: a kubeconfig file, read with libyaml's document API.
 *
 * From the chosen context (the `context` option, else current-context) it
 * takes the cluster's server, certificate-authority[-data] and
 * insecure-skip-tls-verify, the user's token / tokenFile /
 * client-certificate[-data] / client-key[-data], and the context's
 * namespace.  Relative paths are relative to the kubeconfig's directory,
 * as kubectl reads them.  The -data forms are decoded into memory and
 * handed to libcurl as blobs: key material is never written to disk.
 * Credentials muster cannot produce itself (exec plugins, auth providers,
 * basic auth) are refused with a message that says so.
 */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "k8s.h"

struct kc {
	struct k8s_run *run;
	const char *path;
	yaml_document_t doc;
};

static yaml_node_t *node_at(struct kc *kc, int index)
{
	return index > 0 ? yaml_document_get_node(&kc->doc, index) : NULL;
}

static const char *scalar(const yaml_node_t *n)
{
	return n != NULL && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The value of `key` in mapping `map`; NULL when absent (or not a map). */
static yaml_node_t *map_get(struct kc *kc, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;

	if (map == NULL || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *k = scalar(node_at(kc, p->key));

		if (k != NULL && strcmp(k, key) == 0)
			return node_at(kc, p->value);
	}
	return NULL;
}

static const char *map_string(struct kc *kc, yaml_node_t *map, const char *key)
{
	const char *s = scalar(map_get(kc, map, key));

	return s != NULL && s[0] != '\0' ? s : NULL;
}

static int yaml_true(const char *s)
{
	return s != NULL && (strcasecmp(s, "true") == 0 || strcasecmp(s, "yes") == 0 ||
	                     strcasecmp(s, "on") == 0);
}

/* clusters/contexts/users: the `inner` mapping of the entry named `name`. */
static yaml_node_t *named(struct kc *kc, const char *list, const char *name, const char *inner)
{
	yaml_node_t *seq = map_get(kc, yaml_document_get_root_node(&kc->doc), list);
	yaml_node_item_t *it;

	if (seq == NULL || seq->type != YAML_SEQUENCE_NODE)
		return NULL;
	for (it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++) {
		yaml_node_t *entry = node_at(kc, *it);
		const char *n = map_string(kc, entry, "name");

		if (n != NULL && strcmp(n, name) == 0) {
			yaml_node_t *in = map_get(kc, entry, inner);

			return in != NULL && in->type == YAML_MAPPING_NODE ? in : NULL;
		}
	}
	return NULL;
}

static muster_status kc_fail(struct kc *kc, const char *fmt, ...) MUSTER_PLUGIN_PRINTF(2, 3);

static muster_status kc_fail(struct kc *kc, const char *fmt, ...)
{
	char msg[700];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kc->run->host->fail(kc->run->call, "kubeconfig %s: %s", kc->path, msg);
	return MUSTER_STATUS_UNAVAIL;
}

/* `file` / `file-data` of a cluster or user into a blob. */
static muster_status material(struct kc *kc, yaml_node_t *map, const char *key,
                              const char *owner, struct k8s_blob *out)
{
	char data_key[64];
	const char *data, *file;

	snprintf(data_key, sizeof(data_key), "%s-data", key);
	data = map_string(kc, map, data_key);
	file = map_string(kc, map, key);
	if (data != NULL) {
		/* The -data form wins, as in client-go. */
		if (k8s_base64_decode(data, &out->data, &out->len) != 0)
			return kc_fail(kc, "%s: %s is not valid base64", owner, data_key);
		if (out->len == 0)
			return kc_fail(kc, "%s: %s is empty", owner, data_key);
		return MUSTER_STATUS_SUCCESS;
	}
	if (file != NULL && (out->path = k8s_path_relative(kc->path, file)) == NULL)
		return k8s_nomem(kc->run);
	return MUSTER_STATUS_SUCCESS;
}

static muster_status use_context(struct kc *kc)
{
	struct k8s_run *run = kc->run;
	struct k8s_conn *c = &run->conn;
	yaml_node_t *root = yaml_document_get_root_node(&kc->doc);
	yaml_node_t *ctx, *cluster, *user = NULL;
	const char *name, *cname, *uname, *s;
	char owner[200];
	muster_status st;

	if (root == NULL || root->type != YAML_MAPPING_NODE)
		return kc_fail(kc, "not a kubeconfig (expected a mapping at the top)");
	name = run->conf->context != NULL ? run->conf->context : map_string(kc, root,
	                                                                      "current-context");
	if (name == NULL)
		return kc_fail(kc, "no current-context; set the entry's context option");
	snprintf(c->source, sizeof(c->source), "kubeconfig %s (context %s)", kc->path, name);
	if ((ctx = named(kc, "contexts", name, "context")) == NULL)
		return kc_fail(kc, "no context named \"%s\"", name);
	if ((cname = map_string(kc, ctx, "cluster")) == NULL)
		return kc_fail(kc, "context \"%s\" names no cluster", name);
	if ((cluster = named(kc, "clusters", cname, "cluster")) == NULL)
		return kc_fail(kc, "context \"%s\": no cluster named \"%s\"", name, cname);
	uname = map_string(kc, ctx, "user");
	if (uname != NULL && (user = named(kc, "users", uname, "user")) == NULL)
		return kc_fail(kc, "context \"%s\": no user named \"%s\"", name, uname);

	if ((s = map_string(kc, cluster, "server")) == NULL)
		return kc_fail(kc, "cluster \"%s\" has no server", cname);
	if (strncmp(s, "https://", 8) != 0 && strncmp(s, "http://", 7) != 0)
		return kc_fail(kc, "cluster \"%s\": server \"%s\" is not an https:// or http:// URL",
		               cname, s);
	if ((c->server = strdup(s)) == NULL)
		return k8s_nomem(run);
	{
		size_t n = strlen(c->server);

		while (n > 0 && c->server[n - 1] == '/')
			c->server[--n] = '\0';
	}
	c->insecure = yaml_true(scalar(map_get(kc, cluster, "insecure-skip-tls-verify")));
	snprintf(owner, sizeof(owner), "cluster \"%s\"", cname);
	if ((st = material(kc, cluster, "certificate-authority", owner, &c->ca)) != 0)
		return st;
	if ((s = map_string(kc, ctx, "namespace")) != NULL && (c->namespace = strdup(s)) == NULL)
		return k8s_nomem(run);
	if (user == NULL)
		return MUSTER_STATUS_SUCCESS;

	/* What muster cannot do, said plainly (never the values). */
	if (map_get(kc, user, "exec") != NULL) {
		const char *cmd = map_string(kc, map_get(kc, user, "exec"), "command");

		return kc_fail(kc, "user \"%s\" authenticates with an exec credential plugin%s%s%s, "
		                   "which muster does not run; use a token, a token file or a "
		                   "client certificate",
		               uname, cmd ? " (" : "", cmd ? cmd : "", cmd ? ")" : "");
	}
	if (map_get(kc, user, "auth-provider") != NULL) {
		const char *prov = map_string(kc, map_get(kc, user, "auth-provider"), "name");

		return kc_fail(kc, "user \"%s\" authenticates with an auth-provider%s%s%s, which "
		                   "muster does not support; use a token, a token file or a client "
		                   "certificate",
		               uname, prov ? " (" : "", prov ? prov : "", prov ? ")" : "");
	}
	if (map_get(kc, user, "username") != NULL || map_get(kc, user, "password") != NULL)
		return kc_fail(kc, "user \"%s\" uses basic authentication (username/password), which "
		                   "muster does not support; use a token or a client certificate",
		               uname);
	if ((s = map_string(kc, user, "tokenFile")) != NULL) {
		/* tokenFile wins over token and is read on every resolve. */
		char *path = k8s_path_relative(kc->path, s);

		if (path == NULL)
			return k8s_nomem(run);
		c->token = k8s_read_token(run, path, "tokenFile");
		free(path);
		if (c->token == NULL)
			return MUSTER_STATUS_UNAVAIL;
	} else if ((s = map_string(kc, user, "token")) != NULL) {
		if ((c->token = strdup(s)) == NULL)
			return k8s_nomem(run);
	}
	snprintf(owner, sizeof(owner), "user \"%s\"", uname);
	if ((st = material(kc, user, "client-certificate", owner, &c->cert)) != 0 ||
	    (st = material(kc, user, "client-key", owner, &c->key)) != 0)
		return st;
	if ((c->cert.path || c->cert.data) != (c->key.path || c->key.data))
		return kc_fail(kc, "user \"%s\": client-certificate and client-key go together",
		               uname);
	return MUSTER_STATUS_SUCCESS;
}

muster_status k8s_kubeconfig(struct k8s_run *run, const char *path, int explicit_path)
{
	struct kc kc;
	yaml_parser_t parser;
	char *text, ebuf[128];
	size_t len;
	muster_status st;

	memset(&kc, 0, sizeof(kc));
	kc.run = run;
	kc.path = path;
	if (plugin_read_file(path, K8S_MAX_FILE, &text, &len) != 0) {
		int err = errno;

		run->host->fail(run->call, "cannot read kubeconfig %s: %s", path,
		                err == EFBIG ? "larger than 4 MiB"
		                             : plugin_strerror(err, ebuf, sizeof(ebuf)));
		return !explicit_path && err == ENOENT ? MUSTER_STATUS_NOTFOUND
		                                       : MUSTER_STATUS_UNAVAIL;
	}
	if (!yaml_parser_initialize(&parser)) {
		free(text);
		return k8s_nomem(run);
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &kc.doc)) {
		/* Not the text around the error: it may be key material. */
		st = kc_fail(&kc, "not valid YAML: %s at line %lu, column %lu",
		             parser.problem ? parser.problem : "syntax error",
		             (unsigned long)parser.problem_mark.line + 1,
		             (unsigned long)parser.problem_mark.column + 1);
		yaml_parser_delete(&parser);
		free(text);
		return st;
	}
	if (yaml_document_get_root_node(&kc.doc) == NULL)
		st = kc_fail(&kc, "empty");
	else
		st = use_context(&kc);
	yaml_document_delete(&kc.doc);
	yaml_parser_delete(&parser);
	/* The text may hold tokens and keys. */
	{
		volatile char *p = text;
		size_t i;

		for (i = 0; i < len; i++)
			p[i] = 0;
	}
	free(text);
	return st;
}
