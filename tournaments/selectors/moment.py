"""Reads that must agree with each other: every query inside sees the database as of one
moment, so a result recorded between two of them cannot show in one and not the other."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def one_moment() -> Iterator[None]:
    """A transaction whose queries share one snapshot of the database.

    PostgreSQL's default (read committed) takes a new snapshot per statement, so the
    transaction asks for repeatable read before its first query. SQLite's transaction is one
    snapshot already. Inside a transaction that has begun (a test's, a caller's), the
    isolation is the caller's to choose and is left as it is."""
    outer = connection.in_atomic_block
    with transaction.atomic():
        if not outer and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        yield
