/* Running the chain: NSS statuses and actions, merge as TensorFlow's
 * UnionClusterResolver. */
#ifndef MUSTER_CHAIN_H
#define MUSTER_CHAIN_H

#include "ctx.h"

int chain_resolve(struct muster_ctx *ctx, struct muster_result **out, muster_error *err);

#endif
