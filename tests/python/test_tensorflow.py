"""muster.tensorflow.ClusterResolver: TensorFlow's ClusterResolver contract,
checked on its own; with TensorFlow importable, against the real classes
(skipped here otherwise)."""
import json

import pytest

import muster
import muster.tensorflow
from muster.tensorflow import ClusterResolver, ClusterSpec
from conftest import fixture

TF_CONFIG = {"cluster": {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"],
                         "ps": {"1": "p1:2222"}},
             "task": {"type": "worker", "index": 1}, "rpc_layer": "grpc"}


@pytest.fixture
def resolver(conf, monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps(TF_CONFIG))
    return ClusterResolver(conf('chain = ( { plugin = "tf_config"; } );'))


def test_contract(resolver, monkeypatch, sysroot):
    monkeypatch.setenv("MUSTER_SYSROOT", sysroot())  # a machine without accelerators
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


def test_num_accelerators_of_this_machine(resolver, monkeypatch, sysroot):
    # tf_config gives no accelerators: this process's own task counts this
    # machine's, as TensorFlow's base class counts its local devices (so
    # MultiWorkerMirroredStrategy uses the GPUs); other tasks have none.
    monkeypatch.setenv("MUSTER_SYSROOT", sysroot(nvidia=4))
    assert resolver.num_accelerators() == {"GPU": 4}
    assert resolver.num_accelerators("worker", 1) == {"GPU": 4}
    assert resolver.num_accelerators("worker", 0) == {}
    assert resolver.num_accelerators("worker") == {"GPU": 4}  # not both: the own task
    resolver.task_type, resolver.task_id = "chief", 0
    assert resolver.num_accelerators("chief", 0) == {"GPU": 4}
    assert resolver.num_accelerators("worker", 1) == {}
    monkeypatch.setenv("MUSTER_SYSROOT", sysroot(amd=2))
    assert resolver.num_accelerators() == {"GPU": 2}


def test_num_accelerators_backend_wins(monkeypatch, sysroot):
    monkeypatch.setenv("MUSTER_SYSROOT", sysroot(nvidia=2))
    resolver = ClusterResolver(fixture("sparse.conf"))  # own task worker:2
    assert resolver.num_accelerators() == {"GPU": 4, "TPU": 1}
    assert resolver.num_accelerators("chief", 0) == {"GPU": 1}


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
