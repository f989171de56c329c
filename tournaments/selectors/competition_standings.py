"""A competition's ladder standings: each division's table for a cycle, and the order of the
whole ladder (division first, then place in it) that seeds the final.

The tables are computed by tournaments.formats.divisions from the finished games of the
cycle, as an archive's reader recomputes them. No release rule is applied here: callers
that show results pass ``hidden`` (tournaments.release.hidden_results_q) or hold them back.
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Q

from tournaments.formats.divisions import Game, Row, division_table
from tournaments.models import Competition, CompetitionEntry, Match, MatchSeat


def division_tables(
    *, competition: Competition, cycle: int | None = None, hidden: Q | None = None
) -> list[dict]:
    """Each division's table for ``cycle`` (default: the cycle in progress), top first:
    ``{"division", "cycle", "rows"}``, each row an entry's line (``_row``), best first.

    In the cycle in progress a division holds the accepted entries placed in it now (one
    who has not played yet shows with no game); in a past cycle, the accepted entries who
    played in it. ``hidden``: matches to leave out (a release rule's Q over Match).
    """
    cycle = competition.cycle if cycle is None else cycle
    entries = list(
        CompetitionEntry.objects.filter(competition=competition)
        .select_related("bot", "bot__owner", "team")
        .order_by("pk")
    )
    accepted = {e.pk: e for e in entries if e.status == CompetitionEntry.Status.ACCEPTED}
    entry_of_bot = {e.bot_id: e.pk for e in entries}
    games = _games(competition=competition, cycle=cycle, hidden=hidden, entry_of_bot=entry_of_bot)
    members: dict[int, list[int]] = defaultdict(list)
    if cycle == competition.cycle:
        for entry in accepted.values():
            if entry.division is not None:
                members[entry.division].append(entry.pk)
    else:
        played: dict[int, set[int]] = defaultdict(set)
        for division, division_games in games.items():
            for game in division_games:
                played[division].update(s for s in game.seats if s in accepted)
        for division, ids in played.items():
            members[division] = sorted(ids)
    return [
        {
            "division": division,
            "cycle": cycle,
            "rows": [
                _row(accepted[row.entrant], division, row)
                for row in division_table(members[division], games.get(division, []))
            ],
        }
        for division in sorted(members)
    ]


def competition_standings(*, competition: Competition) -> list[dict]:
    """Every accepted entry of the competition, best first: division first (1 the top),
    then place in its table of the cycle in progress; an entry not placed in a division yet
    comes last, in entry order. Disqualified, refused and pending entries are left out."""
    rows = [row for table in division_tables(competition=competition) for row in table["rows"]]
    placed = {row["entry_id"] for row in rows}
    unplaced = (
        CompetitionEntry.objects.filter(
            competition=competition, status=CompetitionEntry.Status.ACCEPTED
        )
        .exclude(pk__in=placed)
        .select_related("bot", "bot__owner", "team")
        .order_by("pk")
    )
    bottom = max((row["division"] for row in rows), default=0) + 1
    rows.extend(
        _row(entry, bottom, Row(entrant=entry.pk, place=place, points=0, games=0, score=0))
        for place, entry in enumerate(unplaced, start=1)
    )
    return rows


def table_games(
    *, competition: Competition, cycle: int, hidden: Q | None = None
) -> dict[int, list[Game]]:
    """The finished games of each division in ``cycle``, as the pure table takes them:
    seats are entry ids (a bot with no entry: minus its bot id, counting for nobody)."""
    entry_of_bot = dict(
        CompetitionEntry.objects.filter(competition=competition).values_list("bot_id", "pk")
    )
    return _games(competition=competition, cycle=cycle, hidden=hidden, entry_of_bot=entry_of_bot)


def _games(
    *, competition: Competition, cycle: int, hidden: Q | None, entry_of_bot: dict[int, int]
) -> dict[int, list[Game]]:
    matches = Match.objects.filter(
        competition=competition, cycle=cycle, status=Match.Status.FINISHED
    )
    if hidden is not None:
        matches = matches.exclude(hidden)
    # Without divisions a match's division is None: it is division 1's.
    division_of = {pk: division or 1 for pk, division in matches.values_list("pk", "division")}
    seats: dict[int, list[tuple[int, int]]] = defaultdict(list)
    rows = (
        MatchSeat.objects.filter(match_id__in=list(division_of))
        .order_by("match_id", "seat")
        .values_list("match_id", "version__bot_id", "rank")
    )
    for match_id, bot_id, rank in rows:
        seats[match_id].append((entry_of_bot.get(bot_id, -bot_id), rank))
    games: dict[int, list[Game]] = defaultdict(list)
    for match_id in sorted(seats):
        taken = seats[match_id]
        if any(rank is None for _, rank in taken):
            continue  # no result stored for a seat: nothing to count
        games[division_of[match_id]].append(
            Game(seats=tuple(s for s, _ in taken), ranks=tuple(r for _, r in taken))
        )
    return dict(games)


def _row(entry: CompetitionEntry, division: int, row: Row) -> dict:
    """An entry's line, plain JSON: ``points`` are game points (1 a win over every other
    seat, 1/2 per tie), ``score`` points per game (what the table ranks by)."""
    return {
        "entry_id": entry.pk,
        "bot_id": entry.bot_id,
        "bot": entry.bot.name,
        "owner": entry.bot.owner.username,
        "team": entry.team.name if entry.team_id is not None else None,
        "division": division,
        "place": row.place,
        "points": float(row.points),
        "games": row.games,
        "score": float(row.score),
    }
