"""Shared fixtures. Tests marked ``embedded`` run only in the SQLite pass of `make test`."""

from __future__ import annotations

import os

import pytest

EMBEDDED = os.environ.get("ARENA_EMBEDDED_TEST") == "1"


def pytest_configure(config):
    config.addinivalue_line("markers", "embedded: runs against the embedded default (SQLite)")
    config.addinivalue_line("markers", "integration: needs real PostgreSQL and Redis")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "embedded" in item.keywords and not EMBEDDED:
            item.add_marker(
                pytest.mark.skip(reason="runs in the embedded pass (ARENA_EMBEDDED_TEST=1)")
            )
