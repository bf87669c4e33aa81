/* The HTTP backends' shared limit, wording and retry helpers
 * (plugins/common/http.c). */
#include <config.h>

#include <string.h>

#include "../../tests/lib/test.h"

#include "http.h"

static void limits_leave_room_for_the_answer(void **state)
{
	(void)state;
	assert_int_equal(http_limit_ms(1000, 0), 945);
	assert_int_equal(http_limit_ms(1000, 300), 300);
	assert_int_equal(http_limit_ms(1000, 5000), 945);
	assert_int_equal(http_limit_ms(3, 0), 1);
	assert_int_equal(http_limit_ms(0, 10), 1);
}

static void statuses_are_worded_and_classed(void **state)
{
	(void)state;
	assert_string_equal(http_reason(404), " Not Found");
	assert_string_equal(http_reason(429), " Too Many Requests");
	assert_string_equal(http_reason(418), "");
	assert_true(http_retryable(429));
	assert_true(http_retryable(503));
	assert_false(http_retryable(404));
	assert_false(http_retryable(200));
	assert_true(http_tls_error(CURLE_PEER_FAILED_VERIFICATION));
	assert_false(http_tls_error(CURLE_OPERATION_TIMEDOUT));
}

static void retry_after_is_read_from_its_header_only(void **state)
{
	static const char secs[] = "Retry-After: 7\r\n", date[] = "retry-after: Wed, 21 Oct\r\n",
	                  huge[] = "Retry-After: 99999999999\r\n", other[] = "Content-Type: x\r\n";

	(void)state;
	assert_int_equal(http_retry_after(secs, strlen(secs)), 7);
	assert_int_equal(http_retry_after(date, strlen(date)), 1);
	assert_in_range(http_retry_after(huge, strlen(huge)), 86400, 864000);
	assert_int_equal(http_retry_after(other, strlen(other)), -1);
	assert_int_equal(http_retry_after("Retry-After:", 12), -1);
}

static void bearer_header_is_added_and_wiped(void **state)
{
	struct curl_slist *l = curl_slist_append(NULL, "Accept: application/json"), *n;

	(void)state;
	assert_non_null(l);
	n = http_bearer(l, "s3cret");
	assert_non_null(n);
	assert_string_equal(n->next->data, "Authorization: Bearer s3cret");
	http_headers_free(n);
}

static void handles_are_made(void **state)
{
	char errbuf[CURL_ERROR_SIZE] = "stale";
	CURL *h;

	(void)state;
	assert_int_equal(http_global_init(), CURLE_OK);
	h = http_handle(errbuf);
	assert_non_null(h);
	assert_string_equal(errbuf, "");
	http_set_timeout(h, 10);
	curl_easy_cleanup(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(limits_leave_room_for_the_answer),
		cmocka_unit_test(statuses_are_worded_and_classed),
		cmocka_unit_test(retry_after_is_read_from_its_header_only),
		cmocka_unit_test(bearer_header_is_added_and_wiped),
		cmocka_unit_test(handles_are_made),
	};

	return run_tap_tests(tests, NULL, NULL);
}
