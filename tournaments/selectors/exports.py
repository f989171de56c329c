"""The tables an organiser takes away (standings, crosstable, matches, rating history): the
columns the pages show, as plain values a spreadsheet or a program reads."""

from __future__ import annotations

from dataclasses import dataclass

from bots.models import Bot
from tournaments import release
from tournaments.models import Ladder, Match, MatchSeat, Tournament
from tournaments.ratings import pools
from tournaments.selectors import ratings as rating_selectors
from tournaments.selectors import tournaments as tournament_selectors

TIEBREAK_LABELS = {
    "buchholz": "Buchholz",
    "sonneborn_berger": "Sonneborn-Berger",
    "head_to_head": "Head-to-head",
    "faults": "Faults",
}
# Every change a download carries, however long the bot's past (a page shows the latest).
EXPORT_HISTORY_POINTS = 1_000_000


def tiebreak_label(name: str) -> str:
    return TIEBREAK_LABELS.get(name, name.replace("_", " "))


@dataclass
class Table:
    """``columns``: (key, heading) pairs, the headings the page's table has; ``rows``: one
    dict a row, by key."""

    name: str  # the file's name, without its extension
    columns: list[tuple[str, str]]
    rows: list[dict]

    def values(self) -> list[list]:
        return [[row.get(key) for key, _ in self.columns] for row in self.rows]


def standings_table(*, tournament: Tournament, user=None) -> Table:
    """The standings as the tournament page shows them to ``user`` (head-to-head has no
    value of its own: it orders tied bots among themselves)."""
    overview = tournament_selectors.overview_for(tournament=tournament, user=user)
    tiebreaks = overview["tiebreaks"]
    columns = [
        ("position", "#"),
        ("bot", "Bot"),
        ("version", "Version"),
        ("played", "Played"),
        ("points", "Series won" if overview["bracket"] else "Points"),
        *((name, tiebreak_label(name)) for name in tiebreaks),
        ("wins", "Wins"),
        ("score", "Score"),
    ]
    if "faults" not in tiebreaks:
        columns.append(("faults", "Faults"))
    rows = []
    for r in overview["standings"]:
        values = r["tiebreaks"] or {}
        row = {k: r[k] for k in ("position", "bot", "version", "played", "points")}
        row.update(wins=r["wins"], score=r["score"], faults=r["faults"])
        # A tie-break named faults is its own column, in place of the count.
        row.update(
            {name: None if name == "head_to_head" else values.get(name) for name in tiebreaks}
        )
        rows.append(row)
    return Table(f"tournament-{tournament.pk}-standings", columns, rows)


def has_crosstable(tournament: Tournament) -> bool:
    return tournament.format == Tournament.Format.ROUND_ROBIN


def crosstable_table(*, tournament: Tournament, user=None) -> Table:
    """A round robin's crosstable: each row's game points against each column's bot, as
    ``points/games`` (``1.5/2``); empty where they have not met, ``-`` on the diagonal.
    Unlike the page, any number of entrants (a spreadsheet is wide enough)."""
    standings = tournament_selectors.overview_for(tournament=tournament, user=user)["standings"]
    pairwise = {}
    if standings and standings[0]["position"] is not None:
        parts = ("pairwise",)
        pairwise = tournament_selectors.game_points(tournament=tournament, parts=parts)["pairwise"]
    numbers = [str(n) for n in range(1, len(standings) + 1)]
    columns = [("number", "#"), ("bot", "Bot"), *((n, n) for n in numbers)]
    rows = []
    for number, row in enumerate(standings, start=1):
        out = {"number": number, "bot": row["bot"]}
        for column, other in zip(numbers, standings, strict=True):
            if other["bot_id"] == row["bot_id"]:
                out[column] = "-"
                continue
            points, games = pairwise.get((row["bot_id"], other["bot_id"]), (None, 0))
            out[column] = f"{_number(points)}/{games}" if games else ""
        rows.append(out)
    return Table(f"tournament-{tournament.pk}-crosstable", columns, rows)


def _number(value: float | None) -> str:
    """``1.5`` for 1.5, ``2`` for 2.0."""
    if value is None:
        return "0"
    return f"{value:g}" if value != int(value) else str(int(value))


def seats_text(seats: list[tuple]) -> str:
    """``name (rank, score)`` of each seat joined by `` · ``, as the match rows write them;
    ``fault`` after a seat that faulted."""
    out = []
    for rank, score, fault, name in seats:
        text = f"{name} ({rank}, {score})" if rank else name
        out.append(f"{text} fault" if fault else text)
    return " · ".join(out)


def _match_rows(
    matches, name: str, *, bracket: bool, round_heading: str, held: bool = False
) -> Table:
    """Every match, newest first, as the page's match list shows them (``held``: without
    ranks, scores and faults, which a competition holds back from the reader)."""
    order = ("-round", "-number", "-id") if round_heading == "Round" else ("-id",)
    found = list(matches.order_by(*order).values_list("id", "round", "series", "status"))
    seats: dict[int, list[tuple]] = {match_id: [] for match_id, *_ in found}
    seat_rows = (
        MatchSeat.objects.filter(match_id__in=list(seats))
        .order_by("match_id", "seat")
        .values_list("match_id", "rank", "score", "fault", "version__bot__name")
    )
    for match_id, *seat in seat_rows.iterator(chunk_size=5000):
        if held:
            seat = [None, None, None, seat[-1]]
        seats[match_id].append(seat)
    columns = [("match", "Match"), ("round", round_heading)]
    if bracket:
        columns.append(("series", "Series"))
    columns += [("status", "Status"), ("seats", "Seats (rank, score)")]
    rows = [
        {
            "match": match_id,
            "round": round_,
            "series": series,
            "status": status,
            "seats": seats_text(seats[match_id]),
        }
        for match_id, round_, series, status in found
    ]
    return Table(name, columns, rows)


def tournament_matches_table(*, tournament: Tournament, user=None) -> Table:
    bracket = tournament.format in (
        Tournament.Format.SINGLE_ELIMINATION,
        Tournament.Format.DOUBLE_ELIMINATION,
    )
    return _match_rows(
        Match.objects.filter(tournament=tournament),
        f"tournament-{tournament.pk}-matches",
        bracket=bracket,
        round_heading="Round",
        held=release.tournament_results_hidden(tournament=tournament, user=user),
    )


def ladder_matches_table(*, ladder: Ladder) -> Table:
    return _match_rows(
        Match.objects.filter(ladder=ladder),
        f"ladder-{ladder.pk}-matches",
        bracket=False,
        round_heading="Table",
    )


def rating_history_table(*, bot: Bot) -> Table:
    """Every rating change of the bot in the pool its page charts (its most played), newest
    first as the page's table: ``Change`` is the points won or lost."""
    played = rating_selectors.rating_pools_of_bot(bot=bot)
    pool = played[0] if played else pools.default_pool(bot.game)
    history = rating_selectors.rating_history(bot=bot, pool=pool, limit=EXPORT_HISTORY_POINTS)
    columns = [
        ("n", "#"),
        ("version", "Version"),
        ("match", "Match"),
        ("elo", "Elo"),
        ("change", "Change"),
        ("at", "Date (UTC)"),
    ]
    rows = [
        {
            "n": n,
            "version": h["version"],
            "match": h["match"],
            "elo": h["after"],
            "change": round(h["after"] - h["before"], 1),
            "at": h["at"].strftime("%Y-%m-%d %H:%M:%S"),
        }
        for n, h in reversed(list(enumerate(history, start=1)))
    ]
    return Table(f"bot-{bot.pk}-ratings", columns, rows)
