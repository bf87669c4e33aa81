#!/bin/sh
# gce plugin: credentials in Google's order — access_token_file; a key file
# (credentials_file, $GOOGLE_APPLICATION_CREDENTIALS, gcloud's well-known
# file): service account (RS256 JWT, verified by the fake token endpoint
# with the public half of a key made by openssl now) or authorized user
# (refresh token); the metadata server's token.  Tokens and metadata
# answers cached in the plugin state (one fetch for many resolves and many
# threads), a revoked token replaced; no secret ever shown.
. "$MUSTER_TEST_SRCDIR/tests/gce/lib.sh"
helper="$MUSTER_TEST_BUILDDIR/tests/gce/gce_helper"
printf 'static-access-token-1\n' >"$tmp/access-token"
start_server --access-token-file "$tmp/access-token"
JOBS='jobs = { worker = "tf-workers"; }; project = "muster-test"; zone = "us-central1-a"; self_instance = "tf-worker-0";'
tokens() { py_log 'sum(1 for r in reqs if r["path"] == "/token" or r["path"].endswith("/token"))'; }
compute_auth() { py_log 'sorted(set(r["auth"] for r in reqs if "auth" in r))'; }

# 1. access_token_file: no token request at all.
c=$(conf atf "$JOBS access_token_file = \"$tmp/access-token\";")
run_muster "$c" resolve --format text
expect_err "access_token_file" 0
check_eq "access_token_file: no token request" "$(tokens)" "0"
check_eq "access_token_file: accepted" "$(compute_auth)" "['ok']"
check_eq "access_token_file: only Compute requests" \
	"$(py_log 'sorted(set(r["kind"] for r in reqs))')" "['instances.list', 'listInstances']"
c=$(conf atf2 "$JOBS access_token_file = \"$tmp/absent\";")
run_muster "$c" resolve
expect_err "access_token_file missing" $EX_UNAVAIL \
	"gce(g): unavail: cannot read access_token_file $tmp/absent: No such file or directory"

# 2. A service-account key via $GOOGLE_APPLICATION_CREDENTIALS: the JWT is
# verified by the token endpoint with the key's public half.
sa_json "$tmp/sa.pem" "$URL/token" >"$tmp/sa.json"
c=$(conf sa "$JOBS")
GOOGLE_APPLICATION_CREDENTIALS="$tmp/sa.json" run_muster "$c" resolve --format text
expect_err "service account key" 0
check_eq "service account: one token request, JWT verified" \
	"$(py_log '[(r["grant_type"], r["jwt_verified"], r["jwt_header"], r["jwt_claims"]) for r in reqs if r["path"] == "/token"]')" \
	"[('urn:ietf:params:oauth:grant-type:jwt-bearer', True, {'alg': 'RS256', 'typ': 'JWT', 'kid': '4f3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b'}, {'iss': '$SA_EMAIL', 'aud': '$URL/token', 'scope': 'https://www.googleapis.com/auth/compute.readonly'})]"
check_eq "service account: no metadata request" \
	"$(py_log 'sum(1 for r in reqs if r["kind"] == "metadata")')" "0"
check_eq "service account: token accepted" "$(compute_auth)" "['ok']"

# The credentials_file option wins over the variable; a key signed by
# another private key is refused by the token endpoint.
sa_json "$tmp/other.pem" "$URL/token" >"$tmp/forged.json"
c=$(conf forged "$JOBS credentials_file = \"$tmp/forged.json\";")
GOOGLE_APPLICATION_CREDENTIALS="$tmp/sa.json" run_muster "$c" resolve
expect_err "forged key" $EX_UNAVAIL \
	"gce(g): unavail: token endpoint (service_account credentials from $tmp/forged.json): POST $URL/token: HTTP 400 Bad Request: invalid_grant: Invalid JWT Signature."
check_eq "forged key: verified false" \
	"$(py_log '[r["jwt_verified"] for r in reqs if r["path"] == "/token"]')" "[False]"
c=$(conf gacmissing "$JOBS")
GOOGLE_APPLICATION_CREDENTIALS="$tmp/absent.json" run_muster "$c" resolve
expect_err "GOOGLE_APPLICATION_CREDENTIALS names no file" $EX_UNAVAIL \
	"cannot read the credentials file $tmp/absent.json: No such file or directory"
printf '{"type": "service_account", "client_email": "x@y", "private_key": "-----BEGIN PRIVATE KEY-----\\nAAAA\\n-----END PRIVATE KEY-----\\n"}' >"$tmp/badkey.json"
c=$(conf badkey "$JOBS credentials_file = \"$tmp/badkey.json\";")
run_muster "$c" resolve
expect_err "key that is not a key" $EX_UNAVAIL \
	"service-account key $tmp/badkey.json: private_key is not a PEM private key"
printf '{"type": "external_account"}' >"$tmp/ext.json"
c=$(conf ext "$JOBS credentials_file = \"$tmp/ext.json\";")
run_muster "$c" resolve
expect_err "unsupported type" $EX_UNAVAIL \
	"credentials file $tmp/ext.json: type \"external_account\" is not supported"
sa_json "$tmp/sa.pem" "http://token.example.com/token" >"$tmp/plain.json"
c=$(conf plainuri "$JOBS credentials_file = \"$tmp/plain.json\";")
run_muster "$c" resolve
expect_err "token_uri over plain http elsewhere" $EX_UNAVAIL \
	"token_uri http://token.example.com/token is neither https:// nor loopback"

# 3. gcloud's well-known file (authorized user): the refresh-token grant.
mkdir -p "$HOME/.config/gcloud"
user_json "$REFRESH_TOKEN" "$URL/token" >"$HOME/.config/gcloud/application_default_credentials.json"
c=$(conf user "$JOBS")
run_muster "$c" resolve --format text
expect_err "authorized user" 0
check_eq "authorized user: refresh grant" \
	"$(py_log '[(r["grant_type"], r["code"]) for r in reqs if r["path"] == "/token"]')" \
	"[('refresh_token', 200)]"
user_json "1//revoked" "$URL/token" >"$HOME/.config/gcloud/application_default_credentials.json"
run_muster "$c" resolve
expect_err "authorized user, revoked refresh token" $EX_UNAVAIL \
	"token endpoint (authorized_user credentials from $HOME/.config/gcloud/application_default_credentials.json): POST $URL/token: HTTP 400 Bad Request: invalid_grant: Bad Request"
rm -rf "$HOME/.config"

# 4. Nothing configured, on GCE: the metadata server's token (resolve.sh);
# cached across resolves of one context: one token request, project, zone
# and own name asked once.
c=$(conf cache "jobs = { worker = \"tf-workers\"; };")
: >"$tmp/requests.log"
"$helper" repeat "$c" 3 >"$tmp/out" 2>"$tmp/err"
rc=$?
out=$(cat "$tmp/out")
err=$(cat "$tmp/err")
expect "three resolves on one context" 0 "12
12
12"
check_eq "cached: metadata asked once each" \
	"$(py_log 'sorted(r["path"].split("/v1/")[1] for r in reqs if r["kind"] == "metadata")')" \
	"['instance/name', 'instance/service-accounts/default/token', 'instance/zone', 'project/project-id']"
check_eq "cached: 3 x (listInstances + instances.list)" \
	"$(py_log 'sum(1 for r in reqs if r["kind"] != "metadata")')" "6"

# Many threads at once on one context: one token fetch between them.
: >"$tmp/requests.log"
"$helper" threads "$c" 16 >"$tmp/out" 2>"$tmp/err"
rc=$?
out=$(sort -u "$tmp/out")
err=$(cat "$tmp/err")
expect "16 threads" 0 "12"
check_eq "16 threads: one token request" \
	"$(py_log 'sum(1 for r in reqs if r["path"].endswith("/token"))')" "1"
check_eq "16 threads: 32 Compute requests" \
	"$(py_log 'sum(1 for r in reqs if r["kind"] != "metadata")')" "32"

# A cached token revoked early (401): dropped, fetched again, once.
start_server --mode revoke --revoke-after 2
c=$(conf cache "jobs = { worker = \"tf-workers\"; };")
: >"$tmp/requests.log"
"$helper" repeat "$c" 2 >"$tmp/out" 2>"$tmp/err"
rc=$?
out=$(cat "$tmp/out")
err=$(cat "$tmp/err")
expect "revoked token replaced" 0 "12
12"
check_eq "revoked: two token requests, one 401" \
	"$(py_log '(sum(1 for r in reqs if r["path"].endswith("/token")), sum(1 for r in reqs if r.get("code") == 401))')" \
	"(2, 1)"

# A token the API refuses, not from the cache: unavail naming its source.
printf 'static-access-token-wrong\n' >"$tmp/wrong-token"
start_server --access-token-file "$tmp/access-token"
c=$(conf wrong "$JOBS access_token_file = \"$tmp/wrong-token\";")
run_muster "$c" resolve
expect_err "401" $EX_UNAVAIL \
	"gce(g): unavail: instance group tf-workers (zone us-central1-a, project muster-test): POST $API/projects/muster-test/zones/us-central1-a/instanceGroups/tf-workers/listInstances?maxResults=500&fields=items%2Finstance%2CnextPageToken: HTTP 401 Unauthorized: Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. (credentials from access_token_file $tmp/wrong-token)"

finish
