# Shared by the kubernetes plugin's shell tests: a scratch directory, a test
# CA with server and client certificates (openssl, made at test time), the
# loopback API server (fake_apiserver.py), configs, and checks.
# Sourced by tests/kubernetes/*.sh; needs MUSTER_BIN, MUSTER_TEST_SRCDIR.
set -u

here="$MUSTER_TEST_SRCDIR/tests/kubernetes"
. "$MUSTER_TEST_SRCDIR/tests/lib/tap.sh"
require_plugin kubernetes
require_tools python3 openssl

server_pid=
cleanup() { stop_server; }

# Tests never read the caller's cluster or proxies.
unset KUBECONFIG KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT POD_NAME POD_NAMESPACE \
	CUSTOM_CLUSTER_DOMAIN http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
HOME="$tmp/home"
HOSTNAME=muster-test-host
export HOME HOSTNAME
mkdir -p "$HOME"

# The test PKI: a CA, the server's certificate for 127.0.0.1/::1/localhost,
# a client certificate, and a second CA nobody trusts.
make_pki() {
	d="$tmp/pki"
	mkdir -p "$d"
	(
		cd "$d" || exit 1
		for ca in ca other-ca; do
			openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
				-keyout "$ca.key" -out "$ca.crt" -days 2 -subj "/CN=muster test $ca" \
				2>/dev/null || exit 1
		done
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key \
			-out server.csr -subj "/CN=kube-apiserver" 2>/dev/null || exit 1
		printf 'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\n' >server.ext
		openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
			-out server.crt -days 2 -extfile server.ext 2>/dev/null || exit 1
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout client.key \
			-out client.csr -subj "/O=system:masters/CN=muster-client" 2>/dev/null || exit 1
		printf 'extendedKeyUsage=clientAuth\n' >client.ext
		openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
			-out client.crt -days 2 -extfile client.ext 2>/dev/null || exit 1
	) || bail_out "cannot make the test certificates with openssl"
	pki="$d"
}

stop_server() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null
		wait "$server_pid" 2>/dev/null
		server_pid=
	fi
}

# start_server [--tls|--plain] [fake_apiserver.py options...]: sets PORT, URL.
start_server() {
	stop_server
	tls=1
	case "${1:-}" in
	--plain) tls=0; shift ;;
	--tls) shift ;;
	esac
	rm -f "$tmp/port" "$tmp/requests.log"
	if [ $tls = 1 ]; then
		python3 "$here/fake_apiserver.py" --port-file "$tmp/port" --log "$tmp/requests.log" \
			--cert "$pki/server.crt" --key "$pki/server.key" "$@" 2>>"$tmp/server.err" &
	else
		python3 "$here/fake_apiserver.py" --port-file "$tmp/port" --log "$tmp/requests.log" \
			"$@" 2>>"$tmp/server.err" &
	fi
	server_pid=$!
	i=0
	while [ ! -s "$tmp/port" ]; do
		i=$((i + 1))
		if [ $i -gt 200 ] || ! kill -0 "$server_pid" 2>/dev/null; then
			sed 's/^/# /' "$tmp/server.err"
			bail_out "the fake API server did not start"
		fi
		sleep 0.05
	done
	PORT=$(cat "$tmp/port")
	case " $* " in
	*" --ipv6 "*) host="[::1]" ;;
	*) host=127.0.0.1 ;;
	esac
	if [ $tls = 1 ]; then URL="https://$host:$PORT"; else URL="http://$host:$PORT"; fi
}

# conf NAME BODY [ENTRY_EXTRA]: a muster.conf whose only entry is the
# kubernetes plugin, named k8s, with BODY as its config group.
conf() {
	cat >"$tmp/$1.conf" <<EOC
chain = ( { plugin = "kubernetes"; name = "k8s"; ${3:-}
            config = { $2 }; } );
EOC
	echo "$tmp/$1.conf"
}

# The usual explicit connection to the running server, with a token.
TOKEN=s3cr3t-token-do-not-log
token_setup() {
	printf '%s\n' "$TOKEN" >"$tmp/token"
	printf '%s' "$TOKEN" >"$tmp/server-token"
}
explicit() {
	echo "server = \"$URL\"; token_file = \"$tmp/token\"; ca_file = \"$pki/ca.crt\";"
}

# run_muster (tests/lib/tap.sh) with a fresh request log for each check;
# whatever happened, the token never shows.
before_run() { : >"$tmp/requests.log"; }
after_run() {
	if grep -q "$TOKEN" "$tmp/out" "$tmp/err"; then
		fail "the bearer token appears in muster's output for: $*"
	fi
}

