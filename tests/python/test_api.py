"""The whole Python API on static, tf_config and kubernetes chains, each
answer compared with the `muster` program's on the same input."""
import json
import os
import pathlib
import pydoc
import subprocess
import sys
import typing

import pytest

import muster
import muster.tensorflow
from conftest import MUSTER_BIN, cli, fixture

TF_CONFIG = {"cluster": {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"],
                         "ps": {"1": "p1:2222", "3": "p3:2222"}},
             "task": {"type": "worker", "index": 1}, "rpc_layer": "grpc",
             "environment": "cloud"}


def test_static_chain():
    c = muster.resolve(fixture("static.conf"))
    assert isinstance(c, muster.Cluster)
    assert c.cluster_spec == {"worker": ["h1:2222", "h2:2222"], "ps": ["h3:2222"]}
    assert list(c.cluster_spec) == ["worker", "ps"]
    assert (c.task_type, c.task_id, c.rpc_layer, c.environment) == ("worker", 1, "grpc", None)
    assert c.source == "static"
    assert c.accelerators == {}
    assert c.num_accelerators() == {}
    # TensorFlow's answers: a static rpc_layer and no master is "grpc://".
    assert c.master() == cli(fixture("static.conf"), "master")[1] == "grpc://"
    assert c.master("worker", 0) == "grpc://h1:2222"
    # Static is TensorFlow's SimpleClusterResolver: an empty rpc_layer falls back.
    assert c.master("ps", 0, rpc_layer="") == "grpc://h3:2222" == cli(
        fixture("static.conf"), "master", "--task", "ps:0", "--rpc-layer", "")[1]
    assert c.to_json() == cli(fixture("static.conf"), "resolve")[1]
    assert str(c) == c.to_json()
    assert "worker:1" in repr(c)


def test_sparse_job_and_accelerators():
    c = muster.resolve(fixture("sparse.conf"))
    assert c.cluster_spec == {"chief": ["c0:2222"], "worker": {0: "w0:2222", 2: "w2:2222"}}
    assert c.accelerators == {"chief": {0: {"GPU": 1}},
                              "worker": {0: {"GPU": 8}, 2: {"GPU": 4, "TPU": 1}}}
    assert c.num_accelerators() == {"GPU": 4, "TPU": 1}
    assert c.num_accelerators("chief", 0) == {"GPU": 1}
    assert c.environment == "cloud"
    assert c.master() == "grpc://c0:2222"
    assert c.to_json() == cli(fixture("sparse.conf"), "resolve")[1]
    for task in ("worker:2", ("worker", 2)):
        assert c.tf_config(task) == cli(fixture("sparse.conf"), "tf-config", "--task",
                                        "worker:2")[1]
    assert c.tf_config("worker:2", sparse=True) == cli(
        fixture("sparse.conf"), "tf-config", "--task", "worker:2", "--sparse")[1]
    with pytest.raises(ValueError):
        c.tf_config("worker")


def test_tf_config_chain(conf, monkeypatch):
    path = conf('chain = ( { plugin = "tf_config"; } );')
    monkeypatch.setenv("TF_CONFIG", json.dumps(TF_CONFIG))
    ctx = muster.Context(path)
    assert ctx.config_path == path
    assert [e["plugin"] for e in ctx.entries()] == ["tf_config"]
    assert ctx.entries()[0]["config_line"] == 1
    c = ctx.resolve()
    assert c.cluster_spec == {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"],
                              "ps": {1: "p1:2222", 3: "p3:2222"}}
    assert (c.task_type, c.task_id, c.rpc_layer, c.environment) == \
        ("worker", 1, "grpc", "cloud")
    assert c.master() == "grpc://w1:2222"
    assert c.master("ps", 3, "") == "p3:2222"
    assert c.to_json() == cli(path, "resolve")[1]
    # Each resolve reads the environment again.
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["x:1"]},
                                                "task": {"type": "worker", "index": 0}}))
    assert ctx.resolve().cluster_spec == {"worker": ["x:1"]}
    assert c.cluster_spec["worker"] == ["w0:2222", "w1:2222"]  # results are snapshots


def test_default_config_from_environment(conf, monkeypatch):
    monkeypatch.setenv("MUSTER_CONF", fixture("static.conf"))
    assert muster.resolve().task_id == 1
    assert muster.Context().config_path == fixture("static.conf")


def test_pathlike_config():
    import pathlib
    assert muster.resolve(pathlib.Path(fixture("static.conf"))).task_type == "worker"


def test_kubernetes_chain(conf, apiserver, monkeypatch):
    server = apiserver()
    path = conf('chain = ( { plugin = "kubernetes"; name = "k8s"; config = { %s }; } );'
                % server.entry('jobs = { worker = "job-name=tensorflow"; '
                               'ps = ["job-name=ps"]; };'))
    monkeypatch.setenv("POD_NAME", "tensorflow-ps-1")
    c = muster.resolve(path)
    assert len(c.cluster_spec["worker"]) == 12 and len(c.cluster_spec["ps"]) == 2
    assert (c.task_type, c.task_id, c.source) == ("ps", 1, "k8s")
    assert c.to_json() == cli(path, "resolve")[1]
    assert c.master("worker", 2) == cli(path, "master", "--task", "worker:2")[1]


def test_master_task_out_of_range_is_a_value_error():
    c = muster.resolve(fixture("static.conf"))
    with pytest.raises(muster.NoSuchTaskError) as e:
        c.master("worker", 7)
    assert isinstance(e.value, ValueError)
    assert e.value.exit_status == 5
    with pytest.raises(ValueError):
        c.master("worker", -1)


def test_tf_config_of_a_negative_task_id_is_a_value_error():
    # The library reads a negative index as the own task (worker:1 here):
    # a task id of -7 must be refused as master() and env() refuse it, and
    # as the program refuses --task worker:-7 (exit 64), not answered with
    # this process's own TF_CONFIG.
    c = muster.resolve(fixture("static.conf"))
    for bad in (("worker", -7), ("worker", -1)):
        with pytest.raises(ValueError, match=r"task_id must be >= 0, not -"):
            c.tf_config(bad)
    with pytest.raises(ValueError):
        c.env("tensorflow", ("worker", -7))
    assert cli(fixture("static.conf"), "tf-config", "--task", "worker:-7")[0] == 64
    assert c.tf_config(("worker", 0)) == cli(fixture("static.conf"), "tf-config", "--task",
                                             "worker:0")[1]


def test_strict_argument_is_strict_in_the_file(conf):
    body = ('chain = ( { plugin = "static"; config = { jobs = { worker = ["a:1"]; }; '
            'no_such_option = 1; }; } );')
    assert muster.resolve(conf(body)).cluster_spec == {"worker": ["a:1"]}
    with pytest.raises(muster.ConfigError) as e:
        muster.resolve(conf(body), strict=True)
    rc, _, err = cli(conf("strict = true;\n" + body, "strictfile"), "resolve")
    assert rc == e.value.exit_status == 4
    assert "no_such_option" in str(e.value) and "no_such_option" in err


def test_unknown_option_is_logged(conf, caplog):
    body = ('chain = ( { plugin = "static"; config = { jobs = { worker = ["a:1"]; }; '
            'no_such_option = 1; }; } );')
    with caplog.at_level("WARNING", logger="muster"):
        muster.resolve(conf(body))
    assert any("unknown option 'no_such_option'" in r.getMessage() for r in caplog.records)


def test_results_are_not_constructible():
    with pytest.raises(TypeError):
        muster._muster.Result()


def test_help_reads_well():
    text = pydoc.render_doc(muster, renderer=pydoc.plaintext)
    for word in ("who is in my training cluster", "resolve(config", "strict: bool = False",
                 "class Context", "class Cluster", "NotFoundError", "exit status 1",
                 "local_accelerators(sysroot"):
        assert word in text, word
    for cls in (muster.Cluster, muster.Context, muster.Error):
        assert cls.__doc__
        for name, member in vars(cls).items():
            if not name.startswith("_") and (callable(member) or isinstance(member, property)):
                assert member.__doc__, "%s.%s has no docstring" % (cls.__name__, name)


def test_local_accelerators(sysroot, monkeypatch):
    nvidia, amd, both, none = sysroot(nvidia=4), sysroot(amd=2), sysroot(3, 1), sysroot()
    assert muster.local_accelerators(nvidia) == {"GPU": 4}
    assert muster.local_accelerators(pathlib.Path(amd)) == {"GPU": 2}
    assert muster.local_accelerators(sysroot=both) == {"GPU": 4}
    assert muster.local_accelerators(none) == {}
    for root in (nvidia, amd, both, none):
        out = subprocess.run([MUSTER_BIN, "accelerators", "--local", "--sysroot", root],
                             capture_output=True, text=True, check=True).stdout
        assert muster.local_accelerators(root) == json.loads(out), root
    monkeypatch.setenv("MUSTER_SYSROOT", nvidia)
    assert muster.local_accelerators() == {"GPU": 4}
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,2")
    assert muster.local_accelerators() == {"GPU": 2}
    assert typing.get_type_hints(muster.local_accelerators)["return"] == typing.Dict[str, int]
    with pytest.raises(TypeError):
        muster.local_accelerators(42)


def test_local_accelerators_counted_once_per_context(conf, sysroot, monkeypatch):
    path = conf('local_accelerators = true;\n'
                'chain = ( { plugin = "static"; config = { jobs = { worker = ["w:1"]; };\n'
                '            task = { type = "worker"; index = 0; }; }; } );')
    monkeypatch.setenv("MUSTER_SYSROOT", sysroot(nvidia=2))
    ctx = muster.Context(path)
    assert ctx.resolve().accelerators == {"worker": {0: {"GPU": 2}}}
    monkeypatch.setenv("MUSTER_SYSROOT", sysroot(nvidia=4))
    assert ctx.resolve().accelerators == {"worker": {0: {"GPU": 2}}}, "the context's count"
    assert muster.Context(path).resolve().accelerators == {"worker": {0: {"GPU": 4}}}


def test_typed_package():
    assert os.path.exists(os.path.join(os.path.dirname(muster.__file__), "py.typed"))
    assert muster.__version__ == muster._muster.version()


NO_FRAMEWORKS = r"""
import sys
for name in ("torch", "jax", "tensorflow"):
    sys.modules[name] = None  # their import fails, as if not installed
import muster.jax, muster.tensorflow, muster.torch
assert not muster.tensorflow.HAVE_TENSORFLOW
config = sys.argv[1]
for call, framework in ((lambda: muster.torch.init_process_group("gloo", config=config), "PyTorch"),
                        (lambda: muster.jax.initialize(config=config), "JAX")):
    try:
        call()
    except ImportError as e:
        assert framework in str(e), e
    else:
        raise AssertionError("no ImportError without " + framework)
r = muster.tensorflow.ClusterResolver(config)
print(r.master("worker", 0), r.cluster_spec().as_dict())
"""


def test_frameworks_import_without_their_framework():
    # A fresh interpreter: this one may have imported PyTorch already.
    p = subprocess.run([sys.executable, "-c", NO_FRAMEWORKS, fixture("static.conf")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "grpc://h1:2222 {'worker': ['h1:2222', 'h2:2222'], 'ps': ['h3:2222']}\n"


def test_context_opens_once():
    ctx = muster.Context(fixture("static.conf"))
    with pytest.raises(RuntimeError):
        ctx._c.__init__(fixture("static.conf"))
    assert ctx.resolve().task_id == 1


LAUNCH_TF_CONFIG = {"cluster": {"worker": ["h1:2222", "h1:2223", "[::1]:2224"],
                                "chief": ["h0:2222"], "ps": ["h2:2222"],
                                "evaluator": ["h3:2222"]},
                    "task": {"type": "worker", "index": 1}}


@pytest.fixture
def launch_conf(conf, monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps(LAUNCH_TF_CONFIG))
    return conf('chain = ( { plugin = "tf_config"; } );')


def cli_env(path, framework, *args):
    rc, out, err = cli(path, "env", "--for", framework, "--format", "json", *args)
    assert rc == 0, err
    return json.loads(out)


@pytest.mark.parametrize("framework", ["pytorch", "jax", "tensorflow"])
def test_env_is_muster_env(launch_conf, framework):
    c = muster.resolve(launch_conf)
    for kwargs, args in [
            ({}, []),
            ({"task": "chief:0"}, ["--task", "chief:0"]),
            ({"task": ("worker", 2), "nproc_per_node": 2}, ["--task", "worker:2",
                                                            "--nproc-per-node", "2"]),
            ({"jobs": ["worker"]}, ["--jobs", "worker"]),
            ({"task": "worker:0", "jobs": "worker,chief"}, ["--task", "worker:0",
                                                            "--jobs", "worker,chief"])]:
        got = c.env(framework, **kwargs)
        # The same variables in the same order.
        assert list(got.items()) == list(cli_env(launch_conf, framework, *args).items()), kwargs
    if framework == "tensorflow":
        assert c.env(framework, "ps:0") == cli_env(launch_conf, framework, "--task", "ps:0")


@pytest.mark.parametrize("framework", ["pytorch", "jax"])
def test_env_choose_interface_is_muster_envs(conf, monkeypatch, framework):
    # A worker whose master is 198.51.100.1 (TEST-NET-2, no real host's):
    # the interface is the one the kernel routes it through, as `ip route
    # get` says; without choose_interface nothing is looked up or set.
    for name in ("GLOO_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME", "TP_SOCKET_IFNAME",
                 "OMPI_MCA_btl_tcp_if_include", "OMPI_MCA_oob_tcp_if_include",
                 "OMPI_MCA_btl_tcp_if_exclude", "OMPI_MCA_oob_tcp_if_exclude"):
        monkeypatch.delenv(name, raising=False)
    path = conf('chain = ( { plugin = "static"; config = { jobs = { master = '
                '["198.51.100.1:2222"]; worker = ["127.0.0.1:2222"]; }; task = { type = '
                '"worker"; index = 0; }; }; } );')
    c = muster.resolve(path)
    assert "NCCL_SOCKET_IFNAME" not in c.env(framework)
    got = c.env(framework, choose_interface=True)
    assert list(got.items()) == list(cli_env(path, framework).items())
    # iproute2 as built, without the sanitizer the suite preloads into us.
    plain_env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    route = subprocess.run(["ip", "route", "get", "198.51.100.1"], capture_output=True,
                           text=True, env=plain_env)
    words = route.stdout.split()
    if route.returncode != 0 or "dev" not in words:
        assert "NCCL_SOCKET_IFNAME" not in got, route.stderr  # no route: nothing chosen
        pytest.skip("no route to 198.51.100.1 here: %s" % route.stderr.strip())
    dev = words[words.index("dev") + 1]
    assert got["NCCL_SOCKET_IFNAME"] == "=" + dev
    assert got["OMPI_MCA_btl_tcp_if_include"] == dev
    assert got.get("GLOO_SOCKET_IFNAME") == (dev if framework == "pytorch" else None)
    monkeypatch.setenv("NCCL_SOCKET_IFNAME", "mine")
    assert "NCCL_SOCKET_IFNAME" not in c.env(framework, choose_interface=True)


def test_env_numbering_and_local_rank(launch_conf):
    c = muster.resolve(launch_conf)
    env = c.env("pytorch", nproc_per_node=4, local_rank=3)
    # The chief is node 0, the workers follow by index: worker 1 is node 2.
    assert (env["MASTER_ADDR"], env["MASTER_PORT"]) == ("h0", "2222")
    assert (env["GROUP_RANK"], env["RANK"], env["WORLD_SIZE"]) == ("2", "11", "16")
    assert env["LOCAL_RANK"] == "3" and env["LOCAL_WORLD_SIZE"] == "4"
    jax = c.env("jax", "worker:2", nproc_per_node=2, local_rank=1)
    assert jax == {"JAX_COORDINATOR_ADDRESS": "h0:2222", "JAX_NUM_PROCESSES": "8",
                   "JAX_PROCESS_ID": "7"}
    assert json.loads(c.env("tensorflow")["TF_CONFIG"])["task"] == {"type": "worker",
                                                                    "index": 1}


@pytest.mark.parametrize("flavor", ["openmpi", "mpich", "horovod", "deepspeed"])
def test_hostfile_is_muster_hostfile(launch_conf, flavor):
    c = muster.resolve(launch_conf)
    # MPICH's and Horovod's launchers cannot take the IPv6 worker ::1 (each
    # splits HOST:N at every ':'; horovodrun makes HOST:N of its hostfile's
    # HOST slots=N): the library refuses it as the program does, unless
    # --jobs leaves it out.
    no_ipv6 = flavor in ("mpich", "horovod")
    for kwargs, args in [({}, []), ({"nproc_per_node": 3}, ["--nproc-per-node", "3"]),
                         ({"jobs": ("worker", "ps")}, ["--jobs", "worker,ps"]),
                         ({"jobs": "chief"}, ["--jobs", "chief"])]:
        rc, out, err = cli(launch_conf, "hostfile", "--for", flavor, *args)
        if no_ipv6 and kwargs.get("jobs") != "chief":
            assert rc == 5 and "host ::1 is an IPv6 address" in err, err
            with pytest.raises(muster.NoSuchTaskError, match="host ::1 is an IPv6 address"):
                c.hostfile(flavor, **kwargs)
            continue
        assert rc == 0, err
        assert c.hostfile(flavor, **kwargs) == out + "\n", kwargs
    # Two tasks on h1: one line, their slots summed.
    if flavor == "mpich":
        assert c.hostfile(flavor, nproc_per_node=2, jobs=("chief", "ps")).splitlines() == [
            "h0:2", "h2:2"]
    elif flavor == "horovod":
        assert c.hostfile(flavor, nproc_per_node=2, jobs=("chief", "ps")).splitlines() == [
            "h0 slots=2", "h2 slots=2"]
    else:
        assert c.hostfile(flavor, nproc_per_node=2).splitlines() == [
            "h0 slots=2", "h1 slots=4", "::1 slots=2"]


def test_env_gives_the_tasks_gpu_ids(conf, monkeypatch):
    for name, value in [("SLURM_PROCID", "1"), ("SLURM_STEP_NUM_TASKS", "4"),
                        ("SLURM_STEP_NODELIST", "g[1-2]"),
                        ("SLURM_STEP_TASKS_PER_NODE", "2(x2)"), ("SLURM_GPUS_ON_NODE", "4"),
                        ("CUDA_VISIBLE_DEVICES", "4,5,6,7")]:
        monkeypatch.setenv(name, value)
    path = conf('chain = ( { plugin = "slurm"; } );')
    c = muster.resolve(path)
    # A scheduler's processes see their node's GPUs, the tasks' slices in
    # local-rank order; TensorFlow's task its own slice.
    for framework, ids in (("pytorch", "4,5,6,7"), ("jax", "4,5,6,7"), ("tensorflow", "6,7")):
        env = c.env(framework)
        assert list(env)[-1] == "CUDA_VISIBLE_DEVICES" and env["CUDA_VISIBLE_DEVICES"] == ids
        assert env == cli_env(path, framework)
    assert c.env("tensorflow", "worker:2")["CUDA_VISIBLE_DEVICES"] == "4,5"


def test_env_nproc_gpu_per_task(conf, sysroot, monkeypatch):
    # A 3-GPU and a 2-GPU node as the backend counts them, and one it gives
    # no count for, which takes this machine's (4): one world of 9.
    path = conf('chain = ( { plugin = "static"; config = { jobs = { worker = (\n'
                '  { index = 0; address = "g3:1"; accelerators = { GPU = 3; }; },\n'
                '  { index = 1; address = "g2:1"; accelerators = { GPU = 2; }; },\n'
                '  { index = 2; address = "gx:1"; } ); };\n'
                '  task = { type = "worker"; index = 1; }; }; } );')
    monkeypatch.setenv("MUSTER_SYSROOT", sysroot(nvidia=4))
    c = muster.resolve(path)
    env = c.env("pytorch", nproc_per_node="gpu", local_rank=1)
    assert (env["RANK"], env["WORLD_SIZE"], env["LOCAL_WORLD_SIZE"]) == ("4", "9", "2")
    assert "PET_NNODES" not in env
    for task in ("worker:0", "worker:1", "worker:2"):
        assert c.env("jax", task, nproc_per_node="gpu") == cli_env(
            path, "jax", "--task", task, "--nproc-per-node", "gpu")
    rc, out, err = cli(path, "hostfile", "--for", "openmpi", "--nproc-per-node", "gpu")
    assert rc == 0 and c.hostfile("openmpi", nproc_per_node="gpu") == out + "\n"
    assert out.splitlines() == ["g3 slots=3", "g2 slots=2", "gx slots=4"]
    assert "assuming every node the backend gives no GPU count for has 4 GPUs" in err
    for bad in ("cpu", -1, True):
        with pytest.raises(ValueError, match="nproc_per_node must be a count or 'gpu'"):
            c.env("pytorch", nproc_per_node=bad)


def test_launch_errors(launch_conf):
    c = muster.resolve(launch_conf)
    with pytest.raises(muster.Error) as e:
        c.env("mxnet")
    assert not isinstance(e.value, muster.NoSuchTaskError)
    assert str(e.value) == "unknown framework 'mxnet' (tensorflow, pytorch or jax)"
    with pytest.raises(muster.Error, match="unknown hostfile form 'slurm'"):
        c.hostfile("slurm")
    with pytest.raises(muster.Error, match="0 is not at least 1"):
        c.env("pytorch", nproc_per_node=0)
    with pytest.raises(muster.Error, match="local rank 2 is not below 2"):
        c.env("pytorch", nproc_per_node=2, local_rank=2)
    # Past the bound, node rank times processes per node would overflow.
    with pytest.raises(muster.Error, match=r"4611686018427387904 is more than 65536"):
        c.env("pytorch", nproc_per_node=2**62)
    with pytest.raises(muster.Error, match=r"65537 is more than 65536"):
        c.hostfile("openmpi", nproc_per_node=65537)
    assert "slots=65536" in c.hostfile("openmpi", nproc_per_node=65536)
    with pytest.raises(ValueError):
        c.env("pytorch", "worker")
    # A task or job outside the cluster: the program's message and status.
    for framework, args, message in [
            ("pytorch", ["--task", "worker:7"], "No task with index 7 in job 'worker'"),
            ("tensorflow", ["--task", "worker:7"], "No task with index 7 in job 'worker'"),
            ("jax", ["--task", "ps:0"], "task ps:0 is not a training task of a jax launch"),
            ("pytorch", ["--task", "trainer:0"], "No such job in cluster: 'trainer'"),
            ("pytorch", ["--jobs", "worker,trainer"], "the cluster has no job 'trainer'")]:
        task = args[1] if args[0] == "--task" else None
        jobs = args[1].split(",") if args[0] == "--jobs" else None
        with pytest.raises(muster.NoSuchTaskError) as e:
            c.env(framework, task, jobs=jobs)
        assert message in str(e.value)
        rc, _, err = cli(launch_conf, "env", "--for", framework, *args)
        assert rc == e.value.exit_status == 5 and e.value.message in err
    with pytest.raises(muster.NoSuchTaskError, match="the cluster has no job 'trainer'"):
        c.hostfile("openmpi", jobs=["trainer"])


def test_env_of_an_unknown_own_task():
    c = muster.resolve(fixture("noself.conf"))
    with pytest.raises(muster.NoSuchTaskError, match="own task is unknown"):
        c.env("pytorch")
    assert c.env("pytorch", "worker:1")["RANK"] == "1"
    assert c.hostfile("mpich") == "h1:1\nh2:1\n"


def fake_framework(monkeypatch, calls, *names):
    """Stand-ins for the frameworks' modules, recording the call's kwargs."""
    import types
    dist = types.SimpleNamespace(
        init_process_group=lambda backend, **kw: calls.append(dict(kw, backend=backend)),
        initialize=lambda **kw: calls.append(kw))
    for name in names:
        module = types.ModuleType(name)
        module.distributed = dist
        monkeypatch.setitem(sys.modules, name, module)
        monkeypatch.setitem(sys.modules, name + ".distributed", dist)


def test_torch_and_jax_follow_the_launch_env(conf, monkeypatch):
    import muster.jax
    import muster.torch
    calls = []
    fake_framework(monkeypatch, calls, "torch", "jax")
    cluster = {"worker": ["[::1]:2000", "[::1]:2001"], "chief": ["[::1]:2002"],
               "ps": ["[::1]:2003"]}
    path = conf('chain = ( { plugin = "tf_config"; } );')
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster,
                                                "task": {"type": "worker", "index": 1}}))
    assert muster.torch.init_process_group("gloo", config=path) == 2
    assert muster.torch.init_process_group("gloo", config=path, rank=5) == 5
    assert muster.jax.initialize(config=path) == 2
    assert calls == [
        {"backend": "gloo", "init_method": "tcp://[::1]:2002", "rank": 2, "world_size": 3},
        {"backend": "gloo", "init_method": "tcp://[::1]:2002", "rank": 5, "world_size": 3},
        {"coordinator_address": "[::1]:2002", "num_processes": 3, "process_id": 2}]
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster,
                                                "task": {"type": "ps", "index": 0}}))
    for call in (muster.torch.init_process_group, muster.jax.initialize):
        with pytest.raises(muster.NoSuchTaskError, match="ps:0 is not a training task"):
            call(config=path)
    with pytest.raises(muster.NoSuchTaskError, match="own task is unknown"):
        muster.jax.initialize(config=fixture("noself.conf"))


def test_frameworks_missing_raise_import_error_naming_them(monkeypatch):
    import muster.jax
    import muster.torch
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setitem(sys.modules, "jax", None)
    with pytest.raises(ImportError, match="needs PyTorch"):
        muster.torch.init_process_group("gloo", config=fixture("static.conf"))
    with pytest.raises(ImportError, match="needs JAX"):
        muster.jax.initialize(config=fixture("static.conf"))
