/* The continue token read from a page's leading bytes (continue_hint.c):
 * the API server's shape gives the token; every other shape gives no
 * guess, never a wrong one. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "../lib/test.h"

#include "../../plugins/kubernetes/k8s.h"

/* The hint for `page` (its first `len` bytes; 0: all of it). */
static char *hint(const char *page, size_t len)
{
	return k8s_continue_hint(page, len ? len : strlen(page));
}

static void expect(const char *page, const char *token)
{
	char *h = hint(page, 0);

	if (token == NULL && h != NULL)
		fail_msg("%s\n  gave \"%s\"; expected no guess", page, h);
	if (token != NULL && (h == NULL || strcmp(h, token) != 0))
		fail_msg("%s\n  gave %s%s%s; expected \"%s\"", page, h ? "\"" : "", h ? h : "none",
		         h ? "\"" : "", token);
	free(h);
}

/* As kube-apiserver writes a page: the token, whatever follows items. */
static void api_server_shape(void **state)
{
	(void)state;
	expect("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":"
	       "\"81\",\"continue\":\"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6ODF9\","
	       "\"remainingItemCount\":9500},\"items\":[{\"metadata\":{",
	       "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6ODF9");
	/* white space anywhere JSON allows it */
	expect(" {\n \"kind\" : \"PodList\" ,\r\n\t\"metadata\" : { \"continue\" : \"abc\" } ,"
	       " \"items\" : [",
	       "abc");
	/* nulls and other scalars before it */
	expect("{\"n\": 1.5e3, \"t\": true, \"z\": null, \"metadata\": {\"continue\": null, "
	       "\"x\": false, \"continue\": \"second\"}, \"items\": []}",
	       "second");
	/* the first string continue of any root metadata, as the walk takes it */
	expect("{\"metadata\": {\"continue\": \"one\"}, \"metadata\": {\"continue\": \"two\"}, "
	       "\"items\": []}",
	       "one");
	expect("{\"metadata\": null, \"metadata\": {\"continue\": \"late\"}, \"items\": []}", "late");
}

/* The last page, or no metadata: no token. */
static void no_token(void **state)
{
	(void)state;
	expect("{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"81\"},\"items\":[]}", NULL);
	expect("{\"kind\":\"PodList\",\"metadata\":{},\"items\":[]}", NULL);
	expect("{\"kind\":\"PodList\",\"metadata\":{\"continue\":\"\"},\"items\":[]}", NULL);
	expect("{\"items\":[], \"metadata\":{\"continue\":\"after\"}}", NULL);
	expect("{\"metadata\":{\"continue\":\"no items\"}}", NULL);
}

/* Shapes the guess does not read: the walk decides. */
static void no_guess(void **state)
{
	(void)state;
	expect("", NULL);
	expect("[]", NULL);
	expect("\"metadata\"", NULL);
	expect("{\"metadata\":{\"continue\":\"a\\\"b\"},\"items\":[]}", NULL);  /* escape */
	expect("{\"metad\\u0061ta\":{\"continue\":\"x\"},\"items\":[]}", NULL); /* escaped key */
	expect("{\"metadata\":{\"continue\":7},\"items\":[]}", NULL);            /* a number */
	expect("{\"metadata\":{\"continue\":\"x\",\"labels\":{}},\"items\":[]}", NULL); /* nested */
	expect("{\"spec\":{},\"metadata\":{\"continue\":\"x\"},\"items\":[]}", NULL);
	expect("{\"metadata\":{\"continue\":\"x\"} \"items\":[]}", NULL); /* no comma */
	expect("{\"metadata\":{\"continue\":\"x\",},\"items\":[]}", NULL); /* stray comma */
	expect("{\"metadata\":{\"continue\":\"tab\there\"},\"items\":[]}", NULL);
}

/* Cut anywhere before items, a page gives no guess (and reads no further
 * than it is long: the sanitizers watch). */
static void truncated(void **state)
{
	static const char page[] = "{\"kind\":\"PodList\",\"metadata\":{\"continue\":\"tok\"},"
	                           "\"items\":[]}";
	size_t cut, items = (size_t)(strstr(page, "\"items\"") - page);
	char *h;

	(void)state;
	for (cut = 0; cut < sizeof(page) - 1; cut++) {
		char *copy = malloc(cut + 1);

		assert_non_null(copy);
		memcpy(copy, page, cut);
		h = k8s_continue_hint(copy, cut);
		if (cut <= items + 7)
			assert_null(h);
		else
			assert_string_equal(h, "tok");
		free(h);
		free(copy);
	}
	assert_null(k8s_continue_hint(NULL, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(api_server_shape),
		cmocka_unit_test(no_token),
		cmocka_unit_test(no_guess),
		cmocka_unit_test(truncated),
	};

	return run_tap_tests(tests, NULL, NULL);
}
