"""Many rows of one table updated by one plain statement, for the result's hot path.

``QuerySet.bulk_update`` and ``update()`` with a ``Case``/``When`` per row build one
ORM expression per row and field; on a worker recording a result every few tens of
milliseconds that construction cost more than the database's work. Here the rows go
into a ``VALUES`` list joined to the table (``UPDATE ... FROM``, PostgreSQL and SQLite
3.33+ alike; both name a ``VALUES`` list's columns ``column1``, ``column2``...).

Writes whose outcome nobody reads can wait in a :class:`Batch` and go to the database
together: with PostgreSQL in one round trip.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple
from weakref import WeakKeyDictionary

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Model


class Batch:
    """Statements sent together: writes nobody reads back, and the few whose answer is
    needed only after them (a count, a row or two).

    On PostgreSQL Django's cursor binds parameters on the client, so several statements
    separated by semicolons travel in one ``execute``: one round trip instead of one
    each, which is what a worker recording a result waits on. They run in the order
    added, in the caller's transaction, and the first error raises as it would alone.
    Elsewhere (SQLite) each is executed in turn. Call :meth:`send` before any read or
    write that must see them. Each statement's answer is in :attr:`results` after the
    send, at the position ``len(batch)`` gave just before it was added.

    A statement added with ``prepare`` (its text the same from call to call, every
    parameter's type clear from where it stands) is prepared on PostgreSQL the second time
    the session sends it (``PREPARE``, riding in the same round trip) and executed by name
    from then on: the server neither parses nor plans it again.
    """

    def __init__(self) -> None:
        self.statements: list[tuple[str, list, bool]] = []
        self.results: list[Answer] = []

    def __len__(self) -> int:
        return len(self.statements)

    def add(self, sql: str, params: Sequence = (), *, prepare: bool = False) -> int:
        """Add a statement; its position in :attr:`results` after the send."""
        self.statements.append((sql, list(params), prepare))
        return len(self.statements) - 1

    def send(self) -> list[Answer]:
        """Send what waits; the answers of this send (also kept in :attr:`results`)."""
        statements, self.statements = self.statements, []
        self.results = []
        if not statements:
            return self.results
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql" and _binds_on_client(cursor):
                self.results = _send_together(cursor, statements)
                return self.results
            for sql, params, _prepare in statements:
                cursor.execute(sql, params)
                self.results.append(_answer(cursor))
        return self.results


def _send_together(cursor, statements: list[tuple[str, list, bool]]) -> list[Answer]:
    session = _session(cursor.cursor.connection)
    texts, values, preparing, prepares_at = [], [], {}, set()
    for sql, params, prepare in statements:
        name = (session.names.get(sql) or preparing.get(sql)) if prepare else None
        if prepare and name is None and session.worth_preparing(sql, len(preparing)):
            name = preparing[sql] = session.new_name(len(preparing))
            prepares_at.add(len(texts))
            texts.append(f"PREPARE {name} AS {_numbered(sql)}")
            values.append(())  # its $n are the EXECUTE's, after it
        if name is None:
            texts.append(sql)
        else:
            texts.append(
                f"EXECUTE {name}({', '.join(['%s'] * len(params))})"
                if params
                else f"EXECUTE {name}"
            )
        values.append(params)
    try:
        query = "; ".join(texts)
        flat = [value for params in values for value in params]
        if len(flat) <= _CACHED_PARAMS and len(query) <= _CACHED_LENGTH:
            cursor.execute(query, flat)
        else:
            # psycopg keeps the parse of a query of at most 50 parameters and 4096 bytes:
            # a larger batch (a result's second: ~110 parameters) it would parse whole,
            # anew every time. Bound statement by statement instead (each one's parse
            # kept), then sent with nothing left to bind; ``mogrify`` binds as ``execute``
            # would (``%%`` included), the same literals.
            cursor.execute("; ".join(map(cursor.cursor.mogrify, texts, values)))
    except Exception:
        # A PREPARE of the batch may or may not have run (it outlives a rollback): none of
        # this session's names is reused.
        session.forget()
        raise
    session.names.update(preparing)
    answers = [_answer(cursor)]
    while cursor.cursor.nextset():
        answers.append(_answer(cursor))
    # Without the PREPAREs' own answers.
    return [answer for at, answer in enumerate(answers) if at not in prepares_at]


# psycopg's limits for keeping a query's parse (MAX_CACHED_STATEMENT_PARAMS and _LENGTH).
_CACHED_PARAMS = 50
_CACHED_LENGTH = 4096


class _Session:
    """The statements prepared on one database session (text -> name), and those sent
    once, not prepared yet."""

    MOST = 200  # prepared statements a session keeps at most; texts remembered as seen

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.seen: set[str] = set()
        self.generation = 0

    def worth_preparing(self, sql: str, preparing: int) -> bool:
        if sql in self.seen:
            return len(self.names) + preparing < self.MOST
        if len(self.seen) < self.MOST:
            self.seen.add(sql)
        return False

    def new_name(self, preparing: int) -> str:
        return f"arena_rows_{self.generation}_{len(self.names) + preparing}"

    def forget(self) -> None:
        self.names.clear()
        self.generation += 1


# Per database session: Django opens a new psycopg connection after a lost one, and its
# prepared statements start empty.
_SESSIONS: WeakKeyDictionary = WeakKeyDictionary()


def _session(raw_connection) -> _Session:
    session = _SESSIONS.get(raw_connection)
    if session is None:
        session = _SESSIONS[raw_connection] = _Session()
    return session


def _numbered(sql: str) -> str:
    """``sql``'s ``%s`` placeholders as PostgreSQL's ``$1``, ``$2``... (``%%`` stays, for
    the client's binding of the whole batch)."""
    numbers = itertools.count(1)
    return re.sub(r"%%|%s", lambda m: m.group() if m.group() == "%%" else f"${next(numbers)}", sql)


class Answer(NamedTuple):
    """One statement's answer: the rows it changed or returned, and the rows it returned
    (None for a statement that returns none)."""

    rowcount: int
    rows: list[tuple] | None


def _answer(cursor) -> Answer:
    return Answer(cursor.rowcount, cursor.fetchall() if _returns_rows(cursor) else None)


def _returns_rows(cursor) -> bool:
    """Whether the statement returned rows. psycopg's ``description`` builds an object per
    column on every call (the claim returns ~90 columns); its result's status says the same."""
    result = getattr(cursor.cursor, "pgresult", None)
    if result is None:  # not psycopg (SQLite)
        return cursor.description is not None
    from psycopg.pq import ExecStatus

    return result.status == ExecStatus.TUPLES_OK


def _binds_on_client(cursor) -> bool:
    import psycopg

    return isinstance(cursor.cursor, psycopg.ClientCursor)


def update_rows(
    model: type[Model],
    *,
    keys: Sequence[str],
    fields: Sequence[str],
    rows: Sequence[Sequence],
    set_sql: dict[str, str] | None = None,
    where: str = "",
    where_params: Sequence = (),
    batch: Batch | None = None,
) -> int | None:
    """Update the rows of ``model`` matched by ``keys`` from ``rows`` (the key values, then
    the ``fields``' values, per row); how many rows changed.

    ``set_sql`` gives a field's new value as SQL other than the row's value itself, with
    ``{new}`` for the row's value, ``{old}`` for the column as it stands (for instance
    ``"{old} + {new}"``) and ``{table}`` for the table's quoted name. ``where`` adds a condition on the table (its columns quoted by
    the caller, ``{table}`` for the table's quoted name) with ``where_params``. With a
    ``batch`` the statement waits in it (and the count is not known: None).
    """
    if not rows:
        return 0 if batch is None else None
    db = connections[DEFAULT_DB_ALIAS]  # the proxy looks it up anew on every use
    shape = (db.vendor, model, tuple(keys), tuple(fields), len(rows))
    shape += (tuple(sorted((set_sql or {}).items())), where)
    # Only small updates are kept: a rebuild's statement of thousands of rows is made once.
    make = _update_sql if len(rows) <= _KEPT_ROWS else _update_sql.__wrapped__
    sql, columns = make(*shape)
    params = [
        field.get_db_prep_save(value, db)
        for row in rows
        for field, value in zip(columns, row, strict=True)
    ]
    if batch is not None:
        batch.add(sql, [*params, *where_params], prepare=len(rows) <= _KEPT_ROWS)
        return None
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *where_params])
        return cursor.rowcount


_KEPT_ROWS = 64


# The statement for each shape of update (model, keys, fields, row count, SET templates and
# condition): a worker updates rows of the same few shapes with every result, and working
# out each field's cast and quoted names anew cost more than binding the values.
@lru_cache(maxsize=256)
def _update_sql(
    vendor: str,
    model: type[Model],
    keys: tuple[str, ...],
    fields: tuple[str, ...],
    count: int,
    set_sql: tuple[tuple[str, str], ...],
    where: str,
) -> tuple[str, list]:
    db = connections[DEFAULT_DB_ALIAS]
    quote = db.ops.quote_name
    meta = model._meta
    table = quote(meta.db_table)
    columns = [meta.get_field(name) for name in (*keys, *fields)]
    casts = [f"CAST(%s AS {field.cast_db_type(db)})" for field in columns]
    values = ", ".join([f"({', '.join(casts)})"] * count)
    templates = dict(set_sql)
    sets = []
    for position, field in enumerate(columns[len(keys) :], start=len(keys) + 1):
        old, new = f"{table}.{quote(field.column)}", f"v.column{position}"
        template = templates.get(field.name, "{new}")
        sets.append(f"{quote(field.column)} = {template.format(old=old, new=new, table=table)}")
    matches = [
        f"{table}.{quote(field.column)} = v.column{position}"
        for position, field in enumerate(columns[: len(keys)], start=1)
    ]
    if where:
        matches.append(f"({where.format(table=table)})")
    sql = f"UPDATE {table} SET {', '.join(sets)} FROM (VALUES {values}) AS v"
    return sql + f" WHERE {' AND '.join(matches)}", columns


def insert_rows(
    model: type[Model],
    *,
    fields: Sequence[str],
    rows: Sequence[Sequence],
    batch: Batch,
    suffix: str = "",
) -> None:
    """Add to ``batch`` one INSERT of ``rows`` (the ``fields``' values per row) into
    ``model``'s table, ``suffix`` after it (``ON CONFLICT ...``; ``{table}`` for the
    table's quoted name, ``{column}`` for a quoted column: ``{first}``)."""
    if not rows:
        return
    db = connections[DEFAULT_DB_ALIAS]  # the proxy looks it up anew on every use
    quote = db.ops.quote_name
    meta = model._meta
    table = quote(meta.db_table)
    columns = [meta.get_field(name) for name in fields]
    one = f"({', '.join(['%s'] * len(columns))})"
    params = [
        field.get_db_prep_save(value, db)
        for row in rows
        for field, value in zip(columns, row, strict=True)
    ]
    names = {field.name: quote(field.column) for field in meta.concrete_fields}
    batch.add(
        f"INSERT INTO {table} ({', '.join(quote(f.column) for f in columns)})"
        f" VALUES {', '.join([one] * len(rows))} {suffix.format(table=table, **names)}",
        params,
        prepare=len(rows) <= _KEPT_ROWS,
    )


def from_row(model: type[Model], fields: Sequence, row: Sequence, start: int = 0) -> Model:
    """An instance of ``model`` from ``row[start:]`` holding ``fields``' columns, as the
    ORM would load it (each field's converters applied: JSON, for instance); fields left
    out are deferred."""
    db = connections[DEFAULT_DB_ALIAS]
    attnames, converting = _loader(db, model, fields)
    values = list(row[start : start + len(attnames)])
    for position, expression, converters in converting:
        value = values[position]
        for convert in converters:
            value = convert(value, expression, db)
        values[position] = value
    return model.from_db(db.alias, attnames, values)


# Per connection (each thread has its own), per model and fields: the attribute names and
# the converters of the fields that have any. Working them out for every value of every
# row cost more than the rest of a worker's read of a claimed match.
_LOADERS: WeakKeyDictionary = WeakKeyDictionary()
_MOST_LOADERS = 64


def _loader(db, model: type[Model], fields: Sequence) -> tuple[list[str], list[tuple]]:
    known = _LOADERS.setdefault(db, {})
    # Looked up by the fields' sequence itself (the callers' constants): hashing ~30 fields
    # for every row cost more than the lookup saves. The entry holds the sequence, so its
    # id is not reused while the entry lives.
    entry = known.get((model, id(fields)))
    if entry is not None and entry[0] is fields:
        return entry[1]
    converting = []
    for position, field in enumerate(fields):
        expression = field.get_col(model._meta.db_table)
        converters = (
            *db.ops.get_db_converters(expression),
            *field.get_db_converters(db),
        )
        if converters:
            converting.append((position, expression, converters))
    loader = ([f.attname for f in fields], converting)
    if len(known) >= _MOST_LOADERS:  # a caller's fresh list each time: kept bounded
        known.clear()
    known[(model, id(fields))] = (fields, loader)
    return loader


def select_sql(fields: Sequence, alias: str) -> str:
    """``fields``' columns as a select list, each prefixed by ``alias``."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(field.column)}" for field in fields)
