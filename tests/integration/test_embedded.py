"""The same journey on the embedded default: SQLite and the filesystem broker, no servers."""

import pytest
from django.conf import settings
from django.db import connection

from tests.support.user_journey import run_user_journey

pytestmark = [pytest.mark.embedded]


def test_uploaded_bots_play_a_tournament_embedded(celery_worker_process):
    assert connection.vendor == "sqlite"
    assert settings.CELERY_BROKER_URL.startswith("filesystem://")
    run_user_journey(celery_worker_process)
