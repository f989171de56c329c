"""What the stored-replay tests share: the viewers, nothing stored, the bodies a reader is
served and the ones rendered afresh, and whether a read touched the big columns."""

from __future__ import annotations

from django.core.cache import cache
from rest_framework.renderers import JSONRenderer

from arena.dashboard import frames as replay
from arena.dashboard.frame_layouts import layout_for, layout_json
from games import registry
from tournaments import readcache
from tournaments.models import Match
from tournaments.readcache import replay_answers

VIEWERS = [None, 0, 1]


def forget_stored() -> None:
    """Nothing stored anywhere: the cache and this process's own copies (what a reader in
    another process, or after eviction, finds)."""
    cache.clear()
    replay_answers.forget_all()
    readcache.forget_kept()


def fresh_body(match: Match, kind: str, seat) -> bytes:
    """The answer rendered in full from the match's record: what a stored row must equal."""
    if kind == "replay":
        data = {
            "match": match.pk,
            "seat": seat,
            "moves": match.moves or [],
            "events": registry.rebuild(match.record).events(seat),
        }
    else:
        data = {
            "match": match.pk,
            "seat": seat,
            "game": match.game,
            "layout": layout_json(layout_for(match.game)),
            "frames": replay.frames_from_record(match.record, seat=seat),
        }
    return JSONRenderer().render(data)


def served_body(client, match: Match, kind: str, seat):
    """The body the replay or frames endpoint answers for ``seat``."""
    params = {} if seat is None else {"seat": seat}
    response = client.get(f"/api/matches/{match.pk}/{kind}/", params)
    assert response.status_code == 200, response.content
    return response.content


def big_columns_read(queries) -> bool:
    sql = " ".join(q["sql"] for q in queries.captured_queries)
    return '"record"' in sql or '"moves"' in sql
