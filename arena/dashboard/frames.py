"""The replay viewer's frames: what one seat (or a spectator) saw of the table after each move.

The match is replayed from its record, and after every step the viewer's observation
(``State.observation(seat)``: the engine decides what that seat may know) is cut down
to the keys the game's layout draws. Frames carry only the keys that changed since the
previous one, so a 500-move match stays small. A finished match's frames never change
for a given engine version and layout, so they are computed once per match for every
viewer and stored with its replay (tournaments.read_models.replays), as is the match
page's text log.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from arena.dashboard.frame_layouts import LAYOUT_VERSION, layout_for, layout_keys
from arena.dashboard.templatetags.arena_format import event_text, move_text
from games import registry
from tournaments import selectors
from tournaments.models import Match
from tournaments.read_models import replays
from tournaments.selectors.matches import MATCH_LOG_VERSION


class FramesUnavailable(Exception):
    """The match cannot be replayed here (no record, or another engine version)."""


def frames_from_record(record: dict, *, seat: int | None) -> list[dict]:
    """One frame before the first move and one after each: ``{"d": changed keys, "e": events}``.

    ``d`` maps each changed key to its new value (``None`` when it disappeared); ``e`` is
    how many events ``seat`` had seen by then, so the viewer can show each move's events.
    """
    return frames_for_viewers(record, [seat])[0]


def frames_for_viewers(record: dict, viewers: Sequence[int | None]) -> list[list[dict]]:
    """The frames of each viewer (see ``frames_from_record``), from one replay of the record."""
    game = registry.get(record["game"])
    if record.get("version", game.version) != game.version:
        raise FramesUnavailable(
            f"recorded with {game.slug} version {record['version']}, "
            f"this server runs version {game.version}"
        )
    keys = layout_keys(layout_for(game.slug))
    state = game.new_match(
        players=record["players"],
        options=record.get("options"),
        seed=record.get("seed", 0),
        deck=record.get("deck"),
    )
    frames: list[list[dict]] = [[] for _ in viewers]
    shown: list[dict] = [{} for _ in viewers]
    seen_events = [0 for _ in viewers]

    def snapshot() -> None:
        for i, seat in enumerate(viewers):
            observation = state.observation(seat)
            now = {key: observation[key] for key in keys if key in observation}
            changed = {key: value for key, value in now.items() if shown[i].get(key, ...) != value}
            changed.update({key: None for key in shown[i] if key not in now})
            seen_events[i] += len(state.events(seat, since=seen_events[i]))
            frames[i].append({"d": changed, "e": seen_events[i]})
            shown[i] = now

    snapshot()
    for move in record.get("moves", []):
        state.apply({int(s): action for s, action in move.items()})
        snapshot()
    return frames


def _stored_frames(match: Match, viewers: Sequence[int | None]) -> list[list[dict]]:
    return frames_for_viewers(match.record, viewers)


# The log's rows are written here, not in a template loop: a long match has thousands,
# and the template engine's cost a row adds up there (the page's first view, each viewer's).
def event_rows(events: list[dict]) -> SafeString:
    if not events:
        return mark_safe('<tr><td colspan="2" class="muted">No events recorded.</td></tr>')
    return mark_safe(
        "".join(
            f"<tr><td>{number}</td><td><code>{escape(event_text(event))}</code></td></tr>\n"
            for number, event in enumerate(events, start=1)
        )
    )


def move_rows(moves: list) -> SafeString:
    rows = []
    for number, move in enumerate(moves, start=1):
        defaulted = move.get("defaulted") if isinstance(move, dict) else None
        note = (
            ' <span class="muted">· played by default for seat '
            f"{', '.join(escape(seat) for seat in defaulted)}</span>"
            if defaulted
            else ""
        )
        rows.append(
            f"<tr><td>{number}</td><td><code>{escape(move_text(move))}</code>{note}</td></tr>"
        )
    return mark_safe("".join(rows))


def render_moves_table(moves: list) -> SafeString:
    """The text log's moves, the same for every viewer (rendered once per match)."""
    return mark_safe(
        render_to_string("arena/match_log_moves.html", {"move_rows": move_rows(moves)})
    )


def render_text_log(*, events: list[dict], moves: list, moves_table: str | None = None) -> str:
    """The match page's text log: every event ``events`` holds, then every move."""
    if moves_table is None:
        moves_table = render_moves_table(moves)
    context = {
        "events": events,
        "event_rows": event_rows(events),
        "moves_count": len(moves),
        "moves_table": moves_table,
    }
    return render_to_string("arena/match_log.html", context)


def _stored_text_logs(match: Match, viewers: Sequence[int | None]) -> list[str]:
    state = registry.rebuild(match.record)
    moves = match.moves or []
    table = render_moves_table(moves)
    return [
        render_text_log(events=state.events(viewer), moves=moves, moves_table=table)
        for viewer in viewers
    ]


# Every finished match's frames and text log, each viewer's, kept with its stored replay
# (a cache miss then reads them instead of replaying and rendering): arena.dashboard.apps
# registers them.
STORED_PARTS = (
    replays.Part("frames", LAYOUT_VERSION, _stored_frames),
    replays.Part("log", MATCH_LOG_VERSION, _stored_text_logs),
)


def text_log(*, match: Match, seat: int | None, full: bool = True) -> SafeString:
    """The text log of ``match`` as ``seat`` saw it: a finished match's from the cache, else
    from its stored replay (kept in the cache then); an unfinished one's rendered each time.
    Without the ``full`` record its moves show ``seat``'s own actions only (kept apart)."""
    key, lifetime = selectors.match_log_cache(match=match, seat=seat)
    if not full:
        key += ":seen"
    html = cache.get(key) if lifetime else None
    if html is None:
        stored = None
        if lifetime and full:
            stored = selectors.stored_piece(match=match, part="log", seat=seat)
        if stored is not None:
            html = json.loads(stored)
        else:
            events = selectors.replay_events(match=match, seat=seat)
            moves = selectors.replay_moves(match=match)
            if not full:
                moves = selectors.seen_moves(moves, set() if seat is None else {seat})
            html = render_text_log(events=events, moves=moves)
        if lifetime:
            cache.set(key, html, lifetime)
    return mark_safe(html)  # our own template's output, escaped when rendered


def match_frames(*, match: Match, seat: int | None) -> list[dict]:
    """The frames of ``match`` as ``seat`` saw it; cached once the match is finished."""
    if not match.record:
        return []
    if match.status != Match.Status.FINISHED:
        return frames_from_record(match.record, seat=seat)
    key = f"{selectors.replay_cache_key(match=match, seat=seat)}:frames:{LAYOUT_VERSION}"
    frames = cache.get(key)
    if frames is None:
        frames = frames_from_record(match.record, seat=seat)
        cache.set(key, frames, selectors.REPLAY_CACHE_SECONDS)
    return frames
