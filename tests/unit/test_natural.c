/* The numeric-aware name order the bundled plugins share
 * (plugins/common/natural.c). */
#include <config.h>

#include "../lib/test.h"

#include "../../plugins/common/natural.h"

static int sign(int c)
{
	return (c > 0) - (c < 0);
}

/* a < b, and the order is antisymmetric. */
static void before(const char *a, const char *b)
{
	if (sign(natural_cmp(a, b)) != -1 || sign(natural_cmp(b, a)) != 1)
		fail_msg("\"%s\" should sort before \"%s\"", a, b);
}

static void orders(void **state)
{
	before("worker-9", "worker-10");
	before("worker-10", "worker-11");
	before("worker-2", "worker-10");
	before("tensorflow-worker-999", "tensorflow-worker-1000");
	before("w-19", "w-100");
	before("w-1a", "w-12");            /* the run ends at the first difference */
	before("w-12", "w-12a");
	before("w-01", "w-1");             /* equal as numbers: plain order */
	before("w-01", "w-2");             /* leading zeros do not count */
	before("w-007", "w-10");
	before("a", "b");
	before("ps-0", "worker-0");
	before("w-9-b", "w-10-a");
	before("w-10-a", "w-10-b");
	before("w-", "w-0");
	before("", "a");
	before("x99y", "x100");
	assert_int_equal(natural_cmp("worker-7", "worker-7"), 0);
	assert_int_equal(natural_cmp("", ""), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(orders),
	};

	return run_tap_tests(tests, NULL, NULL);
}
