/* Venture's ``fire`` (games/pairs/venture.py) in C: one bid round resolved, the same
 * captures, pool and steps as the Python function (tests/games/pairs/test_venture.py
 * compares them), without its Python steps per seat and per rank. Built and loaded by
 * games/native.py; venture.py uses it where it exists.
 *
 *   fire(pool, bids) -> (captured, pool, steps), or None for cards other than the whole
 *   numbers 1 to 10 in lists (the Python function then answers)
 *
 * As the Python function: the seats that capture nothing share one empty list, and a
 * fired step's "cards" is the very list of that seat's captures.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define TOP_RANK 10

static PyObject *k_rank, *k_seats, *k_result, *k_cards, *v_fire, *v_misfire, *v_captured;

/* The card's rank, or 0 when it is no whole number from 1 to TOP_RANK. */
static int rank_of(PyObject *card) {
    if (!PyLong_CheckExact(card)) return 0;
    long rank = PyLong_AsLong(card);
    if (rank < 1 || rank > TOP_RANK) {
        PyErr_Clear();
        return 0;
    }
    return (int)rank;
}

static PyObject *step(int rank, PyObject *seats, PyObject *result, PyObject *cards) {
    PyObject *done = PyDict_New();
    PyObject *number = PyLong_FromLong(rank);
    if (done == NULL || number == NULL || PyDict_SetItem(done, k_rank, number) < 0 ||
        PyDict_SetItem(done, k_seats, seats) < 0 || PyDict_SetItem(done, k_result, result) < 0 ||
        (cards != NULL && PyDict_SetItem(done, k_cards, cards) < 0)) {
        Py_XDECREF(done);
        Py_XDECREF(number);
        return NULL;
    }
    Py_DECREF(number);
    return done;
}

static PyObject *fire(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "fire(pool, bids)");
        return NULL;
    }
    PyObject *pool = args[0], *bids = args[1];
    if (!PyList_CheckExact(pool) || !PyList_CheckExact(bids)) Py_RETURN_NONE;
    Py_ssize_t players = PyList_GET_SIZE(bids), pooled = PyList_GET_SIZE(pool);
    if (players == 0) Py_RETURN_NONE;
    Py_ssize_t count[TOP_RANK + 2] = {0}, bidders[TOP_RANK + 2] = {0};
    int *bid = PyMem_Malloc(players * sizeof(int));
    if (bid == NULL) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < pooled; i++) {
        int rank = rank_of(PyList_GET_ITEM(pool, i));
        if (rank == 0) goto other_cards;
        count[rank]++;
    }
    for (Py_ssize_t seat = 0; seat < players; seat++) {
        int rank = rank_of(PyList_GET_ITEM(bids, seat));
        if (rank == 0) goto other_cards;
        bid[seat] = rank;
        count[rank]++;
        bidders[rank]++;
    }

    PyObject *table = NULL, *captured = NULL, *steps = NULL, *empty = NULL, *left = NULL;
    /* ``sorted(pool + bids)``; below[r] cards rank under r (``bisect_left`` of r). */
    Py_ssize_t total = pooled + players, below[TOP_RANK + 2];
    table = PyList_New(total);
    captured = PyList_New(players);
    steps = PyList_New(0);
    empty = PyList_New(0);
    if (table == NULL || captured == NULL || steps == NULL || empty == NULL) goto failed;
    Py_ssize_t at = 0;
    int highest = 0;
    for (int rank = 1; rank <= TOP_RANK; rank++) {
        below[rank] = at;
        if (count[rank]) highest = rank;
        for (Py_ssize_t k = 0; k < count[rank]; k++) {
            PyObject *number = PyLong_FromLong(rank);
            if (number == NULL) goto failed;
            PyList_SET_ITEM(table, at++, number);
        }
    }
    for (Py_ssize_t seat = 0; seat < players; seat++)
        PyList_SET_ITEM(captured, seat, Py_NewRef(empty));

    Py_ssize_t start = 0, end = total;
    int taken_early = 0, lowest = 1;
    while (!bidders[lowest]) lowest++;
    for (int rank = lowest; rank <= TOP_RANK; rank++) {
        if (!bidders[rank]) continue;
        /* The rank's seats, in seat order. */
        PyObject *seats = PyList_New(bidders[rank]);
        if (seats == NULL) goto failed;
        Py_ssize_t filled = 0, only = -1;
        for (Py_ssize_t seat = 0; seat < players; seat++) {
            if (bid[seat] != rank) continue;
            PyObject *number = PyLong_FromSsize_t(seat);
            if (number == NULL) {
                Py_DECREF(seats);
                goto failed;
            }
            PyList_SET_ITEM(seats, filled++, number);
            only = seat;
        }
        PyObject *result, *cards = NULL;
        if (rank == taken_early) {
            result = v_captured;
        } else if (bidders[rank] > 1) {
            result = v_misfire;
        } else {
            result = v_fire;
            Py_ssize_t low, high;
            if (rank == lowest) {
                /* The lowest bid takes every card of the highest rank on the table. */
                taken_early = highest;
                low = end = below[highest];
                high = total;
            } else {
                /* Every other bid takes every card below it still on the table. */
                low = start;
                high = below[rank] < start ? start : below[rank] > end ? end : below[rank];
                start = high;
            }
            cards = PyList_GetSlice(table, low, high);
            if (cards == NULL) {
                Py_DECREF(seats);
                goto failed;
            }
            PyList_SetItem(captured, only, Py_NewRef(cards)); /* drops the shared empty */
        }
        PyObject *done = step(rank, seats, result, cards);
        Py_DECREF(seats);
        Py_XDECREF(cards);
        if (done == NULL) goto failed;
        int appended = PyList_Append(steps, done);
        Py_DECREF(done);
        if (appended < 0) goto failed;
    }
    left = PyList_GetSlice(table, start, end);
    if (left == NULL) goto failed;
    PyMem_Free(bid);
    Py_DECREF(table);
    Py_DECREF(empty);
    return Py_BuildValue("(NNN)", captured, left, steps);

failed:
    PyMem_Free(bid);
    Py_XDECREF(table);
    Py_XDECREF(captured);
    Py_XDECREF(steps);
    Py_XDECREF(empty);
    return NULL;
other_cards:
    PyMem_Free(bid);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"fire", (PyCFunction)(void (*)(void))fire, METH_FASTCALL,
     "fire(pool, bids) -> (captured, pool, steps), or None for other cards"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_venture", NULL, -1, methods};

PyMODINIT_FUNC PyInit__venture(void) {
    k_rank = PyUnicode_InternFromString("rank");
    k_seats = PyUnicode_InternFromString("seats");
    k_result = PyUnicode_InternFromString("result");
    k_cards = PyUnicode_InternFromString("cards");
    v_fire = PyUnicode_InternFromString("fire");
    v_misfire = PyUnicode_InternFromString("misfire");
    v_captured = PyUnicode_InternFromString("captured");
    if (!k_rank || !k_seats || !k_result || !k_cards || !v_fire || !v_misfire || !v_captured)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "SOURCE", SOURCE_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
