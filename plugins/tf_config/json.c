/*
 * tf_config: parsing the JSON, and Python's semantics on top of cJSON.
 *
 * TensorFlow parses TF_CONFIG with Python's json module.  The strict JSON
 * reader every backend shares (lib/strict_json.h) restores
 * Python's behaviour where cJSON differs: the syntax is checked strictly
 * first, so what json.loads refuses is refused here too, with the same
 * byte offset, and with duplicate keys the last value counts
 * (sjson_member).  Here: integer strings follow int(): surrounding
 * whitespace, a sign, digits with single underscores between them
 * (tfc_parse_int).  Still different from Python: NaN and Infinity are
 * refused (a TF_CONFIG has no use for them), and so are a lone UTF-16
 * surrogate escape and \u0000.
 */
#include <config.h>

#include "tf_config.h"

muster_status tfc_parse(const struct tfc_run *run, const char *text, size_t len,
                        struct sjson_doc *doc)
{
	char why[300];

	switch (sjson_parse(text, len, doc, why, sizeof(why))) {
	case SJSON_OK:
		break;
	case SJSON_INVALID:
		run->host->fail(run->call, "%s is %s", run->src, why);
		return MUSTER_STATUS_UNAVAIL;
	default:
		run->host->fail(run->call, "%s: out of memory", run->src);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (!cJSON_IsObject(doc->root)) {
		run->host->fail(run->call, "%s must be a JSON object, not %s", run->src,
		                sjson_kind(doc->root));
		sjson_free(doc);
		return MUSTER_STATUS_UNAVAIL;
	}
	return MUSTER_STATUS_SUCCESS;
}

/* Python's str.isspace() over ASCII, which int() strips. */
static int is_py_space(char c)
{
	return (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f) || c == ' ';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

enum tfc_int_result tfc_parse_int(const char *s, long *out)
{
	unsigned long v = 0;
	int negative = 0, over = 0;

	while (is_py_space(*s))
		s++;
	if (*s == '+' || *s == '-')
		negative = *s++ == '-';
	if (!is_digit(*s))
		return TFC_INT_INVALID;
	for (;;) {
		if (is_digit(*s)) {
			if (!over) {
				v = v * 10 + (unsigned long)(*s - '0');
				over = v > (unsigned long)TFC_MAX_INDEX;
			}
			s++;
		} else if (*s == '_' && is_digit(s[1])) {
			s++; /* PEP 515: "1_000"; only between digits */
		} else {
			break;
		}
	}
	while (is_py_space(*s))
		s++;
	if (*s != '\0')
		return TFC_INT_INVALID;
	if (negative && (over || v != 0)) /* int("-0") is 0 */
		return TFC_INT_NEGATIVE;
	if (over)
		return TFC_INT_RANGE;
	*out = (long)v;
	return TFC_INT_OK;
}

enum tfc_int_result tfc_number_index(double d, long *out)
{
	if (d != d)
		return TFC_INT_INVALID;
	if (d <= -1.0) {
		if (d < -1e18) /* integral at that size, and out of long long's range */
			return TFC_INT_NEGATIVE;
		return d == (double)(long long)d ? TFC_INT_NEGATIVE : TFC_INT_INVALID;
	}
	if (d > (double)TFC_MAX_INDEX)
		return TFC_INT_RANGE;
	if (d != (double)(long)d)
		return TFC_INT_INVALID;
	*out = (long)d;
	return TFC_INT_OK;
}
