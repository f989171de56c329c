"""Reads of tournaments and ladders: lists, overview, standings, progress and time left."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import OuterRef, QuerySet, Subquery

from bots.models import Bot, BotVersion, OptionsValidation
from bots.selectors import current_version
from tournaments import release, visibility
from tournaments.format_inputs import (
    event_of,
    results_of,
    seed_rows,
    seeded_entries,
    tournament_event,
)
from tournaments.formats import plan
from tournaments.formats.overview import describe
from tournaments.formats.plan import Plan
from tournaments.models import (
    Entry,
    Match,
    MatchSeat,
    Tournament,
)
from tournaments.read_models import (
    decider_points_of,
    latest_lowest_score_wins,
    match_counts,
    overview_data,
    pair_points,
    rounds_and_bracket,
    stored_game_points,
    table_and_series_points,
)


def tournament_list(*, game: str | None = None, status: str | None = None) -> QuerySet[Tournament]:
    qs = Tournament.objects.select_related("organiser")
    if game:
        qs = qs.filter(game=game)
    if status:
        qs = qs.filter(status=status)
    return qs


def tournament_read() -> QuerySet[Tournament]:
    """Tournaments as their page and API read one: with the organiser, the standings
    snapshot, whether a match is still to play (``_live_matches``) and the release of the
    competition each is the final of (``final_release``), in the tournament's own query
    (the seed's and the results' visibility read nothing more when nothing holds them)."""
    return Tournament.objects.select_related("organiser", "snapshot").annotate(
        _live_matches=visibility.has_live_matches(), final_release=release.final_release()
    )


def progress(*, tournament: Tournament) -> dict:
    """Match counts by status. ``done`` counts matches played to an end (finished or
    failed), never cancelled ones, so a cancelled event shows how far it got."""
    snapshot = getattr(tournament, "_standings_snapshot", None) or {}
    counts = defaultdict(int)
    # A finished event's snapshot (read by overview() in this request) holds its counts.
    counts.update(snapshot.get("progress") or match_counts(tournament.pk))
    total = sum(counts.values())
    done = counts["finished"] + counts["failed"]
    return {"total": total, "done": done, **{k: counts[k] for k in Match.Status.values}}


def entrants(*, tournament: Tournament) -> list[dict]:
    """Every entry in entry order: bot id and name, pinned version number, seed number and
    whether a challenger; one query, kept on the instance for the rest of the request."""
    cached = getattr(tournament, "_entrants", None)
    if cached is None:
        rows = _entrant_rows(tournament.entries.all())
        cached = tournament._entrants = [_entrant(*row) for row in rows]
    return cached


def _entrant_rows(entries: QuerySet[Entry], *first: str) -> QuerySet:
    """``entries`` as rows of ``_entrant``'s arguments (after the ``first`` columns): what
    an entrant row shows, no withdrawal reason, which is for the bot's owner alone
    (``withdrawal_reasons``). The bot's name and the pinned version's number are looked up
    per entry: joined, the planner hashed every bot and every version of the site to
    place a few hundred entries (3 ms at 10,000 bots, against 0.8)."""
    name = Bot.objects.filter(pk=OuterRef("bot_id")).order_by().values("name")[:1]
    number = BotVersion.objects.filter(pk=OuterRef("version_id")).order_by().values("number")
    return entries.annotate(
        entrant_name=Subquery(name), entrant_version=Subquery(number[:1])
    ).values_list(
        *first,
        "bot_id",
        "entrant_name",
        "entrant_version",
        "seed_number",
        "challenger",
        "withdrawn",
    )


def _entrant(bot_id, name, number, seed_number, challenger, withdrawn) -> dict:
    return {
        "bot_id": bot_id,
        "bot": name,
        "version": number,
        "seed_number": seed_number,
        "challenger": challenger,
        "withdrawn": Entry.WITHDRAWN_TEXT if withdrawn else None,
    }


def withdrawal_reasons(*, tournament: Tournament, user) -> dict[int, str]:
    """Why each of ``user``'s bots was withdrawn from the tournament, by bot id: the fault
    of its validation match under the event's options, which may quote its stderr."""
    if not getattr(user, "is_authenticated", False):
        return {}
    return dict(
        tournament.entries.filter(withdrawn=True, bot__owner_id=user.pk).values_list(
            "bot_id", "withdrawal_reason"
        )
    )


def entrants_being_validated(*, tournament: Tournament, key: str) -> int:
    """How many of a scheduled tournament's entrants wait for a validation match of their
    current version under its configuration (``key``: ``admission.configuration_key``)."""
    entries = tournament.entries.select_related("bot")
    versions = [v.pk for e in entries if (v := current_version(bot=e.bot)) is not None]
    return OptionsValidation.objects.filter(
        version__in=versions,
        key=key,
        status__in=[OptionsValidation.Status.PENDING, OptionsValidation.Status.VALIDATING],
    ).count()


def load_entrants(*, tournaments: list[Tournament]) -> None:
    """``entrants`` of every one of ``tournaments`` in one query (a list page's rows),
    kept on each instance as ``entrants`` keeps them."""
    rows = _entrant_rows(
        Entry.objects.filter(tournament__in=[t.pk for t in tournaments]), "tournament_id"
    )
    by_tournament: dict[int, list[dict]] = {t.pk: [] for t in tournaments}
    for tournament_id, *row in rows.order_by("id"):
        by_tournament[tournament_id].append(_entrant(*row))
    for tournament in tournaments:
        tournament._entrants = by_tournament[tournament.pk]


def overview(*, tournament: Tournament) -> dict:
    """Standings with the format's tie-breaks, and its rounds or bracket, by bot.

    Before the start nobody is seeded: every entrant gets an empty row. After it, the
    snapshot of the tournament's current results (tournaments.read_models), with the
    entrants' names and versions as they are now.
    """
    rows = entrants(tournament=tournament)
    if all(row["seed_number"] is None for row in rows):
        return _unseeded(rows)
    data = overview_data(tournament=tournament)
    entry_of = {row["bot_id"]: row for row in rows}
    standings = []
    for row in data["standings"]:
        entry = entry_of[row["bot_id"]]
        standings.append(
            {
                "position": row["position"],
                "bot_id": row["bot_id"],
                "bot": entry["bot"],
                "version": entry["version"],
                "points": row["points"],
                "tiebreaks": row["tiebreaks"],
                "played": row["played"],
                "wins": row["wins"],
                "faults": row["faults"],
                "score": row["score"],
            }
        )
    return {
        "tiebreaks": data["tiebreaks"],
        "standings": standings,
        "rounds": data["rounds"],
        "bracket": data["bracket"],
    }


def _unseeded(rows: list[dict]) -> dict:
    standings = [
        _row(row["bot_id"], row["bot"], row["version"], place=None, points=0.0, tiebreaks={})
        for row in rows
    ]
    return {"tiebreaks": [], "standings": standings, "rounds": [], "bracket": []}


def held_overview(*, tournament: Tournament, overview: dict) -> dict:
    """``overview`` as a reader a competition holds the tournament's results back from sees
    it (``tournaments.release``): every entrant unplaced in entry order with no points or
    counts (null), no tie-breaks, the rounds' tables and the bracket's series (who plays whom) without their winners."""
    held = _unseeded(entrants(tournament=tournament))
    for row in held["standings"]:  # no count of how its games went either
        row.update(dict.fromkeys(("points", "played", "wins", "faults", "score")))
    held["rounds"] = overview["rounds"]
    held["bracket"] = [
        {**series, "winners": [], "loser": None, "complete": False}
        for series in overview["bracket"]
    ]
    held["results_hidden"] = True
    return held


def overview_for(*, tournament: Tournament, user) -> dict:
    """:func:`overview` as ``user`` may see it (``held_overview`` when a competition holds
    the results back from them)."""
    found = overview(tournament=tournament)
    if release.tournament_results_hidden(tournament=tournament, user=user):
        return held_overview(tournament=tournament, overview=found)
    return found


def overview_from_matches(*, tournament: Tournament) -> dict:
    """:func:`overview` computed from every decided match, as it was before the read
    models: what the tests hold the snapshot to, and the bench's before."""
    entries = seeded_entries(tournament)
    if not entries:
        return _unseeded(entrants(tournament=tournament))
    results = results_of(tournament, entries)
    view = describe(tournament.format, tournament_event(tournament, entries), results)
    counts = _seat_counts(tournament)
    bot = [e.bot_id for e in entries]
    standings = []
    for standing in view.standings:
        entry = entries[standing.entrant]
        row = _row(
            entry.bot_id,
            entry.bot.name,
            entry.version.number if entry.version else None,
            standing.place,
            standing.points,
            standing.tiebreaks,
        )
        row.update(counts.get(entry.version_id, {}))
        standings.append(row)
    return {
        "tiebreaks": list(view.tiebreaks),
        "standings": standings,
        **rounds_and_bracket(view, bot),
    }


def _row(bot_id, bot, version, place, points, tiebreaks) -> dict:
    return {
        "position": place,
        "bot_id": bot_id,
        "bot": bot,
        "version": version,
        "points": round(points, 3),
        "tiebreaks": {name: round(value, 3) for name, value in tiebreaks.items()},
        "played": 0,
        "wins": 0,
        "faults": 0,
        "score": 0,
    }


def _seat_counts(tournament: Tournament) -> dict[int, dict]:
    """Per pinned version: games played, first places, faults and the sum of game scores."""
    counts: dict[int, dict] = defaultdict(lambda: {"played": 0, "wins": 0, "faults": 0, "score": 0})
    seats = MatchSeat.objects.filter(
        match__tournament=tournament, match__status=Match.Status.FINISHED
    ).values_list("version_id", "rank", "fault", "score")
    for version_id, rank, fault, score in seats:
        row = counts[version_id]
        row["played"] += 1
        row["wins"] += rank == 1
        row["faults"] += fault is not None
        row["score"] += score or 0
    return counts


def standings(*, tournament: Tournament) -> list[dict]:
    """The standings rows of :func:`overview`."""
    return overview(tournament=tournament)["standings"]


# --- The tournament page's live parts: points between entrants and the time left. ---


GAME_POINT_PARTS = ("pairwise", "tables", "series")


def game_points(*, tournament: Tournament, parts: tuple[str, ...] = GAME_POINT_PARTS) -> dict:
    """Game points of every decided game, by bot, three ways (failed games are draws):

    - ``pairwise[(a, b)]``: ``[points a took from b, games they shared]``, ranks compared
      two by two (the crosstable; with two seats, the game's own points), from the
      standings' pair totals;
    - ``tables[(round, bots sorted)]``: each bot's points at that round's table (Swiss);
    - ``series[name]``: each bot's points in that series (elimination).

    ``parts`` picks which to compute (the others come back empty): pairwise one row per
    pair that met; tables and series come with the standings snapshot of the current
    results (``overview`` of this request read it), else from every decided game.
    """
    snapshot = getattr(tournament, "_standings_snapshot", None) or {}
    stored = stored_game_points(snapshot) if {"tables", "series"} & set(parts) else None
    pairwise: dict[tuple[int, int], list] = {}
    tables: dict = {}
    series: dict = {}
    if stored is not None:
        tables, series, _ = stored
    if stored is None or "pairwise" in parts:
        # The seeded entries are read only for what the snapshot does not hold.
        entries = seed_rows(tournament)
        bot = [e.bot_id for e in entries]
        if entries and "pairwise" in parts:
            pairwise = pair_points(tournament=tournament, bot_of_entrant=bot)
        if entries and stored is None and {"tables", "series"} & set(parts):
            tables, series = table_and_series_points(results_of(tournament, entries), bot)
    return {
        "pairwise": pairwise,
        "tables": tables if "tables" in parts else {},
        "series": series if "series" in parts else {},
    }


def planned_games(*, tournament: Tournament) -> Plan | None:
    """The games the format plans for this field (:func:`tournaments.formats.plan.
    planned_games`): before the start every entry, after it the seeded ones. None when the
    format cannot play the field (it is cancelled at its start) or there is no entry."""
    rows = entrants(tournament=tournament)
    seeded = [row for row in rows if row["seed_number"] is not None]
    if seeded:
        challengers = tuple(sorted(row["seed_number"] for row in seeded if row["challenger"]))
        count = len(seeded)
    else:  # before the start: who is seeded where does not change the count
        count = len(rows)
        challengers = tuple(range(sum(1 for row in rows if row["challenger"])))
    if not count:
        return None
    try:
        return plan.planned_games(
            tournament.format, event_of(tournament, entrants=count, challengers=challengers)
        )
    except ValueError:
        return None


def lowest_score_wins(*, tournament: Tournament) -> bool:
    """Whether the tournament's latest finished matches all show the lowest score winning
    (:func:`games.scoring.score_direction`), at least one of them plainly: stored with the
    standings snapshot of the current results (``overview`` of this request read it),
    else read from the matches."""
    snapshot = getattr(tournament, "_standings_snapshot", None) or {}
    stored = snapshot.get("lowest_score_wins")
    return latest_lowest_score_wins(tournament.pk) if stored is None else stored


def decider_points(*, tournament: Tournament) -> dict[str, dict[int, float]]:
    """Each elimination series that went to a decider (a level series, or a tie at a
    table's cut): every bot's game points in its decider games, a failed game a draw.
    Stored with the standings snapshot of the current results (``overview`` of this
    request read it), else one query over the decider games alone."""
    stored = stored_game_points(getattr(tournament, "_standings_snapshot", None) or {})
    return decider_points_of(tournament.pk) if stored is None else stored[2]


def expected_games(
    *, tournament: Tournament, bracket: list[dict] | None = None, progress: dict | None = None
) -> int | None:
    """About how many games the event plays in all (deciders not counted); before the
    start the format's plan (None if it cannot play the field). ``bracket`` is :func:`overview`'s, for elimination (the series still due);
    ``progress``, :func:`progress`'s if the caller has it (its counts are not read again)."""
    from tournaments.formats import swiss

    seeded = entrants(tournament=tournament)
    entrants_count = sum(1 for row in seeded if row["seed_number"] is not None)
    if not entrants_count:  # not started: the format's plan for every entry
        planned = planned_games(tournament=tournament)
        return planned.games if planned else None
    games, seats = tournament.games_per_pairing, tournament.players_per_match
    if progress is not None:
        known = progress["total"] - progress[Match.Status.CANCELLED]
    else:
        known = tournament.matches.exclude(status=Match.Status.CANCELLED).count()
    if tournament.format == Tournament.Format.SWISS:
        rounds = tournament.rounds or swiss.default_rounds(entrants_count)
        return max(known, rounds * (entrants_count // seats) * games)
    if bracket:
        pending = sum(1 for s in bracket if not s["complete"] and not s["skipped"])
        started = set(
            tournament.matches.exclude(status=Match.Status.CANCELLED)
            .exclude(series="")
            .values_list("series", flat=True)
        )
        waiting = sum(
            1
            for s in bracket
            if not s["complete"] and not s["skipped"] and s["series"] not in started
        )
        return max(known, known + waiting * games) if pending else known
    return known  # round robin and gauntlet queue every game at the start


# The mean duration of this many of the latest finished matches predicts the next ones.
DURATION_SAMPLE = 50


def time_left(*, tournament: Tournament, progress: dict, expected: int | None) -> float | None:
    """Seconds until the last match ends, or None when there is nothing to go on.

    The games still to play (``expected`` less those played) take the mean duration of
    the latest finished matches each, played as many at once as are running now.
    """
    if tournament.status != Tournament.Status.RUNNING or expected is None:
        return None
    remaining = max(expected - progress["done"], progress["queued"] + progress["running"])
    if remaining <= 0:
        return None
    spans = (
        tournament.matches.filter(
            status=Match.Status.FINISHED, started_at__isnull=False, finished_at__isnull=False
        )
        .order_by("-finished_at")
        .values_list("started_at", "finished_at")[:DURATION_SAMPLE]
    )
    durations = [(end - start).total_seconds() for start, end in spans]
    if not durations:
        return None
    mean = max(sum(durations) / len(durations), 0.001)
    at_once = max(progress["running"], 1)
    return remaining * mean / at_once
