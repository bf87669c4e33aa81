/* lib/address.c: the one check of a task address, and of a host alone. */
#include <config.h>

#include <string.h>

#include "../lib/test.h"

#include "lib/address.h"

/* Both ways through the check: the one-pass road for plain names and the
 * careful one for the rest must agree at every edge. */
static void addresses_at_the_edges(void **state)
{
	static const char *good[] = {
		"a:1", "a-b.c_d:65535", "n0001:8888", "A9:00080", "a.b.:80", "1.2.3.4:80",
		"x1.b2:3", "[fd00::1]:1",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.b:1", /* 63 */
	};
	static const char *bad[] = {
		"", "a", "a:", "a:0", "a:65536", "a:123456", "a:1x", "a:1:2", "-a:1", "a-:1",
		"a..b:1", ".a:1", "a b:1", "1.2.3:1", "300.1.1.1:1", "a.1:1", "x1.2:3",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.b:1", /* 64 */
		"a\x01:1", "a\xc3\xa9:1", "a[1]:1",
	};
	char why[200], host[300];
	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
		if (address_check(good[i], why, sizeof(why)) != 0)
			fail_msg("\"%s\" refused: %s", good[i], why);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (address_check(bad[i], why, sizeof(why)) == 0)
			fail_msg("\"%s\" accepted", bad[i]);
	/* 253 characters is the longest name, 254 one too many. */
	for (size_t len = 253; len <= 254; len++) {
		for (size_t i = 0; i < len; i++)
			host[i] = i % 50 == 49 ? '.' : 'h';
		strcpy(host + len, ":1");
		assert_int_equal(address_check(host, why, sizeof(why)), len == 253 ? 0 : -1);
	}
}

/* The reason names the address, escaped, and what is wrong; no buffer at
 * all is fine. */
static void reasons_name_the_address(void **state)
{
	char why[200];
	(void)state;
	assert_int_equal(address_check("h\x1b:1", why, sizeof(why)), -1);
	assert_string_equal(why, "address \"h\\x1b:1\" is not HOST:PORT: byte 0x1b cannot be in a "
	                         "host name");
	assert_int_equal(address_check("[1.2.3.4]:1", why, sizeof(why)), -1);
	assert_string_equal(why, "address \"[1.2.3.4]:1\" is not HOST:PORT: what is in brackets is "
	                         "not an IPv6 address");
	assert_int_equal(address_check("h:0", NULL, 0), -1);
}

/* A host alone, as MASTER_ADDR gives one: IPv6 with or without brackets,
 * and only the reason back. */
static void hosts_alone(void **state)
{
	static const char *good[] = { "h", "a-b.c", "10.0.0.1", "fd00::1", "[fd00::1]",
		                      "fe80::1%eth0", "[fe80::1%eth0]" };
	static const char *bad[] = { "", "h:1", "a b", "1.2.3", "fe80::1", "[fd00::1", "[h]" };
	char why[200];
	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		if (address_check_host(good[i], why, sizeof(why)) != 0)
			fail_msg("\"%s\" refused: %s", good[i], why);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (address_check_host(bad[i], why, sizeof(why)) == 0)
			fail_msg("\"%s\" accepted", bad[i]);
	assert_int_equal(address_check_host("a b", why, sizeof(why)), -1);
	assert_string_equal(why, "' ' cannot be in a host name");
	assert_int_equal(address_check_host("fd00::g", why, sizeof(why)), -1);
	assert_string_equal(why, "the host is not an IPv6 address");
}

static void joined_with_its_port(void **state)
{
	char out[32];
	(void)state;
	address_join(out, "host-x", 4, 65535);
	assert_string_equal(out, "host:65535");
	address_join(out, "h", 1, 1);
	assert_string_equal(out, "h:1");
}

/* Placeholders: a host under unknown.invalid, in any case, with or
 * without its port; nothing else under .invalid, and no IPv6 address. */
static void placeholders(void **state)
{
	(void)state;
	assert_true(address_is_placeholder("aws-batch-node-3.unknown.invalid:2222"));
	assert_true(address_is_placeholder("torchrun-node-1.unknown.invalid"));
	assert_true(address_is_placeholder("N.Unknown.INVALID:1"));
	assert_false(address_is_placeholder("fallback.invalid:1"));
	assert_false(address_is_placeholder("unknown.invalid:1")); /* no member name */
	assert_false(address_is_placeholder("xunknown.invalid:1"));
	assert_false(address_is_placeholder("host.example:1"));
	assert_false(address_is_placeholder("[fd00::1]:1"));
	assert_false(address_is_placeholder(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(addresses_at_the_edges),
		cmocka_unit_test(reasons_name_the_address),
		cmocka_unit_test(hosts_alone),
		cmocka_unit_test(joined_with_its_port),
		cmocka_unit_test(placeholders),
	};
	return run_tap_tests(tests, NULL, NULL);
}
