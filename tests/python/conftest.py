"""Fixtures of the Python package's tests (run by tests/python/*.sh under
`make check`): the source and build trees, the `muster` program for
comparisons, configs in a scratch directory, and the loopback API server
of the kubernetes tests."""
import json
import os
import subprocess
import sys
import time

import pytest

SRCDIR = os.environ["MUSTER_TEST_SRCDIR"]
MUSTER_BIN = os.environ["MUSTER_BIN"]


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    """Tests never read the caller's cluster."""
    for name in ("MUSTER_CONF", "TF_CONFIG", "KUBERNETES_SERVICE_HOST", "KUBECONFIG",
                 "POD_NAME", "TFOS_SERVER_HOST", "TFOS_SERVER_PORT", "MUSTER_SYSROOT",
                 "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def conf(tmp_path):
    """conf(body, name="muster") -> the path of a muster.conf holding `body`."""
    def write(body, name="muster"):
        path = tmp_path / (name + ".conf")
        path.write_text(body)
        return str(path)
    return write


def _put(root, path, text):
    f = root / path
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(text + "\n")


@pytest.fixture
def sysroot(tmp_path):
    """sysroot(nvidia=0, amd=0) -> a directory shaped like a machine's /sys,
    /dev and /proc with that many GPUs (as tests/launch/devices.sh builds
    them), for MUSTER_SYSROOT."""
    made = []

    def make(nvidia=0, amd=0):
        root = tmp_path / ("sysroot%d" % len(made))
        made.append(root)
        (root / "dev").mkdir(parents=True)
        for i in range(nvidia):
            bus = "0000:%02x:00.0" % (0x07 + 0x10 * i)
            _put(root, "proc/driver/nvidia/gpus/%s/information" % bus,
                 "Model: \t\t NVIDIA H100 80GB HBM3\nGPU UUID: \t GPU-0000000%d-aaaa-bbbb-cccc-"
                 "dddddddddddd\nBus Type: \t PCIe\nDevice Minor: \t %d" % (i, i))
            _put(root, "sys/bus/pci/devices/%s/class" % bus, "0x030200")
            (root / "dev" / ("nvidia%d" % i)).touch()
        if nvidia:
            (root / "dev" / "nvidiactl").touch()
        # KFD lists the CPU socket as a node too.
        if amd:
            _put(root, "sys/class/kfd/kfd/topology/nodes/0/properties",
                 "cpu_cores_count 96\nsimd_count 0\nunique_id 0")
        for n in range(1, amd + 1):
            _put(root, "sys/class/kfd/kfd/topology/nodes/%d/properties" % n,
                 "cpu_cores_count 0\nsimd_count 1216\nunique_id %d\ngfx_target_version 90402"
                 % (1000 + n))
        return str(root)
    return make


def fixture(name):
    """A config of tests/cli/."""
    return os.path.join(SRCDIR, "tests", "cli", name)


def cli(config, *args, env=None):
    """`muster -c CONFIG ARGS...`: (exit status, stdout, stderr)."""
    p = subprocess.run([MUSTER_BIN, "-c", config] + list(args), capture_output=True, text=True,
                       env=env, timeout=60)
    return p.returncode, p.stdout.rstrip("\n"), p.stderr


def without_preload():
    """The environment for helper processes that are not ours (servers)."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env


class ApiServer:
    """tests/kubernetes/fake_apiserver.py on loopback: plain http (as `kubectl proxy`), a token."""

    TOKEN = "python-test-token"

    def __init__(self, tmp_path, *args):
        self.dir = tmp_path
        (tmp_path / "token").write_text(self.TOKEN)
        port_file = tmp_path / "apiserver.port"
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(SRCDIR, "tests", "kubernetes", "fake_apiserver.py"),
             "--port-file", str(port_file), "--token-file", str(tmp_path / "token")] + list(args),
            env=without_preload(), stderr=open(tmp_path / "apiserver.err", "w"))
        deadline = time.monotonic() + 20
        while not (port_file.exists() and port_file.read_text().strip()):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError("the fake API server did not start: "
                                   + (tmp_path / "apiserver.err").read_text())
            time.sleep(0.05)
        self.url = "http://127.0.0.1:%s" % port_file.read_text().strip()

    def entry(self, extra=""):
        return ('server = "%s"; token_file = "%s"; %s'
                % (self.url, self.dir / "token", extra))

    def stop(self):
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def apiserver(tmp_path):
    servers = []

    def start(*args):
        s = ApiServer(tmp_path, *args)
        servers.append(s)
        return s
    yield start
    for s in servers:
        s.stop()


def as_json(text):
    return json.loads(text)
