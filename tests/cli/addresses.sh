#!/bin/sh
# Addresses leave muster only as HOST:PORT: `muster check` rejects a static
# address that is not, naming it and its file:line; names pass without a
# DNS lookup.  A TF_CONFIG of {} is an empty cluster.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"

cat >"$tmp/bad.conf" <<'CONF'
chain = ( { plugin = "static"; config = {
  jobs = { worker = ["n1:2222",
                     "[1.2.3.4:99]:8470"]; };
}; } );
CONF
run -c "$tmp/bad.conf" check
expect_status 4 "check: a bracketed IPv4 address with a port"
expect_err_match "bad\.conf:3: static\(static\): job 'worker': address \"\[1\.2\.3\.4:99\]:8470\" is not HOST:PORT" \
	"... names the address and its file:line"
for addr in 'h:0' 'h:65536' 'h' 'a b:1' '-h:1' '[fe80::1]:1' '::1:1'; do
	printf 'chain = ( { plugin = "static"; config = { jobs = { w = ["%s"]; }; }; } );\n' \
		"$addr" >"$tmp/one.conf"
	run -c "$tmp/one.conf" check
	expect_status 4 "check rejects $addr"
done

cat >"$tmp/good.conf" <<'CONF'
chain = ( { plugin = "static"; config = {
  jobs = { worker = ["n1:1", "algo-1:2222", "worker-0.train.svc:65535", "10.0.0.1:8470",
                     "[fd00::1]:8470", "[fe80::1%eth0]:8470"]; };
}; } );
CONF
run -c "$tmp/good.conf" check
expect_status 0 "check: names, IP literals and a link-local zone pass"
run -c "$tmp/good.conf" resolve
expect_json '{"cluster":{"worker":["n1:1","algo-1:2222","worker-0.train.svc:65535","10.0.0.1:8470","[fd00::1]:8470","[fe80::1%eth0]:8470"]}}' \
	"... and resolve as written"

if have_plugin tf_config; then
	TF_CONFIG='{}' run -c "$here/tf-only.conf" resolve
	expect_status 0 "TF_CONFIG {}: exit 0"
	expect_json '{"cluster":{}}' "... an empty cluster"
	TF_CONFIG='{"cluster":{"worker":["a:1","b b:2"]}}' run -c "$here/tf-only.conf" resolve
	expect_status 2 "TF_CONFIG: a bad address"
	expect_err_match 'task worker:1: address "b b:2" is not HOST:PORT' "... is named"
else
	skip "TF_CONFIG {}" "no tf_config plugin in MUSTER_PLUGIN_PATH"
fi

finish
