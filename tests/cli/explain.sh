#!/bin/sh
# muster resolve --explain and env --explain with the real tf_config
# backend: stdout keeps the answer; stderr says what each entry answered,
# with the variables and files that decided and their values (a secret's
# redacted, control bytes escaped), which entry answered and which were
# not run; MUSTER_NO_DETECT=1 shows detecting entries switched off.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
require_plugin tf_config
unset MUSTER_NO_DETECT MY_API_TOKEN

tf='{"cluster":{"worker":["a:1","b:2"]},"task":{"type":"worker","index":1}}'
cat >"$tmp/chain.conf" <<'CONF'
chain = (
  { plugin = "tf_config"; on_unavail = "continue"; },
  { plugin = "tf_config"; name = "secret"; config = { variable = "MY_API_TOKEN"; };
    on_unavail = "continue"; },
  { plugin = "static"; name = "fallback"; config = { jobs = { worker = ["h1:2222"]; }; }; },
  { plugin = "static"; name = "later"; config = { jobs = { worker = ["h2:2222"]; }; }; }
);
CONF
c=$tmp/chain.conf

# expect_explain WHAT TEXT: the "muster: explain: " lines of stderr are
# TEXT, with each entry's time as "N ms".
expect_explain() {
	sed -n 's/^muster: explain: //; t found; d; : found; s/, [0-9]* ms/, N ms/; p' "$tmp/err" \
		>"$tmp/explained"
	printf '%s\n' "$2" >"$tmp/expected"
	if cmp -s "$tmp/expected" "$tmp/explained"; then
		pass "$1"
	else
		fail "$1" "want:" "$2"
	fi
}

# The first entry answers: its TF_CONFIG with its value; the others not run.
TF_CONFIG=$tf run -c "$c" resolve --explain
expect_status 0 "resolve --explain, TF_CONFIG set"
expect_json "$tf" "... stdout is the answer, as without --explain"
expect_explain "... the entry that answered, TF_CONFIG and its value; the detector after it asked for the record; the entries not run" \
"configuration $c; MUSTER_NO_DETECT is not set
1 tf_config (tf_config): success, N ms: answered
    TF_CONFIG = $tf
2 secret (tf_config), asked after the chain ended: notfound, N ms: MY_API_TOKEN is not set
    MY_API_TOKEN is not set
not run: fallback, later
answer: tf_config"
MY_API_TOKEN=$tf TF_CONFIG=$tf run -c "$c" resolve --explain
expect_err_match "^muster: explain: 2 secret \(tf_config\), asked after the chain ended: success, [0-9]+ ms: would have answered$" \
	"... a detector after the answer that matches too would have answered"

# A failing entry before the one that answers; the second reads a variable
# whose name looks secret: its value is redacted.
TF_CONFIG='{bad' MY_API_TOKEN="$tf" run -c "$c" resolve --explain --format text
expect_status 0 "resolve --explain, a failing entry first"
expect_out "worker 0 a:1
worker 1 b:2
task: worker 1
source: secret" "... stdout is the answer in its format"
expect_explain "... the failure with its reason and input, then the secret redacted" \
"configuration $c; MUSTER_NO_DETECT is not set
1 tf_config (tf_config): unavail, N ms: TF_CONFIG is not valid JSON: expecting a property name in double quotes at byte 1 (line 1, column 2) near \"{bad\"
    TF_CONFIG = {bad
2 secret (tf_config): success, N ms: answered
    MY_API_TOKEN = (redacted)
not run: fallback, later
answer: secret"
if grep -q '"cluster"' "$tmp/err"; then
	fail "... the secret's value appears nowhere on stderr"
else
	pass "... the secret's value appears nowhere on stderr"
fi
expect_err_match "^muster: warning: tf_config\(tf_config\): unavail" "... the core's warning stays"

# Unset: notfound, the variable noted as not set; control bytes escaped.
esc=$(printf '\033[31m')
TF_CONFIG="$esc" MY_API_TOKEN='' run -c "$c" resolve --explain
expect_status 0 "resolve --explain, nothing detected"
expect_explain "... each entry's answer; unset variables; escapes shown escaped" \
"configuration $c; MUSTER_NO_DETECT is not set
1 tf_config (tf_config): unavail, N ms: TF_CONFIG is not valid JSON: expecting a value at byte 0 (line 1, column 1) near \"\\x1b[31m\"
    TF_CONFIG = \\x1b[31m
2 secret (tf_config): unavail, N ms: MY_API_TOKEN is empty; expected JSON
    MY_API_TOKEN = (redacted)
3 fallback (static): success, N ms: answered
not run: later
answer: fallback"

# MUSTER_NO_DETECT=1: both tf_config entries stand aside, shown switched off.
MUSTER_NO_DETECT=1 TF_CONFIG=$tf run -c "$c" resolve --explain
expect_status 0 "MUSTER_NO_DETECT=1 resolve --explain"
expect_json '{"cluster":{"worker":["h1:2222"]}}' "... the explicit entry answers"
expect_explain "... the detecting entries switched off, not run" \
"configuration $c; MUSTER_NO_DETECT = 1 (entries that detect their environment stand aside)
1 tf_config (tf_config): notfound, N ms: switched off: MUSTER_NO_DETECT is set
2 secret (tf_config): notfound, N ms: switched off: MUSTER_NO_DETECT is set
3 fallback (static): success, N ms: answered
not run: later
answer: fallback"
MUSTER_NO_DETECT=0 TF_CONFIG=$tf run -c "$c" resolve --explain
expect_err_match "^muster: explain: configuration .*; MUSTER_NO_DETECT = 0$" \
	"MUSTER_NO_DETECT=0: shown, and detection stays on"
expect_err_match "^muster: explain: answer: tf_config$" "... tf_config answers"

# A file that decided, and a chain that fails: explained, then the error.
printf 'chain = ( { plugin = "tf_config"; config = { file = "%s/tf.json"; }; } );\n' "$tmp" \
	>"$tmp/file.conf"
run -c "$tmp/file.conf" resolve --explain
expect_status 1 "resolve --explain, the one entry finds no file"
expect_explain "... the file noted as absent, no answer" \
"configuration $tmp/file.conf; MUSTER_NO_DETECT is not set
1 tf_config (tf_config): notfound, N ms: $tmp/tf.json does not exist
    file $tmp/tf.json was not read
no answer"
expect_err_match "^muster: no backend could resolve the cluster" "... then the error"
printf '%s' "$tf" >"$tmp/tf.json"
run -c "$tmp/file.conf" resolve --explain
expect_status 0 "resolve --explain, TF_CONFIG from a file"
expect_err_match "^muster: explain:     file $tmp/tf\.json = \{\"cluster\"" "... the file and its content"

# env --explain: the same on stderr, the environment on stdout.
TF_CONFIG=$tf run -c "$c" env --for pytorch --format dotenv --explain
expect_status 0 "env --explain"
expect_out_match "^RANK=1$" "... stdout is the environment"
expect_err_match "^muster: explain: answer: tf_config$" "... stderr explains"
TF_CONFIG=$tf run -c "$c" env --for pytorch --format dotenv
expect_empty_err "env without --explain says nothing"

# --explain with --exec: explained before the command runs.
TF_CONFIG=$tf run -c "$c" resolve --explain --exec -- sh -c 'echo "$MUSTER_CLUSTER"'
expect_status 0 "resolve --explain --exec"
expect_json "$tf" "... the command gets the cluster"
expect_err_match "^muster: explain: answer: tf_config$" "... explained"
finish
