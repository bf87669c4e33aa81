/* muster doctor: proxy variables.  gRPC (JAX's coordinator, TensorFlow's
 * servers) sends a connection through the proxy that grpc_proxy,
 * https_proxy or http_proxy names, unless no_grpc_proxy, else no_proxy,
 * covers the server's name; a proxy that cannot reach the peers then holds
 * every connection until the framework's own timeout.  HTTP clients
 * (rendezvous over HTTP, object stores) read the upper-case names and
 * NO_PROXY as well.  A proxy's value is never printed: it may carry a
 * password. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"
#include "lib/env.h"
#include "noproxy.h"

struct proxy_var {
	const char *name;
	const char *cover[2]; /* the no_proxy lists that apply, the first set wins */
};

static const struct proxy_var proxy_vars[] = {
	{ "grpc_proxy", { "no_grpc_proxy", "no_proxy" } },
	{ "https_proxy", { "no_grpc_proxy", "no_proxy" } },
	{ "http_proxy", { "no_grpc_proxy", "no_proxy" } },
	{ "GRPC_PROXY", { "no_proxy", "NO_PROXY" } },
	{ "HTTPS_PROXY", { "no_proxy", "NO_PROXY" } },
	{ "HTTP_PROXY", { "no_proxy", "NO_PROXY" } },
};

/* Appends `s` to a comma-separated list in `buf`; past the room, "...". */
static void list_add(char *buf, size_t size, const char *s)
{
	size_t used = strlen(buf);
	if (used > 0 && strcmp(buf + used - 3, "...") == 0)
		return;
	if (used + strlen(s) + 5 >= size) {
		snprintf(buf + used, size - used, "%s...", used ? "," : "");
		return;
	}
	snprintf(buf + used, size - used, "%s%s", used ? "," : "", s);
}

static void check_var(struct doctor_rows *r, const struct proxy_var *v, const struct doctor_launch *dl)
{
	const char *cover_name = v->cover[0], *list = env_get(v->cover[0]);
	char missing[512] = "", all[512] = "", fix[1024];
	size_t nmissing = 0;

	if (list == NULL) {
		cover_name = v->cover[1];
		list = env_get(v->cover[1]);
	}
	for (size_t i = 0; i < dl->nhosts; i++) {
		const char *host = dl->host[i];
		list_add(all, sizeof(all), host);
		if (list == NULL || !noproxy_covers(list, host)) {
			list_add(missing, sizeof(missing), host);
			nmissing++;
		}
	}
	if (nmissing == 0) {
		doctor_add(r, DOCTOR_OK, "proxy", v->name, NULL, "set; %s covers every peer",
		           cover_name);
		return;
	}
	if (list && *list) /* keep what the list had */
		snprintf(fix, sizeof(fix), "export %s=\"$%s,%s\", or unset %s", cover_name,
		         cover_name, all, v->name);
	else
		snprintf(fix, sizeof(fix), "export %s=%s, or unset %s", cover_name, all, v->name);
	doctor_add(r, DOCTOR_PROBLEM, "proxy", v->name, fix,
	           "set, and %s%s does not cover %zu peer%s (%s): their gRPC connections would go "
	           "through the proxy and hang", cover_name, list ? "" : " (unset)", nmissing,
	           nmissing == 1 ? "" : "s", missing);
}

void doctor_check_proxy(struct doctor_rows *r, const struct doctor_launch *dl)
{
	int any = 0;

	for (size_t i = 0; i < sizeof(proxy_vars) / sizeof(proxy_vars[0]); i++) {
		const char *value = env_get(proxy_vars[i].name);
		if (value == NULL || value[0] == '\0')
			continue;
		any = 1;
		check_var(r, &proxy_vars[i], dl);
	}
	if (!any)
		doctor_add(r, DOCTOR_OK, "proxy", "http_proxy, https_proxy, grpc_proxy", NULL,
		           "none set (upper case neither)");
}
