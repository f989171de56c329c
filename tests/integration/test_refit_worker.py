"""A pool's refit runs on a real worker after results arrive, without the recorder waiting."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.db import connection

from tests.support.builders import bot_with_version, finished_match
from tests.support.servers import wait_for
from tournaments import selectors
from tournaments.models import PoolFit, RatingLedger

pytestmark = [pytest.mark.integration]


@pytest.fixture(autouse=True)
def production_shape():
    if (
        not django_settings.CELERY_BROKER_URL.startswith("redis://")
        or connection.vendor != "postgresql"
    ):
        pytest.skip("needs Redis and PostgreSQL (make test sets them)")


def test_results_ask_for_one_refit_that_a_worker_runs(celery_worker_process, settings):
    settings.ARENA_FIT_DELAY_SECONDS = 1
    _, a = bot_with_version(name="a")
    _, b = bot_with_version(name="b")
    for seed in range(12):
        finished_match(versions=[a, b], ranks=[1, 2] if seed % 4 else [2, 1], seed=seed)
    fit = wait_for(
        lambda: PoolFit.objects.filter(pool="pairs:2", seq=12).first(),
        60,
        "the refit",
        celery_worker_process,
    )
    assert fit.players == 2 and fit.converged
    rows = {row["bot"]: row for row in selectors.leaderboard(game="pairs")}
    assert rows["a"]["estimate"] == "fit" and rows["a"]["elo"] > rows["b"]["elo"]
    assert rows["a"]["elo_low"] < rows["a"]["elo"] < rows["a"]["elo_high"]
    # The refit cleared its request once it started.
    assert RatingLedger.objects.get(pool="pairs:2").fit_requested_at is None
