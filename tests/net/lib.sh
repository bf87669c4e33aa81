# Network namespaces for the tests of the network path: each test makes
# its own (named after its process id, so that tests running at once never
# meet), links them with veth pairs created inside them, runs muster in
# them, and removes them all on exit.  All traffic stays inside.  Needs
# root and `ip netns`; skips otherwise.
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"

[ "$(id -u)" = 0 ] || skip_all "network namespaces need root"
require_tools ip unshare mount hostname timeout
ns_prefix="mu$$"
ns_made=
ns_pids=
ip netns add "${ns_prefix}probe" 2>/dev/null || skip_all "cannot create a network namespace"
ip netns del "${ns_prefix}probe"

cleanup() {
	for pid in $ns_pids; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	for n in $ns_made; do
		ip netns del "$ns_prefix$n" 2>/dev/null
	done
}

# ns_add NAME...: namespaces with their loopback up.
ns_add() {
	for n in "$@"; do
		ip netns add "$ns_prefix$n" || bail_out "ip netns add $ns_prefix$n"
		ns_made="$ns_made $n"
		ip -n "$ns_prefix$n" link set lo up || bail_out "lo up in $n"
	done
}

# ns_ip NS ARGS...: `ip ARGS` inside namespace NS.
ns_ip() {
	n=$1
	shift
	ip -n "$ns_prefix$n" "$@" || bail_out "ip -n $n $*"
}

# ns_link NS1 IF1 ADDR1 NS2 IF2 ADDR2: a veth pair between two namespaces,
# made inside them (no name ever exists outside), addressed ("10.0.0.1/24")
# and up.
ns_link() {
	ip link add "$2" netns "$ns_prefix$1" type veth peer name "$5" netns "$ns_prefix$4" ||
		bail_out "veth $1:$2 - $4:$5"
	ns_ip "$1" addr add "$3" dev "$2"
	ns_ip "$4" addr add "$6" dev "$5"
	ns_ip "$1" link set "$2" up
	ns_ip "$4" link set "$5" up
}

# in_ns NS HOSTNAME HOSTS [FILE=/etc/NAME...] -- COMMAND...: COMMAND in
# namespace NS, in mount and UTS namespaces of its own where HOSTS (a
# file) is /etc/hosts, each FILE the /etc file it names (resolv.conf,
# nsswitch.conf), and the host name is HOSTNAME.
in_ns() {
	n=$1 name=$2
	shift 2
	binds=
	while [ "$1" != -- ]; do
		case $1 in
		*=*) binds="$binds $1" ;;
		*) binds="$binds $1=/etc/hosts" ;;
		esac
		shift
	done
	shift
	ip netns exec "$ns_prefix$n" unshare -m -u sh -c '
		for b in $1; do mount --bind "${b%%=*}" "${b#*=}" || exit 125; done
		hostname "$2" || exit 125
		shift 2
		exec "$@"' sh "$binds" "$name" "$@"
}

# ns_bg NS COMMAND...: COMMAND in the background inside NS (stopped by
# cleanup); its pid in $ns_pid.
ns_bg() {
	n=$1
	shift
	ip netns exec "$ns_prefix$n" "$@" &
	ns_pid=$!
	ns_pids="$ns_pids $ns_pid"
}

# muster_in NS HOSTNAME HOSTS [FILE=/etc/NAME...] -- ARGS...: muster ARGS in NS as
# in_ns sets it up; $tmp/out, $tmp/err and $status as `run` sets them.
muster_in() {
	status=0
	# The last "--" separates in_ns's arguments from muster's.
	in_ns_args=
	while [ "$1" != -- ]; do
		in_ns_args="$in_ns_args $1"
		shift
	done
	shift
	# shellcheck disable=SC2086 # in_ns's arguments hold no blanks
	in_ns $in_ns_args -- "$MUSTER_BIN" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
	no_sanitizer_report "muster $* (in $n)"
}

# wait_port NS PORT: until something listens on PORT inside NS (5 s).
wait_port() {
	i=0
	while [ $i -lt 50 ]; do
		if ip netns exec "$ns_prefix$1" cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
			awk -v p="$(printf '%04X' "$2")" '$4 == "0A" && $2 ~ (":" p "$") { f = 1 } END { exit !f }'; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	bail_out "nothing listens on port $2 in $1"
}

# net_setup [NET]: the tests' network, in NET (default 10.77; the
# addresses below are 10.77's).  A master node M and a worker W, linked by
# mv (10.77.1.1) - wa (10.77.1.2); a gateway G linked to W by
# gv (10.77.2.1) - wb (10.77.2.2), W's default route.  The master's
# service address 10.77.9.1 (on M's loopback) is routed to W through wa
# by a route of its own: the default route's interface is the wrong
# answer.  Host files: M's maps its own name to 127.0.1.1 (as Debian's
# installer writes it); W's maps its own to its address on wa.
# $tmp/cluster.conf: master:0 on "master", worker:0 on "worker", port
# $port (29500).
port=29500
net_setup() {
	net=${1:-10.77}
	ns_add M W G
	ns_link M mv "$net.1.1/24" W wa "$net.1.2/24"
	ns_link G gv "$net.2.1/24" W wb "$net.2.2/24"
	ns_ip M addr add "$net.9.1/32" dev lo
	ns_ip W route add default via "$net.2.1" dev wb
	ns_ip W route add "$net.9.0/24" via "$net.1.1" dev wa
	cat >"$tmp/hosts.M" <<HOSTS
127.0.0.1 localhost
127.0.1.1 master
$net.1.2 worker
HOSTS
	cat >"$tmp/hosts.W" <<HOSTS
127.0.0.1 localhost
$net.9.1 master
$net.1.2 worker
HOSTS
	cat >"$tmp/cluster.conf" <<CONF
chain = ( { plugin = "static"; config = {
  jobs = { master = ["master:$port"]; worker = ["worker:$port"]; }; }; } );
CONF
}
