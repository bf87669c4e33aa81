#!/bin/sh
# muster doctor over 64 peers (`make bench-doctor`): the whole process,
# against `muster resolve` of the same cluster, interleaved run by run.
# As root, on real network stacks: this node in a namespace of its own,
# the 64 peers at 10.88.0.1-64 on a veth pair's other end (nothing listens
# there: every connection is answered, refused), their names in an
# /etc/hosts bind-mounted for the run; so every lookup, route and
# connection of the doctor is made.  Without root, the peers are the
# loopback addresses 127.0.0.2-65 (local routes, no connections).
# Target: under 1 s.
#   run.sh BUILDDIR SRCDIR [RUNS]
set -eu
build=$1
runs=${3:-21}
export LD_LIBRARY_PATH="$build/core/.libs"
unset TF_CONFIG MUSTER_CONF http_proxy https_proxy grpc_proxy HTTP_PROXY HTTPS_PROXY GRPC_PROXY
muster="$build/cli/.libs/muster"
[ -x "$muster" ] || muster="$build/cli/muster"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/muster-bench.XXXXXX")
ns=mub$$
cleanup() {
	ip netns del "${ns}n" 2>/dev/null || :
	ip netns del "${ns}p" 2>/dev/null || :
	rm -rf "$tmp"
}
trap cleanup EXIT

peers=
if [ "$(id -u)" = 0 ] && ip netns add "${ns}n" 2>/dev/null; then
	ip netns add "${ns}p"
	ip link add bv netns "${ns}n" type veth peer name pv netns "${ns}p"
	ip -n "${ns}n" addr add 10.88.0.254/24 dev bv
	for i in $(seq 1 64); do ip -n "${ns}p" addr add "10.88.0.$i/24" dev pv; done
	for n in n p; do
		ip -n "$ns$n" link set lo up
		ip -n "$ns$n" link set "$( [ $n = n ] && echo bv || echo pv)" up
	done
	printf '127.0.0.1 localhost\n10.88.0.254 self\n' >"$tmp/hosts"
	for i in $(seq 1 64); do
		printf '10.88.0.%d peer%02d\n' "$i" "$i" >>"$tmp/hosts"
		peers="$peers, \"peer$(printf %02d "$i"):29500\""
	done
	set -- ip netns exec "${ns}n" unshare -m sh -c \
		'mount --bind "$0" /etc/hosts && exec "$@"' "$tmp/hosts"
	where="in a namespace, 64 peers on a veth pair, names from /etc/hosts"
else
	for i in $(seq 2 65); do peers="$peers, \"127.0.0.$i:29500\""; done
	set --
	where="without root: 64 loopback peers"
fi
first=$( [ $# -gt 0 ] && echo self || echo 127.0.0.1)
cat >"$tmp/64.conf" <<CONF
chain = ( { plugin = "static"; config = {
  jobs = { worker = ["$first:29500"$peers]; }; task = { type = "worker"; index = 0; }; }; } );
CONF
"$@" "$muster" -c "$tmp/64.conf" doctor >"$tmp/report" || {
	cat "$tmp/report"
	echo "muster doctor found a problem in the bench's setup" >&2
	exit 1
}
echo "== muster doctor over 64 peers ($where), against muster resolve"
echo "   (first line: doctor; second: resolve)"
"$build/bench/bench_process" "$runs" -- "$@" "$muster" -c "$tmp/64.conf" doctor \
	-- "$@" "$muster" -c "$tmp/64.conf" resolve
