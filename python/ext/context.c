/* muster._muster.Context: one muster_ctx, shared by any number of threads. */
#include "ext.h"

typedef struct {
	PyObject_HEAD
	muster_ctx *ctx;
} ContextObject;

static int context_init(PyObject *self_obj, PyObject *args, PyObject *kwargs)
{
	ContextObject *self = (ContextObject *)self_obj;
	static char *kwlist[] = {"config", "strict", NULL};
	PyObject *config = Py_None, *path = NULL;
	int strict = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O$p:Context", kwlist, &config, &strict))
		return -1;
	if (self->ctx) {
		PyErr_SetString(PyExc_RuntimeError, "a Context is opened once");
		return -1;
	}
	if (config != Py_None && !PyUnicode_FSConverter(config, &path))
		return -1;

	muster_options options = MUSTER_OPTIONS_INIT;
	options.flags = strict ? MUSTER_CTX_STRICT : 0;
	options.log = ext_log;
	muster_error err = {0};
	muster_ctx *ctx = NULL;
	const char *c_path = path ? PyBytes_AS_STRING(path) : NULL;
	int rc;
	/* Plugins load now: other threads run meanwhile. */
	Py_BEGIN_ALLOW_THREADS
	rc = muster_ctx_open(&ctx, c_path, &options, &err);
	Py_END_ALLOW_THREADS
	Py_XDECREF(path);
	if (rc < 0) {
		muster_ctx_free(ctx);
		ext_raise(rc, err.message, NULL);
		return -1;
	}
	if (self->ctx) { /* another thread's __init__ won while the GIL was free */
		muster_ctx_free(ctx);
		PyErr_SetString(PyExc_RuntimeError, "a Context is opened once");
		return -1;
	}
	self->ctx = ctx;
	return 0;
}

static void context_dealloc(PyObject *self_obj)
{
	ContextObject *self = (ContextObject *)self_obj;
	muster_ctx_free(self->ctx);
	Py_TYPE(self_obj)->tp_free(self_obj);
}

static int context_ready(ContextObject *self)
{
	if (self->ctx)
		return 0;
	PyErr_SetString(PyExc_RuntimeError, "the Context was not opened");
	return -1;
}

static PyObject *context_resolve(PyObject *self_obj, PyObject *unused)
{
	ContextObject *self = (ContextObject *)self_obj;
	(void)unused;
	if (context_ready(self) < 0)
		return NULL;
	muster_result *r = NULL;
	muster_error err = {0};
	int rc;
	Py_BEGIN_ALLOW_THREADS
	rc = muster_resolve(&r, self->ctx, &err);
	Py_END_ALLOW_THREADS
	if (rc < 0)
		return ext_raise(rc, err.message, self->ctx);
	return ext_result_new(r);
}

static PyObject *context_entries(PyObject *self_obj, PyObject *unused)
{
	ContextObject *self = (ContextObject *)self_obj;
	(void)unused;
	if (context_ready(self) < 0)
		return NULL;
	static const char *states[] = {"loaded", "builtin", "failed"};
	size_t n = muster_ctx_entry_count(self->ctx);
	PyObject *list = PyList_New(0);
	for (size_t i = 0; list && i < n; i++) {
		muster_entry_info e;
		if (muster_ctx_entry_info(self->ctx, i, &e) < 0)
			continue;
		const char *state = e.state >= 0 && e.state <= 2 ? states[e.state] : "unknown";
		PyObject *d = Py_BuildValue("{s:N,s:N,s:N,s:N,s:s,s:N,s:N,s:i}", "plugin",
		                            ext_str(e.plugin), "name", ext_str(e.instance), "version",
		                            ext_str(e.version), "file", ext_str(e.file), "state", state,
		                            "reason", ext_str(e.reason), "config_file",
		                            ext_str(e.config_file), "config_line", e.config_line);
		if (!d || PyList_Append(list, d) < 0)
			Py_CLEAR(list);
		Py_XDECREF(d);
	}
	return list;
}

static PyObject *context_config_path(PyObject *self_obj, void *closure)
{
	ContextObject *self = (ContextObject *)self_obj;
	(void)closure;
	if (context_ready(self) < 0)
		return NULL;
	return ext_str(muster_ctx_config_path(self->ctx));
}

static PyMethodDef context_methods[] = {
	{"resolve", context_resolve, METH_NOARGS,
	 "resolve() -> Result: run the chain once (the GIL is released meanwhile)."},
	{"entries", context_entries, METH_NOARGS,
	 "entries() -> list of dict: the chain's entries, as `muster plugins` shows them."},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef context_getset[] = {
	{"config_path", context_config_path, NULL, "The configuration file opened.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject ext_context_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "muster._muster.Context",
	.tp_basicsize = sizeof(ContextObject),
	.tp_dealloc = context_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Context(config=None, *, strict=False): an opened configuration.",
	.tp_methods = context_methods,
	.tp_getset = context_getset,
	.tp_init = context_init,
	.tp_new = PyType_GenericNew,
};
