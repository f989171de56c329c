"""The reads bench's database: created, dropped and marked as built; rows written by COPY.

Django is imported inside the functions: bench/reads.py sets the environment (the bench's own
database and cache) before anything starts Django.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlsplit, urlunsplit

POOL = "pairs:2"
BUILD_MARK = "bench_reads_build"  # a table holding what was built, for --reuse
BUILD_VERSION = 1  # bump when build() changes what it writes: --reuse then rebuilds


def _admin_url(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    return urlunsplit(parts._replace(path="/postgres")), name


def database_built(url: str, scale: float) -> bool:
    import psycopg

    admin, name = _admin_url(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("select 1 from pg_database where datname = %s", [name]).fetchone():
            return False
    with psycopg.connect(url) as conn:
        try:
            row = conn.execute(f"select scale, info from {BUILD_MARK}").fetchone()
        except psycopg.errors.UndefinedTable:
            return False
    if row is None or abs(row[0] - scale) > 1e-9:
        return False
    info = row[1] if isinstance(row[1], dict) else json.loads(row[1])
    return info.get("version") == BUILD_VERSION


def recreate_database(url: str) -> None:
    import psycopg

    admin, name = _admin_url(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'drop database if exists "{name}" with (force)')
        conn.execute(f'create database "{name}"')


def drop_database(url: str) -> None:
    import psycopg
    from django.db import connections

    connections.close_all()
    admin, name = _admin_url(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'drop database if exists "{name}" with (force)')


# --------------------------------------------------------------------------- COPY helpers


def _text(value) -> str:
    """One value in COPY's text format."""
    if value is None:
        return "\\N"
    if value is True:
        return "t"
    if value is False:
        return "f"
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (dict, list)):
        value = json.dumps(value, separators=(",", ":"))
    return (
        str(value)
        .replace("\\", "\\\\")
        .replace("\t", "\\t")
        .replace("\n", "\\n")
        .replace("\r", "\\r")
    )


def copy_rows(table: str, columns: list[str], rows, *, chunk: int = 50_000) -> int:
    """COPY an iterable of row tuples (plain values) into ``table``."""
    return copy_lines(table, columns, ("\t".join(map(_text, row)) for row in rows), chunk=chunk)


_EXTRA: dict[tuple[str, tuple[str, ...]], tuple[list[str], str]] = {}


def extra_columns(table: str, columns: list[str]) -> tuple[list[str], str]:
    """Columns a newer migration added that the bench does not write, with their model
    default: NOT NULL columns without a database default would refuse the COPY otherwise."""
    key = (table, tuple(columns))
    if key in _EXTRA:
        return _EXTRA[key]
    from django.apps import apps
    from django.utils import timezone

    missing = sql(
        "select column_name from information_schema.columns where table_name = %s"
        " and is_nullable = 'NO' and column_default is null and is_identity = 'NO'"
        " and not (column_name = any(%s))",
        [table, list(columns)],
    )
    names, values = [], []
    model = next((m for m in apps.get_models() if m._meta.db_table == table), None)
    for (name,) in missing or []:
        field_ = next((f for f in model._meta.concrete_fields if f.column == name), None)
        if field_ is None or not (field_.has_default() or getattr(field_, "auto_now", False)):
            raise SystemExit(
                f"{table}.{name} is NOT NULL without a default: bench/reads.py must write it"
            )
        value = field_.get_default() if field_.has_default() else timezone.now()
        names.append(name)
        values.append(_text(value))
    _EXTRA[key] = (names, "".join("\t" + v for v in values))
    return _EXTRA[key]


def copy_lines(table: str, columns: list[str], lines, *, chunk: int = 50_000) -> int:
    """COPY an iterable of ready text-format lines (no newline) into ``table``."""
    from django.db import connection

    extra, suffix = extra_columns(table, columns)
    count = 0
    sql_ = f"COPY {table} ({', '.join(columns + extra)}) FROM STDIN"
    with connection.cursor() as cursor:
        with cursor.cursor.copy(sql_) as copy:
            buffer = []
            for line in lines:
                buffer.append(line + suffix if suffix else line)
                if len(buffer) >= chunk:
                    copy.write("\n".join(buffer) + "\n")
                    count += len(buffer)
                    buffer = []
            if buffer:
                copy.write("\n".join(buffer) + "\n")
                count += len(buffer)
    return count


class Sink:
    """Lines for one table, sent by COPY every ``chunk`` lines (the data set never sits
    whole in memory)."""

    def __init__(self, table: str, columns: list[str], chunk: int = 50_000):
        self.table, self.columns, self.chunk = table, columns, chunk
        self.lines: list[str] = []
        self.count = 0

    def append(self, line: str) -> None:
        self.lines.append(line)
        if len(self.lines) >= self.chunk:
            self.flush()

    def flush(self) -> None:
        if self.lines:
            self.count += copy_lines(self.table, self.columns, self.lines, chunk=self.chunk)
            self.lines = []

    def close(self) -> int:
        self.flush()
        return self.count


def sql(statement: str, params=None):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        try:
            return cursor.fetchall()
        except Exception:  # statements without rows
            return None


@dataclass
class Built:
    """What the timing needs to know of the data set."""

    ids: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)


def mark_built(scale: float, built: Built) -> None:
    sql(f"create table if not exists {BUILD_MARK} (scale double precision, info jsonb)")
    sql(f"delete from {BUILD_MARK}")
    info = {
        "version": BUILD_VERSION,
        "counts": built.counts,
        "seconds": built.seconds,
        "ids": built.ids,
    }
    sql(f"insert into {BUILD_MARK} values (%s, %s)", [scale, json.dumps(info)])


def read_mark() -> Built:
    scale, info = sql(f"select scale, info from {BUILD_MARK}")[0]
    info = json.loads(info) if isinstance(info, str) else info
    return Built(ids=info["ids"], counts=info["counts"], seconds=info["seconds"])
