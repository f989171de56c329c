"""Reads: standings, leaderboards, rating history, replays."""

from __future__ import annotations

import re
from collections import defaultdict

from django.conf import settings
from django.core.cache import cache
from django.db.models import QuerySet

from bots import selectors as bot_selectors
from bots.models import Bot, BotVersion
from games import registry
from tournaments.models import Match, MatchSeat, Rating, RatingChange, Tournament


def tournament_list(*, game: str | None = None, status: str | None = None) -> QuerySet[Tournament]:
    qs = Tournament.objects.select_related("organiser")
    if game:
        qs = qs.filter(game=game)
    if status:
        qs = qs.filter(status=status)
    return qs


def match_list(*, tournament: Tournament | None = None, version: BotVersion | None = None):
    qs = Match.objects.defer("moves", "record").prefetch_related("seats__version__bot")
    if tournament is not None:
        qs = qs.filter(tournament=tournament)
    if version is not None:
        qs = qs.filter(seats__version=version)
    return qs


def recent_matches(*, bot_id: int, limit: int = 30) -> list[Match]:
    """The bot's latest matches (any version), newest first."""
    return list(
        match_list().filter(seats__version__bot_id=bot_id).distinct().order_by("-id")[:limit]
    )


def progress(*, tournament: Tournament) -> dict:
    counts = defaultdict(int)
    for status in tournament.matches.values_list("status", flat=True):
        counts[status] += 1
    total = sum(counts.values())
    done = counts["finished"] + counts["failed"] + counts["cancelled"]
    return {"total": total, "done": done, **{k: counts[k] for k in Match.Status.values}}


def standings(*, tournament: Tournament) -> list[dict]:
    """Points per entrant: each match shares one point per opponent met (a tie is half).

    A 2-player win is 1, a draw 0.5; in an n-player match the winner gets 1
    and the last 0. Ties in points are broken by wins, then by fewer faults. Game
    scores are shown but never compared: in some games (Pairs) lower is better.
    """
    rows: dict[int, dict] = {}
    for entry in tournament.entries.select_related("bot", "version"):
        rows[entry.bot_id] = {
            "bot_id": entry.bot_id,
            "bot": entry.bot.name,
            "version": entry.version.number if entry.version else None,
            "played": 0,
            "points": 0.0,
            "wins": 0,
            "faults": 0,
            "score": 0,
        }
    seats = MatchSeat.objects.filter(
        match__tournament=tournament, match__status=Match.Status.FINISHED
    ).select_related("version")
    by_match: dict[int, list[MatchSeat]] = defaultdict(list)
    for seat in seats:
        by_match[seat.match_id].append(seat)
    for match_seats in by_match.values():
        n = len(match_seats)
        for seat in match_seats:
            row = rows.get(seat.version.bot_id)
            if row is None:
                continue
            beaten = sum(1 for o in match_seats if o is not seat and seat.rank < o.rank)
            tied = sum(1 for o in match_seats if o is not seat and seat.rank == o.rank)
            row["played"] += 1
            row["points"] += (beaten + 0.5 * tied) / max(1, n - 1)
            row["wins"] += 1 if seat.rank == 1 else 0
            row["faults"] += 1 if seat.fault else 0
            row["score"] += seat.score or 0
    table = sorted(rows.values(), key=lambda r: (-r["points"], -r["wins"], r["faults"], r["bot"]))
    for position, row in enumerate(table, start=1):
        row["points"] = round(row["points"], 3)
        row["position"] = position
    return table


def leaderboard(*, game: str) -> list[dict]:
    """One row per bot: the Elo of its current version (the owner's choice, else the latest
    active; a new version starts afresh)."""
    registry.get(game)
    bots = list(Bot.objects.filter(game=game).select_related("owner"))
    latest = bot_selectors.current_versions(bots=bots)
    ratings = {
        r.version_id: r
        for r in Rating.objects.filter(game=game, version_id__in=[v.pk for v in latest.values()])
    }
    rows = []
    for bot in bots:
        version = latest.get(bot.pk)
        if version is None:
            continue
        rating = ratings.get(version.pk)
        rows.append(
            {
                "bot_id": bot.pk,
                "bot": bot.name,
                "owner": bot.owner.username,
                "version": version.number,
                "elo": round(rating.elo, 1) if rating else float(settings.ARENA_ELO_START),
                "matches": rating.matches if rating else 0,
            }
        )
    rows.sort(key=lambda r: (r["matches"] == 0, -r["elo"], r["bot"]))
    for position, row in enumerate(rows, start=1):
        row["position"] = position
    return rows


def rating_history(*, bot: Bot) -> list[dict]:
    changes = RatingChange.objects.filter(version__bot=bot).select_related("version", "match")
    return [
        {
            "version": change.version.number,
            "match": change.match_id,
            "seq": change.seq,
            "before": round(change.before, 1),
            "after": round(change.after, 1),
            "at": change.created_at,
        }
        for change in changes.order_by("seq")
    ]


# ASCII digits only: str.isdigit() and int() also take superscripts and other scripts' digits.
SEAT_PATTERN = re.compile(r"[0-9]{1,3}", re.ASCII)

# A finished match's replay never changes while the engine's version stays the same.
REPLAY_CACHE_SECONDS = 24 * 3600


def parse_seat(raw: str, *, players: int) -> int:
    """The seat a ``?seat=`` value names, 0 to ``players - 1``; ValueError for anything else."""
    if not SEAT_PATTERN.fullmatch(raw) or int(raw) >= players:
        raise ValueError(f"seat must be a whole number from 0 to {players - 1}")
    return int(raw)


def replay_cache_key(*, match: Match, seat: int | None) -> str:
    """Names the engine version (a new one replays differently) and the finishing time
    (a database that reuses ids, as SQLite does after a rollback, never meets a stale entry)."""
    version = registry.get(match.game).version
    finished = match.finished_at.timestamp() if match.finished_at else ""
    viewer = "all" if seat is None else seat
    return f"arena:replay:{match.pk}:{finished}:{match.game}:{version}:{viewer}"


def replay_events(*, match: Match, seat: int | None) -> list[dict]:
    """The match's event log as ``seat`` saw it (None = spectator), rebuilt from the record.

    Rebuilding replays every move; a finished match's record is final, so its events
    are computed once per seat and kept in the cache. Unfinished matches are not cached.
    """
    if not match.record:
        return []
    if match.status != Match.Status.FINISHED:
        return registry.replay(match.record).events(seat)
    key = replay_cache_key(match=match, seat=seat)
    events = cache.get(key)
    if events is None:
        events = registry.replay(match.record).events(seat)
        cache.set(key, events, REPLAY_CACHE_SECONDS)
    return events
