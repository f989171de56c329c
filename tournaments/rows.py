"""Many rows of one table updated by one plain statement, for the result's hot path.

``QuerySet.bulk_update`` and ``update()`` with a ``Case``/``When`` per row build one
ORM expression per row and field; on a worker recording a result every few tens of
milliseconds that construction cost more than the database's work. Here the rows go
into a ``VALUES`` list joined to the table (``UPDATE ... FROM``, PostgreSQL and SQLite
3.33+ alike; both name a ``VALUES`` list's columns ``column1``, ``column2``...).
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection
from django.db.models import Model


def update_rows(
    model: type[Model],
    *,
    keys: Sequence[str],
    fields: Sequence[str],
    rows: Sequence[Sequence],
    set_sql: dict[str, str] | None = None,
    where: str = "",
    where_params: Sequence = (),
) -> int:
    """Update the rows of ``model`` matched by ``keys`` from ``rows`` (the key values, then
    the ``fields``' values, per row); how many rows changed.

    ``set_sql`` gives a field's new value as SQL other than the row's value itself, with
    ``{new}`` for the row's value, ``{old}`` for the column as it stands (for instance
    ``"{old} + {new}"``) and ``{table}`` for the table's quoted name. ``where`` adds a condition on the table (its columns quoted by
    the caller, ``{table}`` for the table's quoted name) with ``where_params``.
    """
    if not rows:
        return 0
    quote = connection.ops.quote_name
    meta = model._meta
    table = quote(meta.db_table)
    columns = [meta.get_field(name) for name in (*keys, *fields)]
    casts = [f"CAST(%s AS {field.cast_db_type(connection)})" for field in columns]
    values = ", ".join(f"({', '.join(casts)})" for _ in rows)
    params = [
        field.get_db_prep_save(value, connection)
        for row in rows
        for field, value in zip(columns, row, strict=True)
    ]
    sets = []
    for position, field in enumerate(columns[len(keys) :], start=len(keys) + 1):
        old, new = f"{table}.{quote(field.column)}", f"v.column{position}"
        template = (set_sql or {}).get(field.name, "{new}")
        sets.append(f"{quote(field.column)} = {template.format(old=old, new=new, table=table)}")
    matches = [
        f"{table}.{quote(field.column)} = v.column{position}"
        for position, field in enumerate(columns[: len(keys)], start=1)
    ]
    if where:
        matches.append(f"({where.format(table=table)})")
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET {', '.join(sets)} FROM (VALUES {values}) AS v"
            f" WHERE {' AND '.join(matches)}",
            [*params, *where_params],
        )
        return cursor.rowcount
