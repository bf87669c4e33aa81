#!/usr/bin/env python3
"""Helpers for the kube-apiserver integration tests (integration.sh).

  kint.py want [--job NAME=SPEC]... [--task TYPE:INDEX] [--rpc-layer L]
      Print the JSON `muster resolve` must print.  SPEC lists a job's tasks,
      comma-separated, each one of
        seeded:PREFIX:N:BASE[:ORDER[:ADDR[:GPUS]]]  the N pods seed.sh makes
            (PREFIX-0 .. PREFIX-N-1, pod IP BASE.<i/254>.<i%254+1>, host IP
            127.0.0.1), ORDER natural (default) or name (TF's string sort),
            ADDR pod_ip (default) or host_ip, GPUS the nvidia.com/gpu limit
            (default 1; 0: no accelerators for this job)
        IP[:GPUS]  one task with that pod IP ([...] for IPv6), GPUS default 1
      and the port is --port (default 8470).
  kint.py compare OUT WANT
      OUT must be exactly one line of JSON equal to the JSON in file WANT,
      objects compared with their key order.  Says where they first differ.
  kint.py token FILE
      Print status.token of a TokenRequest answer.
  kint.py status-message FILE
      Print the "message" of a Kubernetes Status answer.
  kint.py job NAME [--completions C] [--parallelism P] [--subdomain S]
              [--gpus G] [--jobset SET --rjob R --job-index J --replicas N
               --global-index G --global-replicas M --jobset-uid U
               [--coordinator HOST]] [--finalizer F]
      Print a batch/v1 Job as a user (completions, parallelism, Indexed
      completion mode, the pod template's subdomain, nvidia.com/gpu limits)
      or the JobSet controller (its labels and annotations on the Job and
      the pod template, the JobSet's subdomain) writes it.
  kint.py job-pod JOBFILE INDEX
      Print the pod the Job controller makes for completion index INDEX of
      the Job in JOBFILE (the API's answer, with its uid): the template's
      labels and annotations plus job-name, controller-uid and the
      completion-index annotation and label, an owner reference, host name
      <job>-<index>, and JOB_COMPLETION_INDEX from the annotation in every
      container.
  kint.py pod-env PODFILE
      Print what the pod's container sees as the kubelet makes it: its
      host name and the values of its env entries (fieldRef to an
      annotation resolved), one NAME=VALUE a line after the host name.
"""
import hashlib
import json
import re
import sys


def natural_key(s):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def job_tasks(spec, port):
    """[(address, gpus)] for one --job SPEC."""
    tasks = []
    for part in spec.split(","):
        if part.startswith("seeded:"):
            f = part.split(":")[1:]
            prefix, n, base = f[0], int(f[1]), f[2]
            order = f[3] if len(f) > 3 and f[3] else "natural"
            addr = f[4] if len(f) > 4 and f[4] else "pod_ip"
            gpus = int(f[5]) if len(f) > 5 and f[5] else 1
            names = ["%s-%d" % (prefix, i) for i in range(n)]
            names.sort(key=natural_key if order == "natural" else None)
            for name in names:
                i = int(name.rsplit("-", 1)[1])
                ip = ("127.0.0.1" if addr == "host_ip"
                      else "%s.%d.%d" % (base, i // 254, i % 254 + 1))
                tasks.append(("%s:%d" % (ip, port), gpus))
        elif part:
            if part.startswith("["):           # [IPv6][:GPUS]
                end = part.index("]") + 1
                ip, g = part[:end], part[end + 1:]
            else:
                ip, _, g = part.partition(":")
            tasks.append(("%s:%d" % (ip, port), int(g) if g else 1))
    return tasks


def want(argv):
    jobs, task, rpc, port = [], None, "grpc", 8470
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--port":
            port = int(argv[i + 1])
        elif a == "--job":
            name, _, spec = argv[i + 1].partition("=")
            jobs.append((name, spec))
        elif a == "--task":
            t, _, ix = argv[i + 1].rpartition(":")
            task = {"type": t, "index": int(ix)}
        elif a == "--rpc-layer":
            rpc = argv[i + 1]
        else:
            sys.exit("kint.py want: unknown argument %r" % a)
        i += 2
    out = {"cluster": {}}
    acc = {}
    for name, spec in jobs:
        tasks = job_tasks(spec, port) if spec else []
        out["cluster"][name] = [a for a, _ in tasks]
        per = {str(ix): {"GPU": g} for ix, (_, g) in enumerate(tasks) if g}
        if per:
            acc[name] = per
    if task is not None:
        out["task"] = task
    if rpc:
        out["rpc_layer"] = rpc
    if acc:
        out["accelerators"] = acc
    print(json.dumps(out, separators=(",", ":")))


def as_pairs(text):
    return json.loads(text, object_pairs_hook=lambda kv: list(kv))


def first_difference(got, want, path="$"):
    if type(got) is not type(want):
        return "%s: got %s, want %s" % (path, short(got), short(want))
    if isinstance(got, list):
        for i, (g, w) in enumerate(zip(got, want)):
            if isinstance(g, tuple) and isinstance(w, tuple):  # object member
                if g[0] != w[0]:
                    return "%s: member %d is %r, want %r" % (path, i, g[0], w[0])
                d = first_difference(g[1], w[1], "%s.%s" % (path, g[0]))
            else:
                d = first_difference(g, w, "%s[%d]" % (path, i))
            if d:
                return d
        if len(got) != len(want):
            return "%s: %d elements/members, want %d (next: %s)" % (
                path, len(got), len(want),
                short(got[len(want)] if len(got) > len(want) else want[len(got)]))
        return None
    if got != want:
        return "%s: got %s, want %s" % (path, short(got), short(want))
    return None


def short(v):
    s = json.dumps(v)
    return s if len(s) < 120 else s[:117] + "..."


def compare(out, wantfile):
    text = open(out).read()
    if not text.endswith("\n") or text.count("\n") != 1:
        sys.exit("output is not exactly one line: %s" % short(text[:200]))
    try:
        got = as_pairs(text)
    except ValueError as e:
        sys.exit("output is not JSON: %s" % e)
    w = as_pairs(open(wantfile).read())
    d = first_difference(got, w)
    if d:
        sys.exit(d)


JOBSET = "jobset.sigs.k8s.io/"
INDEX_KEY = "batch.kubernetes.io/job-completion-index"


def options(argv, names):
    o, i = {}, 0
    while i < len(argv):
        key = argv[i][2:]
        if not argv[i].startswith("--") or key not in names:
            sys.exit("unknown option %s" % argv[i])
        o[key] = argv[i + 1]
        i += 2
    return o


def job(argv):
    name, o = argv[0], options(argv[1:], {
        "completions", "parallelism", "subdomain", "gpus", "jobset", "rjob", "job-index",
        "replicas", "global-index", "global-replicas", "jobset-uid", "coordinator",
        "finalizer", "namespace"})
    meta = {"name": name, "labels": {}, "annotations": {}}
    pod_meta = {"labels": {}, "annotations": {}}
    pod = {"restartPolicy": "Never",
           "containers": [{"name": "train", "image": "trainer:latest"}]}
    if o.get("gpus"):
        pod["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": o["gpus"]}}
    if o.get("jobset"):
        # labelAndAnnotateObject: the same keys as labels and annotations,
        # on the Job and on its pod template.
        ns = o.get("namespace", "default")
        keys = {
            "jobset-name": o["jobset"],
            "jobset-uid": o["jobset-uid"],
            "replicatedjob-name": o["rjob"],
            "replicatedjob-replicas": o["replicas"],
            "global-replicas": o["global-replicas"],
            "job-index": o["job-index"],
            "job-global-index": o["global-index"],
            "job-key": hashlib.sha1(("%s/%s" % (ns, name)).encode()).hexdigest(),
        }
        if o.get("coordinator"):
            keys["coordinator"] = o["coordinator"]
        for k, v in keys.items():
            for m in (meta, pod_meta):
                m["labels"][JOBSET + k] = v
                m["annotations"][JOBSET + k] = v
        pod["subdomain"] = o.get("subdomain", o["jobset"])
    elif o.get("subdomain"):
        pod["subdomain"] = o["subdomain"]
    if o.get("finalizer"):
        meta["finalizers"] = [o["finalizer"]]
    n = int(o.get("completions", 1))
    spec = {"completions": n, "parallelism": int(o.get("parallelism", n)),
            "completionMode": "Indexed", "backoffLimit": 0,
            "template": {"metadata": pod_meta, "spec": pod}}
    print(json.dumps({"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
                      "spec": spec}))


def job_pod(jobfile, index):
    j = json.load(open(jobfile))
    name, uid = j["metadata"]["name"], j["metadata"]["uid"]
    tmpl = j["spec"]["template"]
    meta = tmpl.get("metadata", {})
    labels = dict(meta.get("labels") or {})
    annotations = dict(meta.get("annotations") or {})
    labels.update({"job-name": name, "controller-uid": uid, INDEX_KEY: index})
    annotations[INDEX_KEY] = index
    spec = json.loads(json.dumps(tmpl["spec"]))
    spec["hostname"] = "%s-%s" % (name, index)
    spec["nodeName"] = "fake-node-0"
    ref = {"fieldRef": {"fieldPath": "metadata.annotations['%s']" % INDEX_KEY}}
    for c in spec.get("initContainers", []) + spec["containers"]:
        env = c.setdefault("env", [])
        if not any(e["name"] == "JOB_COMPLETION_INDEX" for e in env):
            env.append({"name": "JOB_COMPLETION_INDEX", "valueFrom": ref})
    print(json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": "%s-%s-%s" % (name, index, hashlib.sha1(uid.encode()).hexdigest()[:5]),
        "labels": labels, "annotations": annotations,
        "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": name,
                             "uid": uid, "controller": True,
                             "blockOwnerDeletion": True}]},
        "spec": spec}))


def pod_env(podfile):
    p = json.load(open(podfile))
    print(p["spec"].get("hostname") or p["metadata"]["name"])
    annotations = p["metadata"].get("annotations") or {}
    for e in p["spec"]["containers"][0].get("env", []):
        if "value" in e:
            print("%s=%s" % (e["name"], e["value"]))
            continue
        path = e["valueFrom"]["fieldRef"]["fieldPath"]
        m = re.fullmatch(r"metadata\.annotations\['(.*)'\]", path)
        print("%s=%s" % (e["name"], annotations.get(m.group(1), "") if m else ""))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "want":
        want(args)
    elif cmd == "compare":
        compare(*args)
    elif cmd == "token":
        print(json.load(open(args[0]))["status"]["token"])
    elif cmd == "status-message":
        print(json.load(open(args[0])).get("message", ""))
    elif cmd == "job":
        job(args)
    elif cmd == "job-pod":
        job_pod(*args)
    elif cmd == "pod-env":
        pod_env(*args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
