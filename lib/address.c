#include <config.h>

#include "address.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "quote.h"
#include "reason.h"

#define MAX_HOST 253  /* a DNS name, without the final dot of an absolute one */
#define MAX_LABEL 63
#define MAX_ZONE 15   /* IFNAMSIZ - 1 */
#define MAX_IPV6 45   /* INET6_ADDRSTRLEN - 1 */

/* A character no host name has, for the message. */
static void show_char(char *buf, size_t size, unsigned char c)
{
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, size, "'%c'", c);
	else
		snprintf(buf, size, "byte 0x%02x", c);
}

static int is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int port_check(const char *port, char *why, size_t size)
{
	long v = 0;
	size_t n;

	for (n = 0; port[n] >= '0' && port[n] <= '9' && n < 6; n++)
		v = v * 10 + (port[n] - '0');
	if (port[0] == '\0')
		return reason_fail(why, size, "the port is missing");
	if (port[n] != '\0' || n > 5 || v < 1 || v > 65535)
		return reason_fail(why, size, "the port is not a number from 1 to 65535");
	return 0;
}

/* An IPv6 address (`subject` in the reasons: what is in the brackets),
 * and a zone exactly when it is link-local (fe80::/10), where the address
 * alone names no interface. */
static int ipv6_check(const char *subject, const char *host, size_t len, char *why, size_t size)
{
	char ip[MAX_IPV6 + 1];
	unsigned char bin[16];
	const char *zone = memchr(host, '%', len);
	size_t iplen = zone != NULL ? (size_t)(zone - host) : len, i;
	int link_local;

	if (iplen > MAX_IPV6 || memchr(host, '[', len) != NULL)
		return reason_fail(why, size, "%s is not an IPv6 address", subject);
	memcpy(ip, host, iplen);
	ip[iplen] = '\0';
	if (inet_pton(AF_INET6, ip, bin) != 1)
		return reason_fail(why, size, "%s is not an IPv6 address", subject);
	link_local = bin[0] == 0xfe && (bin[1] & 0xc0) == 0x80;
	if (zone == NULL)
		return link_local ? reason_fail(why, size, "a link-local IPv6 address needs its zone "
		                                           "(\"[fe80::1%%eth0]\")")
		                  : 0;
	if (!link_local)
		return reason_fail(why, size, "only a link-local IPv6 address takes a zone");
	zone++;
	len -= iplen + 1;
	if (len == 0 || len > MAX_ZONE)
		return reason_fail(why, size, "the zone is not an interface name");
	for (i = 0; i < len; i++)
		if (!is_alnum(zone[i]) && zone[i] != '-' && zone[i] != '_' && zone[i] != '.')
			return reason_fail(why, size, "the zone is not an interface name");
	return 0;
}

/* A DNS name, or an IPv4 address when the last label is a number (a
 * top-level domain never is: "1.2.3" or "300.1.1.1" are not names). */
static int host_check(const char *host, size_t len, char *why, size_t size)
{
	size_t i, start = 0;
	int digits = 1;

	if (len == 0)
		return reason_fail(why, size, "the host is empty");
	if (len > 1 && host[len - 1] == '.')
		len--; /* an absolute name */
	if (len > MAX_HOST)
		return reason_fail(why, size, "the host name is longer than %d characters", MAX_HOST);
	for (i = 0; i <= len; i++) {
		char c = i < len ? host[i] : '.';
		char shown[16];

		if (c == '.') {
			if (i == start)
				return reason_fail(why, size, "the host name has an empty label");
			if (host[start] == '-' || host[i - 1] == '-')
				return reason_fail(why, size,
				                   "a label of the host name begins or ends with '-'");
			if (i - start > MAX_LABEL)
				return reason_fail(why, size,
				                   "a label of the host name is longer than %d characters",
				                   MAX_LABEL);
			if (i < len) {
				start = i + 1;
				digits = 1;
			}
			continue;
		}
		/* The good characters first: this loop runs for every task. */
		if (!is_alnum(c) && c != '-' && c != '_') {
			if (c == ':')
				return reason_fail(why, size, "a ':' in the host (an IPv6 address goes "
				                               "in brackets: \"[2001:db8::1]:8470\")");
			if (c == '[' || c == ']')
				return reason_fail(why, size, "a bracket inside the host (an IPv6 "
				                               "address is bracketed once, from the start)");
			show_char(shown, sizeof(shown), (unsigned char)c);
			return reason_fail(why, size, "%s cannot be in a host name", shown);
		}
		digits = digits && c >= '0' && c <= '9';
	}
	if (digits) {
		char ip[16];
		unsigned char bin[4];

		if (len >= sizeof(ip))
			return reason_fail(why, size, "the host is not an IPv4 address");
		memcpy(ip, host, len);
		ip[len] = '\0';
		if (inet_pton(AF_INET, ip, bin) != 1)
			return reason_fail(why, size, "the host is not an IPv4 address");
	}
	return 0;
}

/* What a host name may hold: 1 a letter, '-' or '_'; 2 a digit. */
static const unsigned char name_char[256] = {
	['a' ... 'z'] = 1, ['A' ... 'Z'] = 1, ['-'] = 1, ['_'] = 1, ['0' ... '9'] = 2,
};

size_t address_plain_length(const char *a)
{
	size_t i, label = 0;
	int digits = 1;
	long port = 0;

	for (i = 0;; i++) {
		char c = a[i];
		unsigned char k = name_char[(unsigned char)c];
		if (k) {
			digits &= k >> 1;
			continue;
		}
		if (c != '.' && c != ':')
			return 0;
		if (i == label || a[label] == '-' || a[i - 1] == '-' || i - label > MAX_LABEL)
			return 0;
		if (c == ':')
			break;
		label = i + 1;
		digits = 1;
	}
	if (digits || i > MAX_HOST)
		return 0;
	for (size_t n = ++i; a[i] >= '0' && a[i] <= '9'; i++)
		if (i - n >= 5 || (port = port * 10 + (a[i] - '0')) > 65535)
			return 0;
	return a[i] == '\0' && port >= 1 ? i : 0;
}

void address_join(char *out, const char *host, size_t hostlen, long port)
{
	char digits[24];
	size_t n = 0;
	memcpy(out, host, hostlen);
	out[hostlen++] = ':';
	do
		digits[n++] = (char)('0' + port % 10);
	while ((port /= 10) > 0);
	while (n > 0)
		out[hostlen++] = digits[--n];
	out[hostlen] = '\0';
}

int address_check(const char *address, char *why, size_t size)
{
	return address_plain_length(address) ? 0 : address_check_careful(address, why, size);
}

/* address_check_careful()'s reason alone. */
static int check(const char *address, char *why, size_t size)
{
	const char *colon;

	if (address[0] == '[') {
		const char *close = strchr(address, ']');

		if (strchr(address + 1, '[') != NULL)
			return reason_fail(why, size, "a second '[' (an IPv6 address is bracketed once)");
		if (close == NULL)
			return reason_fail(why, size, "'[' without ']'");
		if (close[1] != ':')
			return reason_fail(why, size, "no ':PORT' after the ']'");
		if (ipv6_check("what is in brackets", address + 1, (size_t)(close - address - 1), why,
		               size) < 0)
			return -1;
		return port_check(close + 2, why, size);
	}
	colon = strrchr(address, ':');
	if (colon == NULL)
		return reason_fail(why, size, address[0] ? "no ':PORT'" : "it is empty");
	if (host_check(address, (size_t)(colon - address), why, size) < 0)
		return -1;
	return port_check(colon + 1, why, size);
}

int address_check_careful(const char *address, char *why, size_t size)
{
	char reason[160], shown[104];

	if (check(address, reason, sizeof(reason)) == 0)
		return 0;
	quote_text(shown, sizeof(shown), address, strlen(address));
	return reason_fail(why, size, "address %s is not HOST:PORT: %s", shown, reason);
}

int address_check_host(const char *host, char *why, size_t size)
{
	size_t len = strlen(host);

	if (host[0] == '[' && len > 1 && host[len - 1] == ']')
		return ipv6_check("what is in brackets", host + 1, len - 2, why, size);
	if (strchr(host, ':') != NULL)
		return ipv6_check("the host", host, len, why, size);
	return host_check(host, len, why, size);
}

int address_is_placeholder(const char *address)
{
	static const char tld[] = ".unknown.invalid";
	const size_t n = sizeof(tld) - 1;
	const char *colon = address[0] == '[' ? NULL : strrchr(address, ':');
	size_t len = colon ? (size_t)(colon - address) : strlen(address);

	if (address[0] == '[' || len < n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = address[len - n + i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != tld[i])
			return 0;
	}
	return 1;
}
