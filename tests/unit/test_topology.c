/* The topology's pure parts tested directly: CPU lists as sysfs writes
 * them (and what it must not be believed for), and NCCL's PCI levels read
 * from device paths. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "../../core/local/local_cpus.h"
#include "../../core/local/local_devices.h"
#include "../../core/local/local_pcipath.h"

static void expect_list(const char *in, const char *want)
{
	struct cpus s;
	assert_int_equal(cpus_parse(&s, in), 0);
	char *out = cpus_format(&s);
	assert_string_equal(out, want);
	free(out);
}

static void cpu_lists_round_trip(void **state)
{
	(void)state;
	expect_list("0-3,8,10-11\n", "0-3,8,10-11");
	expect_list("  5,1,2,3 ", "1-3,5");
	expect_list("0-1,1-2", "0-2");
	expect_list("", "");
	expect_list("\n", "");
	expect_list("16383", "16383");
	expect_list("0-16383", "0-16383");
}

static void bad_cpu_lists_are_refused(void **state)
{
	static const char *const bad[] = {
		"0-", "-1", "3-1", "0,,1", "0,", ",0", "1 2", "0-1x", "16384", "0-99999999999999999999",
		"a", "0:2", "0-15:2/4",
	};
	struct cpus s;
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(cpus_parse(&s, bad[i]), -1);
}

static void cpu_sets_combine(void **state)
{
	struct cpus a, b;
	(void)state;
	assert_int_equal(cpus_parse(&a, "0-7"), 0);
	assert_int_equal(cpus_parse(&b, "4-11"), 0);
	cpus_and(&a, &b);
	assert_int_equal(cpus_count(&a), 4);
	assert_int_equal(cpus_next(&a, 0), 4);
	assert_int_equal(cpus_next(&a, 8), -1);
	cpus_or(&a, &b);
	assert_int_equal(cpus_next(&a, 0), 4);
	assert_int_equal(cpus_count(&a), 8);
	assert_int_equal(cpus_next(&a, 200), -1);
}

#define RC0 "/sys/devices/pci0000:00/0000:00:01.0"
#define RC8 "/sys/devices/pci0000:80/0000:80:01.0"

static void pci_levels_as_nccl_reads_them(void **state)
{
	(void)state;
	/* Two functions below one switch's downstream ports. */
	const char *a = RC0 "/0000:01:00.0/0000:02:00.0/0000:03:00.0";
	const char *b = RC0 "/0000:01:00.0/0000:02:01.0/0000:04:00.0";
	/* ... and one below a second switch under the first. */
	const char *c = RC0 "/0000:01:00.0/0000:02:02.0/0000:05:00.0/0000:06:00.0/0000:07:00.0";
	/* Another root port of the same root complex; another root complex. */
	const char *d = "/sys/devices/pci0000:00/0000:00:02.0/0000:08:00.0/0000:09:00.0/0000:0a:00.0";
	const char *e = RC8 "/0000:81:00.0/0000:82:00.0/0000:83:00.0";
	/* Straight below a root port, no switch. */
	const char *f = RC0 "/0000:0b:00.0";

	assert_int_equal(pci_level(a, 0, a, 0), LINK_SELF);
	assert_int_equal(pci_level(a, 0, b, 0), LINK_PIX);
	assert_int_equal(pci_level(a, 0, c, 0), LINK_PXB);
	assert_int_equal(pci_level(c, 0, a, 0), LINK_PXB);
	assert_int_equal(pci_level(a, 0, d, 0), LINK_PHB);
	assert_int_equal(pci_level(a, 0, e, 1), LINK_SYS);
	assert_int_equal(pci_level(a, 0, e, 0), LINK_PHB); /* one node, two root complexes */
	assert_int_equal(pci_level(a, 0, f, 0), LINK_PHB);
	assert_int_equal(pci_level(a, -1, b, -1), LINK_PIX);
	assert_int_equal(pci_level(a, 0, d, -1), LINK_SYS); /* an unknown node is NCCL's CPU -1 */
	assert_int_equal(pci_shared(a, b), 5);
	assert_int_equal(pci_shared(a, e), 2);
	assert_string_equal(link_name(LINK_PXB), "PXB");
	assert_null(link_name(LINK_UNKNOWN));
}

static void pci_functions_are_sysfs_names(void **state)
{
	(void)state;
	assert_true(pci_is_function("0000:07:00.0", 12));
	assert_true(pci_is_function("abcd:ef:1f.7", 12));
	assert_false(pci_is_function("0000:07:00.0", 11));
	assert_false(pci_is_function("0000:07:00", 10));
	assert_false(pci_is_function("0000:07:00.A", 12)); /* sysfs writes lower case */
	assert_false(pci_is_function("0000-07:00.0", 12));
	assert_false(pci_is_function("pci0000:00xx", 12));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpu_lists_round_trip),
		cmocka_unit_test(bad_cpu_lists_are_refused),
		cmocka_unit_test(cpu_sets_combine),
		cmocka_unit_test(pci_levels_as_nccl_reads_them),
		cmocka_unit_test(pci_functions_are_sysfs_names),
	};
	return run_tap_tests(tests, NULL, NULL);
}
