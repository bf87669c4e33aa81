#!/usr/bin/env python3
"""What users run today: TensorFlow's KubernetesClusterResolver.cluster_spec()
(tensorflow/python/distribute/cluster_resolver/kubernetes_cluster_resolver.py),
step for step, with the official
Python client (Debian's python3-kubernetes), without importing TensorFlow:

  - load the kubeconfig ($KUBECONFIG; TF calls load_kube_config() on every
    cluster_spec() without an override client),
  - for each job, for each selector: list_pod_for_all_namespaces(
    label_selector=selector) (all namespaces, one unpaged request),
  - sort the items by metadata.name as strings, require phase "Running"
    (else RuntimeError), append "<status.host_ip>:<port>",
  - concatenate the selectors' lists.

  tf_baseline.py [--job worker=job-name=tensorflow]... [--port 8470] [--rounds N]

Prints {"cluster": {...}} as one line of JSON on stdout, and on stderr one
line per round: "cluster_spec_s SECONDS" (after the import, which happens
once per process as in a training program).
"""
import argparse
import json
import sys
import time

t_import = time.perf_counter()
from kubernetes import client as k8sclient  # noqa: E402
from kubernetes import config as k8sconfig  # noqa: E402
t_import = time.perf_counter() - t_import


def cluster_spec(job_to_label_mapping, tf_server_port):
    k8sconfig.load_kube_config()
    client = k8sclient.CoreV1Api()
    cluster_map = {}
    for tf_job in job_to_label_mapping:
        all_pods = []
        for selector in job_to_label_mapping[tf_job]:
            ret = client.list_pod_for_all_namespaces(label_selector=selector)
            selected_pods = []
            # Sort the list by the name to make sure it doesn't change call to call.
            for pod in sorted(ret.items, key=lambda x: x.metadata.name):
                if pod.status.phase == "Running":
                    selected_pods.append("%s:%s" % (pod.status.host_ip, tf_server_port))
                else:
                    raise RuntimeError('Pod "%s" is not running; phase: "%s"'
                                       % (pod.metadata.name, pod.status.phase))
            all_pods.extend(selected_pods)
        cluster_map[tf_job] = all_pods
    return cluster_map


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--job", action="append", default=[])
    ap.add_argument("--port", type=int, default=8470)
    ap.add_argument("--rounds", type=int, default=1)
    a = ap.parse_args()
    mapping = {}
    for j in a.job or ["worker=job-name=tensorflow"]:
        name, _, sel = j.partition("=")
        mapping.setdefault(name, []).append(sel)
    sys.stderr.write("import_s %.6f\n" % t_import)
    for _ in range(a.rounds):
        t = time.perf_counter()
        spec = cluster_spec(mapping, a.port)
        sys.stderr.write("cluster_spec_s %.6f\n" % (time.perf_counter() - t))
    print(json.dumps({"cluster": spec}, separators=(",", ":")))


if __name__ == "__main__":
    main()
