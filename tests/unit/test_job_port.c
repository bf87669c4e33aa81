/*
 * lib/job_port.c: the port a job id derives.  Vectors computed apart (an
 * FNV-1a 64 written in Python from the published constants); every port
 * inside 1024..32767 or 61000..65535 and each of the 36,280 reached.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/test.h"

#include "lib/job_port.h"

static void test_vectors(void **state)
{
	(void)state;
	assert_int_equal(job_port("123456"), 19818);
	assert_int_equal(job_port("98765"), 1248);
	assert_int_equal(job_port("7"), 62862);
	assert_int_equal(job_port("12345.batch"), 64598);
	assert_int_equal(job_port(""), 1141);
}

/* Outside the ephemeral range, and all of the rest used: a million ids
 * reach each of the 36,280 ports. */
static void test_range(void **state)
{
	char *seen = calloc(65536, 1), id[16];
	size_t distinct = 0;

	(void)state;
	assert_non_null(seen);
	for (long i = 0; i < 1000000; i++) {
		snprintf(id, sizeof(id), "%ld", i);
		int p = job_port(id);
		assert_true((p >= 1024 && p <= 32767) || (p >= 61000 && p <= 65535));
		distinct += !seen[p];
		seen[p] = 1;
	}
	assert_int_equal(distinct, JOB_PORT_COUNT);
	free(seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_range),
	};
	return run_tap_tests(tests, NULL, NULL);
}
