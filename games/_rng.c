/* games/rng.py's generator in C: the same SplitMix64 stream, the same ``below`` (rejection
 * of the outputs at or above 2**64 - 2**64 % n) and the same Fisher-Yates steps, so every
 * value, permutation and state is exactly the pure-Python class's (tests/games/test_rng.py
 * runs both). Built and loaded by games/native.py; games/rng.py uses it where it exists.
 *
 * The state is SplitMix64's 64-bit counter alone: the Python class works outputs out ahead
 * to run faster, which never shows in what it returns nor in ``getstate()``.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define GAMMA 0x9E3779B97F4A7C15ULL

typedef struct {
    PyObject_HEAD
    uint64_t state;
} RngObject;

static PyTypeObject RngType;
static PyObject *two_to_64; /* 2**64, the one bound past a uint64 that ``below`` takes */

static inline uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint64_t next_output(RngObject *self) {
    self->state += GAMMA;
    return mix(self->state);
}

/* ``below(n)``: n of 0 stands for 2**64 (every output accepted, returned whole). */
static inline uint64_t below_u64(RngObject *self, uint64_t n) {
    if (n == 0) return next_output(self);
    uint64_t rest = (0 - n) % n; /* 2**64 % n */
    uint64_t limit = 0 - rest;   /* 2**64 - rest; with rest 0 every output is accepted */
    uint64_t z;
    do {
        z = next_output(self);
    } while (rest && z >= limit);
    return z % n;
}

/* The bound of ``below`` as a uint64 (0 for 2**64), or -1 with an exception set. */
static int bound(PyObject *arg, uint64_t *n) {
    PyObject *index = PyNumber_Index(arg);
    if (index == NULL) return -1;
    int overflow;
    long long small = PyLong_AsLongLongAndOverflow(index, &overflow);
    if (small == -1 && PyErr_Occurred()) {
        Py_DECREF(index);
        return -1;
    }
    if (overflow == 0 && small > 0) {
        Py_DECREF(index);
        *n = (uint64_t)small;
        return 0;
    }
    if (overflow <= 0) {
        Py_DECREF(index);
        PyErr_SetString(PyExc_ValueError, "below() needs a positive bound");
        return -1;
    }
    unsigned long long big = PyLong_AsUnsignedLongLong(index);
    if (big == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        int equal = PyObject_RichCompareBool(index, two_to_64, Py_EQ);
        Py_DECREF(index);
        if (equal < 0) return -1;
        if (!equal) {
            PyErr_SetString(PyExc_ValueError, "below() needs a bound of at most 2**64");
            return -1;
        }
        *n = 0;
        return 0;
    }
    Py_DECREF(index);
    *n = big;
    return 0;
}

static int swap_items(PyObject *items, Py_ssize_t i, Py_ssize_t j) {
    /* ``items[i], items[j] = items[j], items[i]`` */
    if (PyList_CheckExact(items)) {
        Py_ssize_t size = PyList_GET_SIZE(items);
        if (i >= size || j >= size) {
            PyErr_SetString(PyExc_IndexError, "list index out of range");
            return -1;
        }
        PyObject **cells = ((PyListObject *)items)->ob_item;
        PyObject *held = cells[i];
        cells[i] = cells[j];
        cells[j] = held;
        return 0;
    }
    PyObject *at_j = PySequence_GetItem(items, j);
    if (at_j == NULL) return -1;
    PyObject *at_i = PySequence_GetItem(items, i);
    if (at_i == NULL) {
        Py_DECREF(at_j);
        return -1;
    }
    int failed = PySequence_SetItem(items, i, at_j) < 0 || PySequence_SetItem(items, j, at_i) < 0;
    Py_DECREF(at_j);
    Py_DECREF(at_i);
    return failed ? -1 : 0;
}

/* The steps of ``shuffle`` for positions ``start`` down to ``max(stop, 1)``; ``items`` NULL
 * draws the outputs without moving anything (``skip_shuffle_steps``). */
static int steps(RngObject *self, PyObject *items, Py_ssize_t start, Py_ssize_t stop) {
    Py_ssize_t low = stop > 1 ? stop : 1;
    if (items != NULL && PyList_CheckExact(items) && start >= low) {
        if (start >= PyList_GET_SIZE(items)) {
            PyErr_SetString(PyExc_IndexError, "list index out of range");
            return -1;
        }
        /* No Python code runs in this loop: the list cannot change under it. */
        PyObject **cells = ((PyListObject *)items)->ob_item;
        for (Py_ssize_t i = start; i >= low; i--) {
            Py_ssize_t j = (Py_ssize_t)below_u64(self, (uint64_t)i + 1);
            PyObject *held = cells[i];
            cells[i] = cells[j];
            cells[j] = held;
        }
        return 0;
    }
    for (Py_ssize_t i = start; i >= low; i--) {
        Py_ssize_t j = (Py_ssize_t)below_u64(self, (uint64_t)i + 1);
        if (items != NULL && swap_items(items, i, j) < 0) return -1;
    }
    return 0;
}

static PyObject *rng_from_state(PyTypeObject *type, uint64_t state) {
    RngObject *self = (RngObject *)type->tp_alloc(type, 0);
    if (self != NULL) self->state = state;
    return (PyObject *)self;
}

static PyObject *rng_from_seed(PyTypeObject *type, PyObject *seed) {
    /* ``int(seed) & (2**64 - 1)`` */
    PyObject *whole = PyNumber_Long(seed);
    if (whole == NULL) return NULL;
    unsigned long long state = PyLong_AsUnsignedLongLongMask(whole);
    Py_DECREF(whole);
    if (state == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    return rng_from_state(type, state);
}

static PyObject *rng_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"seed", NULL};
    PyObject *seed;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:Rng", names, &seed)) return NULL;
    return rng_from_seed(type, seed);
}

static PyObject *rng_vectorcall(PyObject *type, PyObject *const *args, size_t nargsf,
                                PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs == 1 && kwnames == NULL) return rng_from_seed((PyTypeObject *)type, args[0]);
    if (nargs == 0 && kwnames != NULL && PyTuple_GET_SIZE(kwnames) == 1 &&
        PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "seed") == 0)
        return rng_from_seed((PyTypeObject *)type, args[0]);
    PyErr_SetString(PyExc_TypeError, "Rng() takes one argument, seed");
    return NULL;
}

static PyObject *next_u64(RngObject *self, PyObject *unused) {
    return PyLong_FromUnsignedLongLong(next_output(self));
}

static PyObject *below(RngObject *self, PyObject *arg) {
    uint64_t n;
    if (PyLong_CheckExact(arg)) {
        /* The common case, a small positive int, without PyNumber_Index. */
        int overflow;
        long long small = PyLong_AsLongLongAndOverflow(arg, &overflow);
        if (overflow == 0 && small > 0) return PyLong_FromUnsignedLongLong(below_u64(self, small));
        if (small == -1 && PyErr_Occurred()) return NULL;
    }
    if (bound(arg, &n) < 0) return NULL;
    return PyLong_FromUnsignedLongLong(below_u64(self, n));
}

static PyObject *choice(RngObject *self, PyObject *items) {
    /* ``items[self.below(len(items))]`` */
    Py_ssize_t size = PyObject_Size(items);
    if (size < 0) return NULL;
    if (size == 0) {
        PyErr_SetString(PyExc_ValueError, "below() needs a positive bound");
        return NULL;
    }
    uint64_t j = below_u64(self, (uint64_t)size);
    if (PyList_CheckExact(items)) return Py_NewRef(PyList_GET_ITEM(items, (Py_ssize_t)j));
    PyObject *key = PyLong_FromUnsignedLongLong(j);
    if (key == NULL) return NULL;
    PyObject *item = PyObject_GetItem(items, key);
    Py_DECREF(key);
    return item;
}

static PyObject *shuffle(RngObject *self, PyObject *items) {
    Py_ssize_t size = PyObject_Size(items);
    if (size < 0) return NULL;
    if (steps(self, items, size - 1, 1) < 0) return NULL;
    Py_RETURN_NONE;
}

static int positions(PyObject *const *args, Py_ssize_t count, Py_ssize_t *out) {
    for (Py_ssize_t k = 0; k < count; k++) {
        out[k] = PyNumber_AsSsize_t(args[k], PyExc_OverflowError);
        if (out[k] == -1 && PyErr_Occurred()) return -1;
    }
    return 0;
}

static PyObject *shuffle_steps(RngObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Py_ssize_t at[2];
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "shuffle_steps(items, start, stop)");
        return NULL;
    }
    if (positions(args + 1, 2, at) < 0 || steps(self, args[0], at[0], at[1]) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *skip_shuffle_steps(RngObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Py_ssize_t at[2];
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "skip_shuffle_steps(start, stop)");
        return NULL;
    }
    if (positions(args, 2, at) < 0 || steps(self, NULL, at[0], at[1]) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *shuffle_steps_until(RngObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Py_ssize_t at[2];
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "shuffle_steps_until(items, start, stop, card, times)");
        return NULL;
    }
    PyObject *items = args[0], *card = args[3];
    if (positions(args + 1, 2, at) < 0) return NULL;
    Py_ssize_t times = PyNumber_AsSsize_t(args[4], PyExc_OverflowError);
    if (times == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t start = at[0], stop = at[1];
    Py_ssize_t low = stop > 1 ? stop : 1;
    int list = PyList_CheckExact(items);
    for (Py_ssize_t i = start; i >= low; i--) {
        Py_ssize_t j = (Py_ssize_t)below_u64(self, (uint64_t)i + 1);
        if (swap_items(items, i, j) < 0) return NULL;
        PyObject *settled;
        if (list) {
            /* swap_items checked i; a comparison below may run Python code, so every
             * step checks again. */
            settled = Py_NewRef(PyList_GET_ITEM(items, i));
        } else {
            settled = PySequence_GetItem(items, i);
            if (settled == NULL) return NULL;
        }
        int equal = settled == card ? 1 : PyObject_RichCompareBool(settled, card, Py_EQ);
        Py_DECREF(settled);
        if (equal < 0) return NULL;
        if (equal && --times == 0) return PyLong_FromSsize_t(i);
    }
    return PyLong_FromSsize_t(stop);
}

static PyObject *getstate(RngObject *self, PyObject *unused) {
    return PyLong_FromUnsignedLongLong(self->state);
}

static PyObject *copy(RngObject *self, PyObject *unused) {
    return rng_from_state(Py_TYPE(self), self->state);
}

static PyObject *deepcopy(RngObject *self, PyObject *memo) {
    return rng_from_state(Py_TYPE(self), self->state);
}

static PyObject *reduce(RngObject *self, PyObject *unused) {
    /* Loaded by games.rng._rng_with_state: the loading process's Rng at this state,
     * compiled or not. */
    PyObject *module = PyImport_ImportModule("games.rng");
    if (module == NULL) return NULL;
    PyObject *rebuild = PyObject_GetAttrString(module, "_rng_with_state");
    Py_DECREF(module);
    if (rebuild == NULL) return NULL;
    return Py_BuildValue("(N(K))", rebuild, (unsigned long long)self->state);
}

static PyMethodDef rng_methods[] = {
    {"next_u64", (PyCFunction)next_u64, METH_NOARGS, "The next SplitMix64 output."},
    {"below", (PyCFunction)below, METH_O, "Uniform integer in [0, n), without modulo bias."},
    {"choice", (PyCFunction)choice, METH_O, "items[below(len(items))]"},
    {"shuffle", (PyCFunction)shuffle, METH_O, "Fisher-Yates, in place."},
    {"shuffle_steps", (PyCFunction)(void (*)(void))shuffle_steps, METH_FASTCALL,
     "shuffle_steps(items, start, stop): the steps of shuffle for positions start down to stop"},
    {"skip_shuffle_steps", (PyCFunction)(void (*)(void))skip_shuffle_steps, METH_FASTCALL,
     "skip_shuffle_steps(start, stop): draw what shuffle_steps would, moving nothing"},
    {"shuffle_steps_until", (PyCFunction)(void (*)(void))shuffle_steps_until, METH_FASTCALL,
     "shuffle_steps_until(items, start, stop, card, times) -> the last position settled"},
    {"getstate", (PyCFunction)getstate, METH_NOARGS, "The SplitMix64 state."},
    {"__copy__", (PyCFunction)copy, METH_NOARGS, NULL},
    {"__deepcopy__", (PyCFunction)deepcopy, METH_O, NULL},
    {"__reduce__", (PyCFunction)reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject RngType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "games.rng.Rng",
    .tp_basicsize = sizeof(RngObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "SplitMix64, compiled (games/_rng.c): the stream of games.rng.PythonRng.",
    .tp_methods = rng_methods,
    .tp_new = rng_new,
    .tp_vectorcall = rng_vectorcall,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_rng", NULL, -1, NULL};

PyMODINIT_FUNC PyInit__rng(void) {
    if (PyType_Ready(&RngType) < 0) return NULL;
    two_to_64 = PyLong_FromUnsignedLongLong(1);
    if (two_to_64 == NULL) return NULL;
    PyObject *shift = PyLong_FromLong(64);
    if (shift == NULL) return NULL;
    Py_SETREF(two_to_64, PyNumber_Lshift(two_to_64, shift));
    Py_DECREF(shift);
    if (two_to_64 == NULL) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "SOURCE", SOURCE_DIGEST) < 0 ||
        PyModule_AddObjectRef(m, "Rng", (PyObject *)&RngType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
