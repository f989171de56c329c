"""A finished match's replay answers are stored once (tournaments.read_models.replays): a
cache miss serves the stored row, byte for byte what a fresh build renders, without reading
the moves or the record; a match played again gets a new row; the rebuild command fills
the missing rows and finds nothing to do the second time."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.template import Context, Template
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.renderers import JSONRenderer

from arena.dashboard import frames as replay
from games import registry
from games.policies import play_out, random_policy
from games.rng import Rng
from tests.support.stored_replays import (
    VIEWERS,
    big_columns_read,
    forget_stored,
    fresh_body,
    served_body,
)
from tournaments import selectors
from tournaments.models import Match, MatchReplay
from tournaments.read_models import replays
from tournaments.services.playing import record_result


@pytest.fixture(autouse=True)
def _empty_cache(empty_cache):
    pass


@pytest.fixture
def match(finished_match):
    """The Paiute match with real moves (wall and CPU ms), finished an hour ago: no task is
    building its row (test_stored_replays_prebuilt has the moments after a result)."""
    moves = [{"actions": m, "ms": {s: 1.5 for s in m}} for m in finished_match.record["moves"]]
    finished_at = timezone.now() - timedelta(hours=1)
    Match.objects.filter(pk=finished_match.pk).update(moves=moves, finished_at=finished_at)
    finished_match.refresh_from_db()
    return finished_match


def test_the_first_read_stores_every_viewer_and_a_miss_serves_it_unchanged(client, match):
    assert not MatchReplay.objects.exists()
    served_body(client, match, "replay", 0)  # one read stores every viewer's pieces
    row = MatchReplay.objects.get(match=match)
    assert row.finished_at == match.finished_at
    assert set(row.index) - {replays.WHOLE} == {"moves"} | {
        replays.piece_name(part, viewer)
        for part in ("events", "frames", "log")
        for viewer in VIEWERS
    }
    forget_stored()
    for kind in ("replay", "frames"):
        for seat in VIEWERS:
            forget_stored()
            with CaptureQueriesContext(connection) as queries:
                body = served_body(client, match, kind, seat)
            assert body == fresh_body(match, kind, seat), (kind, seat)
            assert not big_columns_read(queries), (kind, seat)
    assert MatchReplay.objects.count() == 1


@pytest.mark.parametrize("whole_below", [0, 10**9])  # pieces apart, one stream
def test_a_miss_with_a_stored_row_never_replays(client, match, monkeypatch, whole_below):
    monkeypatch.setattr(replays, "WHOLE_BELOW", whole_below)
    call_command("rebuild_read_models", "--only", "replays", verbosity=0)
    expected = {(k, s): fresh_body(match, k, s) for k in ("replay", "frames") for s in VIEWERS}
    logs = {
        s: replay.render_text_log(
            events=registry.rebuild(match.record).events(s), moves=match.moves
        )
        for s in VIEWERS
    }
    # With the record and moves spoiled only the stored row can still answer right.
    Match.objects.filter(pk=match.pk).update(record={"game": "paiute", "moves": "x"}, moves=[])
    for (kind, seat), body in expected.items():
        forget_stored()
        assert served_body(client, match, kind, seat) == body
    for seat, log in logs.items():
        forget_stored()
        page = client.get(f"/matches/{match.pk}/", {} if seat is None else {"seat": seat})
        assert log in page.content.decode()


def test_match_page_text_log_comes_from_the_stored_row(client, match):
    url = f"/matches/{match.pk}/"
    first = client.get(url, {"seat": 1}).content.decode()
    forget_stored()
    with CaptureQueriesContext(connection) as queries:
        again = client.get(url, {"seat": 1}).content.decode()
    assert not big_columns_read(queries)
    log = again[again.index('<details id="text-log">') : again.index("</details>")]
    assert log == first[first.index('<details id="text-log">') : first.index("</details>")]
    events = registry.rebuild(match.record).events(1)
    assert f"Text log: {len(events)} events and {len(match.moves)} moves" in log
    assert selectors.replay_events(match=match, seat=1) == json.loads(json.dumps(events))


def test_a_match_played_again_gets_a_new_row(client, match):
    before = {seat: served_body(client, match, "replay", seat) for seat in VIEWERS}
    first_row = MatchReplay.objects.get(match=match)
    # Played again (as a re-run would: running, then its new result recorded).
    game = registry.get("paiute")
    state = play_out(game.new_match(players=2, seed=8), [random_policy] * 2, Rng(8))
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.RUNNING, attempts=1, finished_at=None
    )
    result = state.result()
    outcome = {
        "result": {"seats": [dict(s) for s in result["seats"]], "teams": result.get("teams", [])},
        "moves": [{"actions": m} for m in state.to_json()["moves"]],
        "record": state.to_json(),
        "version": game.version,
    }
    assert record_result(match_id=match.pk, attempt=1, outcome=outcome)
    match.refresh_from_db()
    assert match.finished_at != first_row.finished_at
    forget_stored()
    for seat in VIEWERS:
        body = served_body(client, match, "replay", seat)
        assert body == fresh_body(match, "replay", seat) and body != before[seat]
        assert served_body(client, match, "frames", seat) == fresh_body(match, "frames", seat)
    # Meanwhile the result's task builds the new row (the reads built only their answers).
    assert MatchReplay.objects.get(match=match).data == first_row.data
    assert replays.store_replay(match_id=match.pk)
    row = MatchReplay.objects.get(match=match)
    assert row.finished_at == match.finished_at and row.data != first_row.data
    for seat in VIEWERS:
        forget_stored()
        assert served_body(client, match, "frames", seat) == fresh_body(match, "frames", seat)


def test_an_unfinished_match_is_never_stored(client, match):
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    client.force_login(match.seats.get(seat=0).version.bot.owner)  # seat 0's view is theirs
    served_body(client, match, "replay", 0)
    served_body(client, match, "frames", None)
    client.get(f"/matches/{match.pk}/")
    assert replays.rebuild_replays() == 0
    assert not MatchReplay.objects.exists()


def test_a_row_of_another_version_is_rebuilt(client, match):
    replays.store_replay(match_id=match.pk)
    MatchReplay.objects.filter(match=match).update(version="0:old", index={}, data=b"")
    forget_stored()
    assert served_body(client, match, "frames", 1) == fresh_body(match, "frames", 1)
    assert MatchReplay.objects.get(match=match).version == replays.row_version("paiute")


def test_rebuild_fills_missing_rows_once(match, capsys):
    other = Match.objects.get(pk=match.pk)
    other.pk = None
    other.finished_at = match.finished_at + timedelta(seconds=1)
    other.save()
    running = Match.objects.get(pk=match.pk)
    running.pk = None
    running.status = Match.Status.RUNNING
    running.save()
    # The default run leaves replays alone (a read builds what it misses).
    call_command("rebuild_read_models", verbosity=0)
    assert not MatchReplay.objects.exists()
    call_command("rebuild_read_models", "--only", "replays")
    out = capsys.readouterr().out
    assert "replays: paiute: 2/2 matches" in out and "replays: rebuilt 2" in out
    assert set(MatchReplay.objects.values_list("match_id", flat=True)) == {match.pk, other.pk}
    built_at = dict(MatchReplay.objects.values_list("match_id", "built_at"))
    call_command("rebuild_read_models", "--only", "replays")
    assert "replays: rebuilt 0" in capsys.readouterr().out
    assert dict(MatchReplay.objects.values_list("match_id", "built_at")) == built_at
    # A row gone stale (the match finished again) is replaced by the next run.
    Match.objects.filter(pk=other.pk).update(finished_at=timezone.now() + timedelta(hours=1))
    assert replays.rebuild_replays(tournament_ids=None) == 1
    other.refresh_from_db()
    assert MatchReplay.objects.get(match=other).finished_at == other.finished_at
    # --tournament limits it to those tournaments' matches (these have none).
    MatchReplay.objects.all().delete()
    assert replays.rebuild_replays(tournament_ids=[12345]) == 0


@pytest.mark.parametrize("whole_below", [0, 10**9])
def test_stored_pieces_equal_fresh_builds_for_every_game_viewer(match, monkeypatch, whole_below):
    """Every piece a row holds is the JSON of what the endpoints build for that viewer,
    the pieces compressed apart (a long match) or as one stream (a short one)."""
    monkeypatch.setattr(replays, "WHOLE_BELOW", whole_below)
    row = replays.build_row(match)
    assert (replays.WHOLE in row.index) == bool(whole_below)
    stored = replays.StoredReplay(row)
    assert json.loads(stored.piece("moves")) == match.moves
    for seat in VIEWERS:
        events = registry.rebuild(match.record).events(seat)
        frames = replay.frames_from_record(match.record, seat=seat)
        assert stored.piece(replays.piece_name("events", seat)) == JSONRenderer().render(events)
        assert stored.piece(replays.piece_name("frames", seat)) == JSONRenderer().render(frames)
        log = replay.render_text_log(events=events, moves=match.moves)
        assert json.loads(stored.piece(replays.piece_name("log", seat))) == log
        assert f"Text log: {len(events)} events and {len(match.moves)} moves" in log


OLD_LOG = (
    "{% load arena_format %}"
    '<details id="text-log">\n'
    "<summary>Text log: {{ events|length }} events and {{ moves|length }} moves</summary>\n"
    "<h2>Events</h2>\n"
    '<div class="table-wrap"><table id="events"><tr><th scope="col">#</th>'
    '<th scope="col">Event</th></tr>\n'
    "{% for e in events %}<tr><td>{{ forloop.counter }}</td><td><code>{{ e|event_text }}"
    "</code></td></tr>\n"
    '{% empty %}<tr><td colspan="2" class="muted">No events recorded.</td></tr>{% endfor %}'
    "</table></div>\n"
    "<h2>Moves</h2>\n"
    '<div class="table-wrap"><table id="moves"><tr><th scope="col">#</th>'
    '<th scope="col">Actions by seat</th></tr>\n'
    "{% for i, m in moves %}<tr><td>{{ i }}</td><td><code>{{ m|move_text }}</code>"
    '{% if m.defaulted %} <span class="muted">· played by default for seat '
    '{{ m.defaulted|join:", " }}</span>{% endif %}</td></tr>{% endfor %}</table></div>\n'
    "</details>"
)


@pytest.mark.parametrize(
    "events, moves",
    [
        ([], []),
        (
            [{"type": "say", "text": "<b>&'\"</b>"}, {"type": "hit", "seat": 0, "card": [1, 2]}],
            [
                {"actions": {"0": "<x>"}, "ms": {"0": 3}, "cpu_ms": {"0": 2}},
                {"actions": {"0": 1, "1": "a&b"}, "defaulted": [1, "<2>"]},
            ],
        ),
    ],
)
def test_text_log_reads_as_the_template_loop_wrote_it(events, moves):
    """The rows are written in Python (fast for thousands): same HTML, same escaping."""
    old = Template(OLD_LOG).render(
        Context({"events": events, "moves": list(enumerate(moves, start=1))})
    )
    assert replay.render_text_log(events=events, moves=moves) == old + "\n"
