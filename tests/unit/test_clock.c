/* lib/clock.c: the monotonic clock, time left to a deadline, sleeps and
 * backoff. */
#include <config.h>

#include <limits.h>

#include "../lib/test.h"

#include "lib/clock.h"

static void sleeps_on_the_monotonic_clock(void **state)
{
	long long t0 = clock_now_ms();

	(void)state;
	clock_sleep_ms(30);
	assert_in_range(clock_now_ms() - t0, 30, 5000);
	t0 = clock_now_ms();
	clock_sleep_ms(0);
	clock_sleep_ms(-5);
	assert_in_range(clock_now_ms() - t0, 0, 20);
	assert_true(clock_wall_s() > 1500000000LL);
}

static void time_left_until_a_deadline(void **state)
{
	long long now = clock_now_ms();

	(void)state;
	assert_in_range(clock_ms_until(now + 60000), 50000, 60000);
	assert_int_equal(clock_ms_until(now - 1), 0);
	assert_int_equal(clock_ms_until(now - 60000), 0);
	assert_true(clock_ms_until(LLONG_MAX) >= 2147483647L); /* no overflow */
}

static void backoff_doubles_up_to_its_cap(void **state)
{
	struct backoff capped = { 200, 2000 }, open = { 100, 0 };
	static const long want[] = { 200, 400, 800, 1600, 2000, 2000 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(backoff_step(&capped), want[i]);
	for (i = 0; i < 6; i++)
		assert_int_equal(backoff_step(&open), 100L << i);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sleeps_on_the_monotonic_clock),
		cmocka_unit_test(time_left_until_a_deadline),
		cmocka_unit_test(backoff_doubles_up_to_its_cap),
	};
	return run_tap_tests(tests, NULL, NULL);
}
