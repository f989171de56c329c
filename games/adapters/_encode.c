/* The observation encoder's walk (games/adapters/codec.py, ObservationEncoder.encode) in C.

   encode(root, numbers, features, extend, observation, out) writes the vector of
   `observation` into `out` (a writable float64 buffer of the layout's size, overflow block
   included) and returns True: exactly the Python encoder's numbers, since the walk visits
   the same leaves in the same order, adds each value to its slot starting from 0.0,
   squashes number slots at the end, and sums the features outside the layout per feature,
   in the order they first appear, before adding them into the overflow block. It returns
   False (`out` then unspecified) on a value no JSON decoder makes (a tuple, a subclass of
   dict): the caller runs the Python encoder then.

   With a `memo` (memo(size), one per view: a seat, the spectator), a list at the
   observation's top level that the layout treats as a multiset (a match's history) is
   walked only past the items the view's last observation already had: see Entry. With a
   `single` (a float32 buffer as long as `out`), the vector is also written there rounded
   to float32, as numpy's astype(float32) rounds.

   The layout is a tree of lists built by games/adapters/compiled.py, one node per path:

     [children, items, bag, number_slot, int_tokens, str_tokens, none_slot, ...]

   children    dict key -> node, for a dict found at this path (or None)
   items       list of nodes, one per position, for a positional list (or None)
   bag         node of the list's items when the list is a multiset (or None)
   number_slot slot of "<path>#"
   int_tokens  list of SMALL_INT + 1 slots "<path>=i:<v>", or None outside a multiset
   str_tokens  dict string -> slot of "<path>=s:<string>" (or None)
   none_slot   slot of "<path>=none"

   A slot is a layout slot (>= 0), unknown yet (-1), or a feature outside the layout
   (-2 - f, `features[f]` = (overflow slot, 1 for a number or 0 for a token)). On -1 or a
   missing child the walk calls `extend(node, what, key)`, which grows the tree (the
   layout's positional lists and overflow slots are Python's to work out) and returns
   the new child or slot; the next observation finds it in place.

   Python keeps more fields after these (the node's path, its list pattern).
   `numbers` lists every number slot of the layout, to squash once the walk is done. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define SMALL_INT 20

enum { CHILDREN, ITEMS, BAG, NUMBER_SLOT, INT_TOKENS, STR_TOKENS, NONE_SLOT, NODE_FIELDS };

typedef struct {
    Py_ssize_t feature;
    double value;
} Outside;

/* A view's memory of the lists it has walked at the observation's top level (a match's
   history): per key, the items walked and, per slot they touched, the sum they added.
   Kept only while every value added was a whole number (bounded so every partial sum is
   exact) and none went outside the layout: then the order of the additions cannot change
   a bit, and a list that only grew at its end needs only its new items walked. */
typedef struct {
    PyObject *key;   /* the top-level key (a str) */
    PyObject *node;  /* the key's layout node, whose bag the items went through */
    PyObject *items; /* the items walked: one met again as the very same object is taken
                        as unchanged (what an engine hands out is read-only) */
    Py_ssize_t *touched;
    Py_ssize_t touched_count, touched_room;
    double magnitude; /* sum of |value| added: partial sums stay exact below 2**53 */
    int exact;        /* every value added whole, none outside the layout */
} Entry;

typedef struct {
    Py_ssize_t size;
    double *sums;         /* per slot, what the entries' items added */
    unsigned char *marks; /* per slot, 1 once in an entry's touched list */
    Entry *entries;
    Py_ssize_t count, room;
    PyObject *keys; /* the last top-level keys found safe to remember lists under */
} Memo;

#define MEMO_NAME "games.adapters._encode.memo"

typedef struct {
    double *out;
    Py_ssize_t size;
    PyObject *features;
    PyObject *extend;
    Outside *outside;  /* features outside the layout, in walk order */
    Py_ssize_t outside_count, outside_room;
    Memo *memo;
    Entry *tracking; /* the entry whose new items are being walked, or NULL */
} Walk;

#define FIELD(node, i) PyList_GET_ITEM(node, i)

/* The functions called per decision take their arguments as METH_FASTCALL arrays:
   PyArg_ParseTuple cost more than the rest of a small call. These check what it did. */
static int arguments(const char *name, Py_ssize_t nargs, Py_ssize_t least, Py_ssize_t most) {
    if (nargs >= least && nargs <= most) return 1;
    PyErr_Format(PyExc_TypeError, "%s() takes %zd to %zd arguments (%zd given)", name, least, most,
                 nargs);
    return 0;
}

static int is_list(const char *name, const char *what, PyObject *value) {
    if (PyList_Check(value)) return 1;
    PyErr_Format(PyExc_TypeError, "%s(): %s must be a list, not %.50s", name, what,
                 Py_TYPE(value)->tp_name);
    return 0;
}

static int is_dict(const char *name, const char *what, PyObject *value) {
    if (PyDict_Check(value)) return 1;
    PyErr_Format(PyExc_TypeError, "%s(): %s must be a dict, not %.50s", name, what,
                 Py_TYPE(value)->tp_name);
    return 0;
}

/* Room for one more item at `count` in a growing array, doubled when full (`first` items
   at first); on no memory, sets the error and returns `failed` from the caller. */
#define MAKE_ROOM(array, count, room, first, failed)                                     \
    do {                                                                                 \
        if ((count) == (room)) {                                                         \
            Py_ssize_t bigger_ = (room) ? 2 * (room) : (first);                          \
            void *moved_ = PyMem_Realloc((array), (size_t)bigger_ * sizeof(*(array)));   \
            if (moved_ == NULL) {                                                        \
                PyErr_NoMemory();                                                        \
                return (failed);                                                         \
            }                                                                            \
            (array) = moved_;                                                            \
            (room) = bigger_;                                                            \
        }                                                                                \
    } while (0)

/* extend(node, what, key): the slot or child Python worked out, kept in the tree. */
static PyObject *grow(Walk *w, PyObject *node, const char *what, PyObject *key) {
    return PyObject_CallFunction(w->extend, "OsO", node, what, key);
}

static int track(Walk *w, Py_ssize_t slot, double value) {
    Entry *e = w->tracking;
    if (slot < 0 || slot >= w->size || value != floor(value) || fabs(value) > 4503599627370496.0) {
        e->exact = 0;
        return 1;
    }
    e->magnitude += fabs(value);
    if (e->magnitude > 4503599627370496.0) e->exact = 0;
    Memo *m = w->memo;
    if (!m->marks[slot]) {
        MAKE_ROOM(e->touched, e->touched_count, e->touched_room, 64, -1);
        e->touched[e->touched_count++] = slot;
        m->marks[slot] = 1;
    }
    m->sums[slot] += value;
    return 1;
}

static int add(Walk *w, Py_ssize_t slot, double value) {
    if (w->tracking != NULL && w->tracking->exact && track(w, slot, value) < 0) return -1;
    if (slot >= 0) {
        if (slot >= w->size) {
            PyErr_SetString(PyExc_ValueError, "slot outside the vector");
            return -1;
        }
        w->out[slot] += value;
        return 1;
    }
    MAKE_ROOM(w->outside, w->outside_count, w->outside_room, 64, -1);
    w->outside[w->outside_count].feature = -2 - slot;
    w->outside[w->outside_count].value = value;
    w->outside_count++;
    return 1;
}

/* The slot held at `index` of `holder` (a node or a token list), asking Python for it
   while it is -1. */
static int slot_at(Walk *w, PyObject *node, PyObject *holder, Py_ssize_t index, const char *what,
                   PyObject *key, Py_ssize_t *slot) {
    *slot = PyLong_AsSsize_t(PyList_GET_ITEM(holder, index));
    if (*slot == -1 && PyErr_Occurred()) return -1;
    if (*slot != -1) return 1;
    PyObject *made = grow(w, node, what, key);
    if (made == NULL) return -1;
    *slot = PyLong_AsSsize_t(made);
    Py_DECREF(made);
    return (*slot == -1 && PyErr_Occurred()) ? -1 : 1;
}

/* The entry `key` of the node's dict `field` (children or string tokens), asking Python
   for it when the dict lacks it; a new reference, NULL on an error. */
static PyObject *find(Walk *w, PyObject *node, int field, const char *what, PyObject *key) {
    PyObject *table = FIELD(node, field);
    PyObject *found = table == Py_None ? NULL : PyDict_GetItemWithError(table, key);
    if (found != NULL) {
        Py_INCREF(found);
        return found;
    }
    if (PyErr_Occurred()) return NULL;
    return grow(w, node, what, key);
}

static int walk(Walk *w, PyObject *node, PyObject *value);

static int walk_child(Walk *w, PyObject *node, PyObject *child, PyObject *value) {
    if (!PyList_CheckExact(child) || PyList_GET_SIZE(child) < NODE_FIELDS) {
        PyErr_SetString(PyExc_TypeError, "a layout node must be a list of its fields");
        return -1;
    }
    return walk(w, child, value);
}

static int walk(Walk *w, PyObject *node, PyObject *value) {
    Py_ssize_t slot;
    int done;
    if (PyDict_CheckExact(value)) {
        PyObject *key, *item;
        Py_ssize_t pos = 0;
        while (PyDict_Next(value, &pos, &key, &item)) {
            PyObject *child = find(w, node, CHILDREN, "key", key);
            if (child == NULL) return -1;
            done = walk_child(w, node, child, item);
            Py_DECREF(child);
            if (done != 1) return done;
        }
        return 1;
    }
    if (PyList_CheckExact(value)) {
        Py_ssize_t n = PyList_GET_SIZE(value);
        if (n == 0) return 1;
        if (FIELD(node, ITEMS) == Py_None && FIELD(node, BAG) == Py_None) {
            PyObject *made = grow(w, node, "list", Py_None);
            if (made == NULL) return -1;
            Py_DECREF(made);
        }
        PyObject *items = FIELD(node, ITEMS);
        if (items != Py_None) {
            if (n > PyList_GET_SIZE(items)) {
                PyObject *length = PyLong_FromSsize_t(n);
                if (length == NULL) return -1;
                PyObject *made = grow(w, node, "items", length);
                Py_DECREF(length);
                if (made == NULL) return -1;
                Py_DECREF(made);
                items = FIELD(node, ITEMS);
            }
            for (Py_ssize_t i = 0; i < n; i++) {
                done = walk_child(w, node, PyList_GET_ITEM(items, i), PyList_GET_ITEM(value, i));
                if (done != 1) return done;
            }
            return 1;
        }
        PyObject *bag = FIELD(node, BAG);
        for (Py_ssize_t i = 0; i < n; i++) {
            done = walk_child(w, node, bag, PyList_GET_ITEM(value, i));
            if (done != 1) return done;
        }
        return 1;
    }
    if (PyBool_Check(value)) {
        if (slot_at(w, node, node, NUMBER_SLOT, "number", Py_None, &slot) < 0) return -1;
        return add(w, slot, value == Py_True ? 1.0 : 0.0);
    }
    if (PyLong_CheckExact(value)) {
        int overflow = 0;
        long long small = PyLong_AsLongLongAndOverflow(value, &overflow);
        double number;
        if (overflow || small > (1LL << 53) || small < -(1LL << 53)) {
            number = PyLong_AsDouble(value); /* rounds as 0.0 + int does */
            if (number == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
                return 0; /* too big for a float: the Python encoder says what happens */
            }
        } else {
            number = (double)small;
        }
        if (slot_at(w, node, node, NUMBER_SLOT, "number", Py_None, &slot) < 0) return -1;
        if ((done = add(w, slot, number)) != 1) return done;
        PyObject *tokens = FIELD(node, INT_TOKENS);
        if (tokens == Py_None || overflow || small < 0 || small > SMALL_INT) return 1;
        if (slot_at(w, node, tokens, (Py_ssize_t)small, "int", value, &slot) < 0) return -1;
        return add(w, slot, 1.0);
    }
    if (PyFloat_CheckExact(value)) {
        if (slot_at(w, node, node, NUMBER_SLOT, "number", Py_None, &slot) < 0) return -1;
        return add(w, slot, PyFloat_AS_DOUBLE(value));
    }
    if (value == Py_None) {
        if (slot_at(w, node, node, NONE_SLOT, "none", Py_None, &slot) < 0) return -1;
        return add(w, slot, 1.0);
    }
    if (PyUnicode_CheckExact(value)) {
        PyObject *found = find(w, node, STR_TOKENS, "str", value);
        if (found == NULL) return -1;
        slot = PyLong_AsSsize_t(found);
        Py_DECREF(found);
        if (slot == -1 && PyErr_Occurred()) return -1;
        return add(w, slot, 1.0);
    }
    return 0; /* any other type: the Python encoder's text token */
}

/* 1 when a and b are the same JSON value, type for type (1, 1.0 and True are three
   values: they encode differently) and key order included; 0 when not; -1 on an error. */
static int same(PyObject *a, PyObject *b) {
    if (a == b) return 1;
    PyTypeObject *type = Py_TYPE(a);
    if (type != Py_TYPE(b)) return 0;
    if (type == &PyUnicode_Type) {
        int order = PyUnicode_Compare(a, b);
        if (order == -1 && PyErr_Occurred()) return -1;
        return order == 0;
    }
    if (type == &PyLong_Type) return PyObject_RichCompareBool(a, b, Py_EQ);
    if (type == &PyFloat_Type) {
        double x = PyFloat_AS_DOUBLE(a), y = PyFloat_AS_DOUBLE(b);
        return memcmp(&x, &y, sizeof(double)) == 0;
    }
    if (type == &PyList_Type) {
        Py_ssize_t n = PyList_GET_SIZE(a);
        if (n != PyList_GET_SIZE(b)) return 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            int equal = same(PyList_GET_ITEM(a, i), PyList_GET_ITEM(b, i));
            if (equal != 1) return equal;
        }
        return 1;
    }
    if (type == &PyDict_Type) {
        if (PyDict_GET_SIZE(a) != PyDict_GET_SIZE(b)) return 0;
        Py_ssize_t i = 0, j = 0;
        PyObject *ka, *va, *kb, *vb;
        while (PyDict_Next(a, &i, &ka, &va)) {
            if (!PyDict_Next(b, &j, &kb, &vb)) return 0;
            int equal = same(ka, kb);
            if (equal == 1) equal = same(va, vb);
            if (equal != 1) return equal;
        }
        return 1;
    }
    return 0; /* no other type is remembered (the walk hands them to Python) */
}

static void entry_clear(Memo *m, Entry *e) {
    for (Py_ssize_t i = 0; i < e->touched_count; i++) {
        m->sums[e->touched[i]] = 0.0;
        m->marks[e->touched[i]] = 0;
    }
    e->touched_count = 0;
    e->magnitude = 0.0;
    e->exact = 1;
}

static Entry *entry_for(Memo *m, PyObject *key, PyObject *node) {
    for (Py_ssize_t i = 0; i < m->count; i++)
        if (m->entries[i].key == key) return &m->entries[i];
    for (Py_ssize_t i = 0; i < m->count; i++) {
        int equal = same(m->entries[i].key, key);
        if (equal < 0) return NULL;
        if (equal) return &m->entries[i];
    }
    MAKE_ROOM(m->entries, m->count, m->room, 4, NULL);
    PyObject *items = PyList_New(0);
    if (items == NULL) return NULL;
    Entry *e = &m->entries[m->count++];
    Py_INCREF(key);
    Py_INCREF(node);
    *e = (Entry){key, node, items, NULL, 0, 0, 0.0, 1};
    return e;
}

/* The bag list at a top-level key, through the view's memory: when the items remembered
   are the list's first ones, their sums go back into their slots and only the rest are
   walked; otherwise the whole list is, and remembered. */
static int walk_remembered(Walk *w, PyObject *node, PyObject *key, PyObject *list) {
    Memo *m = w->memo;
    Entry *e = entry_for(m, key, node);
    if (e == NULL) return -1;
    Py_ssize_t n = PyList_GET_SIZE(list), known = PyList_GET_SIZE(e->items);
    int reuse = e->exact && e->node == node && known <= n;
    for (Py_ssize_t i = 0; reuse && i < known; i++) {
        reuse = same(PyList_GET_ITEM(e->items, i), PyList_GET_ITEM(list, i));
        if (reuse < 0) return -1;
    }
    if (reuse) {
        for (Py_ssize_t i = 0; i < e->touched_count; i++) w->out[e->touched[i]] += m->sums[e->touched[i]];
    } else {
        entry_clear(m, e);
        if (PyList_SetSlice(e->items, 0, known, NULL) < 0) return -1;
        if (e->node != node) {
            Py_INCREF(node);
            Py_SETREF(e->node, node);
        }
        known = 0;
    }
    PyObject *bag = FIELD(node, BAG);
    int done = 1;
    w->tracking = e;
    for (Py_ssize_t i = known; i < n && done == 1; i++) {
        done = walk_child(w, node, bag, PyList_GET_ITEM(list, i));
        if (done == 1 && e->exact && PyList_Append(e->items, PyList_GET_ITEM(list, i)) < 0)
            done = -1;
    }
    w->tracking = NULL;
    if (done != 1) e->exact = 0;
    return done;
}

/* 1 when every top-level key is a str that is an identifier: then no two keys' paths
   share a slot (".a" and ".a.b" could), and a key's remembered sums are its own. The
   last safe key sequence is kept, so the check is a pointer compare per key. */
static int safe_keys(Memo *m, PyObject *observation) {
    Py_ssize_t n = PyDict_GET_SIZE(observation), pos = 0, i = 0;
    PyObject *key, *value;
    if (m->keys != NULL && PyTuple_GET_SIZE(m->keys) == n) {
        int known = 1;
        while (known && PyDict_Next(observation, &pos, &key, &value))
            known = PyTuple_GET_ITEM(m->keys, i++) == key;
        if (known) return 1;
    }
    PyObject *keys = PyTuple_New(n);
    if (keys == NULL) return -1;
    pos = 0;
    i = 0;
    while (PyDict_Next(observation, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key) || !PyUnicode_IsIdentifier(key)) {
            Py_DECREF(keys);
            return 0;
        }
        Py_INCREF(key);
        PyTuple_SET_ITEM(keys, i++, key);
    }
    Py_XSETREF(m->keys, keys);
    return 1;
}

static int walk_root(Walk *w, PyObject *root, PyObject *observation) {
    if (w->memo == NULL || !PyDict_CheckExact(observation)) return walk(w, root, observation);
    int safe = safe_keys(w->memo, observation);
    if (safe < 0) return -1;
    if (!safe) return walk(w, root, observation);
    PyObject *key, *item;
    Py_ssize_t pos = 0;
    while (PyDict_Next(observation, &pos, &key, &item)) {
        PyObject *child = find(w, root, CHILDREN, "key", key);
        if (child == NULL) return -1;
        int done;
        if (PyList_CheckExact(item) && PyList_GET_SIZE(item) > 0 && PyList_CheckExact(child) &&
            PyList_GET_SIZE(child) >= NODE_FIELDS && FIELD(child, ITEMS) == Py_None &&
            FIELD(child, BAG) != Py_None)
            done = walk_remembered(w, child, key, item);
        else
            done = walk_child(w, root, child, item);
        Py_DECREF(child);
        if (done != 1) return done;
    }
    return 1;
}

static void memo_free(PyObject *capsule) {
    Memo *m = PyCapsule_GetPointer(capsule, MEMO_NAME);
    if (m == NULL) return;
    for (Py_ssize_t i = 0; i < m->count; i++) {
        Py_DECREF(m->entries[i].key);
        Py_DECREF(m->entries[i].node);
        Py_DECREF(m->entries[i].items);
        PyMem_Free(m->entries[i].touched);
    }
    PyMem_Free(m->entries);
    PyMem_Free(m->sums);
    PyMem_Free(m->marks);
    Py_XDECREF(m->keys);
    PyMem_Free(m);
}

/* memo(size): a view's memory for encode(), for vectors of `size` entries. */
static PyObject *memo(PyObject *self, PyObject *args) {
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "n", &size)) return NULL;
    if (size < 0) {
        PyErr_SetString(PyExc_ValueError, "size must not be negative");
        return NULL;
    }
    Memo *m = PyMem_Calloc(1, sizeof(Memo));
    if (m == NULL) return PyErr_NoMemory();
    m->size = size;
    m->sums = PyMem_Calloc((size_t)(size ? size : 1), sizeof(double));
    m->marks = PyMem_Calloc((size_t)(size ? size : 1), 1);
    PyObject *capsule = NULL;
    if (m->sums == NULL || m->marks == NULL) {
        PyErr_NoMemory();
    } else {
        capsule = PyCapsule_New(m, MEMO_NAME, memo_free);
    }
    if (capsule == NULL) {
        PyMem_Free(m->sums);
        PyMem_Free(m->marks);
        PyMem_Free(m);
    }
    return capsule;
}

static double squash(double x) {
    return copysign(log1p(fabs(x)), x);
}

/* squash() of the small whole numbers most slots hold, worked out once by squash()
   itself (so the same bits): a log1p per number slot was a sixth of a walk. */
#define SQUASHED_MAX 1024
static double squashed[2 * SQUASHED_MAX + 1];

static double squash_known(double x) {
    if (x >= -SQUASHED_MAX && x <= SQUASHED_MAX) {
        int whole = (int)x;
        if ((double)whole == x) return squashed[whole + SQUASHED_MAX];
    }
    return squash(x);
}

/* The features outside the layout: summed per feature in the order each first appeared,
   squashed when numbers, then added into their overflow slots in that order. */
static int settle_outside(Walk *w) {
    Py_ssize_t n = w->outside_count, distinct = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t j = 0;
        while (j < distinct && w->outside[j].feature != w->outside[i].feature) j++;
        if (j == distinct) {
            w->outside[distinct].feature = w->outside[i].feature;
            w->outside[distinct].value = 0.0 + w->outside[i].value;
            distinct++;
        } else {
            w->outside[j].value += w->outside[i].value;
        }
    }
    for (Py_ssize_t j = 0; j < distinct; j++) {
        PyObject *feature = PyList_GetItem(w->features, w->outside[j].feature);
        if (feature == NULL) return -1;
        Py_ssize_t slot = PyLong_AsSsize_t(PyTuple_GetItem(feature, 0));
        long number = PyLong_AsLong(PyTuple_GetItem(feature, 1));
        if (PyErr_Occurred()) return -1;
        if (slot < 0 || slot >= w->size) {
            PyErr_SetString(PyExc_ValueError, "overflow slot outside the vector");
            return -1;
        }
        double value = w->outside[j].value;
        w->out[slot] += number ? squash(value) : value;
    }
    return 1;
}

/* The vector rounded to float32 into `single` (numpy's astype(float32)), or -1. */
static int to_single(PyObject *single_obj, const double *vector, Py_ssize_t size) {
    Py_buffer single;
    if (PyObject_GetBuffer(single_obj, &single, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) <
        0)
        return -1;
    int fits = single.format != NULL && strcmp(single.format, "f") == 0 &&
               single.len == size * (Py_ssize_t)sizeof(float);
    if (fits) {
        float *to = single.buf;
        Py_ssize_t i = 0;
#ifdef __SSE2__
        /* Four at a time: cvtpd2ps rounds as the scalar cvtsd2ss does (the same MXCSR
           mode), so the bits are the same; a third of the instructions of the plain loop,
           which gcc -O2 leaves scalar. */
        for (; i + 4 <= size; i += 4) {
            __m128 low = _mm_cvtpd_ps(_mm_loadu_pd(vector + i));
            __m128 high = _mm_cvtpd_ps(_mm_loadu_pd(vector + i + 2));
            _mm_storeu_ps(to + i, _mm_movelh_ps(low, high));
        }
#endif
        for (; i < size; i++) to[i] = (float)vector[i];
    } else {
        PyErr_SetString(PyExc_ValueError, "single must be a float32 buffer as long as out");
    }
    PyBuffer_Release(&single);
    return fits ? 1 : -1;
}

static PyObject *encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!arguments("encode", nargs, 6, 8)) return NULL;
    PyObject *root = args[0], *numbers_obj = args[1], *features = args[2], *extend = args[3];
    PyObject *observation = args[4], *out_obj = args[5];
    PyObject *memo_obj = nargs > 6 ? args[6] : Py_None, *single_obj = nargs > 7 ? args[7] : Py_None;
    if (!is_list("encode", "features", features)) return NULL;
    Memo *memory = NULL;
    if (memo_obj != Py_None) {
        memory = PyCapsule_GetPointer(memo_obj, MEMO_NAME);
        if (memory == NULL) return NULL;
    }
    if (!PyList_CheckExact(root) || PyList_GET_SIZE(root) < NODE_FIELDS) {
        PyErr_SetString(PyExc_TypeError, "root must be a layout node");
        return NULL;
    }
    Py_buffer out, numbers;
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (out.format == NULL || strcmp(out.format, "d") != 0) {
        PyBuffer_Release(&out);
        PyErr_SetString(PyExc_TypeError, "out must be a float64 buffer");
        return NULL;
    }
    if (PyObject_GetBuffer(numbers_obj, &numbers, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&out);
        return NULL;
    }
    if (numbers.format == NULL || strcmp(numbers.format, "q") != 0) {
        PyBuffer_Release(&out);
        PyBuffer_Release(&numbers);
        PyErr_SetString(PyExc_TypeError, "numbers must be an int64 buffer");
        return NULL;
    }
    Walk w = {(double *)out.buf, out.len / (Py_ssize_t)sizeof(double), features, extend, NULL, 0, 0,
              memory, NULL};
    if (memory != NULL && memory->size != w.size) {
        PyBuffer_Release(&out);
        PyBuffer_Release(&numbers);
        PyErr_SetString(PyExc_ValueError, "the memo is for vectors of another size");
        return NULL;
    }
    memset(w.out, 0, (size_t)out.len);
    int done = walk_root(&w, root, observation);
    if (done == 1) {
        const long long *slots = (const long long *)numbers.buf;
        Py_ssize_t n = numbers.len / (Py_ssize_t)sizeof(long long);
        for (Py_ssize_t i = 0; i < n; i++) {
            long long slot = slots[i];
            if (slot < 0 || slot >= w.size) continue;
            double x = w.out[slot];
            /* added to the vector's 0.0 as the Python encoder does (-0.0 becomes 0.0) */
            w.out[slot] = x == 0.0 ? 0.0 : 0.0 + squash_known(x);
        }
        done = settle_outside(&w);
    }
    if (done == 1 && single_obj != Py_None) done = to_single(single_obj, w.out, w.size);
    PyMem_Free(w.outside);
    PyBuffer_Release(&out);
    PyBuffer_Release(&numbers);
    if (done < 0) return NULL;
    return PyBool_FromLong(done == 1);
}

static int compare_index(const void *a, const void *b) {
    Py_ssize_t x = *(const Py_ssize_t *)a, y = *(const Py_ssize_t *)b;
    return (x > y) - (x < y);
}

/* 1 when `value` is a list of exact str and int items only: as a tuple it then equals
   exactly the catalogue's lists of the same JSON values (no bool or float to confuse). */
static int plain_list(PyObject *value) {
    if (!PyList_CheckExact(value)) return 0;
    Py_ssize_t n = PyList_GET_SIZE(value);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(value, i);
        if (!PyUnicode_CheckExact(item) && !PyLong_CheckExact(item)) return 0;
    }
    return 1;
}

/* The key of a plain dict action (string keys, str or int values, at most 8 items):
   the tuple (key, value, key, value, ...) in key order, as compiled.py builds it for the
   catalogue; NULL with no error when the dict is not plain. */
static PyObject *dict_key(PyObject *action) {
    Py_ssize_t n = PyDict_GET_SIZE(action), pos = 0, count = 0;
    PyObject *keys[8], *values[8], *key, *value;
    if (n > 8) return NULL;
    while (PyDict_Next(action, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key)) return NULL;
        if (!PyUnicode_CheckExact(value) && !PyLong_CheckExact(value)) return NULL;
        Py_ssize_t i = count++;
        while (i > 0) { /* insertion sort by key: dicts of actions are small */
            int after = PyUnicode_Compare(keys[i - 1], key);
            if (after == -1 && PyErr_Occurred()) return NULL;
            if (after <= 0) break;
            keys[i] = keys[i - 1];
            values[i] = values[i - 1];
            i--;
        }
        keys[i] = key;
        values[i] = value;
    }
    PyObject *out = PyTuple_New(2 * count);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_INCREF(keys[i]);
        Py_INCREF(values[i]);
        PyTuple_SET_ITEM(out, 2 * i, keys[i]);
        PyTuple_SET_ITEM(out, 2 * i + 1, values[i]);
    }
    return out;
}

static PyObject *lookup(PyObject *scalars, PyObject *lists, PyObject *dicts, PyObject *fallback,
                        PyObject *legal);

#define REMEMBER_FROM 16   /* legal lists of lists this long are remembered by their items */
#define REMEMBER_MOST 4096 /* lists remembered before the memory starts afresh */

/* The answer remembered for a legal list whose items are the very objects of one met
   before (an engine that keeps its lists of moves, as Troll Guts' stack orders per hand,
   hands out the same item objects again: read-only, as all an engine hands out). The
   memory holds its items, so an address met again is the same object. A new reference,
   or NULL with no error when there is none, or NULL with an error. */
static PyObject *recalled(PyObject *memory, PyObject *key, PyObject *legal) {
    PyObject *entry = PyDict_GetItemWithError(memory, key);
    if (entry == NULL) return NULL;
    PyObject *items = PyTuple_GET_ITEM(entry, 0), *answer = PyTuple_GET_ITEM(entry, 1);
    Py_ssize_t n = PyList_GET_SIZE(legal);
    if (PyTuple_GET_SIZE(items) != n) return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyTuple_GET_ITEM(items, i) != PyList_GET_ITEM(legal, i)) return NULL;
    return PyList_GetSlice(answer, 0, n); /* the caller's own copy */
}

static int remember(PyObject *memory, PyObject *key, PyObject *legal, PyObject *answer) {
    if (PyDict_GET_SIZE(memory) >= REMEMBER_MOST) PyDict_Clear(memory);
    PyObject *items = PyList_AsTuple(legal);
    PyObject *kept = PyList_GetSlice(answer, 0, PyList_GET_SIZE(answer));
    PyObject *entry = items && kept ? PyTuple_Pack(2, items, kept) : NULL;
    int done = entry ? PyDict_SetItem(memory, key, entry) : -1;
    Py_XDECREF(items);
    Py_XDECREF(kept);
    Py_XDECREF(entry);
    return done;
}

/* indices(scalars, lists, dicts, fallback, memory, legal) -> the catalogue integers of
   `legal`, ascending. Where an action is not a str, an int, a plain list or a plain dict,
   or is in no table, `fallback(legal)` decides (the codec's Python lookup, which raises
   for an action outside the catalogue), or with a None fallback the answer is None.
   `scalars` maps str and int actions to integers, `lists` plain lists (as tuples),
   `dicts` plain dicts (as dict_key's tuples). `memory` (a dict, or None) keeps the
   answers for long legal lists of lists by their items' identity (see recalled): a
   hundred tuples built and looked up in a table of 90,966 cost more than an engine's
   decision. `legal` comes last so that a functools.partial of the rest is the whole
   lookup in one C call. */
static PyObject *indices(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!arguments("indices", nargs, 6, 6)) return NULL;
    PyObject *scalars = args[0], *lists = args[1], *dicts = args[2], *fallback = args[3];
    PyObject *memory = args[4], *legal = args[5];
    if (!is_dict("indices", "scalars", scalars) || !is_dict("indices", "lists", lists) ||
        !is_dict("indices", "dicts", dicts) || !is_list("indices", "legal", legal))
        return NULL;
    if (memory != Py_None && !is_dict("indices", "memory", memory)) return NULL;
    PyObject *key = NULL;
    PyObject *first = PyList_GET_SIZE(legal) ? PyList_GET_ITEM(legal, 0) : NULL;
    /* Only items held elsewhere too can come again: a list of fresh items (Stax's moves)
       would cost the remembering at every call and never be met again. */
    if (memory != Py_None && PyList_GET_SIZE(legal) >= REMEMBER_FROM &&
        PyList_CheckExact(first) && Py_REFCNT(first) > 1) {
        key = PyLong_FromVoidPtr(first);
        if (key == NULL) return NULL;
        PyObject *answer = recalled(memory, key, legal);
        if (answer != NULL || PyErr_Occurred()) {
            Py_DECREF(key);
            return answer;
        }
    }
    PyObject *answer = lookup(scalars, lists, dicts, fallback, legal);
    if (key != NULL && answer != NULL && PyList_CheckExact(answer) &&
        remember(memory, key, legal, answer) < 0)
        Py_CLEAR(answer);
    Py_XDECREF(key);
    return answer;
}

static PyObject *lookup(PyObject *scalars, PyObject *lists, PyObject *dicts, PyObject *fallback,
                        PyObject *legal) {
    Py_ssize_t n = PyList_GET_SIZE(legal);
    Py_ssize_t *found = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(Py_ssize_t));
    if (found == NULL) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *action = PyList_GET_ITEM(legal, i), *index;
        if (PyUnicode_CheckExact(action) || PyLong_CheckExact(action)) {
            index = PyDict_GetItemWithError(scalars, action);
        } else if (plain_list(action)) {
            PyObject *key = PyList_AsTuple(action);
            if (key == NULL) goto fail;
            index = PyDict_GetItemWithError(lists, key);
            Py_DECREF(key);
        } else if (PyDict_CheckExact(action)) {
            PyObject *key = dict_key(action);
            if (key == NULL) {
                if (PyErr_Occurred()) goto fail;
                index = NULL;
            } else {
                index = PyDict_GetItemWithError(dicts, key);
                Py_DECREF(key);
            }
        } else {
            index = NULL;
        }
        if (index == NULL) {
            PyMem_Free(found);
            if (PyErr_Occurred()) return NULL;
            if (fallback == Py_None) Py_RETURN_NONE;
            return PyObject_CallOneArg(fallback, legal);
        }
        found[i] = PyLong_AsSsize_t(index);
        if (found[i] == -1 && PyErr_Occurred()) goto fail;
    }
    qsort(found, (size_t)n, sizeof(Py_ssize_t), compare_index);
    PyObject *out = PyList_New(n);
    if (out == NULL) goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *number = PyLong_FromSsize_t(found[i]);
        if (number == NULL) {
            Py_DECREF(out);
            goto fail;
        }
        PyList_SET_ITEM(out, i, number);
    }
    PyMem_Free(found);
    return out;
fail:
    PyMem_Free(found);
    return NULL;
}

/* as_floats(values, out[, mirror]): `values` (a list of len(out) Python floats) made to
   hold out's entries rounded to float32 (what numpy's astype(float32).tolist() gives),
   replacing only the entries whose bits differ (a zero's sign included). With `mirror`
   (a float32 buffer as long, holding what `values` holds; kept so), the comparison reads
   the mirror's contiguous bits instead of each list entry's float object. */
static PyObject *as_floats(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!arguments("as_floats", nargs, 2, 3)) return NULL;
    PyObject *values = args[0], *out_obj = args[1], *mirror_obj = nargs > 2 ? args[2] : Py_None;
    if (!is_list("as_floats", "values", values)) return NULL;
    Py_buffer out, mirror = {0};
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    Py_ssize_t n = out.len / (Py_ssize_t)sizeof(double);
    if (out.format == NULL || strcmp(out.format, "d") != 0 || PyList_GET_SIZE(values) != n) {
        PyBuffer_Release(&out);
        PyErr_SetString(PyExc_ValueError, "values and out must be as long, out float64");
        return NULL;
    }
    float *kept = NULL;
    if (mirror_obj != Py_None) {
        if (PyObject_GetBuffer(mirror_obj, &mirror,
                               PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
            PyBuffer_Release(&out);
            return NULL;
        }
        if (mirror.format == NULL || strcmp(mirror.format, "f") != 0 ||
            mirror.len != n * (Py_ssize_t)sizeof(float)) {
            PyBuffer_Release(&out);
            PyBuffer_Release(&mirror);
            PyErr_SetString(PyExc_ValueError, "mirror must be a float32 buffer as long as out");
            return NULL;
        }
        kept = mirror.buf;
    }
    const double *vector = (const double *)out.buf;
    int failed = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        float single = (float)vector[i];
        if (kept != NULL) {
            if (memcmp(&kept[i], &single, sizeof(float)) == 0) continue;
            kept[i] = single;
        }
        double rounded = (double)single;
        PyObject *old = PyList_GET_ITEM(values, i);
        if (kept == NULL && PyFloat_CheckExact(old)) {
            double before = PyFloat_AS_DOUBLE(old);
            if (memcmp(&before, &rounded, sizeof(double)) == 0) continue;
        }
        PyObject *number = PyFloat_FromDouble(rounded);
        if (number == NULL) {
            failed = 1;
            break;
        }
        PyList_SetItem(values, i, number); /* steals number, drops old */
    }
    PyBuffer_Release(&out);
    if (kept != NULL) PyBuffer_Release(&mirror);
    if (failed) return NULL;
    Py_RETURN_NONE;
}

static int set_entries(char *mask, Py_ssize_t size, PyObject *list, char value) {
    Py_ssize_t n = PyList_GET_SIZE(list);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t at = PyLong_AsSsize_t(PyList_GET_ITEM(list, i));
        if (at == -1 && PyErr_Occurred()) return -1;
        if (at < 0 || at >= size) {
            PyErr_SetString(PyExc_IndexError, "mask index out of range");
            return -1;
        }
        mask[at] = value;
    }
    return 0;
}

/* move_mask(mask, before, after): clear the `before` entries of an int8 mask, then set
   the `after` ones. */
static PyObject *move_mask(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!arguments("move_mask", nargs, 3, 3)) return NULL;
    PyObject *mask_obj = args[0], *before = args[1], *after = args[2];
    if (!is_list("move_mask", "before", before) || !is_list("move_mask", "after", after))
        return NULL;
    Py_buffer mask;
    if (PyObject_GetBuffer(mask_obj, &mask, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    int failed = mask.format == NULL || strcmp(mask.format, "b") != 0;
    if (failed) PyErr_SetString(PyExc_TypeError, "mask must be an int8 buffer");
    failed = failed || set_entries(mask.buf, mask.len, before, 0) < 0 ||
             set_entries(mask.buf, mask.len, after, 1) < 0;
    PyBuffer_Release(&mask);
    if (failed) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"encode", (PyCFunction)(void (*)(void))encode, METH_FASTCALL,
     "encode(root, numbers, features, extend, observation, out[, memo[, single]]) -> bool"},
    {"memo", memo, METH_VARARGS, "memo(size): a view's memory of its top-level lists, for encode"},
    {"indices", (PyCFunction)(void (*)(void))indices, METH_FASTCALL,
     "indices(scalars, lists, dicts, fallback, memory, legal) -> the legal integers, ascending"},
    {"move_mask", (PyCFunction)(void (*)(void))move_mask, METH_FASTCALL,
     "move_mask(mask, before, after): clear the before entries of an int8 mask, set the after"},
    {"as_floats", (PyCFunction)(void (*)(void))as_floats, METH_FASTCALL,
     "as_floats(values, out[, mirror]): values made to hold out's entries rounded to float32"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_encode", NULL, -1, methods};

PyMODINIT_FUNC PyInit__encode(void) {
    for (int i = -SQUASHED_MAX; i <= SQUASHED_MAX; i++) squashed[i + SQUASHED_MAX] = squash((double)i);
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "SOURCE", SOURCE_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
