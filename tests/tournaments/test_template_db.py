"""Test databases on PostgreSQL are copies of one migrated template
(tests/support/template_db.py): the copy in use has every migration on disk applied, the
template exists under the current schema digest, the digest follows the migrations, and
commits do not wait for the disk."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.support.template_db import ROOT, schema_digest, template_name

pytestmark = pytest.mark.django_db


def test_the_test_database_has_every_migration_and_its_template_exists():
    if connection.vendor != "postgresql":
        pytest.skip("the template is PostgreSQL's")
    executor = MigrationExecutor(connection)
    assert executor.migration_plan(executor.loader.graph.leaf_nodes()) == []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_database WHERE datname = %s",
            [template_name(connection.settings_dict["NAME"])],
        )
        assert cursor.fetchone()[0] == 1


def test_the_schema_digest_changes_with_a_migration_and_with_the_requirements(tmp_path: Path):
    shutil.copy(ROOT / "requirements.txt", tmp_path / "requirements.txt")
    (tmp_path / "bots" / "migrations").mkdir(parents=True)
    first = tmp_path / "bots" / "migrations" / "0001_initial.py"
    first.write_text("operations = []\n")
    before = schema_digest(tmp_path)
    assert schema_digest(tmp_path) == before
    first.write_text("operations = ['changed']\n")
    edited = schema_digest(tmp_path)
    (tmp_path / "bots" / "migrations" / "0002_more.py").write_text("operations = []\n")
    added = schema_digest(tmp_path)
    (tmp_path / "requirements.txt").write_text("Django==0.1\n")
    assert len({before, edited, added, schema_digest(tmp_path)}) == 4


def test_template_names_are_shared_by_the_parallel_processes():
    assert template_name("test_arena_gw0") == template_name("test_arena_gw1")
    assert template_name("test_arena_gw1") == template_name("test_arena")
    assert template_name("test_arena").startswith("test_arena_template_")


def test_commits_on_the_test_database_do_not_wait_for_the_disk():
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL setting")
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == "off"
