#!/bin/sh
# libvirt plugin: scale — 1,000 running domains (a node written at test
# time by gen-node.py): every one a task, in natural order, each with its
# lease address and its GPU; one shut-off domain among 1,000 is tryagain.
. "$MUSTER_TEST_SRCDIR/tests/libvirt/lib.sh"
require_tools python3
python3 "$here/gen-node.py" 1000 "$tmp/n1000.xml" || bail_out "gen-node.py"
c=$(conf big "uri = \"test://$tmp/n1000.xml\"; jobs = { worker = \"tf-worker-*\"; }; self_domain = \"tf-worker-999\";" "timeout_ms = 120000;")
run_muster "$c" resolve
if [ "$rc" != 0 ]; then
	fail "1000 domains: exit $rc"
else
	pass "1000 domains: exit 0"
	summary=$(printf '%s' "$out" | python3 -c '
import ipaddress, json, sys
r = json.load(sys.stdin)
w = r["cluster"]["worker"]
ok = all(a == "%s:8470" % ipaddress.ip_address(int(ipaddress.ip_address("10.40.0.10")) + i * 20 + 1)
         for i, a in enumerate(w))
acc = r["accelerators"]["worker"]
print(len(w), ok, len(acc), sum(v["GPU"] for v in acc.values()), sorted(acc, key=int)[:3],
      r["task"])')
	check_eq "1000 tasks, natural order, lease addresses, GPUs, self" "$summary" \
		"1000 True 250 250 ['0', '4', '8'] {'type': 'worker', 'index': 999}"
fi
expect_quiet "1000 domains: quiet"

python3 "$here/gen-node.py" 1000 "$tmp/off.xml" --shutoff tf-worker-517
c=$(conf off "uri = \"test://$tmp/off.xml\"; jobs = { worker = \"tf-worker-*\"; };" "timeout_ms = 120000;")
run_muster "$c" resolve
expect_err "one of 1000 shut off" $EX_TRYAGAIN \
	"libvirt(vm): tryagain: domain tf-worker-517 (job worker) is shut off; 1 of 1000 domains not running"
c=$(conf offskip "uri = \"test://$tmp/off.xml\"; jobs = { worker = \"tf-worker-*\"; }; inactive = \"skip\";" "timeout_ms = 120000;")
run_muster "$c" resolve
n=$(printf '%s' "$out" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["cluster"]["worker"]))' 2>/dev/null)
check_eq "inactive = skip: exit 0" "$rc" 0
check_eq "inactive = skip: 999 tasks" "$n" 999

finish
