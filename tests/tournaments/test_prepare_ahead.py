"""A worker builds its next match's sandboxes while a match's bots start (bots/held_sandboxes.py)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from bots import held_sandboxes, sandbox
from bots.models import Bot
from bots.sandbox import slots
from tests.support.builders import started_tournament, version
from tournaments.models import Match
from tournaments.services.playing import play_queued_match

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "bots"


@pytest.fixture(autouse=True)
def sandboxed():
    if not sandbox.sandbox_available():
        pytest.skip("bubblewrap is not usable here")


def pairs_games(tournament):
    """The two games of one pairing (same two versions), in queue order."""
    by_pair: dict = {}
    for match in tournament.matches.order_by("pk"):
        key = frozenset(s.version_id for s in match.seats.all())
        by_pair.setdefault(key, []).append(match)
    return next(games for games in by_pair.values() if len(games) == 2)


def test_the_next_match_of_a_pairing_takes_the_sandboxes_built_during_the_first(tournament):
    first, second = pairs_games(tournament)
    assert play_queued_match(match_id=first.pk)
    built = [spare.box for spare in held_sandboxes._SPARES]
    assert len(built) == 2 and all(box.held for box in built)
    assert play_queued_match(match_id=second.pk)
    assert {id(p.box) for p in held_sandboxes._RETIRED} == set(
        map(id, built)
    )  # taken, played, retired
    assert held_sandboxes.held() == 2 and not set(map(id, built)) & {
        id(s.box) for s in held_sandboxes._SPARES
    }
    assert Match.objects.filter(pk__in=[first.pk, second.pk], status="finished").count() == 2


def test_no_spares_when_turned_off(tournament, settings):
    settings.ARENA_PREPARE_AHEAD = False
    first, _second = pairs_games(tournament)
    assert play_queued_match(match_id=first.pk)
    assert held_sandboxes.held() == 0


@pytest.fixture
def playing(db):
    """A tournament of two bots that play (``raw_bot.py``): their seats last to the end."""
    owner = get_user_model().objects.create_user(username="org")
    source = (EXAMPLES / "raw_bot.py").read_bytes()
    bots = []
    for name in ("a", "b"):
        bot = Bot.objects.create(owner=owner, name=name, game="pairs")
        # One source, a digest of its own each: the bot cache keeps a folder per digest.
        digest = hashlib.sha256(source + name.encode()).hexdigest()
        version(bot=bot, source=source, sha256=digest, announce=False)
        bots.append(bot)
    return started_tournament(organiser=owner, bots=bots, games_per_pairing=2, seed=99)


@pytest.mark.parametrize("ahead", [True, False])
def test_a_match_s_sandboxes_are_torn_down_while_the_next_one_starts(playing, settings, ahead):
    """After its commit a match's bots are killed; its sandboxes (slots, cgroups, staged
    copies) are freed while the next match's bots start, with or without spares."""
    settings.ARENA_PREPARE_AHEAD = ahead
    first, second = pairs_games(playing)
    assert play_queued_match(match_id=first.pk)
    assert all(s.fault is None for s in first.seats.all())  # they played to the end
    boxes = [p.box for p in held_sandboxes._RETIRED]
    assert len(boxes) == 2 and all(box.staged.exists() for box in boxes)
    assert all(set(box.group.procs()) <= {box.pid} for box in boxes if box.group is not None)
    assert play_queued_match(match_id=second.pk)
    assert all(box.returncode is not None and not box.staged.exists() for box in boxes)
    assert all(not slots.held(box.slot_uid) for box in boxes if box.slot_uid is not None)
    assert held_sandboxes.retired() == 2 and not {id(p.box) for p in held_sandboxes._RETIRED} & set(
        map(id, boxes)
    )
