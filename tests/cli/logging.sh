#!/bin/sh
# Logging: warnings always reach stderr as "muster: warning: ..."; -v adds
# info, -vv debug.  Unknown keys are warned about with file:line.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"

static=$here/static.conf
unknown=$here/unknown-key.conf

run -c "$static" resolve
expect_status 0 "resolve"
expect_err_nomatch '^muster: info: ' "no info messages by default"
run -c "$static" -v resolve
expect_status 0 "-v resolve"
expect_err_match '^muster: info: .*static.*success' "-v: the chain's progress at info level"
expect_json '{"cluster":{"worker":["h1:2222","h2:2222"],"ps":["h3:2222"]},"task":{"type":"worker","index":1},"rpc_layer":"grpc"}' \
	"-v: stdout is unchanged"
run --verbose -c "$static" resolve
expect_status 0 "--verbose resolve"
expect_err_match '^muster: info: ' "--verbose is -v"
run -vv -c "$static" resolve
expect_status 0 "-vv resolve"
expect_err_match '^muster: info: ' "-vv includes info"
expect_err_nomatch '^muster: [a-z]+: .*[^ -~]' "log lines are printable"

# Every stderr line has the documented shape.
run -vv -c "$unknown" resolve
expect_status 0 "-vv resolve with unknown keys"
if grep -E -v -q '^muster: (error|warning|notice|info|debug): ' "$tmp/err"; then
	fail "every log line is 'muster: LEVEL: message'"
else
	pass "every log line is 'muster: LEVEL: message'"
fi

# Unknown keys: warned about with file:line by resolve, rejected by check.
run -c "$unknown" resolve
expect_status 0 "unknown keys are not fatal (resolve)"
expect_err_match "^muster: warning: unknown option 'colour' \(.*unknown-key\.conf:2\)$" \
	"resolve: unknown top-level key, with file:line"
expect_err_match "^muster: warning: unknown option 'on_sucess' \(.*unknown-key\.conf:6\)$" \
	"resolve: unknown chain entry key, with file:line"
expect_err_match "^muster: warning: unknown option 'rpc_layr' \(.*unknown-key\.conf:9\)$" \
	"resolve: unknown key in a plugin's config, with file:line"
run -c "$unknown" check
expect_status 4 "unknown keys are rejected by check"
for key in colour on_sucess rpc_layr; do
	expect_err_match "unknown option '$key' \(.*unknown-key\.conf:[0-9]+\)" "check: names '$key'"
done

finish
