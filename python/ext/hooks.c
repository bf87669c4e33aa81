/* The C side of muster._hooks: building exceptions and logging, both done
 * in Python so that the classes and the logger stay ordinary Python. */
#include "ext.h"

static PyObject *error_factory; /* muster._hooks.error(code, message, entries) */
static PyObject *log_sink;      /* muster._hooks.log(level, message) */

int ext_hooks_init(void)
{
	PyObject *hooks = PyImport_ImportModule("muster._hooks");
	if (!hooks)
		return -1;
	error_factory = PyObject_GetAttrString(hooks, "error");
	log_sink = PyObject_GetAttrString(hooks, "log");
	Py_DECREF(hooks);
	return error_factory && log_sink ? 0 : -1;
}

PyObject *ext_str(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "surrogateescape");
}

/* [(plugin, instance, config_file, config_line), ...] of the chain. */
static PyObject *entries_of(const muster_ctx *ctx)
{
	if (!ctx)
		Py_RETURN_NONE;
	size_t n = muster_ctx_entry_count(ctx);
	PyObject *list = PyList_New(0);
	for (size_t i = 0; list && i < n; i++) {
		muster_entry_info info;
		if (muster_ctx_entry_info(ctx, i, &info) < 0)
			continue;
		PyObject *t = Py_BuildValue("(NNNi)", ext_str(info.plugin), ext_str(info.instance),
		                            ext_str(info.config_file), info.config_line);
		if (!t || PyList_Append(list, t) < 0)
			Py_CLEAR(list);
		Py_XDECREF(t);
	}
	return list;
}

PyObject *ext_raise(int code, const char *message, const muster_ctx *ctx)
{
	if (code == MUSTER_ENOMEM)
		return PyErr_NoMemory();
	PyObject *entries = entries_of(ctx);
	if (!entries)
		return NULL;
	PyObject *exc = PyObject_CallFunction(error_factory, "iNN", code,
	                                      ext_str(message[0] ? message : muster_strerror(code)),
	                                      entries);
	if (exc) {
		PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
		Py_DECREF(exc);
	}
	return NULL;
}

void ext_log(int level, const char *message, void *data)
{
	(void)data;
	/* Any thread: a resolve runs with the GIL released. */
	PyGILState_STATE g = PyGILState_Ensure();
	PyObject *exc_type, *exc_value, *exc_tb;
	PyErr_Fetch(&exc_type, &exc_value, &exc_tb);
	PyObject *r = PyObject_CallFunction(log_sink, "iN", level, ext_str(message));
	if (!r)
		PyErr_WriteUnraisable(log_sink);
	Py_XDECREF(r);
	PyErr_Restore(exc_type, exc_value, exc_tb);
	PyGILState_Release(g);
}
