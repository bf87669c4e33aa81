# Shared by the gce plugin's shell tests: a scratch directory, the loopback
# fake of Google's endpoints (fake_gce.py: metadata server, token endpoint,
# Compute API), a service-account key made with openssl at test time,
# configs, and checks.  Sourced by tests/gce/*.sh; needs MUSTER_BIN,
# MUSTER_TEST_SRCDIR.
set -u

here="$MUSTER_TEST_SRCDIR/tests/gce"
. "$MUSTER_TEST_SRCDIR/tests/lib/tap.sh"
require_plugin gce
require_tools python3 openssl

server_pid=
cleanup() { stop_server; }

# Tests never read the caller's Google credentials, metadata or proxies.
unset GOOGLE_APPLICATION_CREDENTIALS GCE_METADATA_HOST CLOUDSDK_CONFIG \
	http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy no_proxy NO_PROXY
HOME="$tmp/home"
export HOME
mkdir -p "$HOME"

# DMI product names: this machine is, or is not, a GCE instance.
printf 'Google Compute Engine\n' >"$tmp/dmi-gce"
printf 'Standard PC (Q35 + ICH9, 2009)\n' >"$tmp/dmi-other"

SA_EMAIL=trainer@muster-test.iam.gserviceaccount.com
# make_sa_key: an RSA key pair and a service-account key file for it whose
# token_uri is the fake's (call after start_server).
make_sa_key() {
	if [ ! -s "$tmp/sa.pem" ]; then
		openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tmp/sa.pem" \
			2>/dev/null && openssl pkey -in "$tmp/sa.pem" -pubout -out "$tmp/sa.pub" \
			2>/dev/null || bail_out "openssl cannot make an RSA key"
		# Another key nobody trusts.
		openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tmp/other.pem" \
			2>/dev/null || bail_out "openssl cannot make an RSA key"
	fi
}
# sa_json KEY_PEM TOKEN_URI: a service-account key file as the console writes it.
sa_json() {
	python3 -c '
import json, sys
print(json.dumps({"type": "service_account", "project_id": "muster-test",
    "private_key_id": "4f3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b",
    "private_key": open(sys.argv[1]).read(), "client_email": sys.argv[3],
    "client_id": "104712933658123456789",
    "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": sys.argv[2],
    "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
    "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/x",
    "universe_domain": "googleapis.com"}, indent=2))' "$1" "$2" "$SA_EMAIL"
}
REFRESH_TOKEN=1//muster-refresh-token
user_json() {
	printf '{"client_id": "muster-client.apps.googleusercontent.com", "client_secret": "muster-client-secret", "refresh_token": "%s", "type": "authorized_user", "token_uri": "%s"}\n' "$1" "$2"
}

stop_server() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null
		wait "$server_pid" 2>/dev/null
		server_pid=
	fi
}

# start_server [fake_gce.py options...]: sets PORT, URL, API (Compute).
start_server() {
	stop_server
	make_sa_key
	rm -f "$tmp/port" "$tmp/requests.log"
	python3 "$here/fake_gce.py" --port-file "$tmp/port" --log "$tmp/requests.log" \
		--sa-pubkey "$tmp/sa.pub" "$@" 2>>"$tmp/server.err" &
	server_pid=$!
	i=0
	while [ ! -s "$tmp/port" ]; do
		i=$((i + 1))
		if [ $i -gt 200 ] || ! kill -0 "$server_pid" 2>/dev/null; then
			sed 's/^/# /' "$tmp/server.err"
			bail_out "the fake GCE server did not start"
		fi
		sleep 0.05
	done
	PORT=$(cat "$tmp/port")
	URL="http://127.0.0.1:$PORT"
	API="$URL/compute/v1"
	GCE_METADATA_HOST="127.0.0.1:$PORT"
	export GCE_METADATA_HOST
}

# conf NAME BODY [ENTRY_EXTRA]: a muster.conf whose only entry is the gce
# plugin, named g, with BODY (plus the fake's endpoint and $DMI, this
# machine's DMI product name file) as its config group.
DMI="$tmp/dmi-gce"
conf() {
	cat >"$tmp/$1.conf" <<EOC
chain = ( { plugin = "gce"; name = "g"; ${3:-}
            config = { compute_endpoint = "$API"; dmi_product_name = "$DMI"; $2 }; } );
EOC
	echo "$tmp/$1.conf"
}

# run_muster (tests/lib/tap.sh) with debug logs and a fresh request log;
# whatever happened, no token or key material shows.
muster_opts=-vv
before_run() { : >"$tmp/requests.log"; }
after_run() {
	if grep -q -e 'ya29\.' -e "$REFRESH_TOKEN" -e 'BEGIN PRIVATE' -e 'muster-client-secret' \
		-e 'static-access-token' "$tmp/out" "$tmp/err"; then
		fail "a secret appears in muster's output for: $*"
	fi
}

