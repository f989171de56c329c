"""The overview snapshot of one results mark: served when current, else rebuilt from
the totals (or the decided games) and stored."""

from __future__ import annotations

import json
import logging
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from fractions import Fraction

from django.db import transaction
from django.db.models import Count

from games.scoring import score_direction
from tournaments.format_inputs import results_of, seeded_entries, tournament_event
from tournaments.formats.overview import TOTALS_FORMATS, describe, describe_totals
from tournaments.models import (
    Entry,
    EntryTally,
    Match,
    MatchSeat,
    PairTally,
    StandingsSnapshot,
    Tournament,
)
from tournaments.read_models.totals import (
    DECIDED,
    ENTRY_FIELDS,
    PAIR_FIELDS,
    points_scale,
    rebuild_totals,
    stored_totals,
    totals_drifted,
)

# --- The snapshot. ---


log = logging.getLogger(__name__)


def _seat_counts(totals: list[int] | None) -> dict:
    _, faults, played, wins, score = totals or [0] * len(ENTRY_FIELDS)
    return {"played": played, "wins": wins, "faults": faults, "score": score}


def _overview_data(tournament: Tournament, entries: list[Entry]) -> dict:
    """The overview by bot id, names and version numbers left out (they are read fresh)."""
    event = tournament_event(tournament, entries)
    totals = stored_totals(tournament.pk, pairs=False)[0]
    if tournament.format in TOTALS_FORMATS:
        blank = [0] * len(ENTRY_FIELDS)
        scored_against: dict[tuple[int, int], int] = {}
        rows = PairTally.objects.filter(tournament_id=tournament.pk).values_list(
            "first", "second", "first_points", "second_points"
        )
        for first, second, first_points, second_points in rows:
            scored_against[(first, second)] = first_points
            scored_against[(second, first)] = second_points
        view = describe_totals(
            tournament.format,
            event,
            points=[totals.get(e, blank)[0] for e in range(len(entries))],
            scored_against=scored_against,
            faults=[totals.get(e, blank)[1] for e in range(len(entries))],
            scale=points_scale(tournament.players_per_match),
            finished=tournament.status == Tournament.Status.FINISHED,
        )
        points = {}
    else:
        results = results_of(tournament, entries)
        view = describe(tournament.format, event, results)
        # The tables' and series' game points come from the same games: the pages read
        # them here instead of every decided game again (none of it for a held result).
        tables, series = table_and_series_points(results, [e.bot_id for e in entries])
        points = {
            "game_points": {
                "tables": [
                    [round_, list(seated), list(by_bot.items())]
                    for (round_, seated), by_bot in tables.items()
                ],
                "series": [[name, list(by_bot.items())] for name, by_bot in series.items()],
            },
            "decider_points": [
                [name, list(by_bot.items())]
                for name, by_bot in decider_points_of(tournament.pk).items()
            ],
        }
    # A finished event's matches are all final: their counts hold until a result changes
    # (a failure queued again bumps the version, and runs the event again).
    finished = tournament.status == Tournament.Status.FINISHED
    progress = {"progress": match_counts(tournament.pk)} if finished else {}
    bot = [e.bot_id for e in entries]
    standings = []
    for standing in view.standings:
        standings.append(
            {
                "position": standing.place,
                "bot_id": bot[standing.entrant],
                "points": round(standing.points, 3),
                "tiebreaks": {name: round(v, 3) for name, v in standing.tiebreaks.items()},
                **_seat_counts(totals.get(standing.entrant)),
            }
        )
    return {
        "tiebreaks": list(view.tiebreaks),
        "standings": standings,
        **rounds_and_bracket(view, bot),
        **progress,
        # The page's note on a game won on the lowest score: decided matches alone change it.
        "lowest_score_wins": latest_lowest_score_wins(tournament.pk),
        **points,
    }


def table_and_series_points(results, bot: list[int]) -> tuple[dict, dict]:
    """Each bot's game points at each round's table (``{(round, bots sorted): {bot:
    points}}``, Swiss) and in each series (``{name: {bot: points}}``, elimination) from
    the decided games ``results`` (``results_of``; a failed game a draw), entrants named
    by bot id (``bot[entrant]``)."""
    from tournaments.formats.common import game_score_floats

    tables: dict[tuple[int, tuple[int, ...]], dict[int, float]] = defaultdict(
        lambda: defaultdict(float)
    )
    series: dict[str, dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for result in results:
        seats = [bot[e] for e in result.pairing.seats]
        shares = {bot[e]: s for e, s in game_score_floats(result).items()}
        table = tables[(result.pairing.round, tuple(sorted(seats)))]
        for b, share in shares.items():
            table[b] += share
            if result.pairing.series:
                series[result.pairing.series][b] += share
    return dict(tables), dict(series)


def stored_game_points(data: dict) -> tuple[dict, dict, dict] | None:
    """The tables', series' and deciders' game points a snapshot's ``data`` holds, as
    ``table_and_series_points`` and ``decider_points_of`` give them; None when it holds
    none (a round robin's, or one stored before they were)."""
    stored = data.get("game_points")
    if stored is None or "decider_points" not in data:
        return None
    tables = {(round_, tuple(seated)): dict(by_bot) for round_, seated, by_bot in stored["tables"]}
    series = {name: dict(by_bot) for name, by_bot in stored["series"]}
    return tables, series, {name: dict(by_bot) for name, by_bot in data["decider_points"]}


def decider_points_of(tournament_id: int) -> dict[str, dict[int, float]]:
    """Each elimination series that went to a decider (a level series, or a tie at a
    table's cut): every bot's game points in its decider games, a failed game a draw.
    One query over the decider games alone."""
    from tournaments.formats.common import Pairing as FormatPairing
    from tournaments.formats.common import Result as FormatResult
    from tournaments.formats.common import game_scores

    seats = (
        MatchSeat.objects.filter(
            match__tournament_id=tournament_id,
            match__pairing_key__contains=".D",
            match__status__in=[Match.Status.FINISHED, Match.Status.FAILED],
        )
        .order_by("match_id", "seat")
        .values_list("match_id", "match__series", "match__status", "version__bot_id", "rank")
    )
    games: dict[int, tuple[str, list[tuple[int, int]]]] = {}
    for match_id, series, status, bot_id, rank in seats:
        failed = status == Match.Status.FAILED
        games.setdefault(match_id, (series, []))[1].append((bot_id, 1 if failed else rank or 1))
    points: dict[str, dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for series, seated in games.values():
        pairing = FormatPairing("", 0, tuple(bot for bot, _ in seated), 0, 0)
        result = FormatResult(pairing, tuple(rank for _, rank in seated))
        for bot_id, share in game_scores(result).items():
            points[series][bot_id] += float(share)
    return {series: dict(by_bot) for series, by_bot in points.items()}


# Finished matches read to tell whether the tournament's game is won on the lowest score.
SCORE_SAMPLE = 20


def latest_lowest_score_wins(tournament_id: int) -> bool:
    """Whether the tournament's latest finished matches all show the lowest score winning
    (:func:`games.scoring.score_direction`), at least one of them plainly."""
    latest = (
        Match.objects.filter(tournament_id=tournament_id, status=Match.Status.FINISHED)
        .order_by("-id")
        .values("id")[:SCORE_SAMPLE]
    )
    seats: dict[int, list] = defaultdict(list)
    # Seats in seat order without Meta's ordering by the match (a join of its rows), the
    # latest matches read in the same query.
    rows = MatchSeat.objects.filter(match_id__in=latest).order_by("match_id", "seat")
    rows = rows.values_list("match_id", "rank", "score")
    for match_id, rank, score in rows:
        seats[match_id].append((rank, score))
    directions = {score_direction(found) for found in seats.values()} - {None}
    return directions == {"lowest"}


def rounds_and_bracket(view, bot: list[int]) -> dict:
    """The format's rounds (tables, byes) and bracket series of ``view`` with entrants
    named by bot id (``bot[entrant]``), as the overview shows them."""

    def bots(entrants) -> list[int | None]:
        return [None if e is None else bot[e] for e in entrants]

    return {
        "rounds": [
            {
                "round": r.number,
                "tables": [bots(table) for table in r.tables],
                "byes": bots(r.byes),
            }
            for r in view.rounds
        ],
        "bracket": [
            {
                "series": s.name,
                "round": s.round,
                "stage": s.stage,
                "entrants": bots(s.entrants),
                "winners": bots(s.winners),
                "loser": None if s.loser is None else bot[s.loser],
                "complete": s.complete,
                "played": s.played,
                "skipped": s.skipped,
                "winner_to": s.winner_to,
                "loser_to": s.loser_to,
            }
            for s in view.series
        ],
    }


def overview_data(*, tournament: Tournament) -> dict:
    """The overview of the tournament's current results mark, by bot id: the stored
    snapshot when it is of that version, else built afresh (and stored).

    A tournament read with ``select_related("snapshot")`` brings its snapshot along in
    the same row (one round trip fewer); else it is one query by primary key.
    """
    if Tournament.snapshot.is_cached(tournament):
        try:
            snapshot = tournament.snapshot
        except StandingsSnapshot.DoesNotExist:
            snapshot = None
        current = snapshot is not None and snapshot.version == tournament.results_version
        data = snapshot.data if current else None
    else:
        data = (
            StandingsSnapshot.objects.filter(
                tournament_id=tournament.pk, version=tournament.results_version
            )
            .values_list("data", flat=True)
            .first()
        )
    data = refresh_snapshot(tournament_id=tournament.pk) if data is None else json.loads(data)
    tournament._standings_snapshot = data  # progress() of this request may read it
    return data


def match_counts(tournament_id: int) -> dict[str, int]:
    """The tournament's matches by status (from the (tournament, status) index alone)."""
    rows = (
        Match.objects.filter(tournament_id=tournament_id)
        .values_list("status")
        .annotate(n=Count("*"))
        .order_by()
    )
    return dict(rows)


def refresh_snapshot(*, tournament_id: int) -> dict:
    """Build and store the overview of the current results mark, unless someone did.

    Holds the tournament's lock while it reads, so the totals and the version it stores
    them under are of one moment, and readers of a new version build it once.
    """
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        snapshot = StandingsSnapshot.objects.filter(tournament_id=tournament_id).first()
        if snapshot is not None and snapshot.version == tournament.results_version:
            return json.loads(snapshot.data)
        entries = seeded_entries(tournament)
        if entries and (
            not EntryTally.objects.filter(tournament_id=tournament_id).exists()
            or totals_drifted(tournament_id)
        ):
            # Bulk-loaded, older than the tables, or written around the services.
            rebuild_totals(tournament_id=tournament_id)
            tournament.refresh_from_db()
        text = json.dumps(_overview_data(tournament, entries), separators=(",", ":"))
        StandingsSnapshot.objects.update_or_create(
            tournament_id=tournament_id,
            defaults={"version": tournament.results_version, "data": text},
        )
    return json.loads(text)


def refresh_after_commit(tournament_id: int) -> None:
    """Build the snapshot once the transaction commits (a finished event's first read is
    then one row); a failure here costs only that, the next read builds it."""

    def refresh() -> None:
        try:
            refresh_snapshot(tournament_id=tournament_id)
        except Exception:  # noqa: BLE001 - a cache fill; the read path builds it anyway
            log.exception("tournament %s: standings snapshot not refreshed", tournament_id)

    transaction.on_commit(refresh)


def pair_points(*, tournament: Tournament, bot_of_entrant: list[int]) -> dict:
    """``{(bot a, bot b): [points a took from b, games they shared]}`` for every pair
    that met in a decided game, both ways, from the pair totals."""
    scale = points_scale(tournament.players_per_match)
    if not EntryTally.objects.filter(tournament_id=tournament.pk).exists() or totals_drifted(
        tournament.pk
    ):
        rebuild_totals(tournament_id=tournament.pk)
    points = {}
    rows = PairTally.objects.filter(tournament_id=tournament.pk).values_list(
        "first", "second", *PAIR_FIELDS
    )
    for first, second, first_points, second_points, games in rows:
        a, b = bot_of_entrant[first], bot_of_entrant[second]
        points[(a, b)] = [float(Fraction(first_points, scale)), games]
        points[(b, a)] = [float(Fraction(second_points, scale)), games]
    return points


def rebuild_standings(
    *, tournament_ids: Iterable[int] | None = None, progress: Callable[[str], None] | None = None
) -> int:
    """Rebuild the totals and the snapshot of every tournament (or of those ids) from its
    matches, one tournament at a time under its lock; returns how many were rebuilt."""
    tournaments = Tournament.objects.order_by("pk")
    if tournament_ids is not None:
        tournaments = tournaments.filter(pk__in=list(tournament_ids))
    ids = list(tournaments.values_list("pk", flat=True))
    for number, tournament_id in enumerate(ids, start=1):
        began = time.monotonic()
        rebuild_totals(tournament_id=tournament_id)
        refresh_snapshot(tournament_id=tournament_id)
        if progress is not None:
            decided = Match.objects.filter(tournament_id=tournament_id, status__in=DECIDED)
            progress(
                f"standings: {number}/{len(ids)} tournament {tournament_id}: "
                f"{decided.count()} decided matches in {time.monotonic() - began:.2f} s"
            )
    return len(ids)
