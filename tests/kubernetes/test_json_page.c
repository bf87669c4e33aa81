/*
 * The kubernetes plugin's page reader (plugins/kubernetes/json_page.cc):
 * the events a walk gives, what it steps over, and where it says a broken
 * page goes wrong.  Pages are fed in pieces, as libcurl hands them over.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/test.h"

#include "../../plugins/kubernetes/json_page.h"

/* The events of a walk, as text: {k: ... } [ ... ] "s" 1.5 t n, and a
 * callback that steps over every object under the key "skip" and stops
 * at the key "stop". */
struct trace {
	char text[1024];
	int skip_next, stop_next;
};

static void put(struct trace *t, const char *fmt, ...)
{
	size_t n = strlen(t->text);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->text + n, sizeof(t->text) - n, fmt, ap);
	va_end(ap);
}

static int on_value(void *ctx, enum json_kind kind, const char *s, size_t len, double num)
{
	struct trace *t = ctx;
	int skip = t->skip_next;

	t->skip_next = 0;
	switch (kind) {
	case JSON_OBJECT:
		put(t, skip ? "{..} " : "{ ");
		return skip ? JSON_SKIP : JSON_ENTER;
	case JSON_ARRAY:
		put(t, skip ? "[..] " : "[ ");
		return skip ? JSON_SKIP : JSON_ENTER;
	case JSON_STRING:
		put(t, "\"%.*s\"(%zu) ", (int)len, s, len);
		break;
	case JSON_NUMBER:
		put(t, "%g ", num);
		break;
	case JSON_BOOL:
		put(t, "b ");
		break;
	case JSON_NULL:
		put(t, "n ");
		break;
	}
	return 0;
}

static int on_key(void *ctx, const char *k, size_t len)
{
	struct trace *t = ctx;

	put(t, "%.*s: ", (int)len, k);
	t->skip_next = len == 4 && memcmp(k, "skip", 4) == 0;
	return len == 4 && memcmp(k, "stop", 4) == 0 ? JSON_STOP : 0;
}

static int on_end(void *ctx)
{
	put(ctx, "} ");
	return 0;
}

static const struct json_events events = { on_value, on_key, on_end };

/* One parser for every test, as one serves a whole listing. */
static struct json_parser *parser;

static int parser_setup(void **state)
{
	(void)state;
	parser = json_parser_new();
	return parser != NULL ? 0 : -1;
}

static int parser_teardown(void **state)
{
	(void)state;
	json_parser_free(parser);
	return 0;
}

/* Feeds `doc` in pieces of `piece` bytes and walks it. */
static int walk(struct json_page *jp, const char *doc, size_t len, size_t piece,
                struct trace *t, size_t *at, char *why, size_t whysize)
{
	size_t off;

	memset(t, 0, sizeof(*t));
	json_page_reset(jp);
	for (off = 0; off < len; off += piece)
		assert_int_equal(json_page_append(jp, doc + off, len - off < piece ? len - off : piece), 0);
	assert_int_equal(json_page_size(jp), len);
	return json_page_walk(parser, jp, &events, t, at, why, whysize);
}

static void events_in_order(void **state)
{
	struct json_page *jp = json_page_new();
	static const char doc[] =
	        "{\"kind\": \"PodList\", \"n\": [1, -2, 2.5, 1e3, 18446744073709551615],\n"
	        " \"t\": true, \"z\": null, \"esc\": \"a\\u00e9\\n\\u0000b\", \"o\": {}}";
	struct trace t;
	char why[160];
	size_t at;

	assert_non_null(jp);
	assert_int_equal(walk(jp, doc, sizeof(doc) - 1, 7, &t, &at, why, sizeof(why)), JSON_PAGE_OK);
	/* The escaped string arrives decoded, its NUL inside: 6 bytes. */
	assert_string_equal(t.text, "{ kind: \"PodList\"(7) n: [ 1 -2 2.5 1000 1.84467e+19 } t: b "
	                            "z: n esc: \"a\xc3\xa9\n\"(6) o: { } } ");
	json_page_free(jp);
}

static void skipped_values_are_not_entered(void **state)
{
	struct json_page *jp = json_page_new();
	static const char doc[] = "{\"a\": 1, \"skip\": {\"deep\": [1, {\"x\": 2}]}, "
	                          "\"skip\": [3, 4], \"skip\": \"scalar\", \"b\": 2}";
	struct trace t;
	char why[160];
	size_t at;

	assert_int_equal(walk(jp, doc, sizeof(doc) - 1, 64, &t, &at, why, sizeof(why)), JSON_PAGE_OK);
	assert_string_equal(t.text, "{ a: 1 skip: {..} skip: [..] skip: \"scalar\"(6) b: 2 } ");
	json_page_free(jp);
}

static void a_callback_stops_the_walk(void **state)
{
	struct json_page *jp = json_page_new();
	static const char doc[] = "{\"a\": [1, 2], \"stop\": 3, \"c\": 4}";
	struct trace t;
	char why[160];
	size_t at;

	assert_int_equal(walk(jp, doc, sizeof(doc) - 1, 1, &t, &at, why, sizeof(why)),
	                 JSON_PAGE_STOPPED);
	assert_string_equal(t.text, "{ a: [ 1 2 } stop: ");
	json_page_free(jp);
}

/* An invalid page: nothing is walked, and the error is placed. */
static void invalid(struct json_page *jp, const char *doc, size_t len, size_t want_at,
                    const char *want_why)
{
	struct trace t;
	char why[160];
	size_t at = 12345;

	assert_int_equal(walk(jp, doc, len, 3, &t, &at, why, sizeof(why)), JSON_PAGE_INVALID);
	assert_string_equal(t.text, "");
	if (at != want_at || strstr(why, want_why) == NULL)
		fail_msg("%.*s: at %zu (want %zu), why \"%s\" (want \"%s\")", (int)(len > 40 ? 40 : len),
		         doc, at, want_at, why, want_why);
}

static void broken_pages_are_placed(void **state)
{
	struct json_page *jp = json_page_new();
	char deep[2 * 300 + 1];

	invalid(jp, "<html>oops</html>", 17, 0, "");
	invalid(jp, "{\"a\": [1, 2", 11, 10, "");                      /* cut after a value */
	invalid(jp, "{\"a\": \"b", 8, 7, "never closed");               /* cut inside a string */
	invalid(jp, "{\"a\": 1} x", 10, 9, "");                          /* bytes after the end */
	invalid(jp, "{\"a\": {\"b\": tru}}", 17, 12, "");                /* a bad literal, deep */
	invalid(jp, "{\"a\": [1, 2,, 3]}", 17, 12, "");                  /* a stray comma */
	invalid(jp, "{\"n\": 01}", 9, 6, "");                            /* a leading zero */
	invalid(jp, "{\"n\": 1e999}", 12, 6, "");                        /* out of range */
	invalid(jp, "{\"s\": \"\xff\xfe\"}", 11, 11, "UTF-8");           /* not UTF-8: unplaced */
	invalid(jp, "{\"s\": \"a\tb\"}", 12, 12, "");                    /* a raw tab in a string */
	memset(deep, '[', 300);
	memset(deep + 300, ']', 300);
	invalid(jp, deep, 600, 257, "too deep");          /* past 256 levels */
	invalid(jp, "", 0, 0, "");
	json_page_free(jp);
}

/* One reader for many pages of different sizes, as a listing uses it. */
static void reused_across_pages(void **state)
{
	struct json_page *jp = json_page_new();
	size_t n = 20000, i, len, at;
	char *big = malloc(n * 12 + 16), why[160];
	struct trace t;

	assert_non_null(big);
	len = (size_t)sprintf(big, "[");
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(big + len, "%s{\"skip\":{}}", i ? "," : "");
	big[len++] = ']';
	assert_int_equal(walk(jp, "{}", 2, 1, &t, &at, why, sizeof(why)), JSON_PAGE_OK);
	assert_int_equal(walk(jp, big, len, 4096, &t, &at, why, sizeof(why)), JSON_PAGE_OK);
	assert_memory_equal(t.text, "[ { skip: {..} } { skip: {..} } ", 32);
	invalid(jp, "{\"a\": [}", 8, 7, "");
	assert_int_equal(walk(jp, "[true]", 6, 2, &t, &at, why, sizeof(why)), JSON_PAGE_OK);
	assert_string_equal(t.text, "[ b } ");
	free(big);
	json_page_free(jp);
}

/* Two pages, one gathered while the parser walks the other, as a listing
 * overlaps fetching and walking: neither disturbs the other. */
static void two_pages_one_parser(void **state)
{
	struct json_page *a = json_page_new(), *b = json_page_new();
	struct trace t;
	char why[160];
	size_t at;

	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(json_page_append(b, "{\"b\": [1,", 9), 0);
	assert_int_equal(walk(a, "{\"a\": 1}", 8, 3, &t, &at, why, sizeof(why)), JSON_PAGE_OK);
	assert_string_equal(t.text, "{ a: 1 } ");
	assert_int_equal(json_page_append(b, " 2]}", 4), 0);
	memset(&t, 0, sizeof(t));
	assert_int_equal(json_page_walk(parser, b, &events, &t, &at, why, sizeof(why)),
	                 JSON_PAGE_OK);
	assert_string_equal(t.text, "{ b: [ 1 2 } } ");
	assert_int_equal(json_page_size(a), 8);
	assert_memory_equal(json_page_data(a), "{\"a\": 1}", 8);
	json_page_free(a);
	json_page_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(events_in_order),
		cmocka_unit_test(skipped_values_are_not_entered),
		cmocka_unit_test(a_callback_stops_the_walk),
		cmocka_unit_test(broken_pages_are_placed),
		cmocka_unit_test(reused_across_pages),
		cmocka_unit_test(two_pages_one_parser),
	};

	return run_tap_tests(tests, parser_setup, parser_teardown);
}
