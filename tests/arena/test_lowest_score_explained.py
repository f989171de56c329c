"""Where the lowest score wins, the match page (with its replay) and the standings say so;
where the highest wins they say nothing."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from games.scoring import score_direction
from tests.support.builders import (
    bot_with_version,
    finished_match,
    outcome,
    play_queued,
    started_event,
    user,
)
from tournaments import selectors
from tournaments.models import Match, StandingsSnapshot, Tournament
from tournaments.read_models import latest_lowest_score_wins
from tournaments.services.playing import claim_match, record_result

pytestmark = pytest.mark.django_db


def test_the_direction_of_a_games_scores():
    assert score_direction([(1, 3), (2, 10)]) == "lowest"
    assert score_direction([(1, 10), (2, 3), (3, 1)]) == "highest"
    assert score_direction([(1, 5), (1, 5)]) is None  # nothing to compare
    assert score_direction([(1, 5), (2, 9), (3, 1)]) is None  # ranked by another key
    assert score_direction([(1, None), (2, 4)]) is None


def lowest_wins(match, seats):
    """Ranks by bot id; the winner scored the fewest points."""
    order = sorted(s.version.bot_id for s in seats)
    return [order.index(s.version.bot_id) + 1 for s in seats]


def record_lowest_winning(tournament):
    for match in Match.objects.filter(tournament=tournament, status="queued"):
        seats = list(match.seats.select_related("version").order_by("seat"))
        ranks = lowest_wins(match, seats)
        result = outcome(match=match, ranks=ranks)
        for seat, rank in zip(result["result"]["seats"], ranks, strict=True):
            seat["score"] = rank * 3  # the winner has the fewest
        attempt = claim_match(match_id=match.pk)
        assert record_result(match_id=match.pk, attempt=attempt, outcome=result)


def test_lowest_wins_is_said_on_the_match_and_the_standings():
    cup = started_event(organiser=user(name="teacher"), entrants=3, fields={})
    record_lowest_winning(cup)
    page = Client().get(f"/tournaments/{cup.pk}/").content.decode()
    assert 'id="lowest-wins"' in page and "the lowest score wins each game" in page
    html = Client().get(f"/matches/{_match_scored([1, 2], [3, 12]).pk}/").content.decode()
    assert "The lowest score wins in this game" in html


@pytest.mark.parametrize("lowest", [True, False])
def test_the_snapshot_keeps_whether_the_lowest_wins_as_the_matches_tell_it(
    lowest, django_assert_num_queries
):
    cup = started_event(organiser=user(name="teacher"), entrants=3, fields={})
    if lowest:
        record_lowest_winning(cup)
    else:
        play_queued(tournament_id=cup.pk)  # outcome(): score 10 - rank, the highest wins
    Client().get(f"/tournaments/{cup.pk}/")  # the snapshot of the current results
    cup.refresh_from_db()
    snapshot = StandingsSnapshot.objects.get(tournament=cup, version=cup.results_version)
    stored = json.loads(snapshot.data)["lowest_score_wins"]
    assert stored is lowest and stored == latest_lowest_score_wins(cup.pk)
    # The page's read takes it from the snapshot, not from the matches again.
    read = Tournament.objects.select_related("snapshot").get(pk=cup.pk)
    selectors.overview(tournament=read)
    with django_assert_num_queries(0):
        assert selectors.lowest_score_wins(tournament=read) is lowest


def test_highest_wins_says_nothing():
    cup = started_event(organiser=user(name="teacher"), entrants=3, fields={})
    play_queued(tournament_id=cup.pk)  # outcome(): score 10 - rank, the highest wins
    assert 'id="lowest-wins"' not in Client().get(f"/tournaments/{cup.pk}/").content.decode()
    match = _match_scored([1, 2], [12, 3])
    assert 'id="lowest-wins"' not in Client().get(f"/matches/{match.pk}/").content.decode()


def _match_scored(ranks, scores):
    versions = [bot_with_version(name=f"scored{i}_{ranks}_{scores}")[1] for i in range(2)]
    match = finished_match(versions=versions, ranks=ranks, rate=False)
    for seat, score in zip(match.seats.order_by("seat"), scores, strict=True):
        seat.score = score
        seat.save()
    return match
