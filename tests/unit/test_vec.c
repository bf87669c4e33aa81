/* lib/vec.c: growable arrays. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>

#include "../lib/test.h"

#include "lib/vec.h"

struct pair {
	long a, b;
};

static void doubles_until_it_holds(void **state)
{
	struct pair *v = NULL;
	size_t cap = 0;
	(void)state;
	assert_int_equal(vec_reserve(&v, &cap, 1, sizeof(*v)), 0);
	assert_int_equal(cap, 1);
	v[0].a = 7;
	assert_int_equal(vec_reserve(&v, &cap, 2, sizeof(*v)), 0);
	assert_int_equal(cap, 2);
	assert_int_equal(vec_reserve(&v, &cap, 3, sizeof(*v)), 0);
	assert_int_equal(cap, 4);
	assert_int_equal(vec_reserve(&v, &cap, 4, sizeof(*v)), 0);
	assert_int_equal(cap, 4); /* room enough: nothing moves */
	assert_int_equal(vec_reserve(&v, &cap, 1000, sizeof(*v)), 0);
	assert_int_equal(cap, 1024);
	assert_int_equal(v[0].a, 7);
	v[999].b = 1;
	free(v);
}

static void refuses_what_size_t_cannot_count(void **state)
{
	long *v = NULL;
	size_t cap = 0;
	(void)state;
	assert_int_equal(vec_reserve(&v, &cap, SIZE_MAX / 2, sizeof(*v)), -1);
	assert_null(v);
	assert_int_equal(cap, 0);
	assert_int_equal(vec_reserve(&v, &cap, 4, sizeof(*v)), 0);
	assert_int_equal(vec_reserve(&v, &cap, SIZE_MAX, 1), -1);
	assert_int_equal(cap, 4); /* unchanged */
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(doubles_until_it_holds),
		cmocka_unit_test(refuses_what_size_t_cannot_count),
	};
	return run_tap_tests(tests, NULL, NULL);
}
