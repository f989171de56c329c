"""A worker builds its next match's sandboxes while a match's bots start (bots/spares.py)."""

from __future__ import annotations

import pytest

from bots import sandbox, spares
from tests.tournaments.test_lifecycle import tournament  # noqa: F401 (a fixture)
from tournaments.models import Match
from tournaments.services.playing import play_queued_match


@pytest.fixture(autouse=True)
def sandboxed():
    if not sandbox.sandbox_available():
        pytest.skip("bubblewrap is not usable here")


def pairs_games(tournament):  # noqa: F811
    """The two games of one pairing (same two versions), in queue order."""
    by_pair: dict = {}
    for match in tournament.matches.order_by("pk"):
        key = frozenset(s.version_id for s in match.seats.all())
        by_pair.setdefault(key, []).append(match)
    return next(games for games in by_pair.values() if len(games) == 2)


def test_the_next_match_of_a_pairing_takes_the_sandboxes_built_during_the_first(tournament):  # noqa: F811
    first, second = pairs_games(tournament)
    assert play_queued_match(match_id=first.pk)
    built = [spare.box for spare in spares._SPARES]
    assert len(built) == 2 and all(box.held for box in built)
    assert play_queued_match(match_id=second.pk)
    assert all(box.returncode is not None for box in built)  # taken, played and closed
    assert spares.held() == 2 and not set(map(id, built)) & {id(s.box) for s in spares._SPARES}
    assert Match.objects.filter(pk__in=[first.pk, second.pk], status="finished").count() == 2


def test_no_spares_when_turned_off(tournament, settings):  # noqa: F811
    settings.ARENA_PREPARE_AHEAD = False
    first, _second = pairs_games(tournament)
    assert play_queued_match(match_id=first.pk)
    assert spares.held() == 0
