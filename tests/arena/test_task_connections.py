"""Around each task a worker closes a connection that broke or is too old (arena.celery),
and Django pings a kept one before the next task's first query: unless the last task ended
a moment ago (a run of matches), when the ping would cost a round trip every task."""

from __future__ import annotations

import pytest
from celery.signals import task_postrun, task_prerun
from django.db import connections

from arena import celery as arena_celery

pytestmark = pytest.mark.django_db(transaction=True)  # autocommit, as in a worker


@pytest.fixture
def kept_and_checked(monkeypatch):
    """A worker's settings: connections kept, health checks on."""
    monkeypatch.setattr(arena_celery, "_keep_connections", True)
    default = connections["default"]
    default.ensure_connection()
    monkeypatch.setattr(default, "health_check_enabled", True)
    monkeypatch.setattr(default, "close_at", None)
    monkeypatch.setattr(default, "errors_occurred", False)
    return default


def test_a_task_right_after_another_skips_the_ping(kept_and_checked):
    arena_celery.close_old_connections(signal=task_postrun)
    assert not kept_and_checked.health_check_done  # armed by Django's close_old_connections
    arena_celery.close_old_connections(signal=task_prerun)
    assert kept_and_checked.health_check_done
    assert kept_and_checked.connection is not None  # kept


def test_a_task_after_a_pause_pings_its_connection_first(kept_and_checked, monkeypatch):
    arena_celery.close_old_connections(signal=task_postrun)
    monkeypatch.setattr(
        arena_celery, "_last_task_ended", arena_celery._last_task_ended - 60
    )  # a minute without tasks
    arena_celery.close_old_connections(signal=task_prerun)
    assert not kept_and_checked.health_check_done
    assert kept_and_checked.connection is not None
