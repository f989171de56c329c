"""Fixtures of the integration tests: a real Celery worker for the test, and an organiser."""

from __future__ import annotations

import pytest

from tests.support.workers import purge_broker, start_worker, stop_worker


@pytest.fixture
def celery_worker_process(transactional_db, tmp_path):
    """One worker for the test; it must still be alive at the end."""
    purge_broker()
    worker = start_worker(tmp_path)
    try:
        yield worker
    finally:
        alive = worker.poll() is None
        stop_worker(worker)
        if not alive:
            pytest.fail("the worker died during the test:\n" + worker.log_path.read_text()[-3000:])


@pytest.fixture
def organiser(transactional_db):
    """A user and an API client logged in as them."""
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    user = get_user_model().objects.create_user("format-org")
    client = APIClient()
    client.force_authenticate(user)
    return user, client
