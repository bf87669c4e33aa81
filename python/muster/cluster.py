"""Cluster and Context: the answer of a resolve, and the opened configuration."""
import os
from typing import Dict, List, Optional, Sequence, Tuple, Union

from muster import _muster

__all__ = ["Cluster", "Context", "resolve"]

Tasks = Union[List[str], Dict[int, str]]
TaskName = Union[str, Tuple[str, int]]
Jobs = Union[str, Sequence[str], None]
NProc = Union[int, str]

# How long env(choose_interface=True) looks the peers up: `muster env`'s bound.
_PROBE_MS = 2000


class Cluster:
    """Who is in the training cluster, and which task this process is.

    Immutable; made by :func:`resolve` and :meth:`Context.resolve`.  ``str()``
    is the JSON of ``muster resolve``.
    """

    __slots__ = ("_r",)

    def __init__(self, result: "_muster.Result"):
        self._r = result

    @property
    def cluster_spec(self) -> Dict[str, Tasks]:
        """Job name -> addresses: a list when the task indices are 0..n-1,
        else a dict {index: address} (TensorFlow's ``ClusterSpec.as_dict()``).
        A new dict on every access."""
        return self._r.cluster_spec()

    @property
    def task_type(self) -> Optional[str]:
        """This process's job ("worker", "chief", ...), or None when unknown."""
        return self._r.task_type

    @property
    def task_id(self) -> Optional[int]:
        """This process's index within its job, or None when unknown."""
        return self._r.task_id

    @property
    def rpc_layer(self) -> Optional[str]:
        """The RPC layer the backend names ("grpc"), or None."""
        return self._r.rpc_layer

    @property
    def environment(self) -> Optional[str]:
        """The environment the backend names ("cloud", "google"), or None."""
        return self._r.environment

    @property
    def accelerators(self) -> Dict[str, Dict[int, Dict[str, int]]]:
        """Job -> index -> {kind: count}, for the tasks that have any."""
        return self._r.all_accelerators()

    @property
    def source(self) -> Optional[str]:
        """The configuration entry that answered ("a+b" for a merge)."""
        return self._r.source

    @property
    def reserved_port(self) -> Optional[int]:
        """A port the backend holds bound for this process's server (spark), or None."""
        return self._r.reserved_port

    def release_port(self) -> None:
        """Let go of :attr:`reserved_port`, right before binding it yourself."""
        self._r.release_port()

    def master(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
               rpc_layer: Optional[str] = None) -> str:
        """The master's URL by TensorFlow's rules for the backend that answered:
        "grpc://host:port", "host:port", or "" when none is known.
        ``rpc_layer=""`` asks for no prefix.  NoSuchTaskError for a task that
        does not exist."""
        return self._r.master(task_type, task_id, rpc_layer)

    def num_accelerators(self, task_type: Optional[str] = None,
                         task_id: Optional[int] = None) -> Dict[str, int]:
        """{kind: count} of the task named by both arguments, else of this
        process's own task ({} when unknown or without accelerators)."""
        if task_type is not None and task_id is not None:
            return self._r.accelerators(task_type, task_id)
        return self._r.accelerators()

    def tf_config(self, task: TaskName, *, sparse: bool = False) -> str:
        """The TF_CONFIG (a JSON string) that `task` ("worker:1" or
        ("worker", 1)) should get, as Kubeflow's training operator writes it;
        `sparse` selects its dynamic-worker form.  ValueError for a
        negative index, as ``muster tf-config --task`` refuses one."""
        task_type, task_id = _split_task(task)
        return self._r.tf_config(task_type, task_id, sparse)

    def env(self, framework: str, task: Optional[TaskName] = None, *, jobs: Jobs = None,
            nproc_per_node: NProc = 1, local_rank: int = 0,
            choose_interface: bool = False) -> Dict[str, str]:
        """The environment a process of `task` ("worker:1" or ("worker", 1);
        None: this process's own task) reads to join a `framework` launch,
        as ``muster env --for FRAMEWORK`` prints it: name -> value, in the
        order a launcher sets them.

        "tensorflow": TF_CONFIG.  "pytorch": MASTER_ADDR, MASTER_PORT,
        WORLD_SIZE, RANK, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, NODE_RANK
        and, where they hold for a torchrun on the node, torchrun's PET_*
        variables.  "jax": JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES,
        JAX_PROCESS_ID and JAX_LOCAL_DEVICE_IDS where each process of the
        node owns one GPU.  Each ends with CUDA_VISIBLE_DEVICES when the
        backend gives GPU ids: the node's, in LOCAL_RANK order.

        PyTorch and JAX number the training tasks' processes: the master
        task (chief, else master, else the first task) holds rank 0, the
        others follow in job order, then index; each runs `nproc_per_node`
        processes ("gpu": as many as the task has GPUs, as its backend
        counts them, else as this machine has), this one `local_rank` among
        them.  Where a scheduler started the tasks (several to a host) a
        node is a host, in the scheduler's order, and ranks are the
        scheduler's (see muster(1)).  `jobs` ("worker,chief" or a sequence
        of names) are the jobs that train; None: all but ps and evaluator.
        NoSuchTaskError names what is missing (the task, a job, a training
        task, a GPU count); muster.Error for an unknown framework.

        ``choose_interface=True`` adds what ``muster env`` adds by default:
        the peers' names are looked up (within 2 s) and routed here, and
        the interface that reaches them goes into GLOO_SOCKET_IFNAME,
        NCCL_SOCKET_IFNAME and the others (see muster(1)), each unless
        os.environ has it, with MASTER_ADDR replaced on the master's node
        when its name is a loopback address here.  Off by default, so that
        a library call does no network lookups unasked."""
        task_type, task_id = _split_task(task) if task is not None else (None, None)
        nproc, gpus = _nproc(nproc_per_node)
        return self._r.launch_env(framework, task_type, task_id, _job_list(jobs), nproc,
                                  local_rank, gpus, _PROBE_MS if choose_interface else 0)

    def hostfile(self, flavor: str, *, jobs: Jobs = None, nproc_per_node: NProc = 1) -> str:
        """A hostfile for an MPI-style launcher, as ``muster hostfile --for
        FLAVOR`` prints it: one line per host of the training tasks (`jobs`
        and `nproc_per_node` as for :meth:`env`), in node order, its slots
        the processes of its tasks: "HOST slots=N" for "openmpi",
        "deepspeed" and "horovod", "HOST:N" for "mpich"."""
        nproc, gpus = _nproc(nproc_per_node)
        return self._r.hostfile(flavor, _job_list(jobs), nproc, gpus)

    def to_json(self) -> str:
        """The same JSON as ``muster resolve`` prints."""
        return self._r.to_json()

    def __str__(self) -> str:
        return self.to_json()

    def __repr__(self) -> str:
        task = "%s:%s" % (self.task_type, self.task_id) if self.task_type is not None else None
        return "<muster.Cluster %s task=%s source=%s>" % (self.cluster_spec, task, self.source)


def _nproc(nproc_per_node: NProc) -> Tuple[int, int]:
    """The library's count (-1: each task's GPUs) and this machine's GPUs,
    which stand in for a task whose backend gives no count."""
    if nproc_per_node == "gpu":
        return -1, _muster.local_accelerators(None).get("GPU", 0)
    if isinstance(nproc_per_node, (str, bool)) or (isinstance(nproc_per_node, int) and
                                                   nproc_per_node < 0):
        raise ValueError("nproc_per_node must be a count or 'gpu', not %r" % (nproc_per_node,))
    return nproc_per_node, 0


def _split_task(task: TaskName) -> Tuple[str, int]:
    if isinstance(task, str):
        job, sep, index = task.rpartition(":")
        if not sep or not job or not index.isdigit():
            raise ValueError("task must be JOB:INDEX, not %r" % task)
        return job, int(index)
    job, index = task
    return job, int(index)


def _job_list(jobs: Jobs) -> Optional[str]:
    if jobs is None or isinstance(jobs, str):
        return jobs
    return ",".join(jobs)


class Context:
    """An opened configuration, for resolving again and again.

    ``config`` is a path to a muster.conf(5) file; None means $MUSTER_CONF,
    else the installed default.  ``strict=True`` behaves like
    ``strict = true;`` in that file.  Plugins are loaded here.  One Context may
    be used by many threads at once; each resolve releases the GIL.
    """

    __slots__ = ("_c",)

    def __init__(self, config: Union[str, "os.PathLike[str]", None] = None, *,
                 strict: bool = False):
        self._c = _muster.Context(config, strict=strict)

    def resolve(self) -> Cluster:
        """Run the chain once: a new :class:`Cluster`, or a :class:`muster.Error`."""
        return Cluster(self._c.resolve())

    @property
    def config_path(self) -> str:
        """The configuration file this context was opened from."""
        return self._c.config_path

    def entries(self) -> List[dict]:
        """The chain's entries as ``muster plugins`` lists them (plugin, name,
        version, file, state, reason, config_file, config_line)."""
        return self._c.entries()

    def __repr__(self) -> str:
        return "<muster.Context %r>" % self.config_path


def resolve(config: Union[str, "os.PathLike[str]", None] = None, *,
            strict: bool = False) -> Cluster:
    """Resolve the cluster once: ``Context(config, strict=strict).resolve()``."""
    return Context(config, strict=strict).resolve()
