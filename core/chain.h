/* Running the chain: NSS statuses and actions, merge as TensorFlow's
 * UnionClusterResolver. */
#ifndef MUSTER_CHAIN_H
#define MUSTER_CHAIN_H

#include "ctx.h"

int chain_resolve(struct muster_ctx *ctx, struct muster_result **out, muster_error *err);

/* The warnings one resolve gave about failed entries, for a caller that
 * resolves again and again (a watch): a warning given by the resolve
 * before is not repeated, so an entry down for an hour is one line. */
struct chain_warned {
	char *lines; /* each warning followed by '\n'; NULL: none */
};
int chain_resolve_warned(struct muster_ctx *ctx, struct muster_result **out, muster_error *err,
                         struct chain_warned *warned);
void chain_warned_clear(struct chain_warned *warned);

#endif
