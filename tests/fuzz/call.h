/*
 * A resolve() call of the real core (its host services, builder and
 * result checks) for targets whose parsers report through the host:
 * nothing stubbed, nothing logged.
 */
#ifndef MUSTER_TESTS_FUZZ_CALL_H
#define MUSTER_TESTS_FUZZ_CALL_H

#include <stddef.h>
#include <stdint.h>

#include <libconfig.h>

#include "chain/host.h"

struct fuzz_call {
	struct muster_plugin_ctx pc;
	struct muster_call call;
	struct logger logger;
};

/* `config`: the entry's group (NULL: none).  0, or -1 out of memory. */
int fuzz_call_begin(struct fuzz_call *fc, config_setting_t *config);
/* fuzz_call_begin() with no config for a parser of C strings: *text is a
 * NUL-terminated copy of the input, for the caller to free.  0, or -1
 * out of memory (nothing to free). */
int fuzz_call_begin_text(struct fuzz_call *fc, const uint8_t *data, size_t size, char **text);
/* Ends the call as the chain does: on success what was built is finished
 * (sorted and checked), then freed. */
void fuzz_call_end(struct fuzz_call *fc, muster_status st);

#endif
