#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/NAME/), from the
tests' fixtures and the fake servers' own answer builders.  The corpora are
checked in; run this again after changing a fixture or a target's input
format:   tests/fuzz/gen-corpus.py [SRCDIR]

Each target's input format is described at the top of tests/fuzz/NAME.c:
most take a first byte of options, and FUZZ_SEP ("\\n%%\\n") between parts.
"""
import base64
import gzip
import importlib.util
import json
import os
import pickle
import re
import shutil
import struct
import subprocess
import sys
import tempfile

SRC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(SRC, "tests", "fuzz", "corpus")
SEP = b"\n%%\n"


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(SRC, path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def read(path):
    with open(os.path.join(SRC, path), "rb") as f:
        return f.read()


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def js(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


# ------------------------------------------------------------ tf_config
def tf_config():
    for f in sorted(os.listdir(os.path.join(SRC, "tests/tf_config/fixtures"))):
        put("tf_config", f, b"\0" + read("tests/tf_config/fixtures/" + f))
    seeds = {
        "dense": (0, {"cluster": {"chief": ["c:1"], "worker": ["a:1", "b:2"], "ps": ["p:3"]},
                      "task": {"type": "worker", "index": 1}, "rpc_layer": "grpc",
                      "environment": "cloud", "session_master": "grpc://c:1"}),
        "sparse": (0, {"cluster": {"worker": {"0": "a:1", "7": "b:2"}},
                       "task": {"type": "worker", "index": "7"}}),
        "overrides": (15, {"cluster": {"worker": ["a:1", "b:2"]}}),
        "empty": (0, {}),
        "bad-cluster": (0, {"cluster": [], "task": {"type": 1}}),
        "bad-index": (0, {"cluster": {"w": ["a:1"]}, "task": {"type": "w", "index": -1.5}}),
        "big-index": (3, {"cluster": {"w": {"2147483648": "a:1"}}}),
    }
    for name, (opt, obj) in seeds.items():
        put("tf_config", name, bytes([opt]) + js(obj))
    put("tf_config", "syntax", b"\0{\"cluster\": {\"w\": [\"a:1\",]}, \"x\": 1e999, \"\\ud800\": NaN}")
    put("tf_config", "deep", b"\0" + b"[" * 1100 + b"]" * 1100)
    put("tf_config", "dup-keys", b"\0{\"cluster\":{\"w\":[\"a:1\"]},\"cluster\":{\"w\":[\"b:2\"]}}")


# ------------------------------------------------------------ config
def config():
    for f in sorted(os.listdir(os.path.join(SRC, "tests/cli"))):
        if f.endswith(".conf"):
            put("config", f, read("tests/cli/" + f))
    put("config", "muster.conf", read("conf/muster.conf"))
    static = read("tests/cli/static.conf")
    put("config", "dropins", b"strict = false;\nplugin_path = \"/nowhere\";\n" + SEP + static +
        SEP + b"chain = ( { plugin = \"static\"; name = \"b\"; on_notfound = \"continue\"; "
        b"timeout_ms = 100; config = { jobs = { w = [\"x:1\"]; }; }; } );\n")
    put("config", "static-accel", b"chain = ( { plugin = \"static\"; config = { jobs = { "
        b"worker = [\"h1:2222\", \"h2:2222\"]; }; task = { type = \"worker\"; index = 0; }; "
        b"accelerators = { worker = { GPU = 8; }; }; unknown = 1; }; } );\n")
    put("config", "include", b"@include \"muster.conf.d/10-a.conf\"\n" + SEP +
        b"chain = ( { plugin = \"static\"; } );\n")
    # Regressions: libconfig 1.5 exited the process on an @include of a directory.
    put("config", "include-dir", b"@include \"muster.conf.d\"\n" + SEP +
        b"chain = ( { plugin = \"static\"; } );\n")
    put("config", "include-dir-nul", b"@include \"muster.conf.d/\0\0\0\0\0\0\0_f\"\n" + SEP +
        b"chain = ( { plugin = \"stati[\"; } );\n")
    # muster's own @include expansion (core/includes.c): directives in comments
    # and strings are none, escapes in the path, state running on from an
    # included file into the rest of the including one.
    put("config", "include-lexer", b"/* @include \"x\"\n*/ # @include \"y\"\n"
        b"a = \"\\\" \n@include \\\"z\\\"\";\n  @include \"muster.conf.d/1\\0-a.c\\\"onf\" x\n"
        b"@include \"muster.conf.d/20-b.conf\"" + SEP + b"/* open\n" + SEP +
        b"chain = ( { plugin = \"static\"; } ); /*")
    put("config", "types", b"chain = ( { plugin = 1; }, { plugin = \"x y\"; name = \"\"; "
        b"timeout_ms = -5; on_success = \"maybe\"; } ); strict = 1; plugin_path = [1, 2];\n")
    # Found by fuzzing: a file that includes itself many times over (refused
    # at the 1,000th directive).
    put("config", "include-fanout", b'# Unknown keys are warned about with file:line, and otherwise ignored.\ncolouignored.\ncolour = "blue";\nchain = (\n  {\n    plugin = "static";\n    on_sucess = "merge";\n    config = }\n # Onl!y TF_C\x00\x00\x00\x00nd hain =fONF cOnl!y TF_C\x00\x00\x00\x00nd hain =fONF config"; }\n);\n@include "musterInd h\n); = +t_fconfig"; }\n);\n@include "muster.conf\x00\x00/05-a\n\nc%\nhonfig"; }\n);\n@include "musterInd h\n); = +t_fconfig"; }\n);\n@include "muster.conf\x00\x00/05-a\n\nc%\nh     jobs = { worker = ["h1:2222"]; }@includ;\n  @include    rpc_layr = "grpc"r = "blue";\nchain = (\n  {\n    plugin = "static";\n    on_sucess = "merge";\n    config = }\n # Onl!y TF_C\x00\x00\x00\x00nd hain =fONF cOnl!y TF_C\x00\x00\x00\x00nd hain =fONF config"; }\n);\n@include "musterInd h\n); = +t_fconfig"; }\n);\n@include "muster.conf\x00\x00/05-a\n\nc%\nhonfig"; }\n);\n@include "musterInd h\n); = +t_fconfig"; }\n);\n@include "muster.conf\x00\x00/05-a\n\nc%\nh     jobs = { worker = ["h1:2222"]; }@includ;\n  @include    rpc_layr = "grpc";\n    };\n  }a\n%\n);\n')


# ------------------------------------------------------------ local_devices
def local_devices():
    # Parts as tests/fuzz/local_devices.c lists them: the three visible-device
    # variables, then the driver's information file, two KFD nodes, the GPU's
    # numa_node and local_cpulist, two NUMA nodes' cpulists, CPU 0's package
    # and CPUs 0 and 1's siblings, the NIC's numa_node.
    parts = lambda *p: SEP.join(p)
    h200 = (b"Model: \t\t NVIDIA H200\nGPU UUID: \t GPU-00000000-aaaa-bbbb-cccc-dddddddddddd\n")
    put("local_devices", "two-amd-one-nvidia", parts(
        b"0,GPU-1", b"1,0", b"1", b"Model: X\nGPU UUID: GPU-1234-abcd",
        b"simd_count 304\nunique_id 1001", b"simd_count 0\n"))
    put("local_devices", "edges", parts(
        b"GPU-", b"GPU-,,,", b"99999999999999999999", b"GPU UUID:",
        b"simd_count -5\nunique_id 18446744073709551615", b"simd_count\n"))
    put("local_devices", "numa-one-gpu", parts(
        b"GPU-0000", b"", b"", h200 + b"Device Minor: \t 0\n", b"simd_count 0\n",
        b"simd_count 0\n", b"0\n", b"0-1\n", b"0-1\n", b"1\n", b"0\n", b"0\n", b"1\n", b"0"))
    put("local_devices", "numa-two-nodes", parts(
        b"0", b"0,1", b"1", h200 + b"Bus Location: \t 0000:07:00.0\nDevice Minor: \t 0\n",
        b"simd_count 304\nunique_id 1001\nlocation_id 6912\ndomain 0\n",
        b"simd_count 304\nunique_id 1002\nlocation_id 7168\n", b"1\n", b"0-1\n", b"0\n",
        b"1\n", b"0\n", b"0\n", b"1\n", b"1\n"))
    put("local_devices", "numa-edges", parts(
        b"", b"", b"", b"GPU UUID: GPU-x\nDevice Minor: 99999999999\n",
        b"location_id -5\ndomain 99999999\nsimd_count 1\n",
        b"simd_count 1\nlocation_id 65535\n", b"-1\n", b"0-3,1-2,\n", b"0-16383\n", b"\n",
        b"x\n", b"0-1\n", b"16383\n", b"1x"))


# ------------------------------------------------------------ noproxy
def noproxy():
    # The host, a newline, then the no_proxy list.
    put("noproxy", "cidr", b"10.77.1.2\n10.0.0.0/8,fd00::/64")
    put("noproxy", "domain", b"worker-1.cluster.local\nlocalhost,.cluster.local")
    put("noproxy", "ipv6", b"fd00::1\n fd00::1 , 127.0.0.1")
    put("noproxy", "star", b"master\n*")
    put("noproxy", "wildcard", b"Master.Example\n*.example, other")


# ------------------------------------------------------------ kubeconfig
def kubeconfig():
    base = """apiVersion: v1
kind: Config
current-context: main
preferences: {}
clusters:
- name: test
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority: certs/ca.crt
- name: test-data
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority-data: %s
contexts:
- name: main
  context: {cluster: test, user: me}
- name: fuzz
  context:
    cluster: test-data
    user: me
    namespace: other
users:
%s"""
    ca = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n").decode()
    users = {
        "token": "- name: me\n  user:\n    token: abc.def\n",
        "token-file": "- name: me\n  user:\n    tokenFile: token\n",
        "cert-data": "- name: me\n  user:\n    client-certificate-data: %s\n"
                     "    client-key-data: %s\n" % (ca, ca),
        "cert-path": "- name: me\n  user:\n    client-certificate: c.crt\n    client-key: /k.key\n",
        "exec": "- name: me\n  user:\n    exec:\n      command: aws\n",
        "insecure": "- name: me\n  user: {}\n",
    }
    for name, u in users.items():
        put("kubeconfig", name, b"\0" + (base % (ca, u)).encode())
    put("kubeconfig", "context-option", b"\1" + (base % (ca, users["token"])).encode())
    put("kubeconfig", "bad-base64", b"\1" + (base % ("!!not base64!!", users["token"])).encode())
    put("kubeconfig", "anchors", b"\0a: &x [*x]\nclusters: &c\n- *c\n")
    put("kubeconfig", "not-yaml", b"\0clusters: [ {\n")
    put("kubeconfig", "flow", b"\0{current-context: m, contexts: [{name: m, context: "
        b"{cluster: c, user: u}}], clusters: [{name: c, cluster: {server: 'http://x'}}], "
        b"users: [{name: u, user: {token: t}}]}\n")


# ------------------------------------------------------------ k8s_podlist
def podlist(fake):
    mk = fake.PodMaker(json.loads(read("tests/kubernetes/fixtures/pod.json")))
    pods = [
        mk.make("worker-0", labels={"job-name": "worker", "training.kubeflow.org/job-name": "tf",
                                    "training.kubeflow.org/replica-type": "worker",
                                    "training.kubeflow.org/replica-index": "0", "index": "0"},
                pod_ip="10.0.0.2", host_ip="192.168.0.2",
                containers=[{"name": "tensorflow", "ports": [("grpc", 2222)],
                             "resources": {"nvidia.com/gpu": "8"}}]),
        mk.make("worker-1", labels={"job-name": "worker", "index": "x"}, pod_ip="fd00::3",
                init_containers=[{"name": "init", "resources": {"google.com/tpu": "4"}},
                                 {"name": "side", "sidecar": True,
                                  "resources": {"amd.com/gpu": "1"}}]),
        mk.make("worker-2", labels={"job-name": "worker"}, phase="Pending"),
        mk.make("worker-3", labels={"job-name": "worker"}, pod_ip="10.0.0.4", deleting=True,
                containers=[{"name": "a", "resources": {"nvidia.com/gpu": "1.5"}},
                            {"name": "b", "ports": [("grpc", 70000)]}]),
    ]

    def page(items, cont=None):
        meta = {"resourceVersion": "15310"}
        if cont:
            meta["continue"] = cont
            meta["remainingItemCount"] = 1
        return js({"kind": "PodList", "apiVersion": "v1", "metadata": meta, "items": items})

    cont = base64.b64encode(js({"start": 2, "rv": 15310})).decode()
    for opt in (0, 1, 2 | 4, 8, 16 | 32):
        put("k8s_podlist", "pods-%d" % opt, bytes([opt]) + page(pods[:2]))
    put("k8s_podlist", "two-pages", b"\4" + page(pods[:2], cont) + SEP + page(pods[2:]))
    put("k8s_podlist", "same-token", b"\0" + page(pods[:1], cont) + SEP + page(pods[1:2], cont))
    put("k8s_podlist", "gzip", b"\2" + gzip.compress(page(pods[:3]), mtime=0))
    put("k8s_podlist", "empty-list", b"\0" + page([]))
    put("k8s_podlist", "no-items", b"\0" + js({"kind": "PodList", "metadata": {}}))
    put("k8s_podlist", "status", b"\0" + js({"kind": "Status", "status": "Failure",
                                              "message": "forbidden", "code": 403}))
    bad = json.loads(page(pods[:1]))
    bad["items"][0]["status"]["podIP"] = 42
    bad["items"][0]["metadata"]["labels"]["index"] = 7
    put("k8s_podlist", "wrong-types", b"\0" + js(bad))
    put("k8s_podlist", "truncated", b"\0" + page(pods[:2])[:3000])
    put("k8s_podlist", "items-object", b"\0" + js({"kind": "PodList", "metadata":
                                                  {"continue": "x"}, "items": {"a": 1}}))
    put("k8s_podlist", "empty", b"\0")


# ------------------------------------------------------------ gunzip
def k8s_job(kint):
    """Jobs as tests/kubernetes-integration/kint.py writes them for the
    real API server, with what the API server adds, and broken ones."""
    import contextlib
    import io

    def job(*argv):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            kint.job(list(argv))
        j = json.loads(out.getvalue())
        j["metadata"]["uid"] = "0b5c7d1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e"
        return j

    plain = job("train", "--completions", "3", "--subdomain", "train-svc", "--gpus", "2")
    member = job("js-workers-1", "--jobset", "js", "--jobset-uid", "8f1d", "--rjob", "workers",
                 "--job-index", "1", "--replicas", "2", "--global-index", "2",
                 "--global-replicas", "3", "--completions", "2", "--gpus", "1",
                 "--coordinator", "js-driver-0-0.js")
    sidecar = json.loads(json.dumps(plain))
    sidecar["spec"]["template"]["spec"]["initContainers"] = [
        {"name": "proxy", "restartPolicy": "Always",
         "resources": {"requests": {"nvidia.com/gpu": 1}}},
        {"name": "fetch", "resources": {"limits": {"google.com/tpu": "4"}}}]
    put("k8s_job", "indexed", b"\1" + js(plain))
    put("k8s_job", "indexed-no-accelerators", b"\0" + js(plain))
    put("k8s_job", "jobset-member", b"\1" + js(member))
    put("k8s_job", "sidecars", b"\1" + js(sidecar))
    put("k8s_job", "joblist", b"\1" + js({"kind": "JobList", "metadata": {"continue": "c"},
                                           "items": [member, plain, 3]}))
    bad = json.loads(json.dumps(member))
    bad["metadata"]["labels"]["jobset.sigs.k8s.io/job-index"] = "x1"
    bad["spec"]["completions"] = 2.5
    bad["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = []
    put("k8s_job", "bad-fields", b"\1" + js(bad))
    put("k8s_job", "no-spec", b"\1" + js({"metadata": {"name": "x"}}))
    put("k8s_job", "not-object", b"\1[1,2]")


def gunzip():
    text = b"{\"kind\":\"PodList\",\"items\":[]}" * 20
    put("gunzip", "one", gzip.compress(text, mtime=0))
    put("gunzip", "two-members", gzip.compress(b"abc", mtime=0) + gzip.compress(b"def", mtime=0))
    put("gunzip", "empty-member", gzip.compress(b"", mtime=0))
    g = bytearray(gzip.compress(text, mtime=0))
    g[-5] ^= 0xff
    put("gunzip", "bad-crc", bytes(g))
    g = bytearray(gzip.compress(text, mtime=0))
    g[-4:] = struct.pack("<I", 1)
    put("gunzip", "wrong-size", bytes(g))
    put("gunzip", "truncated", gzip.compress(text, mtime=0)[:20])
    put("gunzip", "zeros", gzip.compress(bytes(1 << 16), mtime=0))


# ------------------------------------------------------------ gce
def gce(fake):
    fields = fake.parse_fields("nextPageToken,items(name,status,networkInterfaces(networkIP,"
                               "ipv6Address,accessConfigs(natIP),ipv6AccessConfigs("
                               "externalIpv6)),guestAccelerators(acceleratorType,"
                               "acceleratorCount))")
    z = "us-central1-a"
    insts = [
        fake.instance("tf-worker-0", z, "10.128.0.2", 1, nat="34.1.2.3"),
        fake.instance("tf-worker-1", z, None, 2, ipv6="fd20::2",
                      accels=[("nvidia-tesla-a100", 8)]),
        fake.instance("tf-ps-0", z, "10.128.0.4", 3, status="STOPPING"),
        fake.instance("tf-tpu-0", z, "10.128.0.5", 4, accels=[("tpu-v4", 4), ("nvidia-l4", 1)]),
    ]

    def ipage(items, token=None):
        out = fake.prune({"kind": "compute#instanceList", "items": items,
                          "nextPageToken": token}, fields)
        return js({k: v for k, v in out.items() if v is not None})

    for opt in (0, 2, 4, 6):
        put("gce", "instances-%d" % opt, bytes([opt]) + ipage(insts))
    put("gce", "instances-pages", b"\0" + ipage(insts[:2], "p2") + SEP + ipage(insts[2:]))
    put("gce", "instances-repeat", b"\0" + ipage(insts[:1], "p2") + SEP + ipage(insts[1:2], "p2"))
    put("gce", "instances-bad", b"\0" + js({"items": [{"name": "x", "guestAccelerators": 3},
                                                      {"status": "RUNNING"}]}))

    def mpage(items, token=None):
        out = {"kind": "compute#instanceGroupsListInstances",
               "items": [{"instance": i["selfLink"], "status": i["status"]} for i in items]}
        if token:
            out["nextPageToken"] = token
        return js(out)

    put("gce", "members", b"\1" + mpage(insts))
    put("gce", "members-pages", b"\1" + mpage(insts[:2], "t") + SEP + mpage(insts[1:] + insts[:1]))
    put("gce", "members-bad", b"\1" + js({"items": [{"instance": "https://x/zones/"},
                                                    {"instance": 5}]}))
    put("gce", "not-json", b"\0<html>502</html>")
    put("gce", "items-object", b"\1" + js({"items": {}}))


def gce_tpu():
    """TPU VM attributes as tests/gce/tpu.sh serves them: endpoints,
    tpu-env, accelerator type."""
    def seed(name, endpoints, tpu_env, accel):
        put("gce_tpu", name, SEP.join(x.encode() for x in (endpoints, tpu_env, accel)))

    seed("v4-32", "unknown:unknown:10.130.0.2,unknown:unknown:10.130.0.3",
         "ACCELERATOR_TYPE: 'v4-32'\nCHIPS_PER_HOST_BOUNDS: '2,2,1'\nWORKER_ID: '2'", "v4-32")
    seed("hostnames", "t1v-n-5e-w-0, t1v-n-5e-w-1\n", "", "v5litepod-16")
    seed("ipv6", "a:b:fd00::2,a:b:10.0.0.1", "CHIPS_PER_HOST_BOUNDS: 1,1,1", "v6e-8")
    seed("multislice", "ms-s1-w-0,ms-s1-w-1",
         "MEGASCALE_COORDINATOR_ADDRESS: 'ms-s0-w-0:8080'\nMEGASCALE_NUM_SLICES: '2'\n"
         "MEGASCALE_SLICE_ID: '1'\nCHIPS_PER_HOST_BOUNDS: '2,2,1'", "v5p-16")
    seed("bad", "a,,b,x:y,n:i:10.0.0.1 x", "CHIPS_PER_HOST_BOUNDS: '0,99999999'\n: ''", "tpu7x-8")


# ------------------------------------------------------------ libvirt
def libvirt():
    node = read("tests/libvirt/fixtures/node.xml").decode()
    faults = read("tests/libvirt/fixtures/faults.xml").decode()
    doms = re.findall(r"<domain.*?</domain>", node + faults, re.S)
    devs = re.findall(r"<device>.*?</device>", node, re.S)
    ifaces = ("vnet0 52:54:00:10:00:01 0:192.168.122.10 1:fe80::1 1:fd00::10\n"
              "lo - 0:127.0.0.1 1:::1\n"
              "vnet1 52:54:00:10:00:02 1:fd00::20 0:0.0.0.0 2:x\n"
              "- - 0:-\n")
    for i, d in enumerate(doms[:16]):
        put("libvirt", "domain-%02d" % i, bytes([i % 8]) + d.encode() + SEP + ifaces.encode())
    for i, d in enumerate(devs[:4]):
        put("libvirt", "nodedev-%d" % i, b"\0" + d.encode())
    put("libvirt", "not-xml", b"\0<domain><devices>")
    put("libvirt", "entities", b"\0<!DOCTYPE d [<!ENTITY a \"aaaa\"><!ENTITY b \"&a;&a;&a;\">]>"
        b"<domain><name>&b;</name></domain>")


# ------------------------------------------------------------ reservation
def frame(payload):
    return struct.pack(">I", len(payload)) + payload


def reservation():
    node = {"executor_id": 1, "host": "10.0.0.2", "job_name": "worker", "task_index": 0,
            "port": 2222, "tb_pid": 0, "tb_port": 0, "addr": ("10.0.0.2", 40000),
            "authkey": b"\x01" * 16}
    reqs = {
        "reg": {"type": "REG", "data": node},
        "query": {"type": "QUERY"},
        "qinfo": {"type": "QINFO"},
        "stop": {"type": "STOP"},
        "other": {"type": "HELLO", "data": [1, 2.5, None, True]},
    }
    nodes = [dict(node, executor_id=i, host="10.0.0.%d" % i, addr="/tmp/s%d" % i)
             for i in range(4)]
    nodes[2]["host"] = "fd00::2"
    replies = {"qinfo-reply": nodes, "ok": "OK", "true": True}
    for name, v in list(reqs.items()) + list(replies.items()):
        p = pickle.dumps(v, protocol=2 if name == "reg" else 3)
        put("reservation", "plain-" + name, b"\0" + frame(p))
        put("reservation", "sealed-" + name, b"\2" + frame(p))
    put("reservation", "plain-many", b"\4" + b"".join(
        frame(pickle.dumps(reqs[k], protocol=3)) for k in ("reg", "query", "qinfo", "stop")))
    hello = b"MSTRAUT1" + bytes(range(16))
    tagged = pickle.dumps(reqs["query"], protocol=3) + bytes(32)
    put("reservation", "tagged", b"\1" + frame(hello) + frame(tagged))
    put("reservation", "bad-hello", b"\5" + frame(b"MSTRAUT2" + bytes(16)) + frame(tagged))
    # Strs CPython refuses (the decoder must too) and a lone surrogate it loads.
    bad_host = b"\x80\x04}(\x8c\x04type\x8c\x03REG\x8c\x04data}(\x8c\x04host\x8c\x01\xffuu."
    put("reservation", "plain-reg-not-utf8", b"\4" + frame(bad_host))
    reg3 = pickle.dumps(reqs["reg"], protocol=3)
    put("reservation", "plain-reg-overlong", b"\4" + frame(
        reg3.replace(b"\x08\x00\x00\x0010.0.0.2", b"\x09\x00\x00\x0010.0.0.\xc0\xb2", 1)))
    put("reservation", "plain-reg-beyond-unicode", b"\4" + frame(
        reg3.replace(b"\x08\x00\x00\x0010.0.0.2", b"\x08\x00\x00\x0010.\xf4\x90\x80\x80", 1)))
    put("reservation", "plain-reg-py2-not-ascii", b"\4" + frame(
        b"\x80\x02}(U\x04typeU\x03REGU\x04data}(U\x04hostU\x01\xe9uu."))
    put("reservation", "plain-reg-surrogate", b"\4" + frame(pickle.dumps(
        {"type": "REG", "data": dict(node, host="\ud800")}, protocol=4)))
    put("reservation", "sealed-reg-not-utf8", b"\2" + frame(bad_host))
    put("reservation", "plain-many-not-utf8", b"\4" + frame(reg3) + frame(bad_host) +
        frame(pickle.dumps(reqs["qinfo"], protocol=3)))
    put("reservation", "too-big", b"\0" + struct.pack(">I", 1 << 20) + b"\x80")
    put("reservation", "truncated", b"\0" + frame(pickle.dumps(nodes, protocol=3))[:50])


# ------------------------------------------------------------ pickle
def pickles():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(SRC, "tests/reservation/gen_fixtures.py"),
                        "gen", tmp], check=True)
        names = sorted(f for f in os.listdir(tmp) if f not in ("manifest", "texts"))
        # A few dozen, spread over the kinds and protocols.
        step = max(1, len(names) // 40)
        for f in names[::step]:
            shutil.copy(os.path.join(tmp, f), os.path.join(OUT, "pickle", f))
    put("pickle", "query", b"\x80\x03}X\x04\x00\x00\x00typeX\x05\x00\x00\x00QUERYs.")
    # Text at the edges of what CPython loads (tests/reservation/gen_fixtures.py).
    put("pickle", "str-not-utf8", b"\x80\x04\x8c\x0512345\x94\x8c\x02\xe2\x82\x94\x86.")
    put("pickle", "str-surrogate", b"\x80\x04\x95\x07\x00\x00\x00\x00\x00\x00\x00"
        b"\x8c\x03\xed\xa0\x80\x94.")
    put("pickle", "py2-str-not-ascii", b"(S'caf\\xe9'\nT\x01\x00\x00\x00\x80l.")


# ------------------------------------------------------------ slurm_lists
def slurm_lists():
    pairs = [("t02n13,t02n41,t02n43", "2(x2),1"), ("node[001-003,7],gpu[1-2]", "1(x6)"),
             ("n[1-2]x[3-4]y[5-6]", "8"), ("n[0001-4096]", "8(x4096)"), ("a,,b c\tb", "1,1,1"),
             ("n[1-", "2x3"), ("n[3-1]", "(x3)"), ("n[1-99999999]", "2(x)"),
             ("x[0-65535],y", "1(x70000)"), ("n[1-2]a", "2(x3"), ("r[0-9][0-9][0-9][0-9][0-9]", "")]
    for i, (hosts, tpn) in enumerate(pairs):
        put("slurm_lists", "seed%02d" % i, hosts.encode() + SEP + tpn.encode())
    # SLURM_HOSTFILE texts, as the third part.
    files = [b"# the job\nn2 # first\n\nn1,n2*1\nn9\n", b"n1*3,n2\r\nn\\#3\n",
             b"-n1\n", b"n1*999999999999\n", b"a,,b\n\n\n,c", b"n1,*1\n"]
    for i, text in enumerate(files):
        put("slurm_lists", "hostfile%02d" % i, b"n1" + SEP + b"1" + SEP + text)


def schedulers():
    # hostfile: option byte, then a PBS node file or an LSF rank file.
    put("hostfile", "pbs-nodefile1", b"\x00t02n13\nt02n41\nt02n43\n")
    put("hostfile", "pbs-two-slots", b"\x52t02n13\nt02n13\nt02n41\nt02n41\nt02n43\n")
    put("hostfile", "lsf-lightning", b"\x07batch\n10.10.10.0\n10.10.10.1\n10.10.10.2\n10.10.10.3")
    put("hostfile", "blank-line", b"\x00a1\n\na2\n")
    put("hostfile", "bracket", b"\x00n[1-3]\n")
    put("hostfile", "high-port", b"\x80h\nh\nh\n \tg \r\n\n\n")
    # lsf_mcpu: the rank, then LSB_MCPU_HOSTS.
    put("lsf_mcpu", "three-hosts", b"\x02batch1 1 h10 2 h9 1")
    put("lsf_mcpu", "no-count", b"\x00batch1 1 h1")
    put("lsf_mcpu", "bad-count", b"\x00batch1 1 h1 x h2 99999999999")
    # sagemaker: even first byte, SM_HOSTS SEP SM_CURRENT_HOST; odd, the file.
    put("sagemaker", "sm-hosts", b"\x00" + js(["algo-2", "algo-10", "algo-1"]) + SEP + b"algo-2")
    put("sagemaker", "sm-hosts-empty", b"\x00" + SEP + b"algo-1")
    put("sagemaker", "sm-hosts-not-json", b"\x00algo-1,algo-2" + SEP + b"algo-1")
    put("sagemaker", "resourceconfig", b"\x01" + json.dumps(
        {"current_host": "algo-3", "current_instance_type": "ml.p3.16xlarge",
         "hosts": ["algo-1", "algo-2", "algo-3"], "network_interface_name": "eth0"}).encode())
    put("sagemaker", "resourceconfig-no-hosts", b"\x01" + js({"current_host": "algo-1"}))
    put("sagemaker", "sm-hosts-nul-escape", b'\x00["algo-1\\u0000evil","algo-2"]' + SEP + b"algo-1")
    put("sagemaker", "resourceconfig-dup-hosts",
        b'\x01{"current_host":"b","hosts":["a"],"hosts":["a","b"]}')
    # A raw NUL in the file: the error's excerpt reads past it, within the file.
    put("sagemaker", "resourceconfig-raw-nul",
        b'\x01{"current_host":"algo-1",\x00"hosts":["algo-1","algo-2","algo-3"]}')


# ------------------------------------------------------------ strict_json
def strict_json():
    put("strict_json", "tf-config", read("tests/tf_config/fixtures/kubeflow.json"))
    put("strict_json", "python-spaced", read("tests/tf_config/fixtures/python_spaced.json"))
    put("strict_json", "dup-keys", b'{"hosts":["a"],"hosts":["a","b"],"x":{"k":1,"k":[true,false,null]}}')
    put("strict_json", "nul-escape", b'["algo-1\\u0000evil","algo-2"]')
    put("strict_json", "escapes", b'["\\"\\\\\\/\\b\\f\\n\\r\\t","\\u00e9\\ud83d\\ude00","\xc3\xa9"]')
    put("strict_json", "lone-surrogate", b'["\\ud800"]')
    put("strict_json", "numbers", b'[0,-0,1.5e3,-2E-2,1e999,123456789012345678901234567890,2147483648]')
    put("strict_json", "long-number", b"[" + b"1" * 70 + b"]")
    put("strict_json", "leading-zero", b"[01]")
    put("strict_json", "trailing", b'{"a":1} x')
    put("strict_json", "deep", b"[" * 1001 + b"]" * 1001)
    put("strict_json", "bom", b'\xef\xbb\xbf{}')
    put("strict_json", "empty", b"")


# ------------------------------------------------------------ platforms
# The first byte is the platform's position in PF_PLATFORMS
# (plugins/platforms/platforms.h); parts are NAME=VALUE, as the tests set
# them (tests/platforms/).
PLATFORMS = ["torchrun", "launcher", "kubeflow", "trainer", "mpi_operator", "volcano", "tpu",
             "lws", "skypilot", "aws_batch", "azureml", "vertex", "bare"]


def platforms():
    def env(name, platform, variables, port_bit=0):
        put("platforms", name, bytes([PLATFORMS.index(platform) | port_bit]) +
            SEP.join(("%s=%s" % kv).encode() for kv in variables))
    run = [("TORCHELASTIC_RUN_ID", "none"), ("RANK", "5"), ("WORLD_SIZE", "8"),
           ("LOCAL_RANK", "1"), ("LOCAL_WORLD_SIZE", "4"), ("GROUP_RANK", "1"),
           ("GROUP_WORLD_SIZE", "2"), ("MASTER_ADDR", "node0.example"), ("MASTER_PORT", "29500")]
    env("torchrun", "torchrun", run)
    env("torchrun-port", "torchrun", run[:-1] + [("MASTER_PORT", "65533")], 128)
    env("torchrun-half", "torchrun", run[:2])
    env("launcher", "launcher", run[1:])
    env("launcher-node", "launcher", [("MASTER_ADDR", "10.0.0.4"), ("MASTER_PORT", "6105"),
                                      ("WORLD_SIZE", "8"), ("RANK", "6"), ("LOCAL_RANK", "2"),
                                      ("NODE_RANK", "1")])
    env("bare", "bare", [("MASTER_ADDR", "dlc-master-0"), ("MASTER_PORT", "23456"),
                         ("WORLD_SIZE", "3"), ("RANK", "2")])
    env("kubeflow", "kubeflow", [("KUBERNETES_SERVICE_HOST", "10.96.0.1"),
                                 ("MASTER_ADDR", "pj-master-0"), ("MASTER_PORT", "23456"),
                                 ("WORLD_SIZE", "8"), ("RANK", "1"), ("PET_NNODES", "2"),
                                 ("PET_NODE_RANK", "1"), ("PET_NPROC_PER_NODE", "4")])
    env("kubeflow-elastic", "kubeflow", [("KUBERNETES_SERVICE_HOST", "1"), ("PET_NNODES", "1:4"),
                                         ("PET_RDZV_ENDPOINT", "pj-worker-0:23456")])
    env("trainer", "trainer", [("PET_NNODES", "3"), ("PET_NODE_RANK", "2"),
                               ("PET_MASTER_ADDR", "tj-node-0-0.tj"), ("PET_MASTER_PORT", "29500")])
    env("trainer-jax", "trainer", [("JAX_NUM_PROCESSES", "2"), ("JAX_PROCESS_ID", "1"),
                                   ("JAX_COORDINATOR_ADDRESS", "[fd00::1]:29500")])
    hosts = "pi-worker-0.pi.default.svc slots=2\npi-worker-1.pi.default.svc slots=2\n"
    env("mpi-operator", "mpi_operator", [("K_MPI_JOB_ROLE", "launcher"), ("@hostfile", hosts)])
    env("mpi-operator-hydra", "mpi_operator",
        [("K_MPI_JOB_ROLE", "launcher"), ("OMPI_MCA_orte_set_default_slots", "3"),
         ("@hostfile", "# c\nl.pi:1\nw0.pi\n[fd00::2] slots=2 max_slots=4\n")])
    env("volcano", "volcano", [("VC_TASK_INDEX", "0"), ("VC_MASTER_HOSTS", "vj-master-0.vj"),
                               ("VC_MASTER_NUM", "1"), ("VC_WORKER_HOSTS", "vm,vj-worker-1.vj"),
                               ("VC_WORKER_NUM", "2"), ("MASTER_ADDR", "vj-master-0.vj"),
                               ("MASTER_PORT", "23456"), ("RANK", "1")])
    env("tpu", "tpu", [("TPU_WORKER_ID", "3"), ("TPU_WORKER_HOSTNAMES", "a.s,b.s,c.s,d.s"),
                       ("TPU_CHIPS_PER_HOST_BOUNDS", "2,2,1"), ("TPU_TOPOLOGY", "4x4"),
                       ("MEGASCALE_NUM_SLICES", "2"), ("MEGASCALE_SLICE_ID", "1"),
                       ("MEGASCALE_COORDINATOR_ADDRESS", "[fd00::9]:8080")])
    env("tpu-processes", "tpu", [("TPU_WORKER_ID", "1"),
                                 ("TPU_PROCESS_ADDRESSES", "a:8476,a:8477,b:8476,b:8477")])
    env("lws", "lws", [("LWS_LEADER_ADDRESS", "vllm-2.vllm.default"), ("LWS_GROUP_SIZE", "3"),
                       ("LWS_WORKER_INDEX", "2")])
    env("skypilot", "skypilot", [("SKYPILOT_NODE_IPS", "10.0.0.5\n10.0.0.7\n"),
                                 ("SKYPILOT_NODE_RANK", "1"), ("SKYPILOT_NUM_NODES", "2"),
                                 ("SKYPILOT_NUM_GPUS_PER_NODE", "8"), ("SKYPILOT_TASK_ID", "sky-1")])
    env("aws-batch", "aws_batch", [("AWS_BATCH_JOB_ID", "j#2"), ("AWS_BATCH_JOB_NODE_INDEX", "2"),
                                   ("AWS_BATCH_JOB_NUM_NODES", "4"),
                                   ("AWS_BATCH_JOB_MAIN_NODE_INDEX", "1"),
                                   ("AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS", "10.0.1.23")])
    env("azureml-mpi", "azureml", [("AZUREML_RUN_ID", "r"), ("OMPI_COMM_WORLD_RANK", "5"),
                                   ("OMPI_COMM_WORLD_SIZE", "8"), ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
                                   ("OMPI_COMM_WORLD_LOCAL_SIZE", "4"),
                                   ("AZ_BATCH_MASTER_NODE", "10.0.0.4:6105")])
    spec = {"cluster": {"workerpool0": ["c-0:2222"], "workerpool1": ["w-0:2222", "w-1:2222"],
                        "workerpool2": ["r-0:2222"], "workerpool3": ["e-0:2222"]},
            "environment": "cloud", "task": {"type": "workerpool1", "index": 1, "trial": ""},
            "job": "{}"}
    env("vertex", "vertex", [("CLUSTER_SPEC", json.dumps(spec))])
    env("vertex-bad", "vertex", [("CLUSTER_SPEC", '{"cluster": {"workerpool0": ["a b:1"]}, '
                                                  '"task": {"type": "workerpool0", "index": 0.5}}')])


# ------------------------------------------------------------ http_request
def http_request():
    # The first byte: a small header limit for the last parse.
    put("http_request", "prometheus", b"\x40GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9400\r\n"
        b"User-Agent: Prometheus/2.42.0\r\nAccept: application/openmetrics-text;version=1.0.0,"
        b"text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\nAccept-Encoding: gzip\r\n"
        b"X-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n")
    put("http_request", "curl-head", b"\x10HEAD /metrics?x=1 HTTP/1.0\r\n\r\n")
    put("http_request", "bare-lf", b"\x08GET / HTTP/1.1\nHost: a\n\n")
    put("http_request", "post-body", b"\xffPOST /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello")
    put("http_request", "long-method", b"\x00" + b"M" * 40 + b" / HTTP/1.1\r\n\r\n")
    put("http_request", "long-path", b"\x00GET /" + b"p" * 300 + b" HTTP/1.1\r\n\r\n")
    put("http_request", "http2-preface", b"\x00PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
    put("http_request", "no-colon", b"\x00GET / HTTP/1.1\r\nBroken header\r\n\r\n")
    put("http_request", "control-in-value", b"\x00GET / HTTP/1.1\r\nX: a\x01b\r\n\r\n")
    put("http_request", "leading-crlf", b"\x00\r\nGET / HTTP/1.1\r\n\r\n")
    put("http_request", "unfinished", b"\x05GET /metrics HTTP/1.1\r\nHost: a\r\n")
    put("http_request", "nul", b"\x00GET /\x00 HTTP/1.1\r\n\r\n")


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(os.path.join(OUT, "pickle"))
    tf_config()
    strict_json()
    config()
    local_devices()
    noproxy()
    kubeconfig()
    podlist(load("tests/kubernetes/fake_apiserver.py", "fake_apiserver"))
    gunzip()
    k8s_job(load("tests/kubernetes-integration/kint.py", "kint"))
    gce(load("tests/gce/fake_gce.py", "fake_gce"))
    gce_tpu()
    libvirt()
    reservation()
    pickles()
    slurm_lists()
    schedulers()
    platforms()
    http_request()


if __name__ == "__main__":
    main()
