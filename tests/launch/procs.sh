# The processes of a muster run job, for tests/launch/*.sh (after tap.sh).
# A job is marked by MUSTER_TEST_JOB=MARK in muster run's environment,
# which the workers get and pass on to whatever they start, in their
# process group or not: `MUSTER_TEST_JOB=$tmp/x "$MUSTER_BIN" run ...`.
# MARKs live under $tmp, so that concurrent test runs never see each
# other's jobs.

# job_pids MARK: the live processes of the job (a zombie's environment
# reads empty).
job_pids() {
	grep -lzxF "MUSTER_TEST_JOB=$1" /proc/[0-9]*/environ 2>/dev/null |
		sed 's|^/proc/||; s|/environ$||'
}

# job_count MARK CMDLINE: how many of them run CMDLINE ("sleep 45.5").
job_count() {
	n=0
	for p in $(job_pids "$1"); do
		[ "$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")" = "$2 " ] && n=$((n + 1))
	done
	echo $n
}

# job_await N MARK CMDLINE: up to 20 s for N processes of the job running
# CMDLINE.
job_await() {
	i=0
	while [ "$(job_count "$2" "$3")" -lt "$1" ] && [ $i -lt 400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

# job_list PID...: "PID PPID PGID CMDLINE" for each, for a failure's details.
job_list() {
	for p in "$@"; do
		echo "$p $(cut -d' ' -f4,5 "/proc/$p/stat" 2>/dev/null)" \
			"$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")"
	done
}

# job_gone WHAT MARK: within 1 s (of muster run's end) no process of the
# job is left.  What is left is listed, then killed: a test leaves none.
job_gone() {
	i=0
	while [ -n "$(job_pids "$2")" ] && [ $i -lt 20 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	left=$(job_pids "$2")
	if [ -z "$left" ]; then
		pass "$1: no process of the job is left ($((i * 50)) ms after)"
	else
		# shellcheck disable=SC2086
		fail "$1: no process of the job is left" "left after 1 s (pid ppid pgid argv):" \
			"$(job_list $left)"
		# shellcheck disable=SC2086
		kill -KILL $left 2>/dev/null || :
	fi
}

# job_kill_all: SIGKILL to what is left of every job of this test (for
# its cleanup, when a check failed half-way).
job_kill_all() {
	left=$(grep -lzF "MUSTER_TEST_JOB=$tmp/" /proc/[0-9]*/environ 2>/dev/null |
		sed 's|^/proc/||; s|/environ$||')
	# shellcheck disable=SC2086
	[ -z "$left" ] || kill -KILL $left 2>/dev/null || :
}
