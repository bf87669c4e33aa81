/* muster doctor: proxy variables.  gRPC (JAX's coordinator, TensorFlow's
 * servers) sends a connection through the proxy that grpc_proxy,
 * https_proxy or http_proxy names, unless no_grpc_proxy, else no_proxy,
 * covers the server's name; a proxy that cannot reach the peers then holds
 * every connection until the framework's own timeout.  HTTP clients
 * (rendezvous over HTTP, object stores) read the upper-case names and
 * NO_PROXY as well.  A proxy's value is never printed: it may carry a
 * password. */
#include <config.h>

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "doctor.h"

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

/* An address (IPv4 or IPv6) as 16 bytes, IPv4 mapped. */
static int parse_ip(const char *s, unsigned char out[16])
{
	struct in_addr v4;
	if (inet_pton(AF_INET, s, &v4) == 1) {
		memset(out, 0, 10);
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &v4, 4);
		return 4;
	}
	return inet_pton(AF_INET6, s, out) == 1 ? 6 : 0;
}

/* "10.0.0.0/8", "fd00::/64": `host`, an address, is inside. */
static int in_cidr(const char *host, const char *entry, size_t len)
{
	char net[64];
	unsigned char a[16], n[16];
	const char *slash = memchr(entry, '/', len);
	char *end;

	if (slash == NULL || (size_t)(slash - entry) >= sizeof(net))
		return 0;
	memcpy(net, entry, (size_t)(slash - entry));
	net[slash - entry] = '\0';
	int fa = parse_ip(host, a), fn = parse_ip(net, n);
	long bits = strtol(slash + 1, &end, 10);
	if (fa == 0 || fa != fn || end != entry + len || bits < 0 || bits > (fn == 4 ? 32 : 128))
		return 0;
	if (fn == 4)
		bits += 96;
	for (long i = 0; i < bits; i++)
		if (((a[i / 8] ^ n[i / 8]) >> (7 - i % 8)) & 1)
			return 0;
	return 1;
}

/* One entry of a no_proxy list covers `host`: "*", the name itself, a
 * domain it is in (".example.com" or "example.com"), an address or a
 * CIDR block holding it. */
static int entry_covers(const char *host, const char *entry, size_t len)
{
	size_t hlen = strlen(host);

	if (len == 1 && entry[0] == '*')
		return 1;
	if (memchr(entry, '/', len) != NULL)
		return in_cidr(host, entry, len);
	if (len > 1 && entry[0] == '*' && entry[1] == '.') {
		entry++;
		len--;
	}
	if (len > 0 && entry[0] == '.') {
		entry++;
		len--;
	}
	if (len == 0 || hlen < len || strncasecmp(host + hlen - len, entry, len) != 0)
		return 0;
	return hlen == len || host[hlen - len - 1] == '.';
}

static int list_covers(const char *list, const char *host)
{
	for (const char *p = list; *p != '\0';) {
		p += strspn(p, " \t,");
		size_t len = strcspn(p, ",");
		size_t trimmed = len;
		while (trimmed > 0 && (p[trimmed - 1] == ' ' || p[trimmed - 1] == '\t'))
			trimmed--;
		if (trimmed > 0 && entry_covers(host, p, trimmed))
			return 1;
		p += len;
	}
	return 0;
}

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
	const char *cover_name = v->cover[0], *list = getenv(v->cover[0]);
	char missing[512] = "", all[512] = "", fix[1024];
	size_t nmissing = 0;

	if (list == NULL) {
		cover_name = v->cover[1];
		list = getenv(v->cover[1]);
	}
	for (size_t i = 0; i < dl->nhosts; i++) {
		const char *host = dl->host[i];
		list_add(all, sizeof(all), host);
		if (list == NULL || !list_covers(list, host)) {
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
		const char *value = getenv(proxy_vars[i].name);
		if (value == NULL || value[0] == '\0')
			continue;
		any = 1;
		check_var(r, &proxy_vars[i], dl);
	}
	if (!any)
		doctor_add(r, DOCTOR_OK, "proxy", "http_proxy, https_proxy, grpc_proxy", NULL,
		           "none set (upper case neither)");
}
