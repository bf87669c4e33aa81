/* muster._muster: the C half of the `muster` package (see muster/__init__.py). */
#include "ext.h"

static PyObject *module_version(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return ext_str(muster_version());
}

static PyMethodDef module_methods[] = {
	{"version", module_version, METH_NOARGS, "version() -> str: libmuster's version."},
	{"local_accelerators", (PyCFunction)(void (*)(void))ext_local_accelerators,
	 METH_VARARGS | METH_KEYWORDS,
	 "local_accelerators(sysroot=None) -> dict: this machine's {kind: count}."},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "muster._muster",
	.m_doc = "libmuster for Python; use the `muster` package, which wraps this.",
	.m_size = -1,
	.m_methods = module_methods,
};

static int add_type(PyObject *m, PyTypeObject *type, const char *name)
{
	if (PyType_Ready(type) < 0)
		return -1;
	Py_INCREF(type);
	if (PyModule_AddObject(m, name, (PyObject *)type) < 0) {
		Py_DECREF(type);
		return -1;
	}
	return 0;
}

PyMODINIT_FUNC PyInit__muster(void);
PyMODINIT_FUNC PyInit__muster(void)
{
	if (ext_hooks_init() < 0)
		return NULL;
	PyObject *m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	if (add_type(m, &ext_context_type, "Context") < 0 ||
	    add_type(m, &ext_result_type, "Result") < 0 ||
#ifdef MUSTER_PYTHON_RESERVE
	    add_type(m, &ext_reserve_type, "ReserveServer") < 0 ||
#endif
	    PyModule_AddIntConstant(m, "RESERVE_UNREGISTERED", 0) < 0 ||
	    PyModule_AddIntConstant(m, "RESERVE_UNFETCHED", 1) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
