/* <muster/reserve.h> in a libmuster built without the reservation server
 * (tfos/server/absent.c, compiled here in every configuration): opening a
 * server fails with MUSTER_EUNAVAIL and a message saying why, and every
 * other call, having no server, answers as for none. */
#include <config.h>

#include <string.h>

#include "../lib/test.h"

#include <muster/reserve.h>

static void open_says_the_server_is_not_built(void **state)
{
	muster_reserve_options o = MUSTER_RESERVE_OPTIONS_INIT;
	muster_reserve *srv = (muster_reserve *)&o; /* must be reset */
	muster_error err = { 0, "" };
	(void)state;
	o.cluster_size = 2;
	assert_int_equal(muster_reserve_open(&srv, &o, &err), MUSTER_EUNAVAIL);
	assert_null(srv);
	assert_int_equal(err.code, MUSTER_EUNAVAIL);
	assert_non_null(strstr(err.message, "built without the reservation server"));
	assert_non_null(strstr(err.message, "libcrypto"));
	/* No error struct: the code alone. */
	assert_int_equal(muster_reserve_open(&srv, &o, NULL), MUSTER_EUNAVAIL);
}

static void the_rest_have_no_server(void **state)
{
	muster_error err = { 0, "" };
	char *spec = (char *)"unset";
	(void)state;
	assert_int_equal(muster_reserve_port(NULL), -1);
	assert_int_equal(muster_reserve_run(NULL, &err), MUSTER_EINVAL);
	assert_string_equal(err.message, "reserve: no server");
	assert_int_equal(muster_reserve_registered(NULL), 0);
	assert_int_equal(muster_reserve_cluster_spec(&spec, NULL, &err), MUSTER_EINVAL);
	assert_null(spec);
	assert_int_equal(muster_reserve_missing_count(NULL, MUSTER_RESERVE_UNREGISTERED), 0);
	assert_int_equal(muster_reserve_missing_at(NULL, MUSTER_RESERVE_UNFETCHED, 0), -1);
	muster_reserve_stop(NULL);
	muster_reserve_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(open_says_the_server_is_not_built),
		cmocka_unit_test(the_rest_have_no_server),
	};
	return run_tap_tests(tests, NULL, NULL);
}
