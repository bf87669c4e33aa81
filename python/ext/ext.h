/* The extension module muster._muster: shared declarations. */
#ifndef MUSTER_PYTHON_EXT_H
#define MUSTER_PYTHON_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <muster/muster.h>

extern PyTypeObject ext_context_type;
extern PyTypeObject ext_result_type;
#ifdef MUSTER_PYTHON_RESERVE
extern PyTypeObject ext_reserve_type;
#endif

/* Import-time setup of muster._hooks (the error factory, the log sink). */
int ext_hooks_init(void);

/* Raise the muster.Error subclass for a C error; `ctx` (may be NULL) lets
 * the error name the config line of the entry it is about.  Returns NULL. */
PyObject *ext_raise(int code, const char *message, const muster_ctx *ctx);

/* The log callback of every context: messages go to logging's "muster". */
void ext_log(int level, const char *message, void *data);

/* A str from the library's UTF-8 (undecodable bytes kept as surrogates);
 * None for NULL. */
PyObject *ext_str(const char *s);

/* local_accelerators(sysroot=None) -> {kind: count}: muster_local_devices(). */
PyObject *ext_local_accelerators(PyObject *self, PyObject *args, PyObject *kwargs);

/* A new muster._muster.Result owning `r`. */
PyObject *ext_result_new(muster_result *r);

#endif
