"""The standings read models: totals kept with each result equal a rebuild from the matches,
and the snapshot the API serves equals the standings computed from every game.

Events of every format are driven through the services a worker and staff use (results
recorded, matches failed out of attempts, failures queued again, tournaments cancelled
mid-way) in random orders; after every step the incremental totals are compared with a
rebuild, and the overview with one computed from every decided match.
"""

from __future__ import annotations

import json
import random

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tests.support.builders import (
    fail_every_attempt,
    outcome,
    random_ranks,
    record_random_result,
    started_event,
)
from tests.support.standings_reference import pairwise_from_every_game
from tournaments import selectors, services
from tournaments.formats.overview import TOTALS_FORMATS
from tournaments.models import EntryTally, Match, StandingsSnapshot, Tournament
from tournaments.read_models import (
    points_scale,
    rebuild_totals,
    stored_game_points,
    stored_totals,
    totals_from_matches,
)
from tournaments.services.playing import claim_match, record_result
from tournaments.services.requeue import requeue_failed_match

FORMATS = [
    pytest.param({"format": "round_robin", "games_per_pairing": 2}, 6, id="round-robin"),
    pytest.param(
        {"format": "round_robin", "players_per_match": 3, "games_per_pairing": 3},
        5,
        id="round-robin-3-seats",
    ),
    pytest.param(
        {"format": "gauntlet", "games_per_pairing": 2, "challengers": [0, 1]}, 5, id="gauntlet"
    ),
    pytest.param({"format": "swiss", "rounds": 3, "games_per_pairing": 2}, 7, id="swiss"),
    pytest.param(
        {"format": "single_elimination", "games_per_pairing": 2, "third_place": True},
        6,
        id="single-elimination",
    ),
    pytest.param(
        {"format": "double_elimination", "games_per_pairing": 2}, 5, id="double-elimination"
    ),
    pytest.param(
        {
            "format": "single_elimination",
            "players_per_match": 3,
            "advance": 2,
            "games_per_pairing": 3,
        },
        7,
        id="elimination-tables",
    ),
]


@pytest.fixture
def organiser(db):
    return get_user_model().objects.create_user(username="org")


def check(tournament: Tournament) -> None:
    """Incremental totals == a rebuild's; snapshot overview == the one from every match."""
    tournament.refresh_from_db()
    assert stored_totals(tournament.pk) == totals_from_matches(tournament)
    served = selectors.overview(tournament=tournament)
    assert json.dumps(served) == json.dumps(selectors.overview_from_matches(tournament=tournament))
    assert selectors.game_points(tournament=tournament)["pairwise"] == pairwise_from_every_game(
        tournament
    )
    # The tables', series' and deciders' game points stored with the snapshot (read by
    # overview() above) == those read from every decided game (a tournament read afresh).
    afresh = Tournament.objects.get(pk=tournament.pk)
    if tournament.format not in TOTALS_FORMATS and served["standings"][0]["position"]:
        assert stored_game_points(tournament._standings_snapshot) is not None
    assert selectors.game_points(tournament=tournament) == selectors.game_points(tournament=afresh)
    assert selectors.decider_points(tournament=tournament) == selectors.decider_points(
        tournament=afresh
    )
    # A finished event's counts come with its snapshot: the same as counted afresh.
    fresh = Tournament.objects.get(pk=tournament.pk)
    assert selectors.progress(tournament=tournament) == selectors.progress(tournament=fresh)


def step(tournament: Tournament, rng: random.Random) -> bool:
    """One random thing that happens to an event; False once nothing is left to happen."""
    tournament.refresh_from_db()
    queued = list(tournament.matches.filter(status=Match.Status.QUEUED).order_by("pk"))
    failed = list(tournament.matches.filter(status=Match.Status.FAILED))
    roll = rng.random()
    if failed and roll < 0.15:
        match = rng.choice(failed)
        try:
            requeue_failed_match(match=match)
        except ValidationError:  # Swiss and elimination keep a failure as a draw
            assert tournament.format not in ("round_robin", "gauntlet")
        return True
    if not queued:
        return False
    match = rng.choice(queued)
    if roll < 0.3:
        fail_every_attempt(match=match)
    else:
        record_random_result(match=match, rng=rng)
    return True


@pytest.mark.parametrize("fields, entrants", FORMATS)
@pytest.mark.parametrize("seed", [1, 2])
def test_incremental_standings_equal_a_rebuild_after_random_results(
    organiser, settings, fields, entrants, seed
):
    settings.ARENA_MAX_MATCH_ATTEMPTS = 1
    rng = random.Random(seed * 1000 + entrants)
    tournament = started_event(organiser=organiser, entrants=entrants, fields=fields)
    check(tournament)
    cancel_after = rng.randint(3, 12) if seed == 2 else None
    cancelled = False
    steps = 0
    while step(tournament, rng):
        steps += 1
        if steps % 3 == 0:
            check(tournament)
        if steps == cancel_after and tournament.status == Tournament.Status.RUNNING:
            # Cancelled mid-way with a match still running: its result lands afterwards.
            running = tournament.matches.filter(status=Match.Status.QUEUED).first()
            attempt = claim_match(match_id=running.pk) if running else None
            services.cancel_tournament(tournament=Tournament.objects.get(pk=tournament.pk))
            cancelled = True
            check(tournament)
            if running:
                assert record_result(
                    match_id=running.pk,
                    attempt=attempt,
                    outcome=outcome(
                        match=running, ranks=random_ranks(seats=running.seats.count(), rng=rng)
                    ),
                )
            break
        assert steps < 2000
    check(tournament)
    tournament.refresh_from_db()
    if not cancelled:
        assert tournament.status == Tournament.Status.FINISHED
    else:
        assert tournament.status == Tournament.Status.CANCELLED
    incremental = stored_totals(tournament.pk)
    served = json.dumps(selectors.overview(tournament=tournament))
    call_command("rebuild_read_models", "--only", "standings", verbosity=0)
    assert stored_totals(tournament.pk) == incremental
    tournament.refresh_from_db()
    assert json.dumps(selectors.overview(tournament=tournament)) == served


def test_a_failure_queued_again_is_taken_back_once_and_its_replay_counts(organiser, settings):
    settings.ARENA_MAX_MATCH_ATTEMPTS = 1
    tournament = started_event(
        organiser=organiser, entrants=3, fields={"format": "round_robin", "games_per_pairing": 2}
    )
    first, *rest = tournament.matches.order_by("pk")
    fail_every_attempt(match=first)
    check(tournament)
    draws = stored_totals(tournament.pk)[0]
    scale = points_scale(2)
    assert sorted(v[0] for v in draws.values()) == [0, scale // 2, scale // 2]  # a draw each
    requeue_failed_match(match=first)
    assert all(v == [0] * 5 for v in stored_totals(tournament.pk)[0].values())
    # Counting is idempotent: the same status counted again changes nothing.
    from tournaments.read_models import count_result

    version = Tournament.objects.get(pk=tournament.pk).results_version
    count_result(match_id=first.pk)
    assert Tournament.objects.get(pk=tournament.pk).results_version == version
    record_random_result(match=Match.objects.get(pk=first.pk), rng=random.Random(3))
    for match in rest:
        record_random_result(match=match, rng=random.Random(match.pk))
    check(tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED


def test_a_status_changed_around_the_services_is_found_before_a_snapshot_is_built(organiser):
    tournament = started_event(
        organiser=organiser, entrants=4, fields={"format": "round_robin", "games_per_pairing": 2}
    )
    matches = list(tournament.matches.order_by("pk"))
    record_random_result(match=matches[0], rng=random.Random(1))
    check(tournament)
    # A write that bypasses the services (a bulk fix-up, say): the totals did not see it.
    Match.objects.filter(pk=matches[1].pk).update(status=Match.Status.FAILED)
    assert stored_totals(tournament.pk) != totals_from_matches(tournament)
    record_random_result(
        match=matches[2], rng=random.Random(2)
    )  # the next result makes the snapshot stale ...
    tournament.refresh_from_db()
    served = selectors.overview(tournament=tournament)  # ... its rebuild finds the drift
    assert json.dumps(served) == json.dumps(selectors.overview_from_matches(tournament=tournament))
    check(tournament)


def test_totals_missing_are_built_from_the_matches_at_the_first_read(organiser):
    """Matches bulk-loaded, or decided before the tables existed: no totals at all."""
    tournament = started_event(
        organiser=organiser, entrants=4, fields={"format": "round_robin", "games_per_pairing": 2}
    )
    for match in tournament.matches.order_by("pk")[:5]:
        record_random_result(match=match, rng=random.Random(match.pk))
    expected = json.dumps(selectors.overview_from_matches(tournament=tournament))
    EntryTally.objects.filter(tournament=tournament).delete()
    StandingsSnapshot.objects.filter(tournament=tournament).delete()
    Match.objects.filter(tournament=tournament).update(standings_counted="")
    tournament.refresh_from_db()
    assert json.dumps(selectors.overview(tournament=tournament)) == expected
    assert stored_totals(tournament.pk) == totals_from_matches(tournament)


def test_a_current_snapshot_is_one_row_and_the_api_output_is_unchanged(organiser):
    tournament = started_event(
        organiser=organiser, entrants=6, fields={"format": "round_robin", "games_per_pairing": 2}
    )
    for match in tournament.matches.order_by("pk")[:20]:
        record_random_result(match=match, rng=random.Random(match.pk))
    client = APIClient()
    path = f"/api/tournaments/{tournament.pk}/"
    first = client.get(path).json()
    old = selectors.overview_from_matches(tournament=Tournament.objects.get(pk=tournament.pk))
    assert first["standings"] == old["standings"]
    assert list(first["standings"][0]) == list(old["standings"][0])  # same fields, same order
    assert first["tiebreaks"] == old["tiebreaks"] == ["sonneborn_berger", "head_to_head", "faults"]
    assert first["round_tables"] == old["rounds"] and first["bracket"] == old["bracket"]
    with CaptureQueriesContext(connection) as queries:
        again = client.get(path).json()
    assert again == first
    # Tournament, entrants, snapshot, progress (and the organiser joined): no match is read.
    touched = " ".join(q["sql"] for q in queries.captured_queries)
    assert "tournaments_matchseat" not in touched
    assert "tournaments_entrytally" not in touched and "tournaments_pairtally" not in touched
    assert len(queries.captured_queries) <= 6


def test_rebuild_command_reports_progress_and_repairs_totals(organiser, capsys):
    tournament = started_event(
        organiser=organiser,
        entrants=4,
        fields={"format": "swiss", "rounds": 2, "games_per_pairing": 2},
    )
    for match in tournament.matches.order_by("pk"):
        record_random_result(match=match, rng=random.Random(match.pk))
    EntryTally.objects.filter(tournament=tournament).update(points=999)
    call_command("rebuild_read_models")
    out = capsys.readouterr().out
    assert f"standings: 1/1 tournament {tournament.pk}: 4 decided matches" in out
    assert "standings: rebuilt 1" in out
    assert stored_totals(tournament.pk) == totals_from_matches(tournament)
    check(tournament)


def test_a_rebuild_makes_the_snapshot_stale(organiser):
    tournament = started_event(
        organiser=organiser, entrants=3, fields={"format": "round_robin", "games_per_pairing": 2}
    )
    selectors.overview(tournament=tournament)
    snapshot = StandingsSnapshot.objects.get(tournament=tournament)
    assert snapshot.version == Tournament.objects.get(pk=tournament.pk).results_version
    rebuild_totals(tournament_id=tournament.pk)
    assert Tournament.objects.get(pk=tournament.pk).results_version == snapshot.version + 1
    assert not StandingsSnapshot.objects.filter(tournament=tournament).exists()
