#!/bin/sh
# bench/libvirt: 1,000 running domains of libvirt's test driver.
#
#   muster   `muster resolve` with the libvirt plugin: one connection, the
#            domain list, each domain's XML and addresses, node devices
#   virsh    the shell loop an administrator writes today against the same
#            test:/// file: `virsh list --name`, then `virsh domifaddr` per
#            domain (one virsh process — one connection — per domain)
#
# Both read the same node file; each run's output is checked (1,000
# addresses) so neither side is timed doing less.  Usage:
#   run.sh BUILDDIR SRCDIR [N_DOMAINS] [REPEATS]
set -eu
build=${1:?builddir}
src=${2:?srcdir}
n=${3:-1000}
reps=${4:-1}  # the virsh loop takes minutes per run

command -v virsh >/dev/null || { echo "bench-libvirt: virsh is not installed (libvirt-clients)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/muster-bench-virt-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
python3 "$src/tests/libvirt/gen-node.py" "$n" "$tmp/node.xml"
uri="test://$tmp/node.xml"
cat >"$tmp/muster.conf" <<EOC
chain = ( { plugin = "libvirt"; name = "vm"; timeout_ms = 600000;
            config = { uri = "$uri"; jobs = { worker = "tf-worker-*"; }; }; } );
EOC
export MUSTER_PLUGIN_PATH="$build/plugins/libvirt/.libs"
unset LIBVIRT_DEFAULT_URI

now() { python3 -c 'import time; print(time.monotonic())'; }

# The administrator's loop.
virsh_loop() {
	for d in $(virsh -r -c "$uri" list --name); do
		virsh -r -c "$uri" domifaddr "$d" --source lease |
			awk -v d="$d" '$3 == "ipv4" { sub("/.*", "", $4); print d, $4 ":8470"; exit }'
	done
}

best_m= best_v=
i=0
while [ $i -lt "$reps" ]; do
	i=$((i + 1))
	t0=$(now)
	"$build/cli/muster" -c "$tmp/muster.conf" resolve >"$tmp/m.json"
	t1=$(now)
	virsh_loop >"$tmp/v.txt"
	t2=$(now)
	m=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['cluster']['worker']))" "$tmp/m.json")
	v=$(wc -l <"$tmp/v.txt")
	[ "$m" = "$n" ] && [ "$v" = "$n" ] || { echo "bench-libvirt: muster gave $m, virsh $v addresses (want $n)"; exit 1; }
	tm=$(python3 -c "print($t1 - $t0)")
	tv=$(python3 -c "print($t2 - $t1)")
	echo "run $i: muster ${tm}s, virsh loop ${tv}s"
	best_m=$(python3 -c "print(min(x for x in [$tm, ${best_m:-$tm}]))")
	best_v=$(python3 -c "print(min(x for x in [$tv, ${best_v:-$tv}]))")
done
# The same addresses on both sides.
python3 - "$tmp/m.json" "$tmp/v.txt" <<'EOP'
import json, sys
m = json.load(open(sys.argv[1]))["cluster"]["worker"]
v = [l.split()[1] for l in open(sys.argv[2])]
if sorted(m) != sorted(v):
    sys.exit("bench-libvirt: muster and the virsh loop disagree on the addresses")
EOP
printf '\n%-34s %12s %10s\n' "libvirt test driver, $n domains" "best of $reps" "speed-up"
printf '%-34s %11.3fs %10s\n' "virsh list + virsh domifaddr loop" "$best_v" "1x"
printf '%-34s %11.3fs %9.0fx\n' "muster resolve" "$best_m" "$(python3 -c "print($best_v / $best_m)")"
