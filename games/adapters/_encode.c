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
    int kind;         /* what the sums are of: ITEMS_KEPT, VALUE_KEPT, or 0 (nothing yet) */
    PyObject *value;  /* VALUE_KEPT: the value walked (NULL otherwise) */
} Entry;

/* An entry keeps either a bag list's first items (walk_remembered) or a whole value of
   any other kind (walk_valued): a value equal to the last one, type for type (`same`),
   adds what it added then without a walk. */
enum { ITEMS_KEPT = 1, VALUE_KEPT = 2 };

typedef struct {
    Py_ssize_t size;
    double *sums;         /* per slot, what the entries' items added */
    unsigned char *marks; /* per slot, 1 once in an entry's touched list */
    Entry *entries;
    Py_ssize_t count, room;
    PyObject *keys; /* the last top-level keys found safe to remember lists under */
    /* The layout nodes of those keys, in their order, under `root`: an observation with
       the very same keys (the same objects, in the same order) finds its nodes here
       instead of a dict lookup per key (a node, once made, stays its key's for good). */
    PyObject *root;
    PyObject *children;
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
    /* whole and at most 2**52 (NaN fails the first test): a cast, not a call to floor() */
    if (slot < 0 || slot >= w->size || !(fabs(value) <= 4503599627370496.0) ||
        value != (double)(long long)value) {
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

/* The view's entry for `key` (`hint`: where it was in the last call, its place in the
   observation's keys), made when there is none. */
static Entry *entry_for(Memo *m, PyObject *key, PyObject *node, Py_ssize_t hint) {
    if (hint >= 0 && hint < m->count && m->entries[hint].key == key) return &m->entries[hint];
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
    *e = (Entry){key, node, items, NULL, 0, 0, 0.0, 1, 0, NULL};
    return e;
}

/* The bag list at a top-level key, through the view's memory: when the items remembered
   are the list's first ones, their sums go back into their slots and only the rest are
   walked; otherwise the whole list is, and remembered. */
static int walk_remembered(Walk *w, PyObject *node, PyObject *key, PyObject *list,
                           Py_ssize_t hint) {
    Memo *m = w->memo;
    Entry *e = entry_for(m, key, node, hint);
    if (e == NULL) return -1;
    Py_ssize_t n = PyList_GET_SIZE(list), known = PyList_GET_SIZE(e->items);
    int reuse = e->exact && e->kind == ITEMS_KEPT && e->node == node && known <= n;
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
        Py_CLEAR(e->value);
        e->kind = ITEMS_KEPT;
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

/* Any other value at a top-level key, through the view's memory: a value equal to the
   one walked last time adds the same sums to the same slots (no two keys share a slot,
   and whole sums are exact in any order); otherwise it is walked, and remembered. */
static int walk_valued(Walk *w, PyObject *root, PyObject *node, PyObject *key, PyObject *value,
                       Py_ssize_t hint) {
    Memo *m = w->memo;
    Entry *e = entry_for(m, key, node, hint);
    if (e == NULL) return -1;
    if (e->exact && e->kind == VALUE_KEPT && e->node == node && e->value != NULL) {
        int equal = same(e->value, value);
        if (equal < 0) return -1;
        if (equal) {
            for (Py_ssize_t i = 0; i < e->touched_count; i++)
                w->out[e->touched[i]] += m->sums[e->touched[i]];
            Py_INCREF(value);
            Py_SETREF(e->value, value); /* the newest: met again as the same object */
            return 1;
        }
    }
    entry_clear(m, e);
    if (PyList_GET_SIZE(e->items) && PyList_SetSlice(e->items, 0, PyList_GET_SIZE(e->items), NULL) < 0)
        return -1;
    if (e->node != node) {
        Py_INCREF(node);
        Py_SETREF(e->node, node);
    }
    Py_CLEAR(e->value);
    e->kind = VALUE_KEPT;
    w->tracking = e;
    int done = walk_child(w, root, node, value);
    w->tracking = NULL;
    if (done != 1) {
        e->exact = 0;
        return done;
    }
    e->value = Py_NewRef(value);
    return 1;
}

/* 1 when every top-level key is a str that is an identifier: then no two keys' paths
   share a slot (".a" and ".a.b" could), and a key's remembered sums are its own; 2 when
   besides the keys are the very ones of the last call, in the same order. The last safe
   key sequence is kept, so the check is a pointer compare per key. */
static int safe_keys(Memo *m, PyObject *observation) {
    Py_ssize_t n = PyDict_GET_SIZE(observation), pos = 0, i = 0;
    PyObject *key, *value;
    if (m->keys != NULL && PyTuple_GET_SIZE(m->keys) == n) {
        int known = 1;
        while (known && PyDict_Next(observation, &pos, &key, &value))
            known = PyTuple_GET_ITEM(m->keys, i++) == key;
        if (known) return 2;
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
    Py_CLEAR(m->children);
    return 1;
}

static int walk_root(Walk *w, PyObject *root, PyObject *observation) {
    if (w->memo == NULL || !PyDict_CheckExact(observation)) return walk(w, root, observation);
    Memo *m = w->memo;
    int safe = safe_keys(m, observation);
    if (safe < 0) return -1;
    if (!safe) return walk(w, root, observation);
    PyObject *known = safe == 2 && m->root == root ? m->children : NULL;
    PyObject *made = NULL;
    if (known == NULL) {
        made = PyTuple_New(PyDict_GET_SIZE(observation));
        if (made == NULL) return -1;
    }
    PyObject *key, *item;
    Py_ssize_t pos = 0, i = 0;
    while (PyDict_Next(observation, &pos, &key, &item)) {
        PyObject *child;
        if (known != NULL) {
            child = PyTuple_GET_ITEM(known, i);
            Py_INCREF(child);
        } else {
            child = find(w, root, CHILDREN, "key", key);
            if (child == NULL) {
                Py_DECREF(made);
                return -1;
            }
            Py_INCREF(child);
            PyTuple_SET_ITEM(made, i, child);
        }
        i++;
        int done;
        if (PyList_CheckExact(item) && PyList_GET_SIZE(item) > 0 && PyList_CheckExact(child) &&
            PyList_GET_SIZE(child) >= NODE_FIELDS && FIELD(child, ITEMS) == Py_None &&
            FIELD(child, BAG) != Py_None)
            done = walk_remembered(w, child, key, item, i - 1);
        else
            done = walk_valued(w, root, child, key, item, i - 1);
        Py_DECREF(child);
        if (done != 1) {
            Py_XDECREF(made);
            return done;
        }
    }
    if (made != NULL) {
        Py_XSETREF(m->children, made);
        Py_INCREF(root);
        Py_XSETREF(m->root, root);
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
        Py_XDECREF(m->entries[i].value);
        PyMem_Free(m->entries[i].touched);
    }
    PyMem_Free(m->entries);
    PyMem_Free(m->sums);
    PyMem_Free(m->marks);
    Py_XDECREF(m->keys);
    Py_XDECREF(m->root);
    Py_XDECREF(m->children);
    PyMem_Free(m);
}

static PyObject *make_memo(Py_ssize_t size) {
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

/* memo(size): a view's memory for encode(), for vectors of `size` entries. */
static PyObject *memo(PyObject *self, PyObject *args) {
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "n", &size)) return NULL;
    return make_memo(size);
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

/* The walk of `observation` into `out_obj` (float64, the layout's size) and, unless None,
   into `single_obj` rounded to float32: 1 done, 0 the walk gave up (the caller runs the
   Python encoder), -1 an error. */
static int encode_core(PyObject *root, PyObject *numbers_obj, PyObject *features,
                       PyObject *extend, PyObject *observation, PyObject *out_obj,
                       Memo *memory, PyObject *single_obj) {
    if (!is_list("encode", "features", features)) return -1;
    if (!PyList_CheckExact(root) || PyList_GET_SIZE(root) < NODE_FIELDS) {
        PyErr_SetString(PyExc_TypeError, "root must be a layout node");
        return -1;
    }
    Py_buffer out, numbers;
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (out.format == NULL || strcmp(out.format, "d") != 0) {
        PyBuffer_Release(&out);
        PyErr_SetString(PyExc_TypeError, "out must be a float64 buffer");
        return -1;
    }
    if (PyObject_GetBuffer(numbers_obj, &numbers, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&out);
        return -1;
    }
    if (numbers.format == NULL || strcmp(numbers.format, "q") != 0) {
        PyBuffer_Release(&out);
        PyBuffer_Release(&numbers);
        PyErr_SetString(PyExc_TypeError, "numbers must be an int64 buffer");
        return -1;
    }
    Walk w = {(double *)out.buf, out.len / (Py_ssize_t)sizeof(double), features, extend, NULL, 0, 0,
              memory, NULL};
    if (memory != NULL && memory->size != w.size) {
        PyBuffer_Release(&out);
        PyBuffer_Release(&numbers);
        PyErr_SetString(PyExc_ValueError, "the memo is for vectors of another size");
        return -1;
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
    return done;
}

static PyObject *encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!arguments("encode", nargs, 6, 8)) return NULL;
    PyObject *memo_obj = nargs > 6 ? args[6] : Py_None, *single_obj = nargs > 7 ? args[7] : Py_None;
    Memo *memory = NULL;
    if (memo_obj != Py_None) {
        memory = PyCapsule_GetPointer(memo_obj, MEMO_NAME);
        if (memory == NULL) return NULL;
    }
    int done = encode_core(args[0], args[1], args[2], args[3], args[4], args[5], memory, single_obj);
    if (done < 0) return NULL;
    return PyBool_FromLong(done == 1);
}

static PyObject *make_memo(Py_ssize_t size);

/* What encode_view and tensor_view share: `bound` is compiled.py's list
   [root, numbers, features, extend, out, memos, size, max_views, max_outside]. The view's
   memo is found in (or added to) `memos`, at most max_views of them (then it starts
   afresh), and the walk goes into `out`. 1 done, 0 Python's turn (the layout holds
   max_outside features outside it and must start again, or the walk gave up), -1. */
enum { B_ROOT, B_NUMBERS, B_FEATURES, B_EXTEND, B_OUT, B_MEMOS, B_SIZE, B_MAX_VIEWS,
       B_MAX_OUTSIDE, B_FIELDS };

static int encode_bound(PyObject *bound, PyObject *observation, PyObject *view,
                        PyObject *single_obj) {
    if (!PyList_CheckExact(bound) || PyList_GET_SIZE(bound) < B_FIELDS) {
        PyErr_SetString(PyExc_TypeError, "bound must be the encoder's bound list");
        return -1;
    }
    PyObject *features = PyList_GET_ITEM(bound, B_FEATURES);
    PyObject *memos = PyList_GET_ITEM(bound, B_MEMOS);
    if (!is_list("encode_view", "features", features) || !is_dict("encode_view", "memos", memos))
        return -1;
    Py_ssize_t most = PyLong_AsSsize_t(PyList_GET_ITEM(bound, B_MAX_OUTSIDE));
    if (most == -1 && PyErr_Occurred()) return -1;
    if (PyList_GET_SIZE(features) > most) return 0;
    PyObject *capsule = PyDict_GetItemWithError(memos, view);
    if (capsule == NULL) {
        if (PyErr_Occurred()) return -1;
        Py_ssize_t views = PyLong_AsSsize_t(PyList_GET_ITEM(bound, B_MAX_VIEWS));
        Py_ssize_t size = PyLong_AsSsize_t(PyList_GET_ITEM(bound, B_SIZE));
        if (PyErr_Occurred()) return -1;
        if (PyDict_GET_SIZE(memos) >= views) PyDict_Clear(memos);
        PyObject *made = make_memo(size);
        if (made == NULL) return -1;
        int stored = PyDict_SetItem(memos, view, made);
        Py_DECREF(made);
        if (stored < 0) return -1;
        capsule = made; /* the dict holds it */
    }
    Memo *memory = PyCapsule_GetPointer(capsule, MEMO_NAME);
    if (memory == NULL) return -1;
    return encode_core(PyList_GET_ITEM(bound, B_ROOT), PyList_GET_ITEM(bound, B_NUMBERS), features,
                       PyList_GET_ITEM(bound, B_EXTEND), observation, PyList_GET_ITEM(bound, B_OUT),
                       memory, single_obj);
}

static PyObject *str_copy, *str_observation, *str_action_mask;

/* encode_view(bound, observation, view, single[, mask]) -> `single` (a float32 buffer of
   the layout's size) holding the vector of `observation`, or with `mask` PettingZoo's
   {"observation": single, "action_mask": mask.copy()}; None when Python must encode
   (see encode_bound): compiled.CompiledEncoder.encode's work in one call. */
static PyObject *encode_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!arguments("encode_view", nargs, 4, 5)) return NULL;
    PyObject *single = args[3];
    int done = encode_bound(args[0], args[1], args[2], single);
    if (done < 0) return NULL;
    if (done == 0) Py_RETURN_NONE;
    if (nargs < 5) return Py_NewRef(single);
    PyObject *mask = PyObject_CallMethodNoArgs(args[4], str_copy);
    if (mask == NULL) return NULL;
    PyObject *out = PyDict_New();
    if (out == NULL || PyDict_SetItem(out, str_observation, single) < 0 ||
        PyDict_SetItem(out, str_action_mask, mask) < 0) {
        Py_XDECREF(out);
        Py_DECREF(mask);
        return NULL;
    }
    Py_DECREF(mask);
    return out;
}

static int floats_into(PyObject *values, const double *vector, Py_ssize_t n, float *kept);

/* tensor_view(bound, observation, view, values, mirror) -> a fresh list of the vector's
   entries rounded to float32, `values` and its float32 `mirror` brought up to date first
   (as_floats); None when Python must encode. OpenSpiel's observation tensor in one call. */
static PyObject *tensor_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!arguments("tensor_view", nargs, 5, 5)) return NULL;
    PyObject *values = args[3];
    if (!is_list("tensor_view", "values", values)) return NULL;
    int done = encode_bound(args[0], args[1], args[2], Py_None);
    if (done < 0) return NULL;
    if (done == 0) Py_RETURN_NONE;
    Py_buffer out, mirror;
    if (PyObject_GetBuffer(PyList_GET_ITEM(args[0], B_OUT), &out, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) <
        0)
        return NULL;
    if (PyObject_GetBuffer(args[4], &mirror, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) <
        0) {
        PyBuffer_Release(&out);
        return NULL;
    }
    Py_ssize_t n = out.len / (Py_ssize_t)sizeof(double);
    int fits = out.format != NULL && strcmp(out.format, "d") == 0 && mirror.format != NULL &&
               strcmp(mirror.format, "f") == 0 && mirror.len == n * (Py_ssize_t)sizeof(float) &&
               PyList_GET_SIZE(values) == n;
    int failed = !fits;
    if (!fits)
        PyErr_SetString(PyExc_ValueError, "values, out and mirror must be as long (float64, float32)");
    else
        failed = floats_into(values, out.buf, n, mirror.buf) < 0;
    PyBuffer_Release(&out);
    PyBuffer_Release(&mirror);
    if (failed) return NULL;
    return PyList_GetSlice(values, 0, n);
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
   `scalars` maps str and int actions to integers, `lists` plain lists (as tuples; a
   pair [a, b] also as lists[a][b]),
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
        } else if (plain_list(action) && PyList_GET_SIZE(action) == 2) {
            /* a pair: lists[first][second], no tuple to make and hash */
            PyObject *inner = PyDict_GetItemWithError(lists, PyList_GET_ITEM(action, 0));
            index = inner != NULL && PyDict_CheckExact(inner)
                        ? PyDict_GetItemWithError(inner, PyList_GET_ITEM(action, 1))
                        : NULL;
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

/* values[i] made the float of vector[i] rounded to float32 where its bits differ (see
   as_floats); 0, or -1 on no memory. */
static int floats_into(PyObject *values, const double *vector, Py_ssize_t n, float *kept) {
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
        if (number == NULL) return -1;
        PyList_SetItem(values, i, number); /* steals number, drops old */
    }
    return 0;
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
    int failed = floats_into(values, (const double *)out.buf, n, kept) < 0;
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

/* PettingZoo's step, last and seat selection (games/adapters/pettingzoo.py, ArenaEnv) for
   the common case, with the environment's own attributes: what its Python methods do,
   line for line, without a bytecode per line (they were a third of a decision on the
   fastest engines). env_step and env_last answer False and None, before changing
   anything, where the Python methods must run instead (an action outside the legal
   integers, a seat not the one selected, a match that just ended, rendering, the
   Python encoder's turn). */

static PyObject *s_now, *s_agent_selection, *s_terminations, *s_truncations, *s_rewarded,
    *s_render_mode, *s_scalar_actions, *s_action_of, *s_cumulative, *s_pending, *s_queue,
    *s_advance, *s_select, *s_infos, *s_accumulate, *s_possible_agents, *s_turn, *s_seen,
    *s_state, *s_legal_now, *s_legal_actions, *s_indices, *s_masks, *s_move_mask, *s_legal,
    *s_raw_observation, *s_bound, *s_fresh, *zero;

static int intern_names(void) {
    struct {
        PyObject **name;
        const char *text;
    } names[] = {
        {&s_now, "_now"},
        {&s_agent_selection, "agent_selection"},
        {&s_terminations, "terminations"},
        {&s_truncations, "truncations"},
        {&s_rewarded, "_rewarded"},
        {&s_render_mode, "render_mode"},
        {&s_scalar_actions, "_scalar_actions"},
        {&s_action_of, "_action_of"},
        {&s_cumulative, "_cumulative_rewards"},
        {&s_pending, "_pending"},
        {&s_queue, "_queue"},
        {&s_advance, "_advance"},
        {&s_select, "_select"},
        {&s_infos, "infos"},
        {&s_accumulate, "_accumulate_rewards"},
        {&s_possible_agents, "possible_agents"},
        {&s_turn, "_turn"},
        {&s_seen, "_seen"},
        {&s_state, "state"},
        {&s_legal_now, "_legal_now"},
        {&s_legal_actions, "legal_actions"},
        {&s_indices, "_indices"},
        {&s_masks, "_masks"},
        {&s_move_mask, "_move_mask"},
        {&s_legal, "legal"},
        {&s_raw_observation, "raw_observation"},
        {&s_bound, "_bound"},
        {&s_fresh, "_fresh"},
        {&str_copy, "copy"},
        {&str_observation, "observation"},
        {&str_action_mask, "action_mask"},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        *names[i].name = PyUnicode_InternFromString(names[i].text);
        if (*names[i].name == NULL) return -1;
    }
    zero = PyFloat_FromDouble(0.0);
    return zero == NULL ? -1 : 0;
}

/* The environment's attributes are read and set in its instance dict (its class has no
   descriptor for any of them): a dict lookup with an interned key, where the generic
   attribute machinery cost several times that. */
static PyObject *field(PyObject *fields, PyObject *name) {
    PyObject *value = PyDict_GetItemWithError(fields, name);
    if (value == NULL) {
        if (!PyErr_Occurred()) PyErr_SetObject(PyExc_AttributeError, name);
        return NULL;
    }
    return Py_NewRef(value);
}

/* 1 when a tuple of `size` items, else 0. */
static int tuple_of(PyObject *value, Py_ssize_t size) {
    return PyTuple_CheckExact(value) && PyTuple_GET_SIZE(value) == size;
}

/* 1 when the (turn, seat, value) cache `known` is for this turn and seat, 0 when not,
   -1 on an error (Python's `known[0] == turn and known[1] == seat`). */
static int cached_for(PyObject *known, PyObject *turn, PyObject *seat) {
    if (!tuple_of(known, 3)) return 0;
    int equal = PyObject_RichCompareBool(PyTuple_GET_ITEM(known, 0), turn, Py_EQ);
    if (equal != 1) return equal;
    return PyObject_RichCompareBool(PyTuple_GET_ITEM(known, 1), seat, Py_EQ);
}

static int call_method(PyObject *env, PyObject *name) {
    PyObject *done = PyObject_CallMethodNoArgs(env, name);
    Py_XDECREF(done);
    return done == NULL ? -1 : 0;
}

/* ArenaEnv._select: 0, or -1 on an error. */
static int env_select(PyObject *env, PyObject *fields) {
    PyObject *queue = field(fields, s_queue);
    if (queue == NULL) return -1;
    if (!PyList_CheckExact(queue) || PyList_GET_SIZE(queue) == 0) {
        Py_DECREF(queue);
        return call_method(env, s_select); /* no seat to choose: Python's own */
    }
    PyObject *seat = Py_NewRef(PyList_GET_ITEM(queue, 0));
    Py_DECREF(queue);
    PyObject *possible = NULL, *agent = NULL, *turn = NULL, *seen = NULL, *state = NULL;
    PyObject *observation = NULL, *known = NULL, *legal = NULL, *indices = NULL, *mask = NULL;
    PyObject *allowed = NULL, *now = NULL, *infos = NULL, *info = NULL, *listed = NULL;
    int result = -1, hit;
    if ((possible = field(fields, s_possible_agents)) == NULL) goto done;
    if ((agent = PyObject_GetItem(possible, seat)) == NULL) goto done;
    if (PyDict_SetItem(fields, s_agent_selection, agent) < 0) goto done;
    if ((turn = field(fields, s_turn)) == NULL) goto done;
    if ((seen = field(fields, s_seen)) == NULL) goto done;
    if ((state = field(fields, s_state)) == NULL) goto done;
    if ((hit = cached_for(seen, turn, seat)) < 0) goto done;
    if (hit) {
        observation = Py_NewRef(PyTuple_GET_ITEM(seen, 2));
    } else {
        observation = PyObject_CallMethodOneArg(state, str_observation, seat);
        if (observation == NULL) goto done;
        PyObject *made = PyTuple_Pack(3, turn, seat, observation);
        if (made == NULL) goto done;
        int set = PyDict_SetItem(fields, s_seen, made);
        Py_DECREF(made);
        if (set < 0) goto done;
    }
    if ((known = field(fields, s_legal_now)) == NULL) goto done;
    if ((hit = cached_for(known, turn, seat)) < 0) goto done;
    if (hit && tuple_of(PyTuple_GET_ITEM(known, 2), 4)) {
        PyObject *value = PyTuple_GET_ITEM(known, 2);
        legal = Py_NewRef(PyTuple_GET_ITEM(value, 0));
        indices = Py_NewRef(PyTuple_GET_ITEM(value, 1));
        mask = Py_NewRef(PyTuple_GET_ITEM(value, 2));
        allowed = Py_NewRef(PyTuple_GET_ITEM(value, 3));
    } else {
        PyObject *lookup = NULL, *masks = NULL, *entry = NULL, *mover = NULL, *moved = NULL;
        PyObject *kept = NULL, *value = NULL, *cache = NULL;
        int ok = 0;
        if ((legal = PyObject_CallMethodOneArg(state, s_legal_actions, seat)) == NULL) goto legal_done;
        if ((lookup = field(fields, s_indices)) == NULL) goto legal_done;
        if ((indices = PyObject_CallOneArg(lookup, legal)) == NULL) goto legal_done;
        if ((masks = field(fields, s_masks)) == NULL) goto legal_done;
        if ((entry = PyObject_GetItem(masks, seat)) == NULL) goto legal_done;
        if (!tuple_of(entry, 3)) {
            PyErr_SetString(PyExc_TypeError, "a seat's mask entry must be (mask, allowed, previous)");
            goto legal_done;
        }
        mask = Py_NewRef(PyTuple_GET_ITEM(entry, 0));
        allowed = Py_NewRef(PyTuple_GET_ITEM(entry, 1));
        if ((mover = field(fields, s_move_mask)) == NULL) goto legal_done;
        moved = PyObject_CallFunctionObjArgs(mover, mask, PyTuple_GET_ITEM(entry, 2), indices, NULL);
        if (moved == NULL) goto legal_done;
        if ((kept = PyTuple_Pack(3, mask, allowed, indices)) == NULL) goto legal_done;
        if (PyObject_SetItem(masks, seat, kept) < 0) goto legal_done;
        if ((value = PyTuple_Pack(4, legal, indices, mask, allowed)) == NULL) goto legal_done;
        if ((cache = PyTuple_Pack(3, turn, seat, value)) == NULL) goto legal_done;
        if (PyDict_SetItem(fields, s_legal_now, cache) < 0) goto legal_done;
        ok = 1;
    legal_done:
        Py_XDECREF(lookup);
        Py_XDECREF(masks);
        Py_XDECREF(entry);
        Py_XDECREF(mover);
        Py_XDECREF(moved);
        Py_XDECREF(kept);
        Py_XDECREF(value);
        Py_XDECREF(cache);
        if (!ok) goto done;
    }
    now = PyTuple_Pack(7, agent, seat, observation, legal, indices, mask, allowed);
    if (now == NULL || PyDict_SetItem(fields, s_now, now) < 0) goto done;
    if ((infos = field(fields, s_infos)) == NULL) goto done;
    if ((info = PyDict_New()) == NULL) goto done;
    if ((listed = PySequence_GetSlice(indices, 0, PY_SSIZE_T_MAX)) == NULL) goto done;
    if (PyDict_SetItem(info, s_legal, legal) < 0 || PyDict_SetItem(info, s_legal_actions, listed) < 0 ||
        PyDict_SetItem(info, s_raw_observation, observation) < 0)
        goto done;
    if (PyObject_SetItem(infos, agent, info) < 0) goto done;
    result = 0;
done:
    Py_DECREF(seat);
    Py_XDECREF(possible);
    Py_XDECREF(agent);
    Py_XDECREF(turn);
    Py_XDECREF(seen);
    Py_XDECREF(state);
    Py_XDECREF(observation);
    Py_XDECREF(known);
    Py_XDECREF(legal);
    Py_XDECREF(indices);
    Py_XDECREF(mask);
    Py_XDECREF(allowed);
    Py_XDECREF(now);
    Py_XDECREF(infos);
    Py_XDECREF(info);
    Py_XDECREF(listed);
    return result;
}

/* 1 when `agent` is neither terminated nor truncated (both values exactly False), 0 when
   Python must look, -1 on an error. */
static int alive(PyObject *fields, PyObject *agent) {
    PyObject *names[2] = {s_terminations, s_truncations};
    for (int i = 0; i < 2; i++) {
        PyObject *table = field(fields, names[i]);
        if (table == NULL) return -1;
        PyObject *value = PyDict_CheckExact(table) ? PyDict_GetItemWithError(table, agent) : NULL;
        Py_DECREF(table);
        if (value == NULL && PyErr_Occurred()) return -1;
        if (value != Py_False) return 0;
    }
    return 1;
}

/* 1 when the int `index` is among the ascending exact ints of the list `indices`. */
static int listed_index(PyObject *indices, Py_ssize_t index) {
    if (!PyList_CheckExact(indices)) return 0;
    Py_ssize_t low = 0, high = PyList_GET_SIZE(indices);
    while (low < high) {
        Py_ssize_t middle = (low + high) / 2;
        PyObject *item = PyList_GET_ITEM(indices, middle);
        if (!PyLong_CheckExact(item)) return 0;
        Py_ssize_t value = PyLong_AsSsize_t(item);
        if (value == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (value == index) return 1;
        if (value < index) low = middle + 1;
        else high = middle;
    }
    return 0;
}

/* env_step(env, action) -> True (stepped) or False (nothing done: ArenaEnv.step's Python
   must run). */
static PyObject *env_step(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!arguments("env_step", nargs, 2, 2)) return NULL;
    PyObject *env = args[0], *action = args[1];
    if (!PyLong_CheckExact(action)) Py_RETURN_FALSE;
    PyObject *fields = PyObject_GenericGetDict(env, NULL);
    if (fields == NULL) return NULL;
    PyObject *now = NULL, *agent = NULL, *value = NULL, *chosen = NULL, *queue = NULL;
    PyObject *table = NULL, *answer = NULL;
    if ((now = field(fields, s_now)) == NULL) goto finish;
    if ((agent = field(fields, s_agent_selection)) == NULL) goto finish;
    if (!tuple_of(now, 7) || PyTuple_GET_ITEM(now, 0) != agent) goto python;
    if ((value = field(fields, s_render_mode)) == NULL) goto finish;
    int quiet = value == Py_None;
    Py_CLEAR(value);
    if (!quiet) goto python;
    if ((value = field(fields, s_rewarded)) == NULL) goto finish;
    quiet = value == Py_False;
    Py_CLEAR(value);
    if (!quiet) goto python;
    int living = alive(fields, agent);
    if (living < 0) goto finish;
    if (!living) goto python;
    Py_ssize_t index = PyLong_AsSsize_t(action);
    if (index == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        goto python;
    }
    if (index < 0 || !listed_index(PyTuple_GET_ITEM(now, 4), index)) goto python;
    if ((queue = field(fields, s_queue)) == NULL) goto finish;
    if (!PyList_CheckExact(queue) || PyList_GET_SIZE(queue) == 0) goto python;
    if ((table = field(fields, s_scalar_actions)) == NULL) goto finish;
    if (!PyList_CheckExact(table) || index >= PyList_GET_SIZE(table)) goto python;
    chosen = Py_NewRef(PyList_GET_ITEM(table, index));
    Py_CLEAR(table);
    if (chosen == Py_None) {
        Py_DECREF(chosen);
        if ((table = field(fields, s_action_of)) == NULL) goto finish;
        if ((chosen = PyObject_CallOneArg(table, action)) == NULL) goto finish;
        Py_CLEAR(table);
    }
    /* From here on the step is this function's. */
    PyObject *seat = PyTuple_GET_ITEM(now, 1);
    if ((table = field(fields, s_cumulative)) == NULL) goto finish;
    if (PyObject_SetItem(table, agent, zero) < 0) goto finish;
    Py_CLEAR(table);
    if ((table = field(fields, s_pending)) == NULL) goto finish;
    if (PyObject_SetItem(table, seat, chosen) < 0) goto finish;
    Py_CLEAR(table);
    if (PyList_SetSlice(queue, 0, 1, NULL) < 0) goto finish;
    if (PyList_GET_SIZE(queue) == 0 && call_method(env, s_advance) < 0) goto finish;
    if ((table = field(fields, s_infos)) == NULL) goto finish;
    int present = PySequence_Contains(table, agent);
    if (present < 0) goto finish;
    if (present) {
        /* not (terminations[agent] or truncations[agent]), as Python reads them */
        int dead = 0;
        PyObject *names[2] = {s_terminations, s_truncations};
        for (int i = 0; i < 2 && !dead; i++) {
            PyObject *flags = field(fields, names[i]);
            PyObject *flag = flags ? PyObject_GetItem(flags, agent) : NULL;
            Py_XDECREF(flags);
            if (flag == NULL) goto finish;
            dead = PyObject_IsTrue(flag);
            Py_DECREF(flag);
            if (dead < 0) goto finish;
        }
        if (!dead) {
            PyObject *empty = PyDict_New();
            int set = empty ? PyObject_SetItem(table, agent, empty) : -1;
            Py_XDECREF(empty);
            if (set < 0) goto finish;
        }
    }
    Py_CLEAR(table);
    if (env_select(env, fields) < 0) goto finish;
    if ((value = field(fields, s_rewarded)) == NULL) goto finish;
    int rewarded = PyObject_IsTrue(value);
    Py_CLEAR(value);
    if (rewarded < 0 || (rewarded && call_method(env, s_accumulate) < 0)) goto finish;
    answer = Py_NewRef(Py_True);
    goto finish; /* the clean-up below */
python:
    answer = Py_NewRef(Py_False);
finish:
    Py_DECREF(fields);
    Py_XDECREF(now);
    Py_XDECREF(agent);
    Py_XDECREF(value);
    Py_XDECREF(chosen);
    Py_XDECREF(queue);
    Py_XDECREF(table);
    return answer;
}

/* env_last(env, observe) -> ArenaEnv.last's tuple, or None where its Python must run. */
static PyObject *env_last(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!arguments("env_last", nargs, 2, 2)) return NULL;
    PyObject *env = args[0];
    int observe = PyObject_IsTrue(args[1]);
    if (observe < 0) return NULL;
    PyObject *fields = PyObject_GenericGetDict(env, NULL);
    if (fields == NULL) return NULL;
    PyObject *agent = NULL, *now = NULL, *seen = NULL, *single = NULL, *bound = NULL;
    PyObject *mask = NULL, *items[4] = {NULL, NULL, NULL, NULL}, *answer = NULL;
    if ((agent = field(fields, s_agent_selection)) == NULL) goto done;
    if (observe) {
        if ((now = field(fields, s_now)) == NULL) goto done;
        if (!tuple_of(now, 7) || PyTuple_GET_ITEM(now, 0) != agent) {
            answer = Py_NewRef(Py_None);
            goto done;
        }
        PyObject *fresh = field(fields, s_fresh);
        if (fresh == NULL) goto done;
        single = PyObject_CallNoArgs(fresh);
        Py_DECREF(fresh);
        if (single == NULL) goto done;
        if ((bound = field(fields, s_bound)) == NULL) goto done;
        int encoded = encode_bound(bound, PyTuple_GET_ITEM(now, 2), PyTuple_GET_ITEM(now, 1), single);
        if (encoded < 0) goto done;
        if (encoded == 0) {
            answer = Py_NewRef(Py_None);
            goto done;
        }
        if ((mask = PyObject_CallMethodNoArgs(PyTuple_GET_ITEM(now, 5), str_copy)) == NULL) goto done;
        if ((seen = PyDict_New()) == NULL) goto done;
        if (PyDict_SetItem(seen, str_observation, single) < 0 ||
            PyDict_SetItem(seen, str_action_mask, mask) < 0)
            goto done;
    } else {
        seen = Py_NewRef(Py_None);
    }
    PyObject *names[4] = {s_cumulative, s_terminations, s_truncations, s_infos};
    for (int i = 0; i < 4; i++) {
        PyObject *table = field(fields, names[i]);
        if (table == NULL) goto done;
        items[i] = PyObject_GetItem(table, agent);
        Py_DECREF(table);
        if (items[i] == NULL) goto done;
    }
    answer = PyTuple_Pack(5, seen, items[0], items[1], items[2], items[3]);
done:
    Py_DECREF(fields);
    Py_XDECREF(agent);
    Py_XDECREF(now);
    Py_XDECREF(seen);
    Py_XDECREF(single);
    Py_XDECREF(bound);
    Py_XDECREF(mask);
    for (int i = 0; i < 4; i++) Py_XDECREF(items[i]);
    return answer;
}

static PyMethodDef methods[] = {
    {"encode", (PyCFunction)(void (*)(void))encode, METH_FASTCALL,
     "encode(root, numbers, features, extend, observation, out[, memo[, single]]) -> bool"},
    {"encode_view", (PyCFunction)(void (*)(void))encode_view, METH_FASTCALL,
     "encode_view(bound, observation, view, single[, mask]) -> single, the dict, or None"},
    {"tensor_view", (PyCFunction)(void (*)(void))tensor_view, METH_FASTCALL,
     "tensor_view(bound, observation, view, values, mirror) -> a fresh list, or None"},
    {"env_step", (PyCFunction)(void (*)(void))env_step, METH_FASTCALL,
     "env_step(env, action) -> True, or False where ArenaEnv.step's Python must run"},
    {"env_last", (PyCFunction)(void (*)(void))env_last, METH_FASTCALL,
     "env_last(env, observe) -> ArenaEnv.last's tuple, or None where its Python must run"},
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
    if (intern_names() < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "SOURCE", SOURCE_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
