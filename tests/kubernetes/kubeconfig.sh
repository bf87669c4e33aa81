#!/bin/sh
# kubernetes plugin: where the connection comes from — a kubeconfig (token,
# tokenFile, client certificates, the -data forms, contexts and their
# namespace; exec and auth-provider users refused), client certificates
# against a server that requires them, and the in-cluster layout
# (KUBERNETES_SERVICE_HOST/PORT + service-account files), with the token
# read again on every resolve.
. "$MUSTER_TEST_SRCDIR/tests/kubernetes/lib.sh"
make_pki
token_setup
b64() { base64 -w0 <"$1"; }
start_server --token-file "$tmp/server-token"

ps_out="ps 0 10.244.2.10:8470
ps 1 10.244.2.11:8470
rpc_layer: grpc
source: k8s"
other_out="worker 0 10.244.9.10:8470
rpc_layer: grpc
source: k8s"

mkdir -p "$tmp/kube/certs"
cp "$pki/ca.crt" "$tmp/kube/certs/ca.crt"
# kubeconfig USERS_YAML [CURRENT_CONTEXT]: two contexts over one cluster
# whose CA is given by a path relative to the file.
kubeconfig() {
	cat >"$tmp/kube/config" <<EOK
apiVersion: v1
kind: Config
current-context: ${2:-main}
preferences: {}
clusters:
- name: test
  cluster:
    server: $URL
    certificate-authority: certs/ca.crt
- name: test-data
  cluster:
    server: $URL/
    certificate-authority-data: $(b64 "$pki/ca.crt")
contexts:
- name: main
  context: {cluster: test, user: me}
- name: elsewhere
  context:
    cluster: test-data
    user: me
    namespace: other
users:
$1
EOK
	echo "$tmp/kube/config"
}

# A token, the current context; `kubeconfig` option.
k=$(kubeconfig "- name: me
  user:
    token: $TOKEN")
c=$(conf kc "kubeconfig = \"$k\"; jobs = { ps = \"job-name=ps\"; };")
run_muster "$c" resolve --format text
expect "kubeconfig: token, relative CA path" 0 "$ps_out"
# The `context` option; the context's namespace; CA as -data.
c=$(conf kcctx "kubeconfig = \"$k\"; context = \"elsewhere\";")
run_muster "$c" resolve --format text
expect "kubeconfig: context option, its namespace, CA data" 0 "$other_out"
c=$(conf kcctxns "kubeconfig = \"$k\"; context = \"elsewhere\"; namespace = \"default\"; jobs = { ps = \"job-name=ps\"; };")
run_muster "$c" resolve --format text
expect "kubeconfig: the namespace option wins" 0 "$ps_out"
# $KUBECONFIG (its first existing file), then ~/.kube/config.
c=$(conf kcenv "jobs = { ps = \"job-name=ps\"; };")
KUBECONFIG="$tmp/absent:$k" run_muster "$c" resolve --format text
expect "KUBECONFIG" 0 "$ps_out"
KUBECONFIG="$tmp/absent" run_muster "$c" resolve
expect_err "KUBECONFIG names no file" $EX_NOTFOUND "no kubeconfig (none of \$KUBECONFIG's files exists)"
mkdir -p "$HOME/.kube" && cp "$k" "$HOME/.kube/config" && cp -r "$tmp/kube/certs" "$HOME/.kube/"
run_muster "$c" resolve --format text
expect "~/.kube/config" 0 "$ps_out"
rm -rf "$HOME/.kube"
# tokenFile, relative to the kubeconfig.
cp "$tmp/token" "$tmp/kube/tok"
k=$(kubeconfig "- name: me
  user:
    tokenFile: tok")
c=$(conf kctf "kubeconfig = \"$k\"; jobs = { ps = \"job-name=ps\"; };")
run_muster "$c" resolve --format text
expect "kubeconfig: tokenFile" 0 "$ps_out"

# Errors, said plainly.
k=$(kubeconfig "- name: me
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args: [eks, get-token, --cluster-name, prod]")
c=$(conf kcexec "kubeconfig = \"$k\";")
run_muster "$c" resolve
expect_err "kubeconfig: exec plugin" $EX_UNAVAIL \
	"kubernetes(k8s): unavail: kubeconfig $k: user \"me\" authenticates with an exec credential plugin (aws), which muster does not run; use a token, a token file or a client certificate"
k=$(kubeconfig "- name: me
  user:
    auth-provider:
      name: gcp
      config: {access-token: ya29.secret}")
run_muster "$c" resolve
expect_err "kubeconfig: auth-provider" $EX_UNAVAIL \
	"user \"me\" authenticates with an auth-provider (gcp), which muster does not support"
case "$err" in *ya29*) fail "the auth-provider's token shows" ;; esac
k=$(kubeconfig "- name: me
  user: {token: x}" nowhere)
run_muster "$c" resolve
expect_err "kubeconfig: no such context" $EX_UNAVAIL "kubeconfig $k: no context named \"nowhere\""
printf 'apiVersion: v1\nclusters: [\n  - {name: x\n' >"$tmp/kube/broken"
c=$(conf kcbroken "kubeconfig = \"$tmp/kube/broken\";")
run_muster "$c" resolve
expect_err "kubeconfig: not YAML" $EX_UNAVAIL "kubeconfig $tmp/kube/broken: not valid YAML: "
c=$(conf kcabsent "kubeconfig = \"$tmp/kube/absent\";")
run_muster "$c" resolve
expect_err "kubeconfig option: absent file" $EX_UNAVAIL \
	"unavail: cannot read kubeconfig $tmp/kube/absent: No such file or directory"
k=$(kubeconfig "- name: me
  user:
    client-certificate-data: not*base64")
c=$(conf kcb64 "kubeconfig = \"$k\";")
run_muster "$c" resolve
expect_err "kubeconfig: bad base64" $EX_UNAVAIL "user \"me\": client-certificate-data is not valid base64"

# Client certificates: a server that requires one.
start_server --token-file "$tmp/server-token" --client-ca "$pki/ca.crt"
k=$(kubeconfig "- name: me
  user:
    token: $TOKEN
    client-certificate-data: $(b64 "$pki/client.crt")
    client-key-data: $(b64 "$pki/client.key")" elsewhere)
c=$(conf kccert "kubeconfig = \"$k\";")
run_muster "$c" resolve --format text
expect "kubeconfig: client certificate and key as -data" 0 "$other_out"
check_eq "the server saw the client certificate" "$(py_log 'reqs[0]["client_cn"]')" "muster-client"
c=$(conf certfiles "$(explicit) client_cert = \"$pki/client.crt\"; client_key = \"$pki/client.key\"; jobs = { ps = \"job-name=ps\"; };")
run_muster "$c" resolve --format text
expect "explicit client_cert/client_key files" 0 "$ps_out"
c=$(conf nocert "$(explicit)")
run_muster "$c" resolve
# (TLS 1.3: the server refuses after the handshake, curl sees the
# connection drop.)
expect_err "no client certificate where one is required" $EX_UNAVAIL "unavail: GET $URL/api/v1/namespaces/default/pods"

# In-cluster: the service host and port, the service account's files.
start_server --token-file "$tmp/server-token"
sa="$tmp/sa"
mkdir -p "$sa"
cp "$pki/ca.crt" "$sa/ca.crt"
cp "$tmp/token" "$sa/token"
printf 'other\n' >"$sa/namespace"
c=$(conf incluster "serviceaccount_dir = \"$sa\";")
KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=$PORT run_muster "$c" resolve --format text
expect "in-cluster: token, CA, namespace file" 0 "$other_out"
KUBERNETES_SERVICE_HOST=127.0.0.1 run_muster "$c" resolve
expect_err "in-cluster: no port" $EX_UNAVAIL "KUBERNETES_SERVICE_HOST is set but KUBERNETES_SERVICE_PORT is not"
rm "$sa/token"
KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=$PORT run_muster "$c" resolve
expect_err "in-cluster: no token" $EX_UNAVAIL "cannot read the service-account token $sa/token: No such file or directory"
# A kubeconfig comes before the in-cluster layout.
k=$(kubeconfig "- name: me
  user: {token: $TOKEN}")
KUBECONFIG=$k KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=1 run_muster "$c" resolve --format text
expect "a kubeconfig before in-cluster" 0 "worker 0 10.244.1.10:8470
worker 1 10.244.1.11:8470
worker 2 10.244.1.12:8470
worker 3 10.244.1.13:8470
worker 4 10.244.1.14:8470
worker 5 10.244.1.15:8470
worker 6 10.244.1.16:8470
worker 7 10.244.1.17:8470
worker 8 10.244.1.18:8470
worker 9 10.244.1.19:8470
worker 10 10.244.1.20:8470
worker 11 10.244.1.21:8470
rpc_layer: grpc
source: k8s"

# Bound tokens rotate: one context, two resolves, the token changed in
# between (on the server and in the service account's file).
cp "$tmp/token" "$sa/token"
helper="$MUSTER_TEST_BUILDDIR/tests/kubernetes/k8s_helper"
if [ -x "$helper" ]; then
	KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=$PORT \
		"$helper" rotate "$c" "$sa/token" "$tmp/server-token" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	expect "token rotation between two resolves" 0 "first: 10.244.9.10:8470
rotated
second: 10.244.9.10:8470"
	# Many threads on one context (the plugin is marked thread-safe).
	token_setup
	c=$(conf threads "$(explicit) limit = 4;")
	"$helper" threads "$c" 8 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	expect "8 threads resolve at once" 0 "8 resolves, 12 workers each"
else
	fail "$helper is not built"
fi

finish
