/* The protocol's check of a simultaneous decision's moves (games/protocol.py, State.apply)
 * in C: the pure-Python loop costs a few thousand instructions a seat, and at a big table
 * every seat acts on every action. Built and loaded by games/native.py; games/protocol.py
 * uses it where it exists.
 *
 *   checked(actions, seats, table, legal_of, is_legal) -> (ordered, record) or None
 *
 * ``seats`` is a tuple of (seat, name) pairs in seat order; ``table`` a list indexed by
 * seat or a dict by seat holding acting seats' legal lists (or None), ``legal_of(seat)``
 * the legal list of a seat ``table`` lacks; ``is_legal`` the protocol's function, asked
 * about the moves this code does not decide itself. It accepts only: every seat's move is
 * there and legal as the Python loop judges it (a whole number whose first equal candidate
 * is one too, a string found in the list, a list whose first equal candidate has the same
 * scalar types, anything else ``is_legal`` accepts). Then it
 * returns the moves by seat and by name, in seat order, as the loop builds them.
 *
 * Anything else gives None: a move missing or refused, a mapping that is not a plain
 * dict, an error raised on the way (cleared). The caller then runs its Python loop, which
 * raises the refusal it always did; nothing here changes any state.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static int is_scalar(PyTypeObject *kind) {
    return kind == &PyLong_Type || kind == &PyUnicode_Type || kind == &PyFloat_Type ||
           kind == &PyBool_Type || kind == Py_TYPE(Py_None);
}

/* The first candidate of ``legal`` equal to ``action``, as ``list.index`` finds it (a new
 * reference), or NULL: with an error set, or none equal. */
static PyObject *first_equal(PyObject *legal, PyObject *action) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(legal); i++) {
        PyObject *candidate = PyList_GET_ITEM(legal, i);
        Py_INCREF(candidate);
        int equal = PyObject_RichCompareBool(candidate, action, Py_EQ);
        if (equal > 0) return candidate;
        Py_DECREF(candidate);
        if (equal < 0) return NULL;
    }
    return NULL;
}

/* 1 legal, 0 refused or not decided here (the Python loop decides), -1 an error. */
static int judge(PyObject *action, PyObject *legal, PyObject *is_legal) {
    PyTypeObject *kind = Py_TYPE(action);
    if (kind == &PyUnicode_Type) return PySequence_Contains(legal, action); /* ``in`` */
    if (kind == &PyLong_Type || kind == &PyList_Type) {
        /* ``legal[legal.index(action)]``, the first equal candidate: legal when it is a
         * whole number too, or a list of the same scalar types item by item (a keep of
         * cards, say), as ``is_legal`` finds; the rest is left to ``is_legal`` (an equal
         * candidate of other types may still have a twin of the same types). */
        if (!PyList_CheckExact(legal)) return 0;
        PyObject *first = first_equal(legal, action);
        if (first == NULL) return PyErr_Occurred() ? -1 : 0;
        int same = Py_TYPE(first) == kind;
        if (same && kind == &PyList_Type) {
            /* Equal lists have equal lengths. */
            for (Py_ssize_t i = 0; same && i < PyList_GET_SIZE(first); i++) {
                PyTypeObject *item = Py_TYPE(PyList_GET_ITEM(first, i));
                same = item == Py_TYPE(PyList_GET_ITEM(action, i)) && is_scalar(item);
            }
        }
        Py_DECREF(first);
        if (same) return 1;
    }
    PyObject *verdict = PyObject_CallFunctionObjArgs(is_legal, action, legal, NULL);
    if (verdict == NULL) return -1;
    int ok = PyObject_IsTrue(verdict);
    Py_DECREF(verdict);
    return ok;
}

/* The legal list of ``seat``, a new reference, or NULL with an error set. */
static PyObject *legal_list(PyObject *table, PyObject *legal_of, PyObject *seat) {
    if (table != Py_None) {
        if (PyList_CheckExact(table)) {
            Py_ssize_t at = PyLong_AsSsize_t(seat);
            if (at == -1 && PyErr_Occurred()) return NULL;
            if (at >= 0 && at < PyList_GET_SIZE(table))
                return Py_NewRef(PyList_GET_ITEM(table, at));
        } else if (PyDict_CheckExact(table)) {
            PyObject *found = PyDict_GetItemWithError(table, seat);
            if (found != NULL) return Py_NewRef(found);
            if (PyErr_Occurred()) return NULL;
        }
    }
    return PyObject_CallOneArg(legal_of, seat);
}

static PyObject *checked(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "checked(actions, seats, table, legal_of, is_legal)");
        return NULL;
    }
    PyObject *actions = args[0], *seats = args[1], *table = args[2];
    PyObject *legal_of = args[3], *is_legal = args[4];
    if (!PyDict_CheckExact(actions) || !PyTuple_CheckExact(seats)) Py_RETURN_NONE;
    Py_ssize_t count = PyTuple_GET_SIZE(seats);
    PyObject *ordered = PyDict_New();
    PyObject *record = PyDict_New();
    if (ordered == NULL || record == NULL) goto failed;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *pair = PyTuple_GET_ITEM(seats, i);
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) goto refused;
        PyObject *seat = PyTuple_GET_ITEM(pair, 0), *name = PyTuple_GET_ITEM(pair, 1);
        PyObject *action = PyDict_GetItemWithError(actions, seat); /* borrowed */
        if (action == NULL) goto refused;
        Py_INCREF(action);
        PyObject *legal = legal_list(table, legal_of, seat);
        int ok = legal == NULL ? -1 : judge(action, legal, is_legal);
        Py_XDECREF(legal);
        if (ok == 1 && (PyDict_SetItem(ordered, seat, action) < 0 ||
                        PyDict_SetItem(record, name, action) < 0))
            ok = -1;
        Py_DECREF(action);
        if (ok != 1) goto refused;
    }
    PyObject *both = PyTuple_Pack(2, ordered, record);
    Py_DECREF(ordered);
    Py_DECREF(record);
    return both;
refused:
    /* The Python loop finds out why, and raises it as it always has. */
    PyErr_Clear();
    Py_DECREF(ordered);
    Py_DECREF(record);
    Py_RETURN_NONE;
failed:
    Py_XDECREF(ordered);
    Py_XDECREF(record);
    return NULL;
}

static PyMethodDef methods[] = {
    {"checked", (PyCFunction)(void (*)(void))checked, METH_FASTCALL,
     "checked(actions, seats, table, legal_of, is_legal) -> (ordered, record) or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_moves", NULL, -1, methods};

PyMODINIT_FUNC PyInit__moves(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "SOURCE", SOURCE_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
