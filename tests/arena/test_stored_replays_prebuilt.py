"""A long match's stored replay is built once its result commits (a maintenance task sent
by ``record_result``), so its first reader finds it; a short match's is left to its first
read, and so is a long one's whose task was lost or failed.

The task runs eagerly here (in this process, at the commit); tests/integration runs it on
a real worker."""

from __future__ import annotations

import pytest
from celery import current_app
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.dashboard import frames as replay
from games import registry
from tests.support.replay_matches import record_played
from tests.support.stored_replays import (
    VIEWERS,
    big_columns_read,
    forget_stored,
    fresh_body,
    served_body,
)
from tournaments.models import MatchReplay
from tournaments.read_models import replays


@pytest.fixture(autouse=True)
def _empty_cache(empty_cache):
    pass


@pytest.fixture
def eager(monkeypatch):
    """Tasks sent run at once in this process, as a worker would run them (tasks sent by
    name run eagerly only once registered here, as a worker registers them)."""
    import tournaments.tasks  # noqa: F401

    monkeypatch.setattr(current_app.conf, "task_always_eager", True)


@pytest.fixture
def owner(make_user):
    return make_user("owner")


def same_row(row: MatchReplay, built: MatchReplay) -> bool:
    return (row.finished_at, row.version, row.index, bytes(row.data)) == (
        built.finished_at,
        built.version,
        built.index,
        bytes(built.data),
    )


def assert_answers_fresh(client, match, *, from_row: bool) -> None:
    """Every viewer's replay and frames equal a build from the record; ``from_row``: and
    neither reads the record nor the moves (the stored row answers)."""
    for kind in ("replay", "frames"):
        for seat in VIEWERS:
            forget_stored()
            with CaptureQueriesContext(connection) as queries:
                body = served_body(client, match, kind, seat)
            assert body == fresh_body(match, kind, seat), (kind, seat)
            if from_row:
                assert not big_columns_read(queries), (kind, seat)


def test_a_long_match_is_stored_when_its_result_commits(
    client, owner, eager, settings, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        match = record_played(owner, "paks", seed=7, players=2)
    assert len(match.moves) >= settings.ARENA_STORE_REPLAY_MOVES
    row = MatchReplay.objects.get(match=match)  # before any read
    assert same_row(row, replays.build_row(match))
    assert row.version == replays.row_version("paks")
    assert_answers_fresh(client, match, from_row=True)
    assert MatchReplay.objects.get(match=match).built_at == row.built_at  # no read rebuilt it


def test_a_short_match_sends_nothing(
    client, owner, eager, settings, django_capture_on_commit_callbacks
):
    threshold = settings.ARENA_STORE_REPLAY_MOVES
    with django_capture_on_commit_callbacks(execute=True):
        short = record_played(owner, "pairs", seed=3, players=2)
    assert len(short.moves) < threshold
    assert not MatchReplay.objects.exists()
    # The same match over the threshold is built: the assertion above can fail.
    settings.ARENA_STORE_REPLAY_MOVES = 1
    with django_capture_on_commit_callbacks(execute=True):
        again = record_played(owner, "pairs", seed=3, players=2)
    assert list(MatchReplay.objects.values_list("match_id", flat=True)) == [again.pk]
    settings.ARENA_STORE_REPLAY_MOVES = threshold
    # The short one's first read builds its row at once, as before (no task is building it).
    assert_answers_fresh(client, short, from_row=False)
    assert same_row(MatchReplay.objects.get(match=short), replays.build_row(short))


def lost_or_failed_then_read(client, match, settings) -> None:
    """With no row: while the task may still be building it (one reaper period), reads
    answer right and build only their own answers; after it, the first read builds and
    stores the row, as before the task existed."""
    assert replays.being_built(match)
    assert_answers_fresh(client, match, from_row=False)
    for seat in VIEWERS:
        forget_stored()
        page = client.get(f"/matches/{match.pk}/", {} if seat is None else {"seat": seat})
        events = registry.rebuild(match.record).events(seat)
        assert replay.render_text_log(events=events, moves=match.moves) in page.content.decode()
    assert not MatchReplay.objects.exists()
    settings.ARENA_STORE_REPLAY_EXPIRES = 0  # the period is over
    assert not replays.being_built(match)
    assert_answers_fresh(client, match, from_row=False)
    assert same_row(MatchReplay.objects.get(match=match), replays.build_row(match))


def test_a_lost_task_leaves_the_reads_to_build(
    client, owner, eager, settings, django_capture_on_commit_callbacks
):
    # The commit's callbacks are dropped: the message never reaches the broker.
    with django_capture_on_commit_callbacks(execute=False) as sent:
        match = record_played(owner, "paks", seed=7, players=2)
    assert sent and not MatchReplay.objects.exists()
    lost_or_failed_then_read(client, match, settings)


def test_a_failed_task_leaves_the_result_and_the_reads(
    client, owner, eager, settings, monkeypatch, django_capture_on_commit_callbacks
):
    def broken(match):
        raise RuntimeError("the build failed")

    build_row = replays.build_row
    monkeypatch.setattr(replays, "build_row", broken)
    with django_capture_on_commit_callbacks(execute=True):
        match = record_played(owner, "paks", seed=7, players=2)
    assert match.status == match.Status.FINISHED and match.result
    assert not MatchReplay.objects.exists()
    monkeypatch.setattr(replays, "build_row", build_row)
    lost_or_failed_then_read(client, match, settings)


def test_a_task_for_a_match_already_stored_or_gone_does_nothing(owner):
    from tournaments.tasks import store_replay

    match = record_played(owner, "paks", seed=7, players=2)
    assert replays.store_replay(match_id=match.pk)
    built_at = MatchReplay.objects.get(match=match).built_at
    store_replay.apply(args=(match.pk,)).get()
    assert MatchReplay.objects.get(match=match).built_at == built_at
    store_replay.apply(args=(10**9,)).get()
