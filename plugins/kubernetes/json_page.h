/*
 * kubernetes: a page of JSON, gathered as it arrives and then walked as
 * events over simdjson's validated document (json_page.cc).
 *
 * The C side (podlist.c) sees only this.  Pages (the bytes) and the parser
 * are apart so that one page can be gathered while the parser walks
 * another; both live as long as a listing and are reused from page to
 * page, so memory follows the page size.  The walk enters only the
 * objects and arrays the callbacks ask for and steps over the rest without
 * looking inside.
 */
#ifndef MUSTER_PLUGINS_KUBERNETES_JSON_PAGE_H
#define MUSTER_PLUGINS_KUBERNETES_JSON_PAGE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum json_kind { JSON_STRING, JSON_NUMBER, JSON_OBJECT, JSON_ARRAY, JSON_BOOL, JSON_NULL };

/* What a value callback answers. */
enum { JSON_STOP = -1, JSON_SKIP = 0, JSON_ENTER = 1 };

struct json_events {
	/* A value: a string (s, len: not NUL-terminated, may hold NULs), a
	 * number (num), or the start of an object or array, which is entered
	 * on JSON_ENTER and stepped over on JSON_SKIP. */
	int (*value)(void *ctx, enum json_kind kind, const char *s, size_t len, double num);
	/* An object's key, before its value: 0, or JSON_STOP. */
	int (*key)(void *ctx, const char *k, size_t len);
	/* The end of an entered object or array: 0, or JSON_STOP. */
	int (*end)(void *ctx);
};

struct json_page;
struct json_parser;

/* NULL when out of memory. */
struct json_page *json_page_new(void);
void json_page_free(struct json_page *jp);
/* Forgets the bytes of the last page, keeps the memory. */
void json_page_reset(struct json_page *jp);
/* 0, or -1 when out of memory. */
int json_page_append(struct json_page *jp, const char *p, size_t n);
/* Room for `n` more bytes at the end (NULL when out of memory), then how
 * many of them were written: bytes decoded straight into the page. */
char *json_page_room(struct json_page *jp, size_t n);
void json_page_wrote(struct json_page *jp, size_t n);
size_t json_page_size(const struct json_page *jp);
/* The bytes gathered (json_page_size of them); NULL when none yet. */
const char *json_page_data(const struct json_page *jp);

/* NULL when out of memory. */
struct json_parser *json_parser_new(void);
void json_parser_free(struct json_parser *parser);

enum { JSON_PAGE_OK = 0, JSON_PAGE_STOPPED = 1, JSON_PAGE_INVALID = -1, JSON_PAGE_NOMEM = -2 };

/* Parses the page (all of it is checked: syntax, UTF-8, numbers) and
 * walks it.  JSON_PAGE_INVALID: `*at` is the byte where the syntax goes
 * wrong and `why` says how.  One parser walks one page at a time; the
 * other pages may be appended to meanwhile, from another thread. */
int json_page_walk(struct json_parser *parser, struct json_page *jp, const struct json_events *ev,
                   void *ctx, size_t *at, char *why, size_t whysize);

#ifdef __cplusplus
}
#endif

#endif
