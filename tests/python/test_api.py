"""The whole Python API on static, tf_config and kubernetes chains, each
answer compared with the `muster` program's on the same input."""
import json
import os
import pydoc

import pytest

import muster
import muster.tensorflow
from conftest import cli, fixture

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
                 "class Context", "class Cluster", "NotFoundError", "exit status 1"):
        assert word in text, word
    for cls in (muster.Cluster, muster.Context, muster.Error):
        assert cls.__doc__
        for name, member in vars(cls).items():
            if not name.startswith("_") and (callable(member) or isinstance(member, property)):
                assert member.__doc__, "%s.%s has no docstring" % (cls.__name__, name)


def test_typed_package():
    assert os.path.exists(os.path.join(os.path.dirname(muster.__file__), "py.typed"))
    assert muster.__version__ == muster._muster.version()


def test_frameworks_import_without_their_framework():
    import importlib
    for name in ("muster.tensorflow", "muster.torch", "muster.jax"):
        importlib.import_module(name)


def test_context_opens_once():
    ctx = muster.Context(fixture("static.conf"))
    with pytest.raises(RuntimeError):
        ctx._c.__init__(fixture("static.conf"))
    assert ctx.resolve().task_id == 1
