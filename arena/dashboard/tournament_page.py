"""What the tournament and ladder pages show, shared by the full page and the live fragment
the page polls (htmx) while the event goes on."""

from __future__ import annotations

import math
import re
from collections import OrderedDict
from dataclasses import dataclass
from datetime import timedelta
from types import SimpleNamespace

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from arena.pagination import KeysetPagination
from tournaments import release, selectors
from tournaments.formats import swiss
from tournaments.models import Ladder, Match, MatchSeat, Tournament
from tournaments.services import admission

MATCHES_PER_PAGE = 50
# Beyond this many entrants a crosstable is too wide to read: the standings stay.
CROSSTABLE_LIMIT = 30
# Seconds between two polls of a page that is still changing.
POLL_SECONDS = 3


def is_live(tournament: Tournament) -> bool:
    return tournament.status in (Tournament.Status.SCHEDULED, Tournament.Status.RUNNING)


def points_text(value: float | None) -> str:
    """``1½`` for 1.5, ``½`` for 0.5, ``2`` for 2.0 (game points count in halves)."""
    if value is None:
        return ""
    whole = math.floor(value + 1e-9)
    half = value - whole >= 0.5 - 1e-9
    if half:
        return f"{whole}½" if whole else "½"
    return str(whole)


def time_left_text(seconds: float | None) -> str:
    """``about N min``; empty when there is no estimate."""
    if seconds is None:
        return ""
    return f"about {max(1, math.ceil(seconds / 60))} min"


CURSOR_PART = re.compile(r"[0-9]{1,18}", re.ASCII)
# The order of each list's pages, newest first, on an index: a tournament's matches by
# round and number (match_tournament_order), a ladder's by id (match_ladder_newest).
TOURNAMENT_ORDER = ("round", "number", "id")
LADDER_ORDER = ("id",)


@dataclass
class MatchPage:
    """A page of matches, newest first, named by the match it starts after (keyset: a deep
    page costs what the first does, and matches arriving meanwhile shift nothing)."""

    rows: list
    query: str  # this page's query string ("" for the newest), for links and polling
    newer: str | None  # the query string of the page before it, None on the newest
    older: str | None  # of the page after it, None on the oldest

    @property
    def first_id(self) -> int | None:
        return self.rows[0].pk if self.rows else None

    @property
    def last_id(self) -> int | None:
        return self.rows[-1].pk if self.rows else None

    @property
    def oldest(self) -> str | None:
        return None if self.older is None else "after=0"


def _cursor(params, name: str, width: int) -> list[int] | None:
    """``before`` / ``after``: the order's values of a match joined by dots; ``after=0``
    is the start of the list (an empty cursor). Anything else: None."""
    raw = params.get(name, "") if params is not None else ""
    if name == "after" and raw == "0":
        return []
    parts = raw.split(".")
    if len(parts) != width or not all(CURSOR_PART.fullmatch(part) for part in parts):
        return None
    return [int(part) for part in parts]


# What a page's rows show of a match (match_rows.html) and of its seats (``seat_rows``).
ROW_FIELDS = ("id", "round", "number", "series", "status")
SEAT_ROW_FIELDS = ("match_id", "score", "rank", "fault", "version__bot_id", "version__bot__name")


def match_page(
    queryset, params=None, order: tuple[str, ...] = LADDER_ORDER, *, held: bool = False
) -> MatchPage:
    """``MATCHES_PER_PAGE`` matches, newest first in ``order``: the newest, or those older
    than ``?before=``, or the ones just newer than ``?after=`` (``after=0``: the oldest).
    A cursor past either end gives the page at that end; anything else the newest.

    Each row carries ``seat_rows``: its seats as plain objects, read in one query of the
    columns shown (50 matches with their seats, versions and bots built as model instances
    would be most of a standings page's build). ``held``: the reader may not see their
    results (tournaments.release), so the seats show no rank, score or fault."""
    queryset = queryset.prefetch_related(None).only(*ROW_FIELDS, *order)
    page = _match_page(queryset, params, order)
    seats = {row.pk: [] for row in page.rows}
    found = MatchSeat.objects.filter(match_id__in=list(seats)).order_by("match_id", "seat")
    for match_id, score, rank, fault, bot_id, name in found.values_list(*SEAT_ROW_FIELDS):
        bot = SimpleNamespace(pk=bot_id, name=name)
        version = SimpleNamespace(bot_id=bot_id, bot=bot)
        if held:
            score = rank = fault = None
        seats[match_id].append(
            SimpleNamespace(score=score, rank=rank, fault=fault, version=version)
        )
    for row in page.rows:
        row.seat_rows = seats[row.pk]
    return page


def _match_page(queryset, params, order: tuple[str, ...]) -> MatchPage:
    size = MATCHES_PER_PAGE
    fields = [(Match._meta.get_field(name), True) for name in order]

    def key(row) -> str:
        return ".".join(str(getattr(row, name)) for name in order)

    def older_than(row_key: list[int]):
        return queryset.filter(KeysetPagination.beyond(fields, row_key, False))

    before, after = _cursor(params, "before", len(order)), _cursor(params, "after", len(order))
    if after is not None:
        newer = queryset
        if after:
            newer = queryset.filter(KeysetPagination.beyond(fields, after, True))
        rows = list(newer.order_by(*order)[: size + 1])
        more = len(rows) > size  # newer ones beyond this page
        rows = rows[:size][::-1]
        if rows:
            last = [getattr(rows[-1], name) for name in order]
            older = older_than(last).order_by().values("id")[:1].exists() if after else False
            return MatchPage(
                rows,
                f"after={'.'.join(map(str, after)) or 0}",
                f"after={key(rows[0])}" if more else None,
                f"before={key(rows[-1])}" if older else None,
            )
        before = None  # past the newest: the newest page
    newest_first = [f"-{name}" for name in order]
    if before is not None:
        rows = list(older_than(before).order_by(*newest_first)[: size + 1])
        if rows:
            older = f"before={key(rows[size - 1])}" if len(rows) > size else None
            query = f"before={'.'.join(map(str, before))}"
            return MatchPage(rows[:size], query, f"after={key(rows[0])}", older)
        return _match_page(queryset, {"after": "0"}, order)  # past the oldest: the oldest
    rows = list(queryset.order_by(*newest_first)[: size + 1])
    older = f"before={key(rows[size - 1])}" if len(rows) > size else None
    return MatchPage(rows[:size], "", None, older)


def progress_bar(progress: dict, expected: int | None) -> dict:
    """Widths (percent) of the bar's parts: played, running, queued; the rest is to come."""
    total = max(expected or 0, progress.get("total", 0), 1)
    done = progress.get("done", progress.get("finished", 0) + progress.get("failed", 0))
    parts = {
        "done": done,
        "running": progress.get("running", 0),
        "queued": progress.get("queued", 0),
    }
    widths = {name: round(100 * count / total, 2) for name, count in parts.items()}
    return {**parts, "total": total, "widths": widths, "percent": round(100 * done / total)}


def _names(tournament: Tournament) -> dict[int, str]:
    return {row["bot_id"]: row["bot"] for row in selectors.entrants(tournament=tournament)}


def _crosstable(standings: list[dict], pairwise: dict) -> dict | None:
    if len(standings) > CROSSTABLE_LIMIT:
        return {"too_many": True, "rows": []}
    bots = [r["bot_id"] for r in standings]
    rows = []
    for number, row in enumerate(standings, start=1):
        cells = []
        for other in bots:
            if other == row["bot_id"]:
                cells.append({"self": True})
                continue
            points, games = pairwise.get((row["bot_id"], other), (None, 0))
            cells.append({"points": points_text(points), "games": games, "opponent": other})
        rows.append({"number": number, "bot": row["bot"], "bot_id": row["bot_id"], "cells": cells})
    return {"too_many": False, "rows": rows, "numbers": list(range(1, len(bots) + 1))}


def _round_tables(rounds: list[dict], tables: dict, names: dict[int, str]) -> list[dict]:
    out = []
    for r in rounds:
        shown = []
        for number, table in enumerate(r["tables"], start=1):
            scores = tables.get((r["round"], tuple(sorted(table))), {})
            shown.append(
                {
                    "number": number,
                    "played": bool(scores),
                    "seats": [
                        {
                            "bot_id": b,
                            "bot": names.get(b, "?"),
                            "points": points_text(scores.get(b)) if scores else "",
                            "best": bool(scores)
                            and scores.get(b, 0) == max(scores.values())
                            and len(set(scores.values())) > 1,
                        }
                        for b in table
                    ],
                }
            )
        byes = [{"bot_id": b, "bot": names.get(b, "?")} for b in r["byes"]]
        out.append({"round": r["round"], "tables": shown, "byes": byes})
    return out


def series_why(series: dict, deciders: dict, names: dict[int, str]) -> str:
    """Why a series that went to a decider ended as it did (empty for one won outright):
    the decider's winner, or the higher seed when the decider was level too."""
    decider = deciders.get(series["series"])
    if not decider:
        return ""
    if not series["complete"]:
        return "Level: a decider on a fresh deal is being played."
    present = [b for b in series["entrants"] if b is not None]
    if len(present) != 2:
        return (
            "A tie at the cut went to a decider on a fresh deal, and to the higher seed "
            "if that was level too."
        )
    winner = series["winners"][0] if series["winners"] else None
    name = names.get(winner, "?")
    if len(set(decider.get(b, 0.0) for b in present)) > 1:
        shown = "–".join(
            points_text(decider.get(b, 0.0)) for b in sorted(present, key=lambda b: b != winner)
        )
        return f"Level after the series: {name} won the decider on a fresh deal ({shown})."
    return f"Level after the series and its decider too: {name}, the higher seed, went through."


def _bracket(
    series: list[dict],
    scores: dict,
    names: dict[int, str],
    deciders: dict | None = None,
    *,
    held: bool = False,
) -> list[dict]:
    """Stages (winners, losers, finals) of rounds (columns) of series boxes."""
    stages: OrderedDict[str, OrderedDict[int, list]] = OrderedDict()
    order = {"winners": 0, "losers": 1, "third_place": 2, "final": 3}
    for s in sorted(series, key=lambda s: (order.get(s["stage"], 9), s["round"])):
        points = scores.get(s["series"], {})
        entrants = [
            {
                "bot_id": b,
                "bot": names.get(b, "?") if b else "",
                "winner": b is not None and b in s["winners"],
                "points": points_text(points[b]) if b in points else "",
            }
            for b in s["entrants"]
        ]
        if held:
            state = "result hidden" if s["played"] else "to come"
        elif s["skipped"]:
            state = "not needed"
        elif s["complete"] and not s["played"]:
            state = "bye"
        elif s["complete"]:
            state = "decided"
        elif points:
            state = "playing"
        else:
            state = "to come"
        box = {
            **s,
            "entrants_shown": entrants,
            "state": state,
            "why": series_why(s, deciders or {}, names) if s["played"] else "",
        }
        stages.setdefault(s["stage"], OrderedDict()).setdefault(s["round"], []).append(box)
    return [
        {"stage": stage, "rounds": [{"round": n, "series": boxes} for n, boxes in rounds.items()]}
        for stage, rounds in stages.items()
    ]


def withdrawn_rows(tournament: Tournament, *, user=None) -> list[dict]:
    """The entries withdrawn at the start, each with what everyone is told and, for the
    bots of ``user``, the fault itself."""
    reasons = selectors.withdrawal_reasons(tournament=tournament, user=user)
    return [
        {**row, "reason": reasons.get(row["bot_id"])}
        for row in selectors.entrants(tournament=tournament)
        if row["withdrawn"]
    ]


def validation_wait(tournament: Tournament) -> dict | None:
    """A scheduled tournament past its start time that waits for its entrants' validation
    under its options: how many, and until when at most; else None."""
    if tournament.status != Tournament.Status.SCHEDULED or tournament.start_at > timezone.now():
        return None
    key = admission.configuration_key(
        game=tournament.game, players=tournament.players_per_match, options=tournament.options
    )
    waiting = selectors.entrants_being_validated(tournament=tournament, key=key)
    if not waiting:
        return None
    bound = timedelta(seconds=settings.ARENA_OPTIONS_VALIDATION_WAIT_SECONDS)
    return {"entrants": waiting, "until": tournament.start_at + bound}


def swiss_rounds(tournament: Tournament) -> int | None:
    """The rounds a Swiss plays: its own, else the default for its field (every entry
    before the start, the seeded ones after); None for other formats."""
    if tournament.format != Tournament.Format.SWISS:
        return None
    if tournament.rounds:
        return tournament.rounds
    rows = selectors.entrants(tournament=tournament)
    seeded = sum(1 for row in rows if row["seed_number"] is not None)
    return swiss.default_rounds(seeded or len(rows))


def tournament_context(tournament: Tournament, *, params=None, user=None) -> dict:
    """Everything the live part of the tournament page shows (``user``: the reader, who
    alone reads why their own bots were withdrawn)."""
    # A competition's final with its results held back (tournaments.release): from the
    # reader (``held``), or from others only (the organiser's and staff's reminder).
    held_back, held = release.tournament_held(tournament=tournament, user=user)
    overview = selectors.overview(tournament=tournament)
    if held:
        overview = selectors.held_overview(tournament=tournament, overview=overview)
    progress = selectors.progress(tournament=tournament)
    expected = selectors.expected_games(
        tournament=tournament, bracket=overview["bracket"], progress=progress
    )
    seconds = selectors.time_left(tournament=tournament, progress=progress, expected=expected)
    names = _names(tournament)
    # Only what this page shows: a round robin's crosstable (when it is narrow enough to
    # show), the rounds' tables, the bracket's series.
    crosstable_shown = (
        tournament.format == Tournament.Format.ROUND_ROBIN
        and overview["tiebreaks"]
        and len(overview["standings"]) <= CROSSTABLE_LIMIT
    )
    parts = tuple(
        part
        for part, shown in (
            ("pairwise", crosstable_shown),
            ("tables", overview["rounds"]),
            ("series", overview["bracket"]),
        )
        if shown
    )
    points = (
        selectors.game_points(tournament=tournament, parts=parts)
        if parts and not held
        else {"pairwise": {}, "tables": {}, "series": {}}
    )
    crosstable = None
    if tournament.format == Tournament.Format.ROUND_ROBIN and overview["tiebreaks"]:
        crosstable = _crosstable(overview["standings"], points["pairwise"])
    return {
        "tournament": tournament,
        "overview": overview,
        "withdrawn": withdrawn_rows(tournament, user=user),
        "validation_wait": validation_wait(tournament),
        "progress": progress,
        "bar": progress_bar(progress, expected),
        "plan": selectors.planned_games(tournament=tournament),
        "swiss_rounds": swiss_rounds(tournament),
        "lowest_wins": bool(overview["standings"])
        and overview["standings"][0]["position"] is not None
        and selectors.lowest_score_wins(tournament=tournament),
        "time_left": time_left_text(seconds),
        "live": is_live(tournament),
        "poll_seconds": POLL_SECONDS,
        "bot_names": names,
        "crosstable": crosstable,
        "round_tables": _round_tables(overview["rounds"], points["tables"], names),
        "bracket": _bracket(
            overview["bracket"],
            points["series"],
            names,
            selectors.decider_points(tournament=tournament)
            if overview["bracket"] and not held
            else {},
            held=held,
        ),
        "matches": match_page(
            selectors.match_list(tournament=tournament), params, TOURNAMENT_ORDER, held=held
        ),
        "results_hidden": held,
        "results_held_from_others": held_back and not held,
        "page_path": reverse("tournament", args=[tournament.pk]),
        "live_path": reverse("tournament-live", args=[tournament.pk]),
    }


def ladder_context(ladder: Ladder, *, params=None) -> dict:
    progress = selectors.ladder_progress(ladder=ladder)
    progress = {**progress, "done": progress["finished"] + progress["failed"]}
    progress["total"] = sum(progress[s] for s in ("done", "running", "queued"))
    return {
        "ladder": ladder,
        "progress": progress,
        "bar": progress_bar(progress, None),
        "live": True,
        "poll_seconds": POLL_SECONDS * 2,
        "matches": match_page(selectors.match_list(ladder=ladder), params),
        "page_path": reverse("ladder", args=[ladder.pk]),
        "live_path": reverse("ladder-live", args=[ladder.pk]),
    }
