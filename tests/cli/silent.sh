#!/bin/sh
# No silent wrong answers: a backend that failed before another answered
# is one warning line (-q silences it, strict makes it an error); unknown
# keys and plugins are warned about by resolve and rejected by check with
# "did you mean"; `master` keeps TensorFlow's empty answers and says so;
# text output escapes control bytes; deep nesting is named as such.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"

# expect_err_exactly TEXT DESCRIPTION: stderr is exactly TEXT and a newline.
expect_err_exactly() {
	printf '%s\n' "$1" >"$tmp/expected-err"
	if cmp -s "$tmp/expected-err" "$tmp/err"; then
		pass "$2"
	else
		fail "$2" "expected stderr: $1"
	fi
}

static_tail='{ plugin = "static"; config = { jobs = { worker = ["localhost:2222"]; }; }; }'

# A failed backend before a fallback.
if have_plugin tf_config; then
	fallback=$tmp/fallback.conf
	printf 'chain = (\n  { plugin = "tf_config"; },\n  %s\n);\n' "$static_tail" >"$fallback"
	TF_CONFIG='not json'
	export TF_CONFIG
	run -c "$fallback" resolve
	expect_status 0 "malformed TF_CONFIG, static after it: the chain answers"
	expect_json '{"cluster":{"worker":["localhost:2222"]}}' "... static's cluster"
	expect_err_match "^muster: warning: tf_config\(tf_config\): unavail: TF_CONFIG is not valid JSON.* \(.*/fallback\.conf:2\)$" \
		"... after one warning naming the entry, the reason and file:line"
	if [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
		pass "... and only that line"
	else
		fail "... and only that line"
	fi
	run -q -c "$fallback" resolve
	expect_status 0 "-q: the chain answers"
	expect_empty_err "-q: no warning"
	run --quiet -c "$fallback" resolve
	expect_empty_err "--quiet: no warning"
	run -q -v -c "$fallback" resolve
	expect_err_match "^muster: warning: tf_config" "-q then -v: the later wins"
	run -c "$fallback" master
	expect_err_match "^muster: warning: tf_config\(tf_config\): unavail" "master warns too"

	printf 'strict = true;\n' >"$tmp/strict.conf"
	cat "$fallback" >>"$tmp/strict.conf"
	run -c "$tmp/strict.conf" resolve
	expect_status 2 "strict: a failed backend fails the chain"
	expect_err_match "^muster: tf_config\(tf_config\): unavail: TF_CONFIG is not valid JSON.*strict\.conf:3\).*strict" \
		"strict: the error names the entry, the reason, file:line and strict"
	if [ -s "$tmp/out" ]; then
		fail "strict: nothing on stdout"
	else
		pass "strict: nothing on stdout"
	fi

	unset TF_CONFIG
	run -c "$fallback" resolve
	expect_status 0 "TF_CONFIG unset (notfound): the chain answers"
	expect_empty_err "notfound is not a failure: no warning"
	run -c "$tmp/strict.conf" resolve
	expect_status 0 "strict: notfound still falls back"
else
	skip "a failed backend before a fallback" "the tf_config plugin was not built"
fi

if have_plugin stub; then
	printf 'chain = (\n  { plugin = "stub"; config = { status = "tryagain"; }; },\n  %s\n);\n' \
		"$static_tail" >"$tmp/tryagain.conf"
	run -c "$tmp/tryagain.conf" resolve
	expect_status 0 "tryagain, static after it: the chain answers"
	expect_err_match "^muster: warning: stub\(stub\): tryagain: .*tryagain\.conf:2\)$" \
		"... after a warning (tryagain is a failure too)"
	# A reason quoting a backend's bytes reaches stderr escaped.
	printf 'chain = (\n  { plugin = "stub"; config = { status = "unavail"; reason = "pod \\x1b[2Jx\\x9b"; }; },\n  %s\n);\n' \
		"$static_tail" >"$tmp/esc.conf"
	run -c "$tmp/esc.conf" resolve
	expect_err_match '^muster: warning: stub\(stub\): unavail: pod \\x1b\[2Jx\\x9b \(' \
		"a warning's control bytes are escaped"
	run -c "$tmp/esc.conf" -q resolve
	expect_empty_err "... and -q silences it"
	sed 's/^  { plugin = "static".*$/  { plugin = "stub"; name = "b"; config = { status = "notfound"; }; }/' \
		"$tmp/esc.conf" >"$tmp/esc-fail.conf"
	run -c "$tmp/esc-fail.conf" resolve
	expect_status 1 "a failed chain (the last entry answered notfound)"
	expect_err_match '^muster: no backend .*pod \\x1b\[2Jx\\x9b' "... its error's control bytes escaped"
else
	skip "tryagain before a fallback" "no stub plugin in MUSTER_PLUGIN_PATH"
fi

# An unknown plugin: resolve reports it and goes on; check rejects it.
printf 'chain = (\n  { plugin = "no_such_plugin"; },\n  %s\n);\n' "$static_tail" >"$tmp/noplugin.conf"
run -c "$tmp/noplugin.conf" resolve
expect_status 0 "unknown plugin: the chain goes on"
expect_json '{"cluster":{"worker":["localhost:2222"]}}' "... to the next entry"
expect_err_exactly "muster: warning: unknown plugin 'no_such_plugin' ($tmp/noplugin.conf:2)" \
	"... after exactly one line naming it and file:line"
run -c "$tmp/noplugin.conf" check
expect_status 4 "unknown plugin: check rejects it"
expect_err_match "^muster: unknown plugin 'no_such_plugin' \(.*noplugin\.conf:2\)" "... naming it and file:line"
printf 'strict = true;\n' >"$tmp/noplugin-strict.conf"
cat "$tmp/noplugin.conf" >>"$tmp/noplugin-strict.conf"
run -c "$tmp/noplugin-strict.conf" resolve
expect_status 4 "unknown plugin, strict: a configuration error"

printf 'chain = (\n  { plugin = "statc"; config = { jobs = { w = ["h:1"]; }; }; }\n);\n' >"$tmp/typo.conf"
run -c "$tmp/typo.conf" check
expect_status 4 "plugin typo: check rejects it"
expect_err_match "unknown plugin 'statc' .*did you mean 'static'\?" "... did you mean a built-in"
if have_plugin tf_config; then
	printf 'chain = (\n  { plugin = "tf_confg"; }\n);\n' >"$tmp/typo2.conf"
	run -c "$tmp/typo2.conf" check
	expect_err_match "unknown plugin 'tf_confg' .*did you mean 'tf_config'\?" \
		"... did you mean a plugin in the plugin path"
fi

# Unknown keys: one line each for resolve, which goes on without them.
keys=$tmp/keys.conf
cat >"$keys" <<'CONF'
colour = "blue";
chain = (
  {
    plugin = "static";
    on_sucess = "merge";
    config = {
      jobs = { worker = ["h1:2222"]; };
      rpc_layr = "grpc";
    };
  }
);
CONF
run -c "$keys" resolve
expect_status 0 "unknown keys: resolve answers"
expect_json '{"cluster":{"worker":["h1:2222"]}}' "... without them"
printf '%s\n' "muster: warning: unknown option 'colour' ($keys:1)" \
	"muster: warning: unknown option 'on_sucess' ($keys:5)" \
	"muster: warning: unknown option 'rpc_layr' ($keys:8)" >"$tmp/want"
if cmp -s "$tmp/want" "$tmp/err"; then
	pass "... after exactly one line per key, with file:line"
else
	fail "... after exactly one line per key, with file:line"
fi
run -q -c "$keys" resolve
expect_empty_err "unknown keys, -q: nothing on stderr"
run -c "$keys" check
expect_status 4 "unknown keys: check rejects them"
expect_err_match "unknown option 'on_sucess' \(.*keys\.conf:5\); did you mean 'on_success'\?" \
	"... did you mean, among the chain entry's keys"
expect_err_match "unknown option 'rpc_layr' \(.*keys\.conf:8\); did you mean 'rpc_layer'\?" \
	"... did you mean, among the keys the plugin reads"
expect_err_match "unknown option 'colour' \(.*keys\.conf:1\)" "... every one of them"
expect_err_nomatch "'colour'.*did you mean" "... no suggestion where none is near"
printf 'strict = true;\n' >"$tmp/keys-strict.conf"
cat "$keys" >>"$tmp/keys-strict.conf"
run -c "$tmp/keys-strict.conf" resolve
expect_status 4 "unknown keys, strict: a configuration error"

# master: TensorFlow's answers kept, and said to be no address.
master=$tmp/master.conf
cat >"$master" <<'CONF'
chain = ( { plugin = "static";
            config = { jobs = { worker = ["h1:2222", "h2:2222"]; }; rpc_layer = "grpc"; }; } );
CONF
run -c "$master" master
expect_status 0 "master, static with rpc_layer and no master"
expect_out "grpc://" "... prints TensorFlow's bare grpc://"
expect_err_match "^muster: warning: no master address is known: .*static" "... and says why"
run -q -c "$master" master
expect_out "grpc://" "-q master: the same answer"
expect_empty_err "-q master: no warning"
printf 'strict = true;\n' >"$tmp/master-strict.conf"
cat "$master" >>"$tmp/master-strict.conf"
run -c "$tmp/master-strict.conf" master
expect_status 0 "master under strict: still TensorFlow's answer"
expect_out "grpc://" "... grpc://"
run -c "$master" master --task worker:7
expect_status 5 "master --task worker:7 on a 2-worker cluster fails"
expect_err_match "^muster: .*7.*'worker'" "... naming the task"
run -c "$master" master --task worker:1
expect_out "grpc://h2:2222" "master --task worker:1: its address, no warning"
expect_empty_err "... and nothing on stderr"
if have_plugin tf_config; then
	printf 'chain = ( { plugin = "tf_config"; } );\n' >"$tmp/tf.conf"
	TF_CONFIG='{"cluster":{"worker":["h1:2222"]},"task":{"type":"worker","index":0}}'
	export TF_CONFIG
	run -c "$tmp/tf.conf" master
	expect_status 0 "master, single-task TF_CONFIG"
	expect_out "" "... prints an empty line, as TensorFlow's master()"
	expect_err_match "^muster: warning: no master address is known: .*single task" "... and says why"

	# Text output: an ESC in a job name never reaches the terminal.
	TF_CONFIG='{"cluster":{"wor\u001b[2Jker":["h1:2222"],"b\\s\u007f\u00e9":["h2:1"]},"environment":"e\u009bx"}'
	run -c "$tmp/tf.conf" resolve --format text
	expect_status 0 "text: a job name with ESC"
	if LC_ALL=C grep -q "$(printf '\033')" "$tmp/out"; then
		fail "text: no ESC byte on stdout"
	else
		pass "text: no ESC byte on stdout"
	fi
	expect_out_match '^wor\\x1b\[2Jker 0 h1:2222$' "text: ESC shown as \\x1b"
	expect_out_match '^b\\\\s\\x7fé 0 h2:1$' "text: the backslash doubled, DEL escaped, UTF-8 kept"
	expect_out_match '^environment: e\\xc2\\x9bx$' "text: a C1 control escaped"
	unset TF_CONFIG
fi

# Deep nesting: named as such, not "memory exhausted".
deep=$tmp/deep.conf
awk 'BEGIN { s = "x = "; for (i = 0; i < 3000; i++) s = s "{ a = "; s = s "1;";
	for (i = 0; i < 3000; i++) s = s " };"; print s;
	print "chain = ( { plugin = \"static\"; config = { jobs = { w = [\"h:1\"]; }; }; } );" }' >"$deep"
run -c "$deep" check
expect_status 4 "a deeply nested file"
expect_err_match "deep\.conf:1: nested too deeply" "... says nested too deeply"
expect_err_nomatch "memory exhausted" "... not memory exhausted"

finish
