#!/bin/sh
# Logging: warnings always reach stderr as "muster: warning: ..."; -v adds
# info, -vv debug.  Unknown keys are warned about with file:line.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/cli/lib.sh"

static=$fixtures/static.conf
unknown=$fixtures/unknown-key.conf

run -c "$static" resolve
expect_err_nomatch '^muster: info: ' "no info messages by default"
run -c "$static" -v resolve
expect_status 0 "-v resolve"
expect_err_match '^muster: info: .*static.*success' "-v: the chain's progress at info level"
expect_json '{"cluster":{"worker":["h1:2222","h2:2222"],"ps":["h3:2222"]},"task":{"type":"worker","index":1},"rpc_layer":"grpc"}' \
	"-v: stdout is unchanged"
run --verbose -c "$static" resolve
expect_err_match '^muster: info: ' "--verbose is -v"
run -vv -c "$static" resolve
expect_status 0 "-vv resolve"
expect_err_match '^muster: info: ' "-vv includes info"
expect_err_nomatch '^muster: [a-z]+: .*[^ -~]' "log lines are printable"

# Every stderr line has the documented shape.
run -vv -c "$unknown" resolve
if grep -E -v -q '^muster: (error|warning|notice|info|debug): ' "$tmp/err"; then
	fail "every log line is 'muster: LEVEL: message'"
else
	pass "every log line is 'muster: LEVEL: message'"
fi

# Unknown keys: warned about with file:line by default, and not fatal.
for cmd in check resolve; do
	run -c "$unknown" "$cmd"
	expect_status 0 "unknown keys are not fatal ($cmd)"
	expect_err_match "^muster: warning: .*unknown-key\.conf:2: .*'colour'" \
		"$cmd: unknown top-level key, with file:line"
	expect_err_match "^muster: warning: .*unknown-key\.conf:6: .*'on_sucess'" \
		"$cmd: unknown chain entry key, with file:line"
	expect_err_match "^muster: warning: .*unknown-key\.conf:9: .*'rpc_layr'" \
		"$cmd: unknown key in a plugin's config, with file:line"
done

finish
