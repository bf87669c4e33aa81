"""TensorFlow's ClusterResolver over muster.

    strategy = tf.distribute.MultiWorkerMirroredStrategy(
        cluster_resolver=muster.tensorflow.ClusterResolver())

When TensorFlow is importable the class subclasses
``tf.distribute.cluster_resolver.ClusterResolver`` and ``cluster_spec()``
returns a real ``tf.train.ClusterSpec``; without TensorFlow it keeps the same
contract and returns :class:`ClusterSpec`, a stand-in with the same reading
methods.
"""
from typing import Dict, List, Optional, Union

from muster.cluster import Context
from muster.devices import local_accelerators

try:
    from tensorflow.python.distribute.cluster_resolver.cluster_resolver import \
        ClusterResolver as _TFClusterResolver
    from tensorflow.python.training.server_lib import ClusterSpec as _TFClusterSpec
except ImportError:
    _TFClusterResolver = object
    _TFClusterSpec = None

__all__ = ["ClusterResolver", "ClusterSpec", "HAVE_TENSORFLOW"]

#: Whether TensorFlow was importable, so that the classes are TensorFlow's.
HAVE_TENSORFLOW = _TFClusterSpec is not None


class ClusterSpec:
    """TensorFlow's ``tf.train.ClusterSpec`` for reading, without TensorFlow."""

    def __init__(self, cluster: Dict[str, Union[List[str], Dict[int, str]]]):
        self._jobs = {}
        for job, tasks in cluster.items():
            items = enumerate(tasks) if isinstance(tasks, list) else tasks.items()
            self._jobs[job] = {int(i): a for i, a in items}

    @property
    def jobs(self) -> List[str]:
        """The job names, in the cluster's order."""
        return list(self._jobs)

    def as_dict(self) -> Dict[str, Union[List[str], Dict[int, str]]]:
        """Job -> a list when the indices are 0..n-1, else {index: address}."""
        out = {}
        for job, tasks in self._jobs.items():
            indices = sorted(tasks)
            if tasks and indices == list(range(len(indices))):
                out[job] = [tasks[i] for i in indices]
            else:
                out[job] = dict(tasks)
        return out

    def num_tasks(self, job_name: str) -> int:
        """The number of tasks in the job."""
        return len(self._job(job_name))

    def task_indices(self, job_name: str) -> List[int]:
        """The job's task indices, in increasing order."""
        return sorted(self._job(job_name))

    def task_address(self, job_name: str, task_index: int) -> str:
        """The address of one task; ValueError when there is none."""
        tasks = self._job(job_name)
        if task_index not in tasks:
            raise ValueError("No task with index %r in job %r" % (task_index, job_name))
        return tasks[task_index]

    def job_tasks(self, job_name: str) -> List[Optional[str]]:
        """Addresses by index up to the highest, None in the gaps."""
        tasks = self._job(job_name)
        return [tasks.get(i) for i in range(max(tasks) + 1)] if tasks else []

    def _job(self, job_name):
        if job_name not in self._jobs:
            raise ValueError("No such job in cluster: %r" % (job_name,))
        return self._jobs[job_name]

    def __bool__(self):
        return bool(self._jobs)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self.as_dict() == other.as_dict()

    def __repr__(self):
        return "ClusterSpec(%r)" % (self.as_dict(),)


class ClusterResolver(_TFClusterResolver):
    """A ``tf.distribute.cluster_resolver.ClusterResolver`` that asks muster.

    Every call resolves again (TensorFlow's contract: nothing is cached).
    ``task_type``, ``task_id``, ``rpc_layer`` and ``environment`` are those of
    the resolve unless given here or set later, as with TensorFlow's
    TFConfigClusterResolver; arguments of :meth:`master` override them in
    turn.  ``config`` and ``strict`` are those of :class:`muster.Context`.
    """

    def __init__(self, config=None, *, strict: bool = False, task_type: Optional[str] = None,
                 task_id: Optional[int] = None, rpc_layer: Optional[str] = None,
                 environment: Optional[str] = None):
        self._context = Context(config, strict=strict)
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    def _resolve(self):
        return self._context.resolve()

    def cluster_spec(self):
        """The cluster, as a ``tf.train.ClusterSpec`` (or :class:`ClusterSpec`)."""
        spec = self._resolve().cluster_spec
        return _TFClusterSpec(spec) if HAVE_TENSORFLOW else ClusterSpec(spec)

    def master(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
               rpc_layer: Optional[str] = None) -> str:
        """The master's URL ("grpc://host:port"), "" when none is known."""
        return self._resolve().master(
            task_type if task_type is not None else self._task_type,
            task_id if task_id is not None else self._task_id,
            rpc_layer if rpc_layer is not None else self._rpc_layer)

    def num_accelerators(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
                         config_proto=None) -> Dict[str, int]:
        """{kind: count} of the task named by both arguments, else of this
        process's own task: the backend's counts, or when it gives that task
        none and it is this process's own, this machine's devices
        (:func:`muster.local_accelerators`), as TensorFlow's base class counts
        the local runtime's.  `config_proto` is not used."""
        cluster = self._resolve()
        own = (self._task_type if self._task_type is not None else cluster.task_type,
               self._task_id if self._task_id is not None else cluster.task_id)
        asked = (task_type, task_id) if task_type is not None and task_id is not None else own
        counts = cluster.num_accelerators(*asked)
        if counts or asked != own:
            return counts
        return local_accelerators()

    @property
    def task_type(self) -> Optional[str]:
        """This process's job; settable."""
        return self._task_type if self._task_type is not None else self._resolve().task_type

    @task_type.setter
    def task_type(self, task_type: Optional[str]):
        self._task_type = task_type

    @property
    def task_id(self) -> Optional[int]:
        """This process's index in its job; settable."""
        return self._task_id if self._task_id is not None else self._resolve().task_id

    @task_id.setter
    def task_id(self, task_id: Optional[int]):
        self._task_id = task_id

    @property
    def rpc_layer(self) -> Optional[str]:
        """The RPC layer ("grpc"); settable."""
        return self._rpc_layer if self._rpc_layer is not None else self._resolve().rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer: Optional[str]):
        self._rpc_layer = rpc_layer

    @property
    def environment(self) -> str:
        """The environment ("cloud", "google"), "" when none; settable."""
        if self._environment is not None:
            return self._environment
        return self._resolve().environment or ""

    @environment.setter
    def environment(self, environment: Optional[str]):
        self._environment = environment
