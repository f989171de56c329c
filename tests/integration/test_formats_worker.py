"""Every format and the ladder played end to end by real workers (Redis and PostgreSQL).

The bots are real uploads, validated in the sandbox; the workers are separate
processes with beat, as in production. One format also runs on the embedded
default, and one event survives a worker killed mid-round.
"""

from __future__ import annotations

import os
import signal

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection

from bots import services as bot_services
from bots.models import BotVersion
from bots.sandbox import slots
from tests.integration.test_worker_killed import FAST_REAPER, SLOW_BOT
from tests.support import leaks
from tests.support.servers import wait_for
from tests.support.user_journey import RAW_BOT, SDK_BOT
from tests.support.workers import purge_broker, start_worker, stop_worker
from tournaments.models import Ladder, Match, Rating, RatingChange

pytestmark = [pytest.mark.integration]

# Plays the last legal action: a different strategy from RAW_BOT's first one.
LAST_BOT = RAW_BOT.replace(b'message["legal"][0]', b'message["legal"][-1]')


def needs_production_shape():
    if not settings.CELERY_BROKER_URL.startswith("redis://") or connection.vendor != "postgresql":
        pytest.skip("needs Redis and PostgreSQL (make test sets them)")


def active_bots(owner, count: int, sources=(RAW_BOT, SDK_BOT, LAST_BOT)) -> list[int]:
    ids = []
    for index in range(count):
        bot = bot_services.create_bot(owner=owner, name=f"{owner.username}-{index}", game="pairs")
        version = bot_services.upload_version(
            bot=bot, filename="bot.py", data=sources[index % len(sources)]
        )
        assert validated(version.pk) == "active"
        ids.append(bot.pk)
    return ids


def validated(version_id: int) -> str:
    """Validate here; a running worker may have claimed the queued validation first (the
    call then returns it "validating"): wait for that worker's verdict instead."""
    bot_services.validate_version(version_id=version_id)

    def verdict():
        status = BotVersion.objects.get(pk=version_id).status
        return status if status not in ("pending", "validating") else None

    return wait_for(verdict, 120, f"version {version_id}'s validation")


def finished_body(client, tournament_id, worker, timeout=300):
    def finished():
        body = client.get(f"/api/tournaments/{tournament_id}/").json()
        return body if body["status"] == "finished" else None

    return wait_for(
        finished, timeout, f"tournament {tournament_id} to finish", worker, interval=0.25
    )


def each_match_counted_once(tournament_id: int) -> list[Match]:
    matches = list(Match.objects.filter(tournament_id=tournament_id))
    assert matches and all(m.status == Match.Status.FINISHED for m in matches)
    for match in matches:
        assert RatingChange.objects.filter(match=match).count() == len(match.result["seats"])
    return matches


FORMATS = [
    ("swiss", 5, {"rounds": 2}),
    ("single_elimination", 4, {"third_place": True}),
    ("double_elimination", 3, {}),
    ("gauntlet", 4, {"challengers": "first"}),
]


@pytest.fixture(scope="class")
def formats_worker(django_db_setup, tmp_path_factory):
    """One worker for every format: none of those tests stops it, reads its log or its bot
    cache, and each waits for its own event only, so a worker each (some 7 s to start and
    stop on these machines) bought nothing. Ids are not reused between tests (the flush
    keeps the sequences), so nothing the worker kept stands for a later test's rows. It is
    stopped when the class is done: the tests after it count on their own workers only."""
    needs_production_shape()
    purge_broker()
    worker = start_worker(tmp_path_factory.mktemp("formats-worker"), "formats")
    yield worker
    stop_worker(worker)


@pytest.fixture
def format_worker(formats_worker, transactional_db):
    """The class's worker, which must still be alive at the end of each test."""
    yield formats_worker
    if formats_worker.poll() is not None:
        log = formats_worker.log_path.read_text()[-3000:]
        pytest.fail("the worker died during the test:\n" + log)


class TestEveryFormat:
    """The four formats, one after another on the class's worker."""

    @pytest.mark.parametrize(("format", "entrants", "extra"), FORMATS)
    def test_a_format_plays_to_the_end_on_a_worker(
        self, format_worker, organiser, format, entrants, extra
    ):
        user, client = organiser
        bots = active_bots(user, entrants)
        if extra.get("challengers") == "first":
            extra = {"challengers": [bots[0]]}
        body = {"name": format, "game": "pairs", "bots": bots, "format": format, **extra}
        answer = client.post("/api/tournaments/", body, format="json")
        assert answer.status_code == 201, answer.json()
        data = finished_body(client, answer.json()["id"], format_worker)
        each_match_counted_once(data["id"])
        assert sorted(r["bot_id"] for r in data["standings"]) == sorted(bots)
        assert [r["position"] for r in data["standings"]] == list(range(1, entrants + 1))
        if format == "swiss":
            assert [r["round"] for r in data["round_tables"]] == [1, 2]
            assert all(len(r["byes"]) == 1 for r in data["round_tables"])
        if "elimination" in format:
            played = [s for s in data["bracket"] if s["played"]]
            champion = data["standings"][0]["bot_id"]
            assert any(
                champion in s["winners"] for s in played if s["stage"] in ("winners", "final")
            )
            if format == "double_elimination":
                assert len(played) in (2 * entrants - 2, 2 * entrants - 1)
        if format == "gauntlet":
            matches = Match.objects.filter(tournament_id=data["id"]).prefetch_related(
                "seats__version"
            )
            assert all(any(s.version.bot_id == bots[0] for s in m.seats.all()) for m in matches)


def test_a_swiss_event_survives_a_worker_killed_mid_round(organiser, tmp_path):
    needs_production_shape()
    from tests.support.workers import purge_broker

    user, client = organiser
    bots = active_bots(user, 3, sources=(SLOW_BOT, RAW_BOT, LAST_BOT))
    purge_broker()
    first = start_worker(tmp_path, "first", **FAST_REAPER)
    second = None
    try:
        body = {"name": "kill swiss", "game": "pairs", "bots": bots, "format": "swiss",
                "rounds": 2, "move_ms": 2000, "bank_ms": 30000, "seeding": "entry"}  # fmt: skip
        answer = client.post("/api/tournaments/", body, format="json")
        assert answer.status_code == 201, answer.json()
        tournament_id = answer.json()["id"]

        def slow_bot_mid_match():
            running = Match.objects.filter(
                tournament_id=tournament_id,
                status=Match.Status.RUNNING,
                seats__version__bot=bots[0],
            )
            # This test's worker's sandboxes, not those of the tests beside it.
            return running.exists() and [
                p for p in slots.all_slot_processes() if leaks.launched_here(p)
            ]

        wait_for(slow_bot_mid_match, 90, "a match of round one to be running", first)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        second = start_worker(tmp_path, "second", **FAST_REAPER)
        data = finished_body(client, tournament_id, second)
        matches = each_match_counted_once(tournament_id)
        assert {m.round for m in matches} == {1, 2}
        assert any(m.attempts == 2 for m in matches)  # the one the kill interrupted
        assert sorted(r["bot_id"] for r in data["standings"]) == sorted(bots)
        assert second.poll() is None
    finally:
        stop_worker(first)
        if second is not None:
            stop_worker(second)


def test_a_new_version_gets_ladder_games_and_a_rating_without_a_tournament(
    transactional_db, tmp_path
):
    needs_production_shape()
    from tests.support.workers import purge_broker

    owner = get_user_model().objects.create_user("ladder-user")
    bots = active_bots(owner, 3)
    purge_broker()
    worker = start_worker(
        tmp_path, "ladder", ARENA_LADDER="1", ARENA_LADDER_SECONDS="1", ARENA_LADDER_SLOTS="2"
    )
    try:
        ladder = wait_for(
            lambda: Ladder.objects.filter(game="pairs").first(), 30, "a ladder for pairs", worker
        )
        assert ladder.players == 2

        def rated_versions():
            rated = Rating.objects.filter(pool="pairs:2", matches__gte=2).count()
            return rated >= 3 or None

        wait_for(rated_versions, 180, "every bot to have ladder games", worker, interval=0.25)
        # A new version of the first bot: the ladder places it first.
        bot = bot_services.BotVersion.objects.filter(bot_id=bots[0]).first().bot
        version = bot_services.upload_version(bot=bot, filename="v2.py", data=LAST_BOT)
        assert validated(version.pk) == "active"

        def new_version_rated():
            rating = Rating.objects.filter(version=version).first()
            return rating if rating and rating.matches >= 6 else None

        rating = wait_for(new_version_rated, 180, "the new version's first games", worker, 1)
        assert rating.matches >= 6
        ladder_matches = Match.objects.filter(ladder__game="pairs", status=Match.Status.FINISHED)
        assert ladder_matches.filter(seats__version=version).count() >= 6
        # Paired duplicate deals: each table's games share one seed with the seats rotated.
        for match in ladder_matches.filter(seats__version=version)[:4]:
            twins = Match.objects.filter(ladder=match.ladder, round=match.round)
            assert {m.seed for m in twins} == {match.seed} and twins.count() == 2
        assert not Match.objects.filter(tournament__isnull=False).exists()
        assert BotVersion.objects.filter(pk=version.pk, status="active").exists()
    finally:
        stop_worker(worker)
