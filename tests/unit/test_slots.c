/* Hosts and their slots (plugins/common/slots.c): adding, and adopting an
 * array of distinct hosts, which is hashed only when a lookup needs it. */
#include "../lib/test.h"

#include <stdlib.h>

#include "../../plugins/common/slots.h"

static void adds_in_order(void **state)
{
	struct slots s;

	(void)state;
	slots_init(&s);
	assert_int_equal(slots_add(&s, "b", 1, 10), 0);
	assert_int_equal(slots_add(&s, "a", 2, 10), 1);
	assert_int_equal(slots_add(&s, "b", 3, 10), 0);
	assert_int_equal(s.nhosts, 2);
	assert_int_equal(s.hosts[0].tasks, 4);
	assert_int_equal(s.total, 6);
	assert_int_equal(slots_add(&s, "c", 5, 10), -1); /* past 10 in all */
	assert_int_equal(s.total, 6);
	slots_free(&s);
}

static void adopts_then_looks_up(void **state)
{
	struct slots s;
	struct slot_host *hosts = malloc(3 * sizeof(*hosts));

	(void)state;
	assert_non_null(hosts);
	hosts[0] = (struct slot_host){ "n1", 2 };
	hosts[1] = (struct slot_host){ "n2", 0 };
	hosts[2] = (struct slot_host){ "n3", 1 };
	slots_init(&s);
	assert_int_equal(slots_adopt(&s, hosts, 3, 100), 0);
	assert_int_equal(s.total, 3);
	assert_int_equal(s.nhosts, 3);
	/* The first lookup indexes the adopted hosts: n2 is found, not added. */
	assert_int_equal(slots_add(&s, "n2", 4, 100), 1);
	assert_int_equal(s.hosts[1].tasks, 4);
	assert_int_equal(slots_add(&s, "n4", 1, 100), 3);
	assert_int_equal(slots_add(&s, "n1", 1, 100), 0);
	assert_int_equal(s.nhosts, 4);
	assert_int_equal(s.total, 9);
	slots_free(&s);
}

static void refuses_too_many(void **state)
{
	struct slots s;
	struct slot_host hosts[2] = { { "a", 6 }, { "b", 5 } };

	(void)state;
	slots_init(&s);
	assert_int_equal(slots_adopt(&s, hosts, 2, 10), -1);
	assert_int_equal(s.nhosts, 0); /* untouched: the array is still the caller's */
	slots_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(adds_in_order),
		cmocka_unit_test(adopts_then_looks_up),
		cmocka_unit_test(refuses_too_many),
	};
	return run_tap_tests(tests, NULL, NULL);
}
