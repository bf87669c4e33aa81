#!/bin/sh
# kubernetes plugin: what the pods say — Pending pods (tryagain, wait_ms),
# pods being deleted, jobs with no pods yet, accelerators from container
# limits (init containers by Kubernetes' effective-request rule), and the
# Kubeflow training operator's names.
. "$MUSTER_TEST_SRCDIR/tests/kubernetes/lib.sh"
make_pki
token_setup

# Pending pods: tryagain naming the first one and its phase.
start_server --token-file "$tmp/server-token" --scenario pending --pending-polls 1000
c=$(conf pending "$(explicit)")
run_muster "$c" resolve
expect_err "Pending pods" $EX_TRYAGAIN \
	"kubernetes(k8s): tryagain: 10/12 pods running; waiting for tensorflow-worker-3: Pending ("
# wait_ms, bounded by the entry's budget: still tryagain, in time.
c=$(conf pendingwait "$(explicit) wait_ms = 60000;" "timeout_ms = 1200;")
run_muster "$c" -v resolve
expect_err "wait_ms bounded by the budget" $EX_TRYAGAIN \
	"muster: notice: kubernetes(k8s): 10/12 running; waiting for tensorflow-worker-3: Pending" \
	"tryagain: 10/12 pods running; waiting for tensorflow-worker-3: Pending (gave up waiting)"
# Running after two listings: wait_ms waits, logs progress, answers.
start_server --token-file "$tmp/server-token" --scenario pending --pending-polls 2
c=$(conf wait "$(explicit) wait_ms = 4000; jobs = { worker = \"replica=worker\"; };")
run_muster "$c" -v master --task worker:3
expect "wait_ms: Running after two polls" 0 "grpc://10.244.1.13:8470"
expect_err "wait_ms: progress logged" 0 \
	"muster: notice: kubernetes(k8s): 10/12 running; waiting for tensorflow-worker-3: Pending"
check_eq "three listings" "$(py_log 'len(reqs)')" "3"

# GPUs: limits of app containers add up; init containers by the
# effective-request rule (sidecars stay running); AMD/Intel count as GPU.
start_server --token-file "$tmp/server-token" --scenario gpu
c=$(conf gpu "$(explicit) jobs = { gpu = \"job-name=gpu\"; tpu = \"job-name=tpu\"; };")
run_muster "$c" resolve --format text
expect "accelerators" 0 "gpu 0 10.244.7.10:8470 GPU=8
gpu 1 10.244.7.11:8470 GPU=8
gpu 2 10.244.7.12:8470 GPU=4
gpu 3 10.244.7.13:8470 GPU=5
gpu 4 10.244.7.14:8470 GPU=3
gpu 5 10.244.7.15:8470
tpu 0 10.244.8.10:8470 TPU=4
rpc_layer: grpc
source: k8s"
POD_NAME=gpu-worker-3 run_muster "$c" accelerators
expect "own accelerators" 0 '{"GPU":5}'
c=$(conf amd "$(explicit) jobs = { gpu = \"job-name=gpu\"; }; accelerators = { AMD = [\"amd.com/gpu\"]; XPU = \"gpu.intel.com/i915\"; };")
run_muster "$c" accelerators --task gpu:4
expect "a custom resource map" 0 '{"AMD":2,"XPU":1}'
run_muster "$c" accelerators --task gpu:0
expect "a custom resource map: not NVIDIA" 0 '{}'
c=$(conf badgpu "$(explicit) jobs = { x = \"job-name=badgpu\"; };")
run_muster "$c" resolve
expect_err "a GPU limit that is not a whole number" $EX_UNAVAIL \
	"(page 1): items[0] (pod bad-gpu-0): container tensorflow: nvidia.com/gpu is \"half\", not a whole number"
c=$(conf gone "$(explicit) jobs = { gpu = \"job-name=gpu\"; x = \"job-name=gone\"; };")
run_muster "$c" resolve
expect_err "a pod being deleted" $EX_TRYAGAIN "tryagain: 6/7 pods running; waiting for gone-0: Terminating"
c=$(conf empty "$(explicit) jobs = { gpu = \"job-name=gpu\"; ps = [\"job-name=ps\", \"app=ps\"]; };")
run_muster "$c" resolve
expect_err "a job with no pods" $EX_TRYAGAIN \
	"tryagain: 6/6 pods running; waiting for no pod of job ps yet (no pod matches \"job-name=ps\" or its other selectors)"

# Kubeflow: the operator's service names, its per-type port (tfjob-port,
# else 2222), its replica index; TF_CONFIG equal to the operator's.
start_server --token-file "$tmp/server-token" --scenario kubeflow
kf=training.kubeflow.org
c=$(conf kubeflow "$(explicit) namespace = \"kf\"; address = \"kubeflow\";
    jobs = { chief = \"$kf/job-name=mnist,$kf/replica-type=chief\";
             ps = \"$kf/job-name=mnist,$kf/replica-type=ps\";
             worker = \"$kf/job-name=mnist,$kf/replica-type=worker\"; };")
POD_NAME=mnist-worker-1 run_muster "$c" tf-config --task worker:1
expect "kubeflow TF_CONFIG" 0 \
'{"cluster":{"chief":["mnist-chief-0.kf.svc:2222"],"ps":["mnist-ps-0.kf.svc:2223","mnist-ps-1.kf.svc:2223"],"worker":["mnist-worker-0.kf.svc:2222","mnist-worker-1.kf.svc:2222","mnist-worker-2.kf.svc:2222"]},"task":{"type":"worker","index":1},"environment":"cloud"}'
POD_NAME=mnist-chief-0 CUSTOM_CLUSTER_DOMAIN=tf.training.io run_muster "$c" master
expect "kubeflow: CUSTOM_CLUSTER_DOMAIN" 0 "grpc://mnist-chief-0.kf.svc.tf.training.io:2222"
c=$(conf kfdyn "$(explicit) namespace = \"kf\"; address = \"kubeflow\"; cluster_domain = \"cluster.local\";
    jobs = { worker = \"$kf/job-name=dyn\"; old = \"tf-job-name=old\"; };")
run_muster "$c" resolve
expect "kubeflow: dynamic workers (sparse), the old short labels" 0 \
'{"cluster":{"worker":{"0":"dyn-worker-0.kf.svc.cluster.local:2222","2":"dyn-worker-2.kf.svc.cluster.local:2222"},"old":["old-worker-0.kf.svc.cluster.local:2222","old-worker-1.kf.svc.cluster.local:2222"]},"rpc_layer":"grpc"}'
c=$(conf kfnolabels "$(explicit) namespace = \"kf\"; address = \"kubeflow\"; jobs = { w = \"$kf/job-name=mnist\"; }; order = \"natural\"; port = 1;")
run_muster "$c" resolve --format text
expect "kubeflow addresses, natural order, port_name still wins" 0 "w 0 mnist-chief-0.kf.svc:2222
w 1 mnist-ps-0.kf.svc:2223
w 2 mnist-ps-1.kf.svc:2223
w 3 mnist-worker-0.kf.svc:2222
w 4 mnist-worker-1.kf.svc:2222
w 5 mnist-worker-2.kf.svc:2222
rpc_layer: grpc
source: k8s"
c=$(conf kfdup "$(explicit) namespace = \"kf\"; index_label = \"$kf/replica-index\"; jobs = { w = \"$kf/job-name=mnist\"; };")
run_muster "$c" resolve
expect_err "order = label: a repeated index" $EX_UNAVAIL \
	"unavail: job w: pods mnist-chief-0 and mnist-ps-0 both have $kf/replica-index=0"
c=$(conf kfmissing "$(explicit) namespace = \"kf\"; index_label = \"$kf/replica-index\"; jobs = { w = \"tf-job-name=old\"; };")
run_muster "$c" resolve
expect_err "order = label: no label" $EX_UNAVAIL "unavail: job w: pod old-worker-0 has no label $kf/replica-index (order = \"label\")"
c=$(conf kfwrong "$(explicit) address = \"kubeflow\"; namespace = \"kf\"; jobs = { w = \"tf-job-name=old\"; x = \"$kf/job-name=dyn\"; };")
run_muster "$c" resolve --format text
expect "kubeflow: each pod's own labels" 0 "w 0 old-worker-0.kf.svc:2222
w 1 old-worker-1.kf.svc:2222
x 0 dyn-worker-0.kf.svc:2222
x 2 dyn-worker-2.kf.svc:2222
rpc_layer: grpc
source: k8s"

# Lots of pods, small pages: the numeric order survives paging.
start_server --token-file "$tmp/server-token" --scenario many
c=$(conf many "$(explicit) limit = 7; jobs = { w = \"job-name=many\"; };")
run_muster "$c" resolve --format text
expect "30 pods in pages of 7" 0 "$(i=0; while [ $i -lt 30 ]; do echo "w $i 10.1.0.$((i + 1)):8470"; i=$((i + 1)); done)
rpc_layer: grpc
source: k8s"
check_eq "five pages" "$(py_log '[r["items"] for r in reqs]')" "[7, 7, 7, 7, 2]"

finish
