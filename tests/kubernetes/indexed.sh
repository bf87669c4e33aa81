#!/bin/sh
# mode = "indexed_job" without an API server: its options, and what it
# says from the environment alone (JOB_COMPLETION_INDEX, the host name)
# before it asks the API.  The Jobs themselves are read from a real
# kube-apiserver in tests/kubernetes-integration/indexed.sh.
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"
require_plugin kubernetes
unset KUBECONFIG KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT JOB_COMPLETION_INDEX
HOME=$tmp/home
export HOME

conf() { # BODY [MODE]: a chain of the indexed_job entry, then a static fallback
	cat >"$tmp/c.conf" <<EOF
chain = (
  { plugin = "kubernetes"; config = { mode = "${2:-indexed_job}"; $1 }; on_unavail = "return"; },
  { plugin = "static"; config = { jobs = { worker = [ "localhost:2222" ]; };
    task = { type = "worker"; index = 0; }; }; }
);
EOF
}

# Options: those that choose pods by selector do not apply.
for opt in 'jobs = { worker = [ "a=b" ]; };' 'order = "name";' 'address = "kubeflow";' \
	'self_pod = "p";' 'wait_ms = 10;' 'all_namespaces = true;'; do
	conf "$opt"
	run_muster "$tmp/c.conf" resolve
	expect_err "mode indexed_job refuses $opt" 4 "does not apply to mode = \"indexed_job\""
done
conf "" pods
run_muster "$tmp/c.conf" resolve
expect_err "mode: a choice, named" 4 'mode must be one of selectors, indexed_job'

# Not an Indexed Job's pod: notfound, the chain goes on.
conf ""
run_muster "$tmp/c.conf" resolve
expect "no JOB_COMPLETION_INDEX: the next entry answers" 0 \
	'{"cluster":{"worker":["localhost:2222"]},"task":{"type":"worker","index":0}}'
run_muster "$tmp/c.conf" -v resolve
expect_err "no JOB_COMPLETION_INDEX: notfound, said" 0 \
	"JOB_COMPLETION_INDEX is not set: not a pod of an Indexed Job"

# Its value is checked before anything else.
for bad in x 1.5 -1 "" 99999999999; do
	JOB_COMPLETION_INDEX=$bad run_muster "$tmp/c.conf" resolve
	expect_err "JOB_COMPLETION_INDEX=\"$bad\": unavail, naming it" 2 \
		"JOB_COMPLETION_INDEX must be an integer from 0 to 2147483647, not \"$bad\""
done

# The host name must be the Job controller's <job>-<index>, which names
# the Job; then the API is asked, and without one that is unavail.
if unshare -u true 2>/dev/null; then
	on_host() { # HOST ARGS...
		h=$1
		shift
		rc=0
		unshare -u sh -c 'hostname "$1" && shift && exec "$@"' sh "$h" \
			"$MUSTER_BIN" -c "$tmp/c.conf" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
		out=$(cat "$tmp/out")
		err=$(cat "$tmp/err")
		no_sanitizer_report "muster on host $h"
	}
	JOB_COMPLETION_INDEX=3 on_host train-2 resolve
	expect_err "host name train-2 with index 3: unavail" 2 \
		'the host name "train-2" is not <job>-3: the Job controller names the pod'
	JOB_COMPLETION_INDEX=3 on_host 3 resolve
	expect_err "host name without a job name: unavail" 2 'the host name "3" is not <job>-3'
	JOB_COMPLETION_INDEX=3 on_host train-3 resolve
	expect_err "no API server: unavail, never a one-task cluster" 2 \
		"JOB_COMPLETION_INDEX=3: this is a pod of an Indexed Job, whose size only the API server knows"
	JOB_COMPLETION_INDEX=3 on_host train-3.train-svc.ns.svc.cluster.local resolve
	expect_err "a host name set as the whole DNS name (setHostnameAsFQDN)" 2 \
		"JOB_COMPLETION_INDEX=3: this is a pod of an Indexed Job"
else
	skip "host name checks" "no UTS namespace here (unshare -u, as root)"
fi
finish
