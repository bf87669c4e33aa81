/* A resolve() call of the real core for the fuzz targets (call.h). */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include <muster/muster.h>

#include "call.h"

int fuzz_call_begin(struct fuzz_call *fc, config_setting_t *config)
{
	memset(fc, 0, sizeof(*fc));
	fc->logger.level = -1; /* no callback either: the core stays silent */
	snprintf(fc->pc.prefix, sizeof(fc->pc.prefix), "fuzz(fuzz): ");
	fc->pc.logger = &fc->logger;
	fc->pc.config = config;
	call_init(&fc->call, &fc->pc, 60000);
	return builder_init(&fc->call.builder);
}

int fuzz_call_begin_text(struct fuzz_call *fc, const uint8_t *data, size_t size, char **text)
{
	if ((*text = malloc(size + 1)) == NULL)
		return -1;
	memcpy(*text, data, size);
	(*text)[size] = '\0';
	if (fuzz_call_begin(fc, NULL) != 0) {
		free(*text);
		return -1;
	}
	return 0;
}

void fuzz_call_end(struct fuzz_call *fc, muster_status st)
{
	struct builder *b = &fc->call.builder;

	if (st == MUSTER_STATUS_SUCCESS && !fc->call.build_failed &&
	    builder_set_string(b, &b->r->source, "fuzz") == 0)
		muster_result_free(builder_finish(b));
	builder_discard(&fc->call.builder);
}
