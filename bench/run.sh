#!/bin/sh
# Runs every benchmark side by side with its baseline: `make bench`.
#   run.sh BUILDDIR SRCDIR
set -eu
build=$1
src=$2
export LD_LIBRARY_PATH="$build/core/.libs"
export MUSTER_PLUGIN_PATH="$build/plugins/tf_config/.libs"
unset TF_CONFIG MUSTER_CONF

# The real binary, not libtool's wrapper script, so we time muster alone.
muster="$build/cli/.libs/muster"
[ -x "$muster" ] || muster="$build/cli/muster"

echo "== muster resolve on the default config, against /bin/true (whole processes)"
"$build/bench/bench_process" 301 -- "$muster" -c "$src/conf/muster.conf" resolve -- /bin/true

echo
echo "== muster_resolve() on 10,000 tasks, against the floor of the same work"
"$build/bench/bench_resolve" 10000 51
