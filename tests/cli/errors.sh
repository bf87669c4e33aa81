#!/bin/sh
# Exit statuses and error messages: config errors (4), the chain's answers
# (1 notfound, 2 unavail), no such task and merge conflicts (5).
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"

# A missing configuration file: 4, naming the file.
run -c "$tmp/no-such.conf" resolve
expect_status 4 "missing config file"
expect_err_match "^muster: .*no-such\.conf" "... names the file"
for cmd in check plugins master accelerators; do
	run -c "$tmp/no-such.conf" "$cmd"
	expect_status 4 "missing config file ($cmd)"
done
status=0
MUSTER_CONF=$tmp/no-such.conf "$MUSTER_BIN" check >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 4 "missing \$MUSTER_CONF"

# A syntax error: 4, with file:line.
run -c "$here/syntax-error.conf" check
expect_status 4 "syntax error (check)"
expect_err_match "^muster: .*syntax-error\.conf:4: " "syntax error: the message names file:line"
if [ -s "$tmp/out" ]; then
	fail "syntax error: check prints no OK"
else
	pass "syntax error: check prints no OK"
fi
run -c "$here/syntax-error.conf" resolve
expect_status 4 "syntax error (resolve)"

# A value of the wrong type: 4, with file:line.
run -c "$here/bad-type.conf" check
expect_status 4 "wrong type"
expect_err_match "^muster: .*bad-type\.conf:6: .*timeout_ms" "wrong type: file:line and the key"

# An unknown plugin with strict = true: 4, naming the plugin and its line.
run -c "$here/strict-unknown-plugin.conf" check
expect_status 4 "unknown plugin, strict (check)"
expect_err_match "^muster: unknown plugin 'no_such_plugin' \(.*strict-unknown-plugin\.conf:4\)" \
	"unknown plugin, strict: file:line and the plugin's name"
run -c "$here/strict-unknown-plugin.conf" resolve
expect_status 4 "unknown plugin, strict (resolve)"

# Not strict: a warning, the entry answers unavail and the chain goes on;
# check rejects it all the same.
run -c "$here/unknown-plugin.conf" resolve
expect_status 0 "unknown plugin, not strict: the chain falls back"
expect_json '{"cluster":{"worker":["h1:2222"]}}' "... to static"
expect_err_match "^muster: warning: unknown plugin 'no_such_plugin' \(.*unknown-plugin\.conf:4\)$" \
	"... after a warning with file:line"
run -c "$here/unknown-plugin.conf" check
expect_status 4 "unknown plugin, not strict: check rejects it"
run -c "$here/unknown-plugin.conf" plugins
expect_status 0 "unknown plugin, not strict: plugins"
expect_out_match '^no_such_plugin +no_such_plugin +- +- +- +.*unknown-plugin\.conf:4 +- +failed: .*no_such_plugin' \
	"plugins: the failed entry and why"
expect_out_match '^static +static +.* built-in$' "plugins: the entry after it"

# The chain's answers.
run -c "$here/unknown-plugin-only.conf" resolve
expect_status 2 "chain answers unavail (plugin failed to load)"
expect_err_match "^muster: .*no_such_plugin" "... and says which entry and why"

if have_plugin tf_config; then
	run -c "$here/tf-only.conf" resolve
	expect_status 1 "chain answers notfound (TF_CONFIG unset)"
	expect_err_match "^muster: .*TF_CONFIG" "... and says TF_CONFIG is not set"
	run -c "$here/tf-only.conf" master
	expect_status 1 "master: notfound"
	status=0
	TF_CONFIG='not json' "$MUSTER_BIN" -c "$here/tf-only.conf" resolve >"$tmp/out" \
		2>"$tmp/err" || status=$?
	expect_status 2 "chain answers unavail (TF_CONFIG is not JSON)"
	expect_err_match "^muster: .*tf_config" "... and names the backend"
	status=0
	TF_CONFIG='{"cluster":{"worker":"h1:2222"}}' "$MUSTER_BIN" -c "$here/tf-only.conf" \
		resolve >"$tmp/out" 2>"$tmp/err" || status=$?
	expect_status 2 "chain answers unavail (TF_CONFIG of the wrong shape)"
else
	skip "notfound and unavail from tf_config" "the tf_config plugin was not built"
fi

# tryagain needs a backend that answers it: the test plugins, when built.
if have_plugin stub; then
	cat >"$tmp/tryagain.conf" <<'CONF'
chain = ( { plugin = "stub"; config = { status = "tryagain"; }; } );
CONF
	run -c "$tmp/tryagain.conf" resolve
	expect_status 3 "chain answers tryagain"
	cat >"$tmp/slow.conf" <<'CONF'
chain = ( { plugin = "stub"; timeout_ms = 20; config = { sleep_ms = 300; jobs = { worker = ["a:1"]; }; }; } );
CONF
	run -c "$tmp/slow.conf" resolve
	expect_status 2 "a backend that overruns its time budget answers unavail"
else
	skip "chain answers tryagain" "no stub plugin in MUSTER_PLUGIN_PATH"
fi

# No such job or task: 5.
run -c "$here/static.conf" master --task nosuchjob:0
expect_status 5 "master --task nosuchjob:0"
expect_err_match "^muster: .*nosuchjob" "... names the job"
run -c "$here/static.conf" accelerators --task nosuchjob:0
expect_status 5 "accelerators --task nosuchjob:0"
run -c "$here/static.conf" tf-config --task nosuchjob:0
expect_status 5 "tf-config --task nosuchjob:0"

# A merge conflict: 5, naming the task and both backends.
run -c "$here/conflict.conf" resolve
expect_status 5 "merge conflict"
expect_err_match "^muster: .*worker:1.*first.*second" "merge conflict: the task and both backends"

finish
