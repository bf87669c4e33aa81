/*
 * Fuzz target: the strict JSON reader every backend shares
 * (lib/strict_json.h), checked against cJSON's own parser.  A
 * document the reader accepts, cJSON must accept as well, into the same
 * tree: node types, keys, strings and numbers, in order (the reader builds
 * its tree without cJSON, in blocks, so this is what keeps the two the
 * same; only a number longer than cJSON 1.7.15 reads is the reader's
 * alone).  Every member sjson_member() finds is the last of its key.  A
 * refusal must say why.  The input is the document, whole.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lib/strict_json.h"

/* Bounds the quadratic member check, not the reader. */
#define MAX_INPUT ((size_t)1 << 16)

static void check(int ok)
{
	if (!ok)
		abort(); /* a finding: the reader and cJSON disagree */
}

/* cJSON 1.7.15 reads at most 63 characters of a number and then fails
 * on the rest, where the reader (and Python) take the whole number: a run
 * that long anywhere excuses cJSON's refusal. */
static int has_long_number(const char *text, size_t size)
{
	size_t run = 0;

	for (size_t i = 0; i < size; i++) {
		run = strchr("0123456789+-.eE", text[i]) != NULL && text[i] != '\0' ? run + 1 : 0;
		if (run >= 64)
			return 1;
	}
	return 0;
}

static int same_string(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* The member sjson_member() gives for each key is its last one. */
static void check_members(const cJSON *object)
{
	for (const cJSON *c = object->child; c != NULL; c = c->next) {
		const cJSON *found = sjson_member(object, c->string);

		check(found != NULL && strcmp(found->string, c->string) == 0);
		for (const cJSON *later = found->next; later != NULL; later = later->next)
			check(strcmp(later->string, c->string) != 0);
	}
}

static void same_tree(const cJSON *a, const cJSON *b)
{
	const cJSON *x, *y;

	check((a->type & 0xff) == (b->type & 0xff));
	check(same_string(a->string, b->string));
	if (cJSON_IsString(a))
		check(same_string(a->valuestring, b->valuestring));
	if (cJSON_IsNumber(a))
		check(a->valuedouble == b->valuedouble && a->valueint == b->valueint);
	if (cJSON_IsObject(a))
		check_members(a);
	for (x = a->child, y = b->child; x != NULL && y != NULL; x = x->next, y = y->next)
		same_tree(x, y);
	check(x == NULL && y == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sjson_doc doc;
	char why[300] = "";
	char *text;
	enum sjson_result rc;

	if (size > MAX_INPUT)
		return 0;
	/* The reader's contract: the text ends in a NUL past its length. */
	if ((text = malloc(size + 1)) == NULL)
		return 0;
	if (size > 0)
		memcpy(text, data, size);
	text[size] = '\0';
	rc = sjson_parse(text, size, &doc, why, sizeof(why));
	if (rc == SJSON_OK) {
		/* A NUL byte is refused, so cJSON sees the same text. */
		cJSON *theirs = cJSON_ParseWithOpts(text, NULL, 1);

		check(theirs != NULL || has_long_number(text, size));
		if (theirs != NULL)
			same_tree(doc.root, theirs);
		cJSON_Delete(theirs);
		sjson_free(&doc);
	} else {
		check(strncmp(why, rc == SJSON_NOMEM ? "out of memory" : "not valid JSON: ",
		              rc == SJSON_NOMEM ? 13 : 16) == 0);
		check(doc.root == NULL && doc.blocks == NULL && doc.strings == NULL);
	}
	free(text);
	return 0;
}
