/* Does a no_proxy list leave a host out of the proxy?  The rules of gRPC
 * and of the common HTTP clients (curl, Python's urllib and requests). */
#include <config.h>

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "noproxy.h"

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

/* One entry of a no_proxy list covers `host`: "*", or for a name the name
 * itself or a domain it is in (".example.com" or "example.com"), for an
 * address the same address or a CIDR block holding it. */
static int entry_covers(const char *host, const char *entry, size_t len)
{
	size_t hlen = strlen(host);
	unsigned char a[16], e[16];
	char ip[64];

	if (len == 1 && entry[0] == '*')
		return 1;
	if (parse_ip(host, a) != 0) {
		if (memchr(entry, '/', len) != NULL)
			return in_cidr(host, entry, len);
		if (len >= sizeof(ip))
			return 0;
		memcpy(ip, entry, len);
		ip[len] = '\0';
		return parse_ip(ip, e) != 0 && memcmp(a, e, sizeof(a)) == 0;
	}
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

int noproxy_covers(const char *list, const char *host)
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
