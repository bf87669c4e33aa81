/* muster._muster.Result: one immutable muster_result, read from Python. */
#include "ext.h"

typedef struct {
	PyObject_HEAD
	muster_result *r;
} ResultObject;

PyObject *ext_result_new(muster_result *r)
{
	ResultObject *self = PyObject_New(ResultObject, &ext_result_type);
	if (!self) {
		muster_result_free(r);
		return NULL;
	}
	self->r = r;
	return (PyObject *)self;
}

static void result_dealloc(PyObject *self_obj)
{
	muster_result_free(((ResultObject *)self_obj)->r);
	PyObject_Free(self_obj);
}

static const muster_result *R(PyObject *self_obj)
{
	return ((ResultObject *)self_obj)->r;
}

/* One job's tasks as TensorFlow's ClusterSpec.as_dict() has them: a list
 * when the indices are 0..n-1, else {index: address} (empty for none). */
static PyObject *job_tasks(const muster_result *r, const char *job)
{
	size_t n = muster_result_task_count(r, job);
	int dense = n > 0 && muster_result_job_is_dense(r, job);
	PyObject *tasks = dense ? PyList_New((Py_ssize_t)n) : PyDict_New();
	for (size_t i = 0; tasks && i < n; i++) {
		long index;
		const char *address;
		if (muster_result_task_at(r, job, i, &index, &address) < 0) {
			Py_CLEAR(tasks);
			PyErr_SetString(PyExc_RuntimeError, "a task vanished from an immutable result");
			break;
		}
		PyObject *a = ext_str(address);
		if (!a) {
			Py_CLEAR(tasks);
		} else if (dense) {
			PyList_SET_ITEM(tasks, (Py_ssize_t)i, a);
		} else {
			PyObject *k = PyLong_FromLong(index);
			if (!k || PyDict_SetItem(tasks, k, a) < 0)
				Py_CLEAR(tasks);
			Py_XDECREF(k);
			Py_DECREF(a);
		}
	}
	return tasks;
}

static PyObject *result_cluster_spec(PyObject *self, PyObject *unused)
{
	(void)unused;
	const muster_result *r = R(self);
	size_t n = muster_result_job_count(r);
	PyObject *spec = PyDict_New();
	for (size_t j = 0; spec && j < n; j++) {
		const char *job = muster_result_job_name(r, j);
		PyObject *k = ext_str(job);
		PyObject *tasks = k ? job_tasks(r, job) : NULL;
		if (!tasks || PyDict_SetItem(spec, k, tasks) < 0)
			Py_CLEAR(spec);
		Py_XDECREF(k);
		Py_XDECREF(tasks);
	}
	return spec;
}

/* {kind: count} of one task; `job` NULL: the own task. */
static PyObject *task_accelerators(const muster_result *r, const char *job, long index)
{
	PyObject *d = PyDict_New();
	const char *kind;
	long count;
	for (size_t i = 0; d && muster_result_accelerator_at(r, job, index, i, &kind, &count) == 0;
	     i++) {
		PyObject *k = ext_str(kind), *v = PyLong_FromLong(count);
		if (!k || !v || PyDict_SetItem(d, k, v) < 0)
			Py_CLEAR(d);
		Py_XDECREF(k);
		Py_XDECREF(v);
	}
	return d;
}

static PyObject *result_accelerators(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kwlist[] = {"job", "index", NULL};
	const char *job = NULL;
	long index = -1;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|zl:accelerators", kwlist, &job, &index))
		return NULL;
	return task_accelerators(R(self), job, index);
}

/* {job: {index: {kind: count}}} for every task that has accelerators. */
static PyObject *result_all_accelerators(PyObject *self, PyObject *unused)
{
	(void)unused;
	const muster_result *r = R(self);
	PyObject *all = PyDict_New();
	for (size_t j = 0; all && j < muster_result_job_count(r); j++) {
		const char *job = muster_result_job_name(r, j);
		PyObject *per_task = PyDict_New();
		size_t n = muster_result_task_count(r, job);
		for (size_t i = 0; per_task && i < n; i++) {
			long index;
			if (muster_result_task_at(r, job, i, &index, NULL) < 0)
				continue;
			PyObject *acc = task_accelerators(r, job, index);
			PyObject *k = acc && PyDict_GET_SIZE(acc) ? PyLong_FromLong(index) : NULL;
			if (!acc || (k && PyDict_SetItem(per_task, k, acc) < 0))
				Py_CLEAR(per_task);
			Py_XDECREF(k);
			Py_XDECREF(acc);
		}
		PyObject *name = per_task && PyDict_GET_SIZE(per_task) ? ext_str(job) : NULL;
		if (!per_task || (name && PyDict_SetItem(all, name, per_task) < 0))
			Py_CLEAR(all);
		Py_XDECREF(name);
		Py_XDECREF(per_task);
	}
	return all;
}

/* A str the library handed over, released here. */
static PyObject *take_string(int rc, char *s, const muster_error *err)
{
	if (rc < 0)
		return ext_raise(rc, err->message, NULL);
	PyObject *o = ext_str(s);
	muster_free(s);
	return o;
}

/* task_id: an int >= 0, or None (-1, the own task) where `none_ok`.  The
 * library reads any negative id as the own task: a negative one must not
 * get through. */
static int parse_task_id(PyObject *o, int none_ok, long *out)
{
	const char *allowed = none_ok ? "None or >= 0" : ">= 0";
	if (o == Py_None && none_ok) {
		*out = -1;
		return 0;
	}
	if (o == Py_None) {
		PyErr_Format(PyExc_ValueError, "task_id must be %s, not None", allowed);
		return -1;
	}
	long v = PyLong_AsLong(o);
	if (v == -1 && PyErr_Occurred())
		return -1;
	if (v < 0) {
		PyErr_Format(PyExc_ValueError, "task_id must be %s, not %ld", allowed, v);
		return -1;
	}
	*out = v;
	return 0;
}

static PyObject *result_master(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kwlist[] = {"task_type", "task_id", "rpc_layer", NULL};
	const char *task_type = NULL, *rpc_layer = NULL;
	PyObject *task_id_obj = Py_None;
	long task_id;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|zOz:master", kwlist, &task_type,
	                                 &task_id_obj, &rpc_layer) ||
	    parse_task_id(task_id_obj, 1, &task_id) < 0)
		return NULL;
	char *s = NULL;
	muster_error err = {0};
	int rc = muster_result_master_url(&s, R(self), task_type, task_id, rpc_layer, &err);
	return take_string(rc, s, &err);
}

static PyObject *result_tf_config(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kwlist[] = {"task_type", "task_id", "sparse", NULL};
	const char *task_type;
	PyObject *task_id_obj;
	long task_id;
	int sparse = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sO|p:tf_config", kwlist, &task_type,
	                                 &task_id_obj, &sparse) ||
	    parse_task_id(task_id_obj, 0, &task_id) < 0)
		return NULL;
	char *s = NULL;
	muster_error err = {0};
	int rc = muster_result_to_tf_config(&s, R(self), task_type, task_id,
	                                    sparse ? MUSTER_TF_CONFIG_SPARSE : 0, &err);
	return take_string(rc, s, &err);
}

/* A launch's environment as {name: value}, in the library's order. */
static PyObject *env_dict(char **env)
{
	PyObject *d = PyDict_New();
	for (size_t i = 0; d && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		PyObject *k = PyUnicode_DecodeUTF8(env[i], eq - env[i], "surrogateescape");
		PyObject *v = k ? ext_str(eq + 1) : NULL;
		if (!v || PyDict_SetItem(d, k, v) < 0)
			Py_CLEAR(d);
		Py_XDECREF(k);
		Py_XDECREF(v);
	}
	return d;
}

/* The plan, its network probe when probe_ms > 0 (the GIL let go: name
 * lookups may take that long), then the own process's environment. */
static int launch_env_probed(char ***env, const muster_result *r, const muster_launch *l,
                             long probe_ms, muster_error *err)
{
	muster_plan *p = NULL;
	int rc = muster_launch_plan(&p, r, l, err);
	if (rc == 0 && probe_ms > 0) {
		Py_BEGIN_ALLOW_THREADS
		rc = muster_plan_probe_network(p, probe_ms, err);
		Py_END_ALLOW_THREADS
	}
	if (rc == 0)
		rc = muster_plan_env(env, p, l->local_rank, l->local_device_ids, err);
	muster_plan_free(p);
	return rc;
}

static PyObject *result_launch_env(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kwlist[] = {"framework", "task_type", "task_id", "jobs", "nproc_per_node",
	                         "local_rank", "local_gpus", "probe_ms", NULL};
	muster_launch l = MUSTER_LAUNCH_INIT;
	PyObject *task_id_obj = Py_None;
	long probe_ms = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|zOzllll:launch_env", kwlist,
	                                 &l.framework, &l.task_type, &task_id_obj, &l.jobs,
	                                 &l.nproc_per_node, &l.local_rank, &l.local_gpus,
	                                 &probe_ms) ||
	    parse_task_id(task_id_obj, 1, &l.task_id) < 0)
		return NULL;
	char **env = NULL;
	muster_error err = {0};
	/* Only PyTorch and JAX get interface variables; muster_launch_env()
	 * gives TensorFlow's, and refuses any other framework by name. */
	int probe = probe_ms > 0 &&
	            (strcmp(l.framework, "pytorch") == 0 || strcmp(l.framework, "jax") == 0);
	int rc = probe ? launch_env_probed(&env, R(self), &l, probe_ms, &err)
	               : muster_launch_env(&env, R(self), &l, &err);
	if (rc < 0)
		return ext_raise(rc, err.message, NULL);
	PyObject *d = env_dict(env);
	muster_free(env);
	return d;
}

static PyObject *result_hostfile(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kwlist[] = {"flavor", "jobs", "nproc_per_node", "local_gpus", NULL};
	muster_launch l = MUSTER_LAUNCH_INIT;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|zll:hostfile", kwlist, &l.framework,
	                                 &l.jobs, &l.nproc_per_node, &l.local_gpus))
		return NULL;
	char *s = NULL;
	muster_error err = {0};
	int rc = muster_launch_hostfile(&s, R(self), &l, &err);
	return take_string(rc, s, &err);
}

static PyObject *result_to_json(PyObject *self, PyObject *unused)
{
	(void)unused;
	char *s = NULL;
	muster_error err = {0};
	int rc = muster_result_to_json(&s, R(self), &err);
	return take_string(rc, s, &err);
}

static PyObject *result_release_port(PyObject *self, PyObject *unused)
{
	(void)unused;
	muster_result_release_port(((ResultObject *)self)->r);
	Py_RETURN_NONE;
}

static PyObject *get_source(PyObject *self, void *c)
{
	(void)c;
	return ext_str(muster_result_source(R(self)));
}

static PyObject *get_task_type(PyObject *self, void *c)
{
	(void)c;
	return ext_str(muster_result_task_type(R(self)));
}

static PyObject *get_task_id(PyObject *self, void *c)
{
	(void)c;
	long i = muster_result_task_index(R(self));
	if (i < 0)
		Py_RETURN_NONE;
	return PyLong_FromLong(i);
}

static PyObject *get_rpc_layer(PyObject *self, void *c)
{
	(void)c;
	return ext_str(muster_result_rpc_layer(R(self)));
}

static PyObject *get_environment(PyObject *self, void *c)
{
	(void)c;
	return ext_str(muster_result_environment(R(self)));
}

static PyObject *get_reserved_port(PyObject *self, void *c)
{
	(void)c;
	int port = muster_result_reserved_port(R(self));
	if (port < 0)
		Py_RETURN_NONE;
	return PyLong_FromLong(port);
}

#define KW(f) (PyCFunction)(void (*)(void))(f), METH_VARARGS | METH_KEYWORDS

static PyMethodDef result_methods[] = {
	{"cluster_spec", result_cluster_spec, METH_NOARGS,
	 "cluster_spec() -> dict: job -> list of addresses, or {index: address} when sparse."},
	{"accelerators", KW(result_accelerators),
	 "accelerators(job=None, index=-1) -> dict: one task's {kind: count}; job None: own."},
	{"all_accelerators", result_all_accelerators, METH_NOARGS,
	 "all_accelerators() -> dict: job -> {index: {kind: count}}, tasks with any."},
	{"master", KW(result_master),
	 "master(task_type=None, task_id=None, rpc_layer=None) -> str, TensorFlow's rules."},
	{"tf_config", KW(result_tf_config),
	 "tf_config(task_type, task_id, sparse=False) -> str: the TF_CONFIG for that task."},
	{"launch_env", KW(result_launch_env),
	 "launch_env(framework, task_type=None, task_id=None, jobs=None, nproc_per_node=1, "
	 "local_rank=0, local_gpus=0, probe_ms=0) -> dict: `muster env`'s variables, in its "
	 "order (probe_ms > 0: with the interface variables of a network probe that long); task "
	 "None: own; nproc_per_node -1: each task's GPUs."},
	{"hostfile", KW(result_hostfile),
	 "hostfile(flavor, jobs=None, nproc_per_node=1, local_gpus=0) -> str: `muster "
	 "hostfile`'s text."},
	{"to_json", result_to_json, METH_NOARGS, "to_json() -> str: `muster resolve`'s JSON."},
	{"release_port", result_release_port, METH_NOARGS,
	 "release_port(): let go of the reserved port, right before binding it."},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef result_getset[] = {
	{"source", get_source, NULL, "The backend instance that answered.", NULL},
	{"task_type", get_task_type, NULL, "The own task's job, or None.", NULL},
	{"task_id", get_task_id, NULL, "The own task's index, or None.", NULL},
	{"rpc_layer", get_rpc_layer, NULL, "The RPC layer, or None.", NULL},
	{"environment", get_environment, NULL, "The environment, or None.", NULL},
	{"reserved_port", get_reserved_port, NULL, "A port held for this process, or None.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject ext_result_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "muster._muster.Result",
	.tp_basicsize = sizeof(ResultObject),
	.tp_dealloc = result_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "One resolve's immutable answer (made by Context.resolve()).",
	.tp_methods = result_methods,
	.tp_getset = result_getset,
};
