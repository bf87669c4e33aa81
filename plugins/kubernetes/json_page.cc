/*
 * kubernetes: a page of JSON through simdjson (see json_page.h).
 *
 * Why simdjson: a page of 500 pods is 1.4 MB of JSON of which the answer
 * needs a few dozen bytes per pod, so parsing is nearly all of the
 * plugin's work.  simdjson's DOM parser checks the whole page (structure,
 * UTF-8, numbers, literals) at over a gigabyte a second, choosing the
 * widest vector unit of the CPU at run time, and its document lets the
 * walk step over a subtree (managedFields, annotations, env, ...) in one
 * move.  A streaming parser (yajl) spent three times as long as fetching
 * and inflating the pages.
 *
 * Only simdjson's error-code API is used and memory comes from malloc and
 * nothrow new: nothing here throws, so nothing can unwind into C.
 */
#include <config.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include <simdjson.h>

#include "json_page.h"

namespace {

/* Deeper than any pod (managedFields reach about 15); a hostile page gets
 * a clear error instead of deep recursion. */
constexpr size_t max_depth = 256;

} // namespace

struct json_page {
	char *buf = nullptr;   /* len bytes and SIMDJSON_PADDING more */
	size_t len = 0, cap = 0;
};

struct json_parser {
	simdjson::dom::parser dom;
};

namespace {

int walk(simdjson::dom::element e, const json_events *ev, void *ctx)
{
	using simdjson::dom::element_type;
	simdjson::dom::object o;
	simdjson::dom::array a;
	int r;

	switch (e.type()) {
	case element_type::OBJECT:
		r = ev->value(ctx, JSON_OBJECT, nullptr, 0, 0);
		if (r != JSON_ENTER || e.get_object().get(o) != simdjson::SUCCESS)
			return r;
		for (simdjson::dom::key_value_pair kv : o) {
			if (ev->key(ctx, kv.key.data(), kv.key.size()) == JSON_STOP ||
			    walk(kv.value, ev, ctx) == JSON_STOP)
				return JSON_STOP;
		}
		return ev->end(ctx);
	case element_type::ARRAY:
		r = ev->value(ctx, JSON_ARRAY, nullptr, 0, 0);
		if (r != JSON_ENTER || e.get_array().get(a) != simdjson::SUCCESS)
			return r;
		for (simdjson::dom::element v : a)
			if (walk(v, ev, ctx) == JSON_STOP)
				return JSON_STOP;
		return ev->end(ctx);
	case element_type::STRING: {
		std::string_view s = e.get_string().value_unsafe();

		return ev->value(ctx, JSON_STRING, s.data(), s.size(), 0);
	}
	case element_type::INT64:
		return ev->value(ctx, JSON_NUMBER, nullptr, 0, (double)e.get_int64().value_unsafe());
	case element_type::UINT64:
		return ev->value(ctx, JSON_NUMBER, nullptr, 0, (double)e.get_uint64().value_unsafe());
	case element_type::DOUBLE:
		return ev->value(ctx, JSON_NUMBER, nullptr, 0, e.get_double().value_unsafe());
	case element_type::BOOL:
		return ev->value(ctx, JSON_BOOL, nullptr, 0, 0);
	case element_type::NULL_VALUE:
		return ev->value(ctx, JSON_NULL, nullptr, 0, 0);
	}
	return JSON_STOP;
}

/*
 * Where an invalid page goes wrong, for the message: the DOM parser says
 * only what is wrong, so the page is read again, on the error path alone,
 * by simdjson's on-demand iterator, which touches every value in order
 * and knows where it stands when it fails.
 */
simdjson::error_code visit(simdjson::ondemand::value v, size_t depth)
{
	using simdjson::ondemand::json_type;
	simdjson::error_code err;
	json_type t;

	if ((err = v.type().get(t)) != simdjson::SUCCESS)
		return err;
	if (depth > max_depth)
		return simdjson::DEPTH_ERROR;
	switch (t) {
	case json_type::object: {
		simdjson::ondemand::object o;

		if ((err = v.get_object().get(o)) != simdjson::SUCCESS)
			return err;
		for (auto field : o) {
			simdjson::ondemand::field f;
			std::string_view k;

			if ((err = std::move(field).get(f)) != simdjson::SUCCESS ||
			    (err = f.unescaped_key().get(k)) != simdjson::SUCCESS ||
			    (err = visit(f.value(), depth + 1)) != simdjson::SUCCESS)
				return err;
		}
		return simdjson::SUCCESS;
	}
	case json_type::array: {
		simdjson::ondemand::array a;

		if ((err = v.get_array().get(a)) != simdjson::SUCCESS)
			return err;
		for (auto item : a) {
			simdjson::ondemand::value x;

			if ((err = std::move(item).get(x)) != simdjson::SUCCESS ||
			    (err = visit(x, depth + 1)) != simdjson::SUCCESS)
				return err;
		}
		return simdjson::SUCCESS;
	}
	case json_type::string: {
		std::string_view s;

		return v.get_string().get(s);
	}
	case json_type::number: {
		simdjson::ondemand::number n;

		return v.get_number().get(n);
	}
	case json_type::boolean: {
		bool b;

		return v.get_bool().get(b);
	}
	case json_type::null: {
		bool null;

		if ((err = v.is_null().get(null)) != simdjson::SUCCESS)
			return err;
		return null ? simdjson::SUCCESS : simdjson::N_ATOM_ERROR;
	}
	}
	return simdjson::TAPE_ERROR;
}

/* The byte offset of the first error in an invalid page (`err`, as the
 * DOM parser found it); len when the iterator cannot say (bad UTF-8 is
 * found before any value is read). */
size_t locate(json_page *jp, simdjson::error_code err)
{
	simdjson::ondemand::parser od(jp->len + 1);
	simdjson::ondemand::document doc;
	simdjson::ondemand::value root;
	const char *where = nullptr;

	if (err == simdjson::UNCLOSED_STRING)
		return jp->len - 1; /* the page ends inside a string */
	if (od.iterate(jp->buf, jp->len, jp->len + simdjson::SIMDJSON_PADDING).get(doc) !=
	    simdjson::SUCCESS)
		return jp->len;
	/* Stops at the first error, or after a valid value: where the bytes
	 * that should not be there begin. */
	if (doc.get_value().get(root) == simdjson::SUCCESS)
		visit(root, 0);
	if (doc.current_location().get(where) != simdjson::SUCCESS || where == nullptr ||
	    where < jp->buf || where > jp->buf + jp->len)
		return jp->len;
	return (size_t)(where - jp->buf);
}

} // namespace

extern "C" {

json_page *json_page_new(void)
{
	return new (std::nothrow) json_page;
}

void json_page_free(json_page *jp)
{
	if (jp == nullptr)
		return;
	std::free(jp->buf);
	delete jp;
}

void json_page_reset(json_page *jp)
{
	jp->len = 0;
}

char *json_page_room(json_page *jp, size_t n)
{
	if (jp->buf == nullptr || n > jp->cap - jp->len) {
		size_t cap = jp->cap > 0 ? jp->cap : 64 * 1024;
		char *b;

		while (cap - jp->len < n) {
			if (cap > SIZE_MAX / 2 - simdjson::SIMDJSON_PADDING)
				return nullptr;
			cap *= 2;
		}
		if ((b = static_cast<char *>(std::realloc(jp->buf, cap + simdjson::SIMDJSON_PADDING))) ==
		    nullptr)
			return nullptr;
		jp->buf = b;
		jp->cap = cap;
	}
	return jp->buf + jp->len;
}

void json_page_wrote(json_page *jp, size_t n)
{
	jp->len += n;
}

int json_page_append(json_page *jp, const char *p, size_t n)
{
	char *room = json_page_room(jp, n);

	if (room == nullptr)
		return -1;
	std::memcpy(room, p, n);
	json_page_wrote(jp, n);
	return 0;
}

size_t json_page_size(const json_page *jp)
{
	return jp->len;
}

const char *json_page_data(const json_page *jp)
{
	return jp->buf;
}

json_parser *json_parser_new(void)
{
	return new (std::nothrow) json_parser;
}

void json_parser_free(json_parser *parser)
{
	delete parser;
}

int json_page_walk(json_parser *parser, json_page *jp, const json_events *ev, void *ctx,
                   size_t *at, char *why, size_t whysize)
{
	simdjson::dom::element root;
	simdjson::error_code err;

	*at = 0;
	why[0] = '\0';
	if (json_page_room(jp, 0) == nullptr)
		return JSON_PAGE_NOMEM;
	/* The padding simdjson reads past the end, zeroed for valgrind's sake. */
	std::memset(jp->buf + jp->len, 0, simdjson::SIMDJSON_PADDING);
	/* Room for the largest page yet, with some to spare, so that pages a
	 * little larger than the last do not reallocate the parser. */
	if (parser->dom.capacity() < jp->len) {
		size_t cap = jp->len + jp->len / 4;

		if (parser->dom.allocate(cap, max_depth) != simdjson::SUCCESS ||
		    parser->dom.doc.allocate(cap) != simdjson::SUCCESS)
			return JSON_PAGE_NOMEM;
	}
	err = parser->dom.parse(jp->buf, jp->len, false).get(root);
	if (err == simdjson::MEMALLOC)
		return JSON_PAGE_NOMEM;
	if (err != simdjson::SUCCESS) {
		std::snprintf(why, whysize, "%s", simdjson::error_message(err));
		*at = locate(jp, err);
		return JSON_PAGE_INVALID;
	}
	return walk(root, ev, ctx) == JSON_STOP ? JSON_PAGE_STOPPED : JSON_PAGE_OK;
}

} // extern "C"
