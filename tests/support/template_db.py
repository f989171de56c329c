"""Test databases on PostgreSQL copied from a migrated template instead of migrated each.

`make test` creates a test database in each of its pytest processes (two parallel ones, the
worker tests' and the serial phase's), and migrating one costs ~8 s of CPU. The first
process to need one migrates a template database; every process then copies it with
``CREATE DATABASE ... TEMPLATE``, which takes a fraction of a second. The template's name
carries a digest of everything that decides the schema (the migrations, the requirements,
Django's version), so a changed migration builds a new one and stale ones are dropped.
An advisory lock serialises the processes that start together; a template is renamed into
place only once migrated, so one left half-built by a killed run is never copied. Django's
own ``migrate`` still runs on the copy and finds nothing to do. SQLite keeps Django's way.
Commits on a test database do not wait for the disk (``NO_COMMIT_WAIT``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import django
from django.core.management import call_command
from django.db.backends.postgresql.creation import DatabaseCreation

ROOT = Path(__file__).resolve().parents[2]
# A commit need not wait for its WAL to reach the disk (2.7-4 ms a commit on this machine's
# disk, against 0.2-0.3 ms): a test database is thrown away, so surviving a crash of
# PostgreSQL is worth nothing, and what every session sees is unchanged. The setting holds
# for each session that connects afterwards: the test's, the live server's, its workers'.
NO_COMMIT_WAIT = "ALTER DATABASE {} SET synchronous_commit TO off"
_django_create = DatabaseCreation._create_test_db


def schema_digest(root: Path = ROOT) -> str:
    """What the migrated schema depends on, hashed."""
    digest = hashlib.sha256(django.get_version().encode())
    sources = sorted(root.glob("*/migrations/*.py")) + sorted(root.glob("*/*/migrations/*.py"))
    for path in [root / "requirements.txt", *sources]:
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def template_name(test_database: str) -> str:
    """The template a test database (``test_arena``, ``test_arena_gw1``) is copied from."""
    return f"{test_database.split('_gw')[0]}_template_{schema_digest()}"


def _create_test_db(self: DatabaseCreation, verbosity: int, autoclobber: bool, keepdb: bool):
    if keepdb:
        return _django_create(self, verbosity, autoclobber, keepdb)
    name = self._get_test_db_name()
    template = template_name(name)
    prefix = template.rsplit("_", 1)[0] + "_"
    quote = self.connection.ops.quote_name
    with self._nodb_cursor() as cursor:
        # Held until this process's copy exists: no other process copies a template, or
        # builds one, meanwhile (CREATE DATABASE refuses a source someone else is in).
        cursor.execute("SELECT pg_advisory_lock(hashtext(%s))", [prefix])
        try:
            cursor.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", [prefix + "%"])
            present = {row[0] for row in cursor.fetchall()}
            if template not in present:
                for stale in present:  # other digests, and a build a killed run left
                    cursor.execute(f"DROP DATABASE IF EXISTS {quote(stale)}")
                building = template + "_building"
                cursor.execute(f"CREATE DATABASE {quote(building)}")
                cursor.execute(NO_COMMIT_WAIT.format(quote(building)))
                _migrate(self, building)
                cursor.execute(f"ALTER DATABASE {quote(building)} RENAME TO {quote(template)}")
            cursor.execute(f"DROP DATABASE IF EXISTS {quote(name)}")
            cursor.execute(f"CREATE DATABASE {quote(name)} TEMPLATE {quote(template)}")
            cursor.execute(NO_COMMIT_WAIT.format(quote(name)))  # a copy's settings are its own
        finally:
            cursor.execute("SELECT pg_advisory_unlock(hashtext(%s))", [prefix])
    return name


def _migrate(creation: DatabaseCreation, database: str) -> None:
    """Migrate ``database`` through the test connection, then point it back."""
    connection = creation.connection
    settings_dict = connection.settings_dict
    kept = settings_dict["NAME"]
    connection.close()
    settings_dict["NAME"] = database
    try:
        call_command(
            "migrate",
            verbosity=0,
            interactive=False,
            database=connection.alias,
            run_syncdb=True,
        )
    finally:
        connection.close()
        settings_dict["NAME"] = kept


def install() -> None:
    """Create every PostgreSQL test database of this process from the template."""
    DatabaseCreation._create_test_db = _create_test_db
