#!/bin/sh
# libvirt plugin: who is a member — running domains only; a member that is
# defined but not running is tryagain naming it, or skipped; no member at
# all is notfound; a job without a running domain is tryagain; metadata-only
# membership; explicit indices fill around the natural order.
. "$MUSTER_TEST_SRCDIR/tests/libvirt/lib.sh"

c=$(conf eval "uri = \"$URI\"; jobs = { worker = \"tf-worker-1*\"; evaluator = \"tf-evaluator-*\"; }; $NODMI")
run_muster "$c" resolve
expect_err "a shut-off member: tryagain naming it" $EX_TRYAGAIN \
	"libvirt(vm): tryagain: domain tf-evaluator-0 (job evaluator) is shut off; 1 of 4 domains not running (inactive = \"skip\" leaves them out)"
expect_quiet "tryagain is quiet"
c=$(conf skip "uri = \"$URI\"; jobs = { worker = \"tf-worker-1*\"; evaluator = \"tf-evaluator-*\"; }; inactive = \"skip\"; $NODMI")
run_muster "$c" -v resolve
expect_err "inactive = skip: the job has no running domain" $EX_TRYAGAIN \
	"info: libvirt(vm): domain tf-evaluator-0 is shut off: left out" \
	"libvirt(vm): tryagain: no running domain of job evaluator yet"
c=$(conf skip2 "uri = \"$URI\"; jobs = { w = [\"tf-worker-1*\", \"tf-evaluator-*\"]; ps = \"none-*\"; }; inactive = \"skip\"; $NODMI")
run_muster "$c" resolve --format text
expect "inactive = skip: skipped, metadata member of ps stays" 0 "w 0 10.10.0.121:8470 GPU=1
w 1 10.10.0.141:8470 GPU=2
ps 5 10.10.0.241:8470
rpc_layer: grpc
source: vm"

# Nothing matches: notfound, so a chain falls back.
c=$(conf none "uri = \"$URI\"; jobs = { w = [\"nothing-*\", \"nope-*\"]; x = \"zz*\"; }; $NODMI")
run_muster "$c" resolve
expect_err "no member: notfound" $EX_NOTFOUND \
	"libvirt(vm): notfound: no domain matches \"nothing-*\" (w), \"nope-*\" (w), \"zz*\" (x) or names a configured job in its muster metadata on $URI"
cat >"$tmp/chain.conf" <<EOC
chain = ( { plugin = "libvirt"; name = "vm"; config = { uri = "$URI"; jobs = { w = "nothing-*"; }; }; },
          { plugin = "static"; config = { jobs = { worker = [ "localhost:2222" ]; }; }; } );
EOC
run_muster "$tmp/chain.conf" resolve --format text
expect "notfound falls back" 0 "worker 0 localhost:2222
source: static"

# Metadata only (no jobs): every domain with muster metadata, jobs in
# alphabetical order, indices from metadata, the rest in natural order.
c=$(conf meta "uri = \"$URI\"; $NODMI")
run_muster "$c" resolve --format text
expect "metadata only" 0 "chief 0 10.10.0.221:2223
ps 5 10.10.0.241:8470
worker 0 10.10.0.161:8470 TPU=4
rpc_layer: grpc
source: vm"

# Explicit indices: the rest take the lowest free ones; duplicates fail.
m() { # m NAME JOB [INDEX]: a running domain with metadata
	printf '<domain type="test"><name>%s</name><memory>1024</memory><os><type>hvm</type></os>' "$1"
	printf '<metadata><t:task xmlns:t="https://muster.dev/xmlns/libvirt/1" job="%s"%s/></metadata>' \
		"$2" "${3:+ index=\"$3\"}"
	printf '<devices><interface type="network"><mac address="52:54:00:70:00:%02x"/><source network="n"/></interface></devices></domain>\n' \
		"$(printf '%s' "$1" | cksum | cut -c1-2)"
}
{
	echo '<node><network><name>n</name><bridge name="virbr30"/><ip address="10.30.0.1" netmask="255.255.0.0"><dhcp><range start="10.30.0.10" end="10.30.9.9"/></dhcp></ip></network>'
	m a-3 worker; m a-1 worker 1; m a-2 worker; m a-9 worker 3; m a-10 worker
	echo '</node>'
} >"$tmp/idx.xml"
c=$(conf idx "uri = \"test://$tmp/idx.xml\"; $NODMI")
run_muster "$c" resolve --format text
# ids: a-3 1, a-1 2, a-2 3, a-9 4, a-10 5 → 10.30.0.(10 + 20*(id-1) + 1);
# a-1 and a-9 hold 1 and 3, a-2, a-3, a-10 take 0, 2, 4
expect "explicit indices, the rest fill in natural order" 0 "worker 0 10.30.0.51:8470
worker 1 10.30.0.31:8470
worker 2 10.30.0.11:8470
worker 3 10.30.0.71:8470
worker 4 10.30.0.91:8470
rpc_layer: grpc
source: vm"
{
	echo '<node><network><name>n</name><bridge name="virbr30"/><ip address="10.30.0.1" netmask="255.255.0.0"><dhcp><range start="10.30.0.10" end="10.30.9.9"/></dhcp></ip></network>'
	m b-1 worker 2; m b-2 worker 2
	echo '</node>'
} >"$tmp/dup.xml"
c=$(conf dup "uri = \"test://$tmp/dup.xml\"; $NODMI")
run_muster "$c" resolve
expect_err "two domains, one index" $EX_UNAVAIL \
	"libvirt(vm): unavail: job worker: domains b-1 and b-2 both have index 2 in their muster metadata"

# A running domain without any interface: no address yet.
cat >"$tmp/noif.xml" <<EOX
<node><domain type="test"><name>lonely</name><memory>1024</memory><os><type>hvm</type></os></domain></node>
EOX
c=$(conf noif "uri = \"test://$tmp/noif.xml\"; jobs = { worker = \"*\"; }; $NODMI")
run_muster "$c" resolve
expect_err "no interface: tryagain" $EX_TRYAGAIN \
	"domain lonely is running but has no address yet (lease: no address; agent: operation forbidden: read only access prevents virDomainInterfaceAddresses; arp: no address)"

finish
