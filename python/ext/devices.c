/* muster._muster.local_accelerators: this machine's devices by kind. */
#include "ext.h"

/* {kind: count} of `d`; kinds with no device are absent. */
static PyObject *count_kinds(const muster_devices *d)
{
	PyObject *counts = PyDict_New();
	const char *kind;
	for (size_t i = 0; counts && muster_devices_at(d, i, &kind, NULL, NULL) == 0; i++) {
		PyObject *k = ext_str(kind);
		if (!k) {
			Py_CLEAR(counts);
			break;
		}
		PyObject *old = PyDict_GetItemWithError(counts, k); /* borrowed */
		long n = old ? PyLong_AsLong(old) : 0;
		PyObject *v = PyErr_Occurred() ? NULL : PyLong_FromLong(n + 1);
		if (!v || PyDict_SetItem(counts, k, v) < 0)
			Py_CLEAR(counts);
		Py_DECREF(k);
		Py_XDECREF(v);
	}
	return counts;
}

PyObject *ext_local_accelerators(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kwlist[] = {"sysroot", NULL};
	PyObject *sysroot = Py_None, *path = NULL;
	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:local_accelerators", kwlist, &sysroot))
		return NULL;
	if (sysroot != Py_None && !PyUnicode_FSConverter(sysroot, &path))
		return NULL;
	const char *root = path ? PyBytes_AS_STRING(path) : NULL;
	muster_devices *d = NULL;
	muster_error err = {0};
	int rc;
	/* Reading sysfs (or NVML's start-up) takes a while: other threads run. */
	Py_BEGIN_ALLOW_THREADS
	rc = muster_local_devices(&d, root, &err);
	Py_END_ALLOW_THREADS
	Py_XDECREF(path);
	if (rc < 0)
		return ext_raise(rc, err.message, NULL);
	PyObject *counts = count_kinds(d);
	muster_devices_free(d);
	return counts;
}
