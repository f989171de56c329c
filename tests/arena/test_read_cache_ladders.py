"""A ladder's page, live part and matches API stored under the ladder's version
(``LadderCount.changes``, moved by a trigger with every write of what they show): a stored
answer equals a fresh render, a hit reads the version alone, and every kind of write moves
the version, so no reader is answered from before it."""

from __future__ import annotations

import importlib

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.support.stored_reads import answer, claim_then_result, fresh, queued_ladder
from tournaments.apis.matches import MatchSerializer
from tournaments.models import LadderCount, Match, MatchSeat
from tournaments.readcache import marks
from tournaments.services import set_ladder_paused
from tournaments.services.ladder import recount_ladders
from tournaments.services.playing import claim_match

pytestmark = pytest.mark.django_db(transaction=True)

changes_migration = importlib.import_module("tournaments.migrations.0010_ladder_changes")


@pytest.fixture(autouse=True)
def _empty_cache(empty_cache):
    pass


@pytest.fixture
def ladder(owner, settings):
    return queued_ladder(owner=owner, settings=settings)


def reads(pk: int) -> list[str]:
    return [
        f"/ladders/{pk}/",
        f"/ladders/{pk}/live/",
        f"/ladders/{pk}/?after=0",
        f"/api/ladders/{pk}/matches/",
        f"/api/ladders/{pk}/matches/?page_size=1",
        f"/api/ladders/{pk}/",
        "/api/ladders/",
        "/ladders/",
    ]


def test_stored_answers_equal_a_fresh_render_and_a_hit_reads_the_version_alone(ladder):
    for url in reads(ladder.pk):
        first = fresh(url)
        with CaptureQueriesContext(connection) as queries:
            again = answer(url)
        assert again == first, url
        assert len(queries) == 1, (url, [q["sql"] for q in queries])


def moves_every_read(ladder, write) -> None:
    """``write()`` moves the ladder's version, and every read then answers as fresh."""
    before = marks.ladder_mark(pk=ladder.pk)
    for url in reads(ladder.pk):
        answer(url)  # stored under the version before the write
    write()
    assert marks.ladder_mark(pk=ladder.pk) != before
    after = {url: answer(url) for url in reads(ladder.pk)}
    for url in reads(ladder.pk):
        assert after[url] == fresh(url), url


def first_queued(ladder) -> Match:
    return ladder.matches.filter(status="queued").order_by("pk").first()


def test_a_claim_a_result_and_a_new_match_move_the_version(ladder):
    match = first_queued(ladder)
    claim, result = claim_then_result(match)
    moves_every_read(ladder, claim)
    moves_every_read(ladder, result)
    assert Match.objects.get(pk=match.pk).status == "finished"
    moves_every_read(
        ladder,
        lambda: Match.objects.create(game="pairs", engine_version=1, seed=9, ladder=ladder),
    )


def test_writes_that_keep_every_counter_move_the_version(ladder):
    """A requeue (running, then queued again: the same counters, one more attempt), a
    seat's rank alone, a result's text alone, a bulk update and a delete."""
    match = first_queued(ladder)
    claim_match(match_id=match.pk)
    moves_every_read(
        ladder, lambda: Match.objects.filter(pk=match.pk).update(status="queued", attempts=5)
    )
    seat = MatchSeat.objects.filter(match=match).first()
    moves_every_read(ladder, lambda: MatchSeat.objects.filter(pk=seat.pk).update(rank=2))
    moves_every_read(ladder, lambda: Match.objects.filter(pk=match.pk).update(error="boom"))
    # Seats inserted and deleted in bulk (one bump per statement on PostgreSQL).
    kept = list(MatchSeat.objects.filter(match=match).values("seat", "version_id"))
    moves_every_read(ladder, lambda: MatchSeat.objects.filter(match=match).delete())
    moves_every_read(
        ladder,
        lambda: MatchSeat.objects.bulk_create([MatchSeat(match=match, **row) for row in kept]),
    )
    moves_every_read(ladder, lambda: Match.objects.filter(pk=match.pk).delete())


def test_pausing_and_a_recount_move_the_version(ladder):
    moves_every_read(ladder, lambda: set_ladder_paused(ladder=ladder, paused=True))
    moves_every_read(ladder, recount_ladders)
    assert LadderCount.objects.get(ladder=ladder).changes > 0


def test_a_heartbeat_moves_nothing(ladder):
    """Heartbeats write what no ladder read shows: the stored answers stay reachable."""
    match = first_queued(ladder)
    claim_match(match_id=match.pk)
    before = marks.ladder_mark(pk=ladder.pk)
    Match.objects.filter(pk=match.pk).update(heartbeat_at=match.queued_at, worker="w2")
    assert marks.ladder_mark(pk=ladder.pk) == before


def test_the_trigger_watches_every_column_the_match_rows_show():
    columns = {
        Match._meta.get_field(name).column
        for name in MatchSerializer.Meta.fields
        # hidden: from the status and seed of the ladder's matches, both watched;
        # results_hidden: a competition's release level, never a public ladder's match
        if name not in ("id", "seats", "reproduce", "hidden", "results_hidden")
    }
    columns |= {"move_ms", "bank_ms"}  # the reproduce commands'
    assert columns <= set(changes_migration.MATCH_SHOWN)
    seat_columns = {"seat", "score", "rank", "fault", "version_id", "match_id"}
    assert seat_columns <= set(changes_migration.SEAT_SHOWN)


def test_a_ladder_without_counters_is_read_fresh_and_an_unknown_one_is_a_404(ladder, client):
    LadderCount.objects.filter(ladder=ladder).delete()
    assert marks.ladder_mark(pk=ladder.pk) is None
    assert client.get(f"/ladders/{ladder.pk}/").status_code == 200
    assert client.get("/ladders/999999/").status_code == 404
    assert client.get("/ladders/999999/live/").status_code == 404
    assert client.get("/api/ladders/999999/matches/").status_code == 404
