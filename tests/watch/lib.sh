# Helpers of the watch tests (sourced after tests/lib/tap.sh): a watch
# process writes its lines to $tmp/lines and its stderr to $tmp/werr.

# watch_start COMMAND...: COMMAND in the background, its stdout in
# $tmp/lines and its stderr in $tmp/werr, its pid in $pid.  Both files are
# emptied here, before the child starts: the shell opens a background
# job's redirections in the child, so a reader could otherwise find no file
# yet, or the lines of the watch before.
watch_start() {
	: >"$tmp/lines"
	: >"$tmp/werr"
	"$@" >>"$tmp/lines" 2>>"$tmp/werr" &
	pid=$!
}

# nlines: how many lines the watch has printed.
nlines() { wc -l <"$tmp/lines"; }

# await N DESCRIPTION [SECONDS]: the watch has printed N lines within 3 s
# (the goal is 1 s for a config edit; the margin is for a loaded machine
# running sanitized builds), or SECONDS when the process is starting.
await() {
	i=0
	while [ "$(nlines)" -lt "$1" ] && [ $i -lt $((${3:-3} * 100)) ]; do
		sleep 0.01
		i=$((i + 1))
	done
	if [ "$(nlines)" -ge "$1" ]; then
		pass "$2 (after $((i * 10)) ms)"
	else
		fail "$2" "no line $1 within ${3:-3} s" "$(cat "$tmp/lines" "$tmp/werr")"
	fi
}

# line_is N PYTHON-EXPRESSION DESCRIPTION: over `c`, line N as JSON.
line_is() {
	if sed -n "$1p" "$tmp/lines" |
		python3 -c "import json,sys; c=json.loads(sys.stdin.read()); sys.exit(0 if ($2) else 1)"
	then
		pass "$3"
	else
		fail "$3" "line $1: $(sed -n "$1p" "$tmp/lines")"
	fi
}

tasks() { echo "[{'task':'$1','address':'$2'}]"; }

# watch_stop WHAT: SIGTERM ends the watch started by watch_start with
# status 0.
watch_stop() {
	kill -TERM $pid
	rc=0
	wait $pid || rc=$?
	check_eq "$1" "$rc" 0
}
