/* muster._muster.ReserveServer: the reservation server of <muster/reserve.h>.
 * run() blocks (the GIL released); stop() may come from any thread. */
#include "ext.h"

#include <muster/reserve.h>

typedef struct {
	PyObject_HEAD
	muster_reserve *srv;
	int running; /* read and written under the GIL */
} ReserveObject;

static int reserve_init(PyObject *self_obj, PyObject *args, PyObject *kwargs)
{
	ReserveObject *self = (ReserveObject *)self_obj;
	static char *kwlist[] = {"size", "host", "port", "timeout_ms", "auth_key_file", NULL};
	long size, timeout_ms = 600000;
	const char *host = NULL;
	int port = 0;
	PyObject *key_obj = Py_None, *key = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "l|zilO:ReserveServer", kwlist, &size,
	                                 &host, &port, &timeout_ms, &key_obj))
		return -1;
	if (self->srv) {
		PyErr_SetString(PyExc_RuntimeError, "a ReserveServer is opened once");
		return -1;
	}
	if (port < 0 || port > 65535) {
		PyErr_Format(PyExc_ValueError, "port must be 0..65535, not %d", port);
		return -1;
	}
	if (key_obj != Py_None && !PyUnicode_FSConverter(key_obj, &key))
		return -1;
	muster_reserve_options o = MUSTER_RESERVE_OPTIONS_INIT;
	o.cluster_size = size;
	o.host = host;
	o.port_min = o.port_max = port;
	o.timeout_ms = timeout_ms;
	o.auth_key_file = key ? PyBytes_AS_STRING(key) : NULL;
	o.log_level = MUSTER_LOG_WARNING;
	o.log = ext_log;
	muster_error err = {0};
	int rc = muster_reserve_open(&self->srv, &o, &err);
	Py_XDECREF(key);
	if (rc < 0) {
		self->srv = NULL;
		ext_raise(rc, err.message, NULL);
		return -1;
	}
	return 0;
}

static void reserve_dealloc(PyObject *self_obj)
{
	muster_reserve_free(((ReserveObject *)self_obj)->srv);
	Py_TYPE(self_obj)->tp_free(self_obj);
}

/* The server, when it is open and no thread is serving with it. */
static muster_reserve *idle(ReserveObject *self)
{
	if (!self->srv)
		PyErr_SetString(PyExc_RuntimeError, "the ReserveServer was not opened");
	else if (self->running)
		PyErr_SetString(PyExc_RuntimeError, "the ReserveServer is serving in another thread");
	else
		return self->srv;
	return NULL;
}

static PyObject *reserve_run(PyObject *self_obj, PyObject *unused)
{
	ReserveObject *self = (ReserveObject *)self_obj;
	(void)unused;
	muster_reserve *srv = idle(self);
	if (!srv)
		return NULL;
	muster_error err = {0};
	int rc;
	self->running = 1;
	Py_BEGIN_ALLOW_THREADS
	rc = muster_reserve_run(srv, &err);
	Py_END_ALLOW_THREADS
	self->running = 0;
	if (rc < 0)
		return ext_raise(rc, err.message, NULL);
	Py_RETURN_NONE;
}

static PyObject *reserve_stop(PyObject *self_obj, PyObject *unused)
{
	ReserveObject *self = (ReserveObject *)self_obj;
	(void)unused;
	if (self->srv)
		muster_reserve_stop(self->srv);
	Py_RETURN_NONE;
}

static PyObject *reserve_cluster_spec(PyObject *self_obj, PyObject *unused)
{
	(void)unused;
	muster_reserve *srv = idle((ReserveObject *)self_obj);
	if (!srv)
		return NULL;
	char *s = NULL;
	muster_error err = {0};
	int rc = muster_reserve_cluster_spec(&s, srv, &err);
	if (rc < 0)
		return ext_raise(rc, err.message, NULL);
	PyObject *o = ext_str(s);
	muster_free(s);
	return o;
}

static PyObject *reserve_missing(PyObject *self_obj, PyObject *args)
{
	int which;
	if (!PyArg_ParseTuple(args, "i:missing", &which))
		return NULL;
	muster_reserve *srv = idle((ReserveObject *)self_obj);
	if (!srv)
		return NULL;
	size_t n = muster_reserve_missing_count(srv, which);
	PyObject *list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++) {
		PyObject *v = PyLong_FromLong(muster_reserve_missing_at(srv, which, i));
		if (!v)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, (Py_ssize_t)i, v);
	}
	return list;
}

static PyObject *get_port(PyObject *self_obj, void *c)
{
	ReserveObject *self = (ReserveObject *)self_obj;
	(void)c;
	if (!self->srv)
		Py_RETURN_NONE;
	return PyLong_FromLong(muster_reserve_port(self->srv));
}

static PyObject *get_registered(PyObject *self_obj, void *c)
{
	(void)c;
	muster_reserve *srv = idle((ReserveObject *)self_obj);
	return srv ? PyLong_FromLong(muster_reserve_registered(srv)) : NULL;
}

static PyMethodDef reserve_methods[] = {
	{"run", reserve_run, METH_NOARGS,
	 "run(): serve until done, stopped or timed out (the GIL is released)."},
	{"stop", reserve_stop, METH_NOARGS, "stop(): make a running run() return soon."},
	{"cluster_spec", reserve_cluster_spec, METH_NOARGS,
	 "cluster_spec() -> str: the registrations' ClusterSpec as JSON."},
	{"missing", reserve_missing, METH_VARARGS,
	 "missing(which) -> list: executor ids never registered (0) or never served (1)."},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef reserve_getset[] = {
	{"port", get_port, NULL, "The port listened on.", NULL},
	{"registered", get_registered, NULL, "Registrations received.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject ext_reserve_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "muster._muster.ReserveServer",
	.tp_basicsize = sizeof(ReserveObject),
	.tp_dealloc = reserve_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "ReserveServer(size, host=None, port=0, timeout_ms=600000, auth_key_file=None)",
	.tp_methods = reserve_methods,
	.tp_getset = reserve_getset,
	.tp_init = reserve_init,
	.tp_new = PyType_GenericNew,
};
