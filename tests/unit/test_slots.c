/* Hosts and their slots (plugins/common/slots.c): adding, and adopting an
 * array of distinct hosts, which is hashed only when a lookup needs it;
 * dealing ranks onto them as schedulers distribute tasks. */
#include <config.h>

#include "../lib/test.h"

#include <stdio.h>
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

/* Five adopted hosts (not a power of two) are indexed at a power of two:
 * a name that is not there is answered, not probed for ever. */
static void finds_after_adopting_five(void **state)
{
	struct slots s;
	struct slot_host *hosts = malloc(5 * sizeof(*hosts));
	static const char *const names[] = { "n8", "n9", "n10", "gpu01x1", "gpu02x1" };

	(void)state;
	assert_non_null(hosts);
	for (int i = 0; i < 5; i++)
		hosts[i] = (struct slot_host){ names[i], 1 };
	slots_init(&s);
	assert_int_equal(slots_adopt(&s, hosts, 5, 100), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(slots_find(&s, names[i]), i);
	for (int i = 0; i < 64; i++) {
		char absent[16];

		snprintf(absent, sizeof(absent), "x%d", i);
		assert_int_equal(slots_find(&s, absent), -1);
	}
	slots_free(&s);
}

/* Every rank's host and local rank, as a string "h0.l0 h1.l1 ...". */
static void deal_text(const struct slots *s, long plane, const size_t *rank_host, char *buf,
                      size_t size)
{
	struct slots_deal d;
	size_t host, used = 0;
	long first, count;

	buf[0] = '\0';
	assert_int_equal(slots_deal_init(&d, s, plane, rank_host), 0);
	while (slots_deal_next(&d, &host, &first, &count) == 1)
		for (long k = 0; k < count; k++)
			used += (size_t)snprintf(buf + used, size - used, "%s%zu.%ld", used ? " " : "",
			                         host, first + k);
	slots_deal_free(&d);
}

/* docs/ranks.md's vectors S5-S7: n[1-3] with 2, 2 and 1 tasks; a host of
 * no tasks between them changes nothing. */
static void deals_like_slurm(void **state)
{
	struct slots s;
	struct slot_host hosts[4] = { { "n1", 2 }, { "n2", 2 }, { "n0", 0 }, { "n3", 1 } };
	char text[128];
	size_t host;
	long local;

	(void)state;
	slots_init(&s);
	for (int i = 0; i < 4; i++)
		assert_true(slots_add(&s, hosts[i].name, hosts[i].tasks, 100) == i);
	deal_text(&s, 0, NULL, text, sizeof(text));
	assert_string_equal(text, "0.0 0.1 1.0 1.1 3.0");
	deal_text(&s, 1, NULL, text, sizeof(text));
	assert_string_equal(text, "0.0 1.0 3.0 0.1 1.1");
	deal_text(&s, 2, NULL, text, sizeof(text));
	assert_string_equal(text, "0.0 0.1 1.0 1.1 3.0");
	assert_int_equal(slots_place(&s, 1, NULL, 4, &host, &local), 0);
	assert_int_equal(host, 1);
	assert_int_equal(local, 1);
	assert_int_equal(slots_place(&s, 1, NULL, 5, &host, &local), -1);
	slots_free(&s);
}

/* Uneven counts: a host leaves the rounds when it runs out, the others
 * go on; plane 3 over 7, 2 and 4 tasks. */
static void deals_uneven_planes(void **state)
{
	struct slots s;
	char text[256];

	(void)state;
	slots_init(&s);
	slots_add(&s, "a", 7, 100);
	slots_add(&s, "b", 2, 100);
	slots_add(&s, "c", 4, 100);
	deal_text(&s, 3, NULL, text, sizeof(text));
	assert_string_equal(text, "0.0 0.1 0.2 1.0 1.1 2.0 2.1 2.2 0.3 0.4 0.5 2.3 0.6");
	deal_text(&s, 1, NULL, text, sizeof(text));
	assert_string_equal(text, "0.0 1.0 2.0 0.1 1.1 2.1 0.2 2.2 0.3 2.3 0.4 0.5 0.6");
	slots_free(&s);
}

/* Each rank's host given (an arbitrary step: n2,n1,n2). */
static void deals_given_hosts(void **state)
{
	struct slots s;
	const size_t rank_host[3] = { 1, 0, 1 };
	char text[64];
	size_t host;
	long local;

	(void)state;
	slots_init(&s);
	slots_add(&s, "n1", 1, 100);
	slots_add(&s, "n2", 2, 100);
	deal_text(&s, 0, rank_host, text, sizeof(text));
	assert_string_equal(text, "1.0 0.0 1.1");
	assert_int_equal(slots_place(&s, 0, rank_host, 2, &host, &local), 0);
	assert_int_equal(host, 1);
	assert_int_equal(local, 1);
	slots_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(adds_in_order),
		cmocka_unit_test(adopts_then_looks_up),
		cmocka_unit_test(refuses_too_many),
		cmocka_unit_test(finds_after_adopting_five),
		cmocka_unit_test(deals_like_slurm),
		cmocka_unit_test(deals_uneven_planes),
		cmocka_unit_test(deals_given_hosts),
	};
	return run_tap_tests(tests, NULL, NULL);
}
