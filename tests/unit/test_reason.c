/* lib/reason.c and lib/quote.c: how a reason is written and how outside
 * text shows in it. */
#include <config.h>

#include <string.h>

#include "../lib/test.h"

#include "lib/quote.h"
#include "lib/reason.h"

static void reasons_fail(void **state)
{
	char why[8];
	(void)state;
	assert_int_equal(reason_fail(why, sizeof(why), "line %d is %s", 12, "empty"), -1);
	assert_string_equal(why, "line 12"); /* cut to fit */
	assert_int_equal(reason_fail(NULL, 0, "nowhere to go"), -1);
}

static void quoted_escaped_and_cut(void **state)
{
	char out[32], tiny[7];
	(void)state;
	quote_text(out, sizeof(out), "a\"b\\c\n\t\x1b\xc3", 9);
	assert_string_equal(out, "\"a\\\"b\\\\c\\n\\t\\x1b\\xc3\"");
	quote_text(out, sizeof(out), "nul\0inside", 10); /* by length, not to the NUL */
	assert_string_equal(out, "\"nul\\x00inside\"");
	quote_text(out, 16, "0123456789abcdefghij", 20);
	assert_string_equal(out, "\"0123456789...\"");
	assert_true(strlen(out) < 16);
	quote_text(tiny, sizeof(tiny), "x", 1);
	assert_string_equal(tiny, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reasons_fail),
		cmocka_unit_test(quoted_escaped_and_cut),
	};
	return run_tap_tests(tests, NULL, NULL);
}
