# Talking to the local kube-apiserver that ../shared/tools/kube-apiserver/start.sh
# starts (sourced by integration.sh and run.sh).  Same environment as start.sh:
#   K8S_DIR [/var/tmp/muster-kube]  API_PORT [16443]  K8S_TOKEN [k8s-test-token]
#   MUSTER_KUBE_TOOLS  the directory with build.sh/start.sh/seed.sh/stop.sh
#                      (default: the first shared/tools/kube-apiserver found
#                      beside the source tree or up to three levels above it)

K8S_DIR=${K8S_DIR:-/var/tmp/muster-kube}
API_PORT=${API_PORT:-16443}
K8S_TOKEN=${K8S_TOKEN:-k8s-test-token}
export K8S_DIR API_PORT K8S_TOKEN
KINT_API=https://127.0.0.1:$API_PORT
KINT_CA=$K8S_DIR/run/certs/ca.crt
KINT_CERT=$K8S_DIR/run/certs/client.crt
KINT_KEY=$K8S_DIR/run/certs/client.key
KINT_APISERVER_BIN=${KUBE_APISERVER:-$K8S_DIR/bin/kube-apiserver}

# kint_tools SRCDIR: print the kube-apiserver tools directory, or fail.
kint_tools() {
	if [ -n "${MUSTER_KUBE_TOOLS:-}" ]; then
		[ -x "$MUSTER_KUBE_TOOLS/start.sh" ] && { echo "$MUSTER_KUBE_TOOLS"; return 0; }
		return 1
	fi
	d=$1
	for up in . .. ../.. ../../..; do
		if [ -x "$d/$up/../shared/tools/kube-apiserver/start.sh" ]; then
			(cd "$d/$up/../shared/tools/kube-apiserver" && pwd)
			return 0
		fi
	done
	return 1
}

# kint_ready: the API server answers /readyz with "ok".
kint_ready() {
	[ -f "$KINT_CA" ] &&
	curl -s --max-time 3 --cacert "$KINT_CA" -H "Authorization: Bearer $K8S_TOKEN" \
		"$KINT_API/readyz" 2>/dev/null | grep -qx ok
}

# kint_api METHOD PATH [BODY [CONTENT-TYPE]]: call the API as the admin user;
# the body of the answer goes to $KINT_OUT (default /dev/null); prints the
# HTTP status code.
kint_api() {
	if [ $# -ge 3 ]; then
		curl -s --max-time 30 --cacert "$KINT_CA" -H "Authorization: Bearer $K8S_TOKEN" \
			-H "Content-Type: ${4:-application/json}" -X "$1" -d "$3" \
			-o "${KINT_OUT:-/dev/null}" -w '%{http_code}' "$KINT_API$2"
	else
		curl -s --max-time 30 --cacert "$KINT_CA" -H "Authorization: Bearer $K8S_TOKEN" \
			-X "$1" -o "${KINT_OUT:-/dev/null}" -w '%{http_code}' "$KINT_API$2"
	fi
}

# kint_ns NAME: the namespace exists.
kint_ns() {
	code=$(kint_api POST /api/v1/namespaces \
		"{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$1\"}}")
	case $code in 201|409) return 0;; esac
	echo "# creating namespace $1: HTTP $code" >&2
	return 1
}

# kint_count NS SELECTOR [FIELDSELECTOR]: how many pods match (one request
# with limit=1: items + metadata.remainingItemCount; SELECTOR may be empty).
# With a label or field selector the API server does not count the rest:
# then it prints 0 when none match and "some" otherwise.
kint_count() {
	q="limit=1"
	[ -z "$2" ] || q="$q&labelSelector=$(kint_urlencode "$2")"
	[ -z "${3:-}" ] || q="$q&fieldSelector=$(kint_urlencode "$3")"
	curl -s --max-time 30 --cacert "$KINT_CA" -H "Authorization: Bearer $K8S_TOKEN" \
		"$KINT_API/api/v1/namespaces/$1/pods?$q" |
	python3 -c '
import json, sys
d = json.load(sys.stdin)
n, m = len(d.get("items") or []), d["metadata"]
if m.get("remainingItemCount") is not None:
    n += int(m["remainingItemCount"])
elif m.get("continue"):
    n = "some"
print(n)'
}

kint_urlencode() {
	python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"
}

# kint_pod NS NAME LABELS IP [PHASE [GPUS]]: (re)create one pod with the
# labels (a JSON object) and the pod IP, then set its phase (default
# Running).  Deleted first with gracePeriodSeconds=0 (there is no kubelet
# to finish a graceful deletion), so labels never linger from an older run.
kint_pod() {
	phase=${5:-Running}
	gpus=${6:-1}
	kint_api DELETE "/api/v1/namespaces/$1/pods/$2?gracePeriodSeconds=0" >/dev/null
	code=$(kint_api POST "/api/v1/namespaces/$1/pods" \
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"$2\",\"labels\":$3},\"spec\":{\"nodeName\":\"fake-node-0\",\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"worker\",\"image\":\"busybox:latest\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"$gpus\"},\"requests\":{\"nvidia.com/gpu\":\"$gpus\"}}}]}}")
	[ "$code" = 201 ] || { echo "# creating pod $1/$2: HTTP $code" >&2; return 1; }
	kint_phase "$1" "$2" "$phase" "$4"
}

# kint_phase NS NAME PHASE IP: patch the pod's status.
kint_phase() {
	now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	code=$(kint_api PATCH "/api/v1/namespaces/$1/pods/$2/status" \
		"{\"status\":{\"phase\":\"$3\",\"podIP\":\"$4\",\"podIPs\":[{\"ip\":\"$4\"}],\"hostIP\":\"127.0.0.1\",\"startTime\":\"$now\"}}" \
		application/merge-patch+json)
	[ "$code" = 200 ] || { echo "# patching pod $1/$2 to $3: HTTP $code" >&2; return 1; }
}

# kint_sa NS NAME OUTFILE: the service account exists; a fresh bound token
# for it (TokenRequest API, 1 hour, the API server's audience) goes to
# OUTFILE.  The API server has no token controller, so this is the only
# way to get a service-account token here, as on current clusters.
kint_sa() {
	code=$(kint_api POST "/api/v1/namespaces/$1/serviceaccounts" \
		"{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"$2\"}}")
	case $code in 201|409) ;; *) echo "# creating serviceaccount $1/$2: HTTP $code" >&2; return 1;; esac
	KINT_OUT=$3.json
	code=$(kint_api POST "/api/v1/namespaces/$1/serviceaccounts/$2/token" \
		'{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"audiences":["https://kubernetes.default.svc.cluster.local"],"expirationSeconds":3600}}')
	KINT_OUT=
	[ "$code" = 201 ] || { echo "# token for $1/$2: HTTP $code" >&2; return 1; }
	python3 "$KINT_HERE/kint.py" token "$3.json" | tr -d '\n' > "$3"
	rm -f "$3.json"
}

# kint_pod_reader NS SA: a Role that may get/list/watch pods in NS, bound to
# the service account NS/SA.
kint_pod_reader() {
	code=$(kint_api POST "/apis/rbac.authorization.k8s.io/v1/namespaces/$1/roles" \
		"{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"Role\",\"metadata\":{\"name\":\"pod-reader\"},\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\",\"list\",\"watch\"]}]}")
	case $code in 201|409) ;; *) echo "# creating role: HTTP $code" >&2; return 1;; esac
	code=$(kint_api POST "/apis/rbac.authorization.k8s.io/v1/namespaces/$1/rolebindings" \
		"{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\",\"metadata\":{\"name\":\"$2-pod-reader\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\",\"name\":\"pod-reader\"},\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"$2\",\"namespace\":\"$1\"}]}")
	case $code in 201|409) ;; *) echo "# creating rolebinding: HTTP $code" >&2; return 1;; esac
}
