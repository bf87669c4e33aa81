"""muster.tensorflow.ClusterResolver: TensorFlow's ClusterResolver contract,
checked on its own; with TensorFlow importable, against the real classes
(skipped here otherwise).  And the frameworks' modules without them."""
import json
import sys

import pytest

import muster
import muster.jax
import muster.tensorflow
from muster.tensorflow import ClusterResolver, ClusterSpec

TF_CONFIG = {"cluster": {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"],
                         "ps": {"1": "p1:2222"}},
             "task": {"type": "worker", "index": 1}, "rpc_layer": "grpc"}


@pytest.fixture
def resolver(conf, monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps(TF_CONFIG))
    return ClusterResolver(conf('chain = ( { plugin = "tf_config"; } );'))


def test_contract(resolver, monkeypatch):
    spec = resolver.cluster_spec()
    assert spec.as_dict() == {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"],
                              "ps": {1: "p1:2222"}}
    assert spec.task_address("worker", 1) == "w1:2222"
    assert spec.num_tasks("ps") == 1 and spec.task_indices("ps") == [1]
    assert spec.job_tasks("ps") == [None, "p1:2222"]
    with pytest.raises(ValueError, match="No such job in cluster: 'evaluator'"):
        spec.task_address("evaluator", 0)
    with pytest.raises(ValueError, match="No task with index 5 in job 'worker'"):
        spec.task_address("worker", 5)
    assert (resolver.task_type, resolver.task_id, resolver.rpc_layer) == ("worker", 1, "grpc")
    assert resolver.environment == ""
    assert resolver.master() == "grpc://w1:2222"
    assert resolver.master("chief", 0) == "grpc://c0:2222"
    assert resolver.master("chief", 0, rpc_layer="") == "c0:2222"
    assert resolver.num_accelerators() == {}
    # Every call resolves again: nothing is cached.
    monkeypatch.setenv("TF_CONFIG", json.dumps(dict(TF_CONFIG, task={"type": "chief",
                                                                     "index": 0})))
    assert (resolver.task_type, resolver.task_id) == ("chief", 0)
    assert resolver.master() == "grpc://c0:2222"


def test_setters_override_the_resolve(resolver):
    resolver.task_type, resolver.task_id = "ps", 1
    resolver.rpc_layer, resolver.environment = "grpc+verbs", "google"
    assert (resolver.task_type, resolver.task_id) == ("ps", 1)
    assert resolver.master() == "grpc+verbs://p1:2222"
    assert resolver.environment == "google"
    resolver.task_type = None
    assert resolver.task_type == "worker"


def test_missing_task_is_a_value_error(resolver):
    with pytest.raises(ValueError):
        resolver.master("worker", 7)


def test_cluster_spec_stand_in():
    a = ClusterSpec({"worker": ["a:1"], "ps": {"0": "b:2"}})
    assert a == ClusterSpec({"worker": {0: "a:1"}, "ps": ["b:2"]})
    assert a.jobs == ["worker", "ps"] and bool(a) and not ClusterSpec({})


def test_real_tensorflow(resolver):
    tf = pytest.importorskip("tensorflow", reason="TensorFlow is not installed here")
    assert muster.tensorflow.HAVE_TENSORFLOW
    assert isinstance(resolver, tf.distribute.cluster_resolver.ClusterResolver)
    spec = resolver.cluster_spec()
    assert isinstance(spec, tf.train.ClusterSpec)
    assert spec.as_dict() == ClusterSpec(resolver._resolve().cluster_spec).as_dict()
    union = tf.distribute.cluster_resolver.UnionResolver(resolver)
    assert union.master() == resolver.master()


@pytest.mark.parametrize("module, call, framework", [
    ("torch", lambda c: muster.torch.init_process_group("gloo", config=c), "PyTorch"),
    ("jax", lambda c: muster.jax.initialize(config=c), "JAX")])
def test_framework_absent(conf, monkeypatch, module, call, framework):
    import muster.torch  # noqa: F401
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed
    with pytest.raises(ImportError, match=framework):
        call(conf('chain = ( { plugin = "static"; } );'))
