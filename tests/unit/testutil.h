/* Helpers shared by the unit tests: temporary config files, captured logs,
 * and results built directly through the builder. */
#ifndef MUSTER_TESTUTIL_H
#define MUSTER_TESTUTIL_H

#include "../lib/test.h"

#include <muster/muster.h>

/* Writes `text` to a new file in a fresh temporary directory; the returned
 * path is valid until testutil_cleanup(). */
const char *write_config(const char *text);
/* Writes a file beside the last config (for drop-ins and includes). */
const char *write_file(const char *relative, const char *text);
void testutil_cleanup(void);

/* A log callback that appends every line to a buffer. */
struct captured_log {
	char text[16384];
};
void capture_log(int level, const char *message, void *data);

/* Opens a context on `text` with logs captured at `level`; asserts success. */
muster_ctx *open_text(const char *text, struct captured_log *log);
/* The same, expecting failure: returns the code, message in err. */
int open_text_fails(const char *text, muster_error *err);

/* Resolves and returns the result, asserting success. */
muster_result *resolve_ok(muster_ctx *ctx);
/* The result as JSON (caller frees with muster_free). */
char *json_of(const muster_result *r);

/* muster_result_master_url() as a string, or the error code when it fails. */
char *master_of(const muster_result *r, const char *type, long id, const char *rpc);

#endif
