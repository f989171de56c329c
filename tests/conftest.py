"""Shared fixtures. Tests marked ``embedded`` run only in the SQLite pass of `make test`."""

from __future__ import annotations

import os

import pytest

EMBEDDED = os.environ.get("ARENA_EMBEDDED_TEST") == "1"


# Tests that run alone, after everything else: they time the sandbox's limits, or kill a
# worker mid-match and wait for what it left of its sandboxes to be ended (while they wait,
# those orphans would read as leaks to another test's leak check, and another test's
# sandboxes as left behind to theirs).
SERIAL_PATHS = (
    "tests/bots/test_hostile",  # and test_hostile_unprivileged.py
    "tests/bots/test_fallback.py",
    "tests/bots/test_sandbox.py",
    "tests/bots/test_worker_death.py",
    "tests/integration/test_worker_killed.py",
)
# Engine tests that need no database, broker, sandbox or worker: `make test` runs them beside
# the serial tests, on the core those leave idle (about half a core in all: they mostly wait
# on their sandboxes and workers), instead of in the parallel pass. Nothing of them reaches a
# sandbox, so the serial tests' machine-wide counts are untouched. About as long as the
# serial tests (some 100 s) on one core: the others 29-40 s in fresh checks, OpenSpiel's
# checks about twice as much CPU. More, and they would outlast the serial tests; in the
# parallel pass, OpenSpiel's alone held a core for over a minute.
BESIDE_SERIAL_PATHS = (
    "tests/games/adapters/test_compiled.py",
    "tests/games/adapters/test_openspiel.py",
    "tests/games/adapters/test_pettingzoo.py",
    "tests/games/punk/test_engine.py",
)
# Tests that run real Celery workers (they purge the broker's queues): one at a time, on a
# broker of their own, beside the parallel pass (pytest-xdist, one test database per
# process), whose tests would otherwise leave messages for their workers. Mostly they wait.
WORKER_PATHS = ("tests/integration/",)


def pytest_configure(config):
    from django.conf import settings
    from django.contrib.auth import hashers

    # Hash test users' passwords cheaply (tests/support/fast_passwords.py); every hasher the
    # product accepts still checks a password.
    settings.PASSWORD_HASHERS = [
        "tests.support.fast_passwords.FewRoundsPBKDF2",
        *(h for h in settings.PASSWORD_HASHERS if not h.endswith(".PBKDF2PasswordHasher")),
    ]
    hashers.get_hashers.cache_clear()
    hashers.get_hashers_by_algorithm.cache_clear()
    # Transactional tests empty PostgreSQL with DELETEs, not flush's TRUNCATE (a third of a
    # second each): tests/support/fast_flush.py.
    from tests.support import fast_flush

    fast_flush.install()
    # Test clients share one table of static files per process: tests/support/fast_static.py.
    from tests.support import fast_static

    fast_static.install()
    # Each process's PostgreSQL test database is a copy of one migrated template, not
    # migrated anew: tests/support/template_db.py.
    from tests.support import template_db

    template_db.install()
    config.addinivalue_line("markers", "embedded: runs against the embedded default (SQLite)")
    config.addinivalue_line(
        "markers", "serial: run alone, not beside other tests (see SERIAL_PATHS)"
    )
    config.addinivalue_line(
        "markers", "workers: real Celery workers, one test at a time (see WORKER_PATHS)"
    )
    config.addinivalue_line(
        "markers",
        "beside_serial: engines only, run beside the serial tests (see BESIDE_SERIAL_PATHS)",
    )
    config.addinivalue_line("markers", "integration: needs real PostgreSQL and Redis")


# `make test`'s serial, worker and embedded passes collect only these folders (collecting the
# whole suite to keep a hundred tests cost each pass seconds): a marked test elsewhere would
# run in no pass, so it is refused here.
SERIAL_DIRS = ("tests/bots/", "tests/integration/")
WORKER_DIRS = ("tests/integration/",)
EMBEDDED_DIRS = ("tests/integration/",)
BESIDE_SERIAL_DIRS = ("tests/games/",)


# Files with the suite's longest tests (seconds to tens of seconds each, by --durations), put
# first in `make test`'s parallel pass. pytest-xdist's worksteal hands each process a half of
# the collection in order and lets an idle one take the end of another's queue: with the
# long tests in front the run ends on short ones, and neither process is left running a long
# test alone. The games' first: they need no database, so the process running them works
# while the other migrates the template database (tests/support/template_db.py). Whole
# files move, so no module's fixtures are set up twice.
LONG_FIRST = (
    "tests/games/test_conformance.py",
    "tests/tournaments/test_human_games_every_game.py",
    "tests/arena/test_competition_api_fuzz.py",
    "tests/arena/test_throttle_bursts.py",
    "tests/tournaments/test_migration_pools.py",
    "tests/arena/test_schema_fuzz.py",
    "tests/arena/test_demo.py",
    "tests/arena/test_competition_release.py",
    "tests/arena/test_match_visibility.py",
    "tests/browser/",
)


def long_first(items: list) -> None:
    """Reorder ``items`` in place: LONG_FIRST's files first, in that order, then the rest."""

    def rank(item) -> int:
        for position, prefix in enumerate(LONG_FIRST):
            if item.nodeid.startswith(prefix):
                return position
        return len(LONG_FIRST)

    items.sort(key=rank)  # stable: within a file, and among the rest, the order is kept


def pytest_collection_modifyitems(config, items):
    if os.environ.get("PYTEST_XDIST_WORKER"):  # every process collects alike, in this order
        long_first(items)
    for item in items:
        if item.nodeid.startswith(SERIAL_PATHS):
            item.add_marker(pytest.mark.serial)
        elif item.nodeid.startswith(BESIDE_SERIAL_PATHS):
            item.add_marker(pytest.mark.beside_serial)
        elif item.nodeid.startswith(WORKER_PATHS) and "serial" not in item.keywords:
            item.add_marker(pytest.mark.workers)
        markers = (
            ("serial", SERIAL_DIRS),
            ("workers", WORKER_DIRS),
            ("embedded", EMBEDDED_DIRS),
            ("beside_serial", BESIDE_SERIAL_DIRS),
        )
        for marker, folders in markers:
            if marker in item.keywords and not item.nodeid.startswith(folders):
                raise pytest.UsageError(
                    f"{item.nodeid} is marked {marker} but `make test` runs those only under "
                    f"{', '.join(folders)} (see the Makefile's test target)"
                )
        if "embedded" in item.keywords and not EMBEDDED:
            item.add_marker(
                pytest.mark.skip(reason="runs in the embedded pass (ARENA_EMBEDDED_TEST=1)")
            )


@pytest.fixture(autouse=True)
def _no_spare_sandboxes_after():
    """A worker's spare sandboxes (bots/held_sandboxes.py) last until its next match; a test's are
    closed when it ends, so no test inherits another's."""
    yield
    from bots import held_sandboxes

    held_sandboxes.discard()
