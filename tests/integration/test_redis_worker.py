"""End to end on the production shape: a real worker, real Redis, the test database on PostgreSQL."""

import pytest
from django.conf import settings
from django.db import connection

from tests.support.user_journey import run_user_journey

pytestmark = [pytest.mark.integration]


def test_uploaded_bots_play_a_tournament_on_a_redis_worker(celery_worker_process):
    if not settings.CELERY_BROKER_URL.startswith("redis://"):
        pytest.skip("set CELERY_BROKER_URL=redis://... (make test does)")
    if connection.vendor != "postgresql":
        pytest.skip("set DATABASE_URL=postgres://... (make test does)")
    run_user_journey(celery_worker_process)
