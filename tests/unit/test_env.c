/* lib/env.c: the environment reader every backend uses, its values
 * checked and its errors naming the variable, the value and the reason. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/test.h"

#include "lib/env.h"

#define SET(name, value) assert_int_equal(setenv((name), (value), 1), 0)

static void unset_set_and_detected(void **state)
{
	static const char *const one[] = { "T_A", NULL };
	static const char *const two[] = { "T_A", "T_B", NULL };
	static const char *const three[] = { "T_A", "T_B", "T_C", NULL };
	struct env_reader r = ENV_READER_INIT;
	(void)state;
	unsetenv("T_A");
	unsetenv("T_B");
	unsetenv("T_C");
	assert_null(env_get("T_A"));
	assert_null(env_str(&r, "T_A"));
	assert_string_equal(r.why, "T_A is not set");
	assert_int_equal(env_any(&r, one), -1);
	assert_string_equal(r.why, "T_A is not set");
	assert_int_equal(env_any(&r, two), -1);
	assert_string_equal(r.why, "neither T_A nor T_B is set");
	assert_int_equal(env_any(&r, three), -1);
	assert_string_equal(r.why, "none of T_A, T_B and T_C is set");
	SET("T_C", ""); /* empty is set */
	assert_int_equal(env_any(&r, three), 2);
	assert_string_equal(env_str(&r, "T_C"), "");
	unsetenv("T_C");
}

static void integers_in_a_range(void **state)
{
	static const char *const names[] = { "T_RANK", "T_OTHER_RANK", NULL };
	struct env_reader r = ENV_READER_INIT;
	const char *which = NULL;
	long v = -1;
	(void)state;
	unsetenv("T_N");
	assert_int_equal(env_int(&r, "T_N", 0, 7, &v), 0);
	assert_string_equal(r.why, "T_N is not set");
	SET("T_N", " 7\n");
	assert_int_equal(env_int(&r, "T_N", 0, 7, &v), 1);
	assert_int_equal(v, 7);
	SET("T_N", "8");
	assert_int_equal(env_int(&r, "T_N", 0, 7, &v), -1);
	assert_string_equal(r.why, "T_N must be an integer from 0 to 7, not \"8\"");
	SET("T_N", "");
	assert_int_equal(env_int(&r, "T_N", 1, 7, &v), -1);
	assert_string_equal(r.why, "T_N must be an integer from 1 to 7, not \"\"");
	SET("T_N", "-1");
	assert_int_equal(env_int(&r, "T_N", 0, 7, &v), -1);
	SET("T_N", "+1");
	assert_int_equal(env_int(&r, "T_N", 0, 7, &v), -1);
	SET("T_N", "99999999999999999999999");
	assert_int_equal(env_int(&r, "T_N", 0, 7, &v), -1);
	SET("T_N", "3\x1b[2J");
	assert_int_equal(env_int(&r, "T_N", 0, 7, &v), -1);
	assert_string_equal(r.why, "T_N must be an integer from 0 to 7, not \"3\\x1b[2J\"");
	assert_int_equal(v, 7); /* untouched by the failures */
	unsetenv("T_N");

	unsetenv("T_RANK");
	SET("T_OTHER_RANK", "2");
	assert_int_equal(env_int_first(&r, names, 0, 9, &v, &which), 1);
	assert_int_equal(v, 2);
	assert_string_equal(which, "T_OTHER_RANK");
	SET("T_RANK", "x");
	assert_int_equal(env_int_first(&r, names, 0, 9, &v, &which), -1);
	assert_string_equal(r.why, "T_RANK must be an integer from 0 to 9, not \"x\"");
	unsetenv("T_RANK");
	unsetenv("T_OTHER_RANK");
	assert_int_equal(env_int_first(&r, names, 0, 9, &v, &which), 0);
	assert_string_equal(r.why, "neither T_RANK nor T_OTHER_RANK is set");
}

static void an_index_below_its_count(void **state)
{
	struct env_reader r = ENV_READER_INIT;
	long v = -1;
	(void)state;
	SET("T_I", "3");
	assert_int_equal(env_index(&r, "T_I", 4, "T_SIZE", &v), 1);
	assert_int_equal(v, 3);
	SET("T_I", "4");
	assert_int_equal(env_index(&r, "T_I", 4, "T_SIZE", &v), -1);
	assert_string_equal(r.why, "T_I must be an index below 4 (T_SIZE), not \"4\"");
	assert_int_equal(env_index(&r, "T_I", 4, NULL, &v), -1);
	assert_string_equal(r.why, "T_I must be an index below 4, not \"4\"");
	unsetenv("T_I");
}

static void lists_split_and_trimmed(void **state)
{
	struct env_reader r = ENV_READER_INIT;
	struct env_list l;
	(void)state;
	SET("T_L", " a, b ,c\n");
	assert_int_equal(env_list(&r, "T_L", ",", 3, &l), 1);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.items[0], "a");
	assert_string_equal(l.items[1], "b");
	assert_string_equal(l.items[2], "c");
	env_list_free(&l);
	assert_int_equal(env_list(&r, "T_L", ",", 2, &l), -1);
	assert_string_equal(r.why, "T_L=\" a, b ,c\\n\": more than 2 items");
	assert_null(l.items);
	SET("T_L", "a,,b");
	assert_int_equal(env_list(&r, "T_L", ",", 9, &l), -1);
	assert_string_equal(r.why, "T_L=\"a,,b\": item 2 is empty");
	SET("T_L", "a,");
	assert_int_equal(env_list(&r, "T_L", ",", 9, &l), -1);
	assert_string_equal(r.why, "T_L=\"a,\": item 2 is empty");
	SET("T_L", " \n");
	assert_int_equal(env_list(&r, "T_L", ",", 9, &l), -1);
	assert_string_equal(r.why, "T_L is empty");
	/* Runs of blank separators are one. */
	SET("T_L", "10.0.0.1\n\n10.0.0.2\n");
	assert_int_equal(env_list(&r, "T_L", "\n", 9, &l), 1);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.items[1], "10.0.0.2");
	env_list_free(&l);
	SET("T_L", "a,\nb  c");
	assert_int_equal(env_list(&r, "T_L", ", \n", 9, &l), 1);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.items[2], "c");
	env_list_free(&l);
	unsetenv("T_L");
	assert_int_equal(env_list(&r, "T_L", ",", 9, &l), 0);
	env_list_free(&l); /* safe on what a read left empty */
}

static void hosts_and_addresses(void **state)
{
	struct env_reader r = ENV_READER_INIT;
	struct env_list l;
	const char *s = NULL;
	(void)state;
	SET("T_H", "w-0,10.0.0.2,[fd00::1],fd00::2");
	assert_int_equal(env_hosts(&r, "T_H", ",", 9, &l), 1);
	assert_int_equal(l.n, 4);
	env_list_free(&l);
	SET("T_H", "w-0,b c");
	assert_int_equal(env_hosts(&r, "T_H", ",", 9, &l), -1);
	assert_string_equal(r.why, "T_H item 2 must be a host name or IP address, not \"b c\": "
	                           "' ' cannot be in a host name");
	assert_null(l.items);
	SET("T_H", "-w");
	assert_int_equal(env_host(&r, "T_H", &s), -1);
	assert_string_equal(r.why, "T_H must be a host name or IP address, not \"-w\": a label of "
	                           "the host name begins or ends with '-'");
	SET("T_H", "w-0.svc");
	assert_int_equal(env_host(&r, "T_H", &s), 1);
	assert_string_equal(s, "w-0.svc");
	SET("T_A", "w-0:0");
	assert_int_equal(env_address(&r, "T_A", &s), -1);
	assert_string_equal(r.why, "T_A: address \"w-0:0\" is not HOST:PORT: the port is not a "
	                           "number from 1 to 65535");
	SET("T_A", "[fd00::1]:29500");
	assert_int_equal(env_address(&r, "T_A", &s), 1);
	assert_string_equal(s, "[fd00::1]:29500");
	unsetenv("T_H");
	unsetenv("T_A");
}

struct seen {
	char text[256];
};

static void note(void *data, const char *name, const char *value)
{
	struct seen *s = data;
	size_t used = strlen(s->text);

	snprintf(s->text + used, sizeof(s->text) - used, "%s=%s;", name, value ? value : "(unset)");
}

/* What `muster resolve --explain` will list: every variable looked up,
 * once, with its value. */
static void every_lookup_is_recorded(void **state)
{
	static const char *const marks[] = { "T_X", "T_Y", NULL };
	struct seen seen = { "" };
	struct env_reader r = { note, &seen, "" };
	long v;
	const char *which;
	(void)state;
	unsetenv("T_X");
	SET("T_Y", "5");
	assert_int_equal(env_int_first(&r, marks, 0, 9, &v, &which), 1);
	assert_int_equal(env_int(&r, "T_Y", 0, 9, &v), 1);
	assert_string_equal(seen.text, "T_X=(unset);T_Y=5;T_Y=5;");
	unsetenv("T_Y");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unset_set_and_detected),
		cmocka_unit_test(integers_in_a_range),
		cmocka_unit_test(an_index_below_its_count),
		cmocka_unit_test(lists_split_and_trimmed),
		cmocka_unit_test(hosts_and_addresses),
		cmocka_unit_test(every_lookup_is_recorded),
	};
	return run_tap_tests(tests, NULL, NULL);
}
