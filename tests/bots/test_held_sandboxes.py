"""Sandboxes prepared while a match starts, for the next match of the same bots
(bots/held_sandboxes.py): taken by that match, closed when not, never blocking the match."""

from __future__ import annotations

import os
import threading

import pytest

from bots import held_sandboxes
from bots.players import BuiltinPlayer, ProgramPlayer
from bots.runner import play_match
from bots.sandbox import Limits, slots
from tests.support import toygame
from tests.support.raw_bot import RAW_TEMPLATE, raw_bot


@pytest.fixture
def clean(no_leaks):
    """Spares are closed before ``no_leaks`` looks for anything left behind."""
    yield
    held_sandboxes.discard()


pytestmark = pytest.mark.usefixtures("clean", "toy_games")


def seats(*folders):
    return [ProgramPlayer(folder, Limits(), label=folder.name) for folder in folders]


def play(players, ahead=True):
    def prepare_ahead():
        held_sandboxes.prepare_like((p.bot_dir, p.limits) for p in players if hasattr(p, "bot_dir"))

    return play_match(
        game_slug="toy", players=players, options={"rounds": 2}, seed=4,
        while_starting=prepare_ahead if ahead else None,
    )  # fmt: skip


def held_boxes():
    return [spare.box for spare in held_sandboxes._SPARES]


def test_the_next_match_of_the_same_bots_takes_the_spares(make_bot):
    a, b = raw_bot(make_bot, name="a"), raw_bot(make_bot, name="b")
    first = play(seats(a, b))
    assert all(s["fault"] is None for s in first.result["seats"])
    built = held_boxes()
    assert len(built) == 2 and all(box.held and box.returncode is None for box in built)
    players = seats(a, b) + [BuiltinPlayer(toygame.GAME, "random", 2)]
    second = play(players, ahead=False)
    assert all(s["fault"] is None for s in second.result["seats"])
    assert [p.box for p in players[:2]] == built  # the spares played, in their seats
    assert held_sandboxes.held() == 0
    assert all(box.returncode is not None for box in built)  # and were closed after it


def test_a_bot_playing_itself_gets_a_spare_per_seat(make_bot):
    a = raw_bot(make_bot, name="a")
    play(seats(a, a))
    assert held_sandboxes.held() == 2
    players = seats(a, a)
    play(players)
    assert players[0].box is not players[1].box
    assert held_sandboxes.held() == 2  # built again while the second match started


def test_spares_the_next_match_cannot_use_are_closed_while_it_starts(make_bot):
    a, b, c = (raw_bot(make_bot, name=n) for n in "abc")
    play(seats(a, b))
    old = held_boxes()
    play(seats(a, c))  # takes a's spare; b's is closed while this match starts
    assert all(box.returncode is not None for box in old)
    assert sorted(spare.key[0].name for spare in held_sandboxes._SPARES) == ["a", "c"]
    assert all(box.held for box in held_boxes())


def test_a_spare_left_too_long_or_killed_is_not_used(make_bot, monkeypatch):
    a, b = raw_bot(make_bot, name="a"), raw_bot(make_bot, name="b")
    play(seats(a, b))
    stale, killed = held_boxes()
    monkeypatch.setattr(held_sandboxes, "MAX_AGE_S", -1.0)
    assert held_sandboxes.take(a, Limits()) is None  # too old: closed, none for b either
    assert stale.returncode is not None and killed.returncode is not None
    monkeypatch.setattr(held_sandboxes, "MAX_AGE_S", 30.0)
    play(seats(a, b))
    victim = held_boxes()[1]
    victim.proc.kill()
    victim.proc.wait()
    players = seats(a, b)
    outcome = play(players, ahead=False)
    assert all(s["fault"] is None for s in outcome.result["seats"])
    assert players[1].box is not victim  # its seat built a fresh sandbox
    victim.close()


def test_a_spare_that_cannot_be_built_is_left_out(make_bot, monkeypatch):
    monkeypatch.setattr(slots, "MAX_STAGED_BYTES", 1000)
    small = raw_bot(make_bot, name="small")
    large = make_bot("print('hi')\n", name="large", data="x" * 5000)
    outcome = play(seats(small, large))
    assert outcome.result["seats"][0]["fault"] is None
    assert "could not be started" in outcome.result["seats"][1]["fault"]["reason"]
    assert [spare.key[0].name for spare in held_sandboxes._SPARES] == ["small"]


def test_only_the_thread_that_built_a_spare_takes_it(make_bot):
    """bwrap dies with the thread that started it: another thread's spare is never taken,
    and a spare whose thread has ended is closed."""
    a, b = raw_bot(make_bot, name="a"), raw_bot(make_bot, name="b")
    outcome: list = []
    builder = threading.Thread(target=lambda: outcome.append(play(seats(a, b))))
    builder.start()
    builder.join()
    assert all(s["fault"] is None for s in outcome[0].result["seats"])
    theirs = held_boxes()
    assert len(theirs) == 2
    players = seats(a, b)
    play(players, ahead=False)  # their thread has ended: closed, not taken
    assert not set(map(id, theirs)) & {id(p.box) for p in players}
    assert all(box.returncode is not None for box in theirs)
    assert held_sandboxes.held() == 0


def test_a_retired_match_s_bots_are_killed_at_once_and_freed_when_closed(make_bot):
    """A worker retires a finished match's seats after its commit: the bots die there and
    then, even one that goes on running after "end"; their slots, cgroups and staged copies
    are freed by ``close_retired`` (the next match's start-up)."""
    stubborn = make_bot(
        RAW_TEMPLATE.format(on_act="pass", on_start="pass") + "while True:\n    pass\n",
        name="stubborn",
    )
    players = seats(stubborn, raw_bot(make_bot, name="b"))
    outcome = play_match(
        game_slug="toy", players=players, options={"rounds": 2}, seed=4, leave_open=True
    )
    assert all(s["fault"] is None for s in outcome.result["seats"])
    boxes = [p.box for p in players]
    held_sandboxes.retire(players)
    assert held_sandboxes.retired() == 2
    for box in boxes:
        if box.group is not None:  # nothing but bwrap's monitor, which exits by itself
            assert set(box.group.procs()) <= {box.pid}
        assert box.staged.exists()
        if box.slot_uid is not None:
            assert slots.held(box.slot_uid)
    held_sandboxes.close_retired()
    assert held_sandboxes.retired() == 0
    for box in boxes:
        assert box.returncode is not None and not box.staged.exists()
        if box.slot_uid is not None:
            assert not slots.held(box.slot_uid)


def test_retiring_a_match_closes_the_one_retired_before(make_bot):
    a, b = raw_bot(make_bot, name="a"), raw_bot(make_bot, name="b")
    first, second = seats(a, b), seats(a, b)
    for players in (first, second):
        play_match(game_slug="toy", players=players, options={"rounds": 2}, seed=4, leave_open=True)
        held_sandboxes.retire(players)
    assert held_sandboxes.retired() == 2
    assert all(p.box.returncode is not None and not p.box.staged.exists() for p in first)
    assert all(p.box.staged.exists() for p in second)


def test_a_sandbox_starts_while_the_worker_holds_more_descriptors_than_a_bot_may_open(make_bot):
    """Spare and retired sandboxes keep the worker's descriptors open; the launcher's child
    holds them all until exec, and the bot's open-files limit must not stop it there."""
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(Limits().open_files + 8)]
    try:
        outcome = play(seats(raw_bot(make_bot, name="a"), raw_bot(make_bot, name="b")))
    finally:
        for fd in held:
            os.close(fd)
    assert all(s["fault"] is None for s in outcome.result["seats"])
