/*
 * What every fuzz target shares: the libFuzzer entry it defines (run by
 * libFuzzer under tests/fuzz/run.sh, by replay.c over its corpus in
 * `make check`), and a way to cut one input into several parts.
 */
#ifndef MUSTER_TESTS_FUZZ_H
#define MUSTER_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Where inputs are cut into parts (several files, several pages). */
#define FUZZ_SEP "\n%%\n"

/* The next part of *data (*len bytes), up to FUZZ_SEP or the end; NULL
 * when nothing is left.  *data and *size move past it. */
static inline const uint8_t *fuzz_part(const uint8_t **data, size_t *size, size_t *len)
{
	const uint8_t *p = *data, *end;
	size_t seplen = sizeof(FUZZ_SEP) - 1;

	if (p == NULL)
		return NULL;
	end = memmem(p, *size, FUZZ_SEP, seplen);
	if (end == NULL) {
		*len = *size;
		*data = NULL; /* the last part: the next call answers NULL */
		*size = 0;
		return p;
	}
	*len = (size_t)(end - p);
	*data = end + seplen;
	*size -= *len + seplen;
	return p;
}

/* Writes data to `path` (truncated); 0 or -1. */
int fuzz_write_file(const char *path, const uint8_t *data, size_t size);
/* A private directory for the process's files, made once; NULL on failure. */
const char *fuzz_tmpdir(void);

#endif
