"""Reads: standings, leaderboards, rating history, replays."""

from __future__ import annotations

import math
import re
import shlex
from collections import defaultdict

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Prefetch, QuerySet

from bots import selectors as bot_selectors
from bots.cli import option_text
from bots.models import Bot, BotVersion
from games import registry
from tournaments import pools, stats
from tournaments.formats.overview import describe
from tournaments.models import (
    Gate,
    Ladder,
    Match,
    MatchSeat,
    PoolFit,
    Rating,
    RatingChange,
    RatingFit,
    RatingLedger,
    Tournament,
)
from tournaments.ratings import bradley_terry as bt
from tournaments.ratings import match as match_stats
from tournaments.ratings.match import Z95
from tournaments.results import results_of, seeded_entries, tournament_event


def tournament_list(*, game: str | None = None, status: str | None = None) -> QuerySet[Tournament]:
    qs = Tournament.objects.select_related("organiser")
    if game:
        qs = qs.filter(game=game)
    if status:
        qs = qs.filter(status=status)
    return qs


def public_seats() -> Prefetch:
    """A match's seats without their logs: what every page and list may load."""
    return Prefetch("seats", queryset=MatchSeat.objects.defer("log").select_related("version__bot"))


def match_detail(*, pk: int) -> Match:
    """One match with its seats (logs left out: see ``seat_logs``); DoesNotExist if none."""
    return Match.objects.select_related("tournament").prefetch_related(public_seats()).get(pk=pk)


def owned_seats(*, match: Match, user) -> set[int]:
    """The seats of ``match`` whose bot ``user`` owns (none for an anonymous visitor)."""
    if user is None or not user.is_authenticated:
        return set()
    return {s.seat for s in match.seats.all() if s.version.bot.owner_id == user.id}


def seat_logs(*, match: Match, user) -> dict[int, str]:
    """The stderr logs of the seats ``user`` owns: a bot's log is its owner's alone."""
    seats = owned_seats(match=match, user=user)
    if not seats:
        return {}
    rows = MatchSeat.objects.filter(match=match, seat__in=seats).values_list("seat", "log")
    return dict(rows)


def reproduce(*, match: Match, user, export_url: str) -> dict:
    """The commands that play ``match`` again locally, as ``user`` can run them.

    Every seat needs a bot file: the reader's own bots by the name of the file they
    uploaded (theirs to download); another's bot is named after it, to be replaced by its
    owner's file or, for a close but not exact game, a built-in bot such as ``random``.
    ``replay`` needs only the reader's own files: the other seats play their recorded moves.
    """
    yours = owned_seats(match=match, user=user)
    files = []
    for seat in match.seats.all():
        version = seat.version
        extension = "." + version.kind if version.kind else ""
        files.append(
            {
                "seat": seat.seat,
                "bot": version.bot.name,
                "version": version.number,
                "file": f"{version.bot.name}-v{version.number}{extension}",
                "yours": seat.seat in yours,
                "source": f"/api/versions/{version.pk}/source/" if seat.seat in yours else None,
            }
        )
    play = ["python", "manage.py", "play", match.game, *[f["file"] for f in files]]
    play += ["--seed", str(match.seed)]
    for name, value in sorted((match.options or {}).items()):
        play += ["--option", f"{name}={option_text(value)}"]
    play += ["--move-ms", str(match.move_ms), "--bank-ms", str(match.bank_ms)]
    export_file = f"match-{match.pk}.json"
    replay = ["python", "manage.py", "replay", export_file]
    for f in files:
        if f["yours"]:
            replay += ["--bot", f"{f['seat']}={f['file']}"]
    return {
        "play": shlex.join(play),
        "export": shlex.join(["curl", "-o", export_file, export_url]),
        "replay": shlex.join(replay),
        "files": files,
    }


def match_list(
    *,
    tournament: Tournament | None = None,
    version: BotVersion | None = None,
    ladder: Ladder | None = None,
):
    qs = Match.objects.defer("moves", "record").prefetch_related(public_seats())
    if tournament is not None:
        qs = qs.filter(tournament=tournament)
    if ladder is not None:
        qs = qs.filter(ladder=ladder)
    if version is not None:
        qs = qs.filter(seats__version=version)
    return qs


def recent_matches(*, bot_id: int, limit: int = 30) -> list[Match]:
    """The bot's latest matches (any version), newest first."""
    return list(
        match_list().filter(seats__version__bot_id=bot_id).distinct().order_by("-id")[:limit]
    )


def progress(*, tournament: Tournament) -> dict:
    """Match counts by status. ``done`` counts matches played to an end (finished or
    failed), never cancelled ones, so a cancelled event shows how far it got."""
    counts = defaultdict(int)
    for status in tournament.matches.values_list("status", flat=True):
        counts[status] += 1
    total = sum(counts.values())
    done = counts["finished"] + counts["failed"]
    return {"total": total, "done": done, **{k: counts[k] for k in Match.Status.values}}


def ladder_progress(*, ladder: Ladder) -> dict:
    counts = dict(ladder.matches.values_list("status").annotate(n=Count("pk")).order_by())
    return {status: counts.get(status, 0) for status in Match.Status.values}


def overview(*, tournament: Tournament) -> dict:
    """Standings with the format's tie-breaks, and its rounds or bracket, by bot.

    Before the start nobody is seeded: every entrant gets an empty row.
    """
    entries = seeded_entries(tournament)
    if not entries:
        rows = [
            _row(entry, place=None, points=0.0, tiebreaks={})
            for entry in tournament.entries.select_related("bot", "version")
        ]
        return {"tiebreaks": [], "standings": rows, "rounds": [], "bracket": []}
    results = results_of(tournament, entries)
    view = describe(tournament.format, tournament_event(tournament, entries), results)
    counts = _seat_counts(tournament)
    bot = [e.bot_id for e in entries]

    def bots(entrants) -> list[int | None]:
        return [None if e is None else bot[e] for e in entrants]

    standings = []
    for standing in view.standings:
        entry = entries[standing.entrant]
        row = _row(entry, standing.place, standing.points, standing.tiebreaks)
        row.update(counts.get(entry.version_id, {}))
        standings.append(row)
    return {
        "tiebreaks": list(view.tiebreaks),
        "standings": standings,
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


def _row(entry, place, points, tiebreaks) -> dict:
    return {
        "position": place,
        "bot_id": entry.bot_id,
        "bot": entry.bot.name,
        "version": entry.version.number if entry.version else None,
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


def pools_of_game(*, game: str) -> list[dict]:
    """The game's pools that have ratings, the standard one first (listed even if empty)."""
    registry.get(game)
    standard = pools.default_pool(game)
    keys = set(
        RatingLedger.objects.filter(pool__startswith=f"{game}:").values_list("pool", flat=True)
    )
    keys = [key for key in keys if pools.is_pool_of(key, game)]
    ordered = [standard] + sorted(key for key in keys if key != standard)
    return [{"key": key, "label": pools.label(key), "standard": key == standard} for key in ordered]


def resolve_pool(*, game: str, pool: str | None) -> str:
    """The pool a page or API call means: the game's standard one by default.

    ``pools.InvalidPool`` for a key that is not canonical or belongs to another game.
    """
    registry.get(game)
    if not pool:
        return pools.default_pool(game)
    parsed = pools.parse(pool)
    if parsed.game != game:
        raise pools.InvalidPool(f"pool {pool!r} is not a pool of {game}")
    return parsed.key


def _ancestors(version_id: int, parents: dict[int, int]):
    seen = set()
    parent = parents.get(version_id)
    while parent is not None and parent not in seen:
        yield parent
        seen.add(parent)
        parent = parents.get(parent)


def version_estimate(
    version_id: int,
    *,
    live: dict[int, Rating],
    fitted: dict[int, RatingFit],
    parents: dict[int, int],
) -> dict:
    """What the board says of a version: elo, its 95% interval and where they come from.

    - ``fit``: the pool's latest Bradley-Terry fit (the board's figure).
    - ``live``: the version played only since the last fit; the live Elo, with the
      interval a fit gives for that many games against equal opposition.
    - ``parent``: it has not played in the pool; its nearest rated ancestor's figure,
      widened by the parent prior (a new version starts from its parent's rating).
    - ``none``: nothing in its line has played here.
    """
    if version_id in fitted:
        row = fitted[version_id]
        return {"elo": row.elo, "stdev": row.stdev, "estimate": "fit"}
    if version_id in live:
        return {
            "elo": live[version_id].elo,
            "stdev": bt.new_player_stdev(live[version_id].matches),
            "estimate": "live",
        }
    for ancestor in _ancestors(version_id, parents):
        if ancestor in fitted:
            row = fitted[ancestor]
            spread = math.hypot(row.stdev, bt.new_player_stdev(0))
            return {"elo": row.elo, "stdev": spread, "estimate": "parent"}
        if ancestor in live:
            return {
                "elo": live[ancestor].elo,
                "stdev": bt.new_player_stdev(0),
                "estimate": "parent",
            }
    return {
        "elo": float(settings.ARENA_ELO_START),
        "stdev": bt.new_player_stdev(0),
        "estimate": "none",
    }


def leaderboard(*, game: str, pool: str | None = None) -> list[dict]:
    """One row per bot of the game: its current version's rating in ``pool``.

    Rows carry the shown Elo with its 95% interval (``elo_low``, ``elo_high``), where
    the figure comes from (``estimate``), the live Elo, games, W-D-L (two sides) or
    the average rank (more), the likelihood of superiority over the next row, and
    whether the row is provisional (fewer than ARENA_PROVISIONAL_GAMES games).
    """
    pool = resolve_pool(game=game, pool=pool)
    bots = {bot.pk: bot for bot in Bot.objects.filter(game=game).select_related("owner")}
    current = bot_selectors.current_versions_of(bots=list(bots.values()))
    parents = dict(
        BotVersion.objects.filter(bot__game=game, parent__isnull=False).values_list(
            "pk", "parent_id"
        )
    )
    lines = set(current[b].pk for b in current)
    for version in list(lines):
        lines.update(_ancestors(version, parents))
    live = {r.version_id: r for r in Rating.objects.filter(pool=pool, version_id__in=lines)}
    fitted = {f.version_id: f for f in RatingFit.objects.filter(pool=pool, version_id__in=lines)}
    rows = []
    for bot_id, version in current.items():
        bot = bots[bot_id]
        shown = version_estimate(version.pk, live=live, fitted=fitted, parents=parents)
        rating = live.get(version.pk)
        games = rating.matches if rating else 0
        two_sided = pools.parse(pool).players == 2 and not registry.get(game).teams(
            pools.parse(pool).players, pools.parse(pool).options
        )
        low, high = shown["elo"] - Z95 * shown["stdev"], shown["elo"] + Z95 * shown["stdev"]
        rows.append(
            {
                "bot_id": bot.pk,
                "bot": bot.name,
                "owner": bot.owner.username,
                "version": version.number,
                "elo": round(shown["elo"], 1),
                "elo_low": round(low, 1),
                "elo_high": round(high, 1),
                "stdev": round(shown["stdev"], 1),
                "estimate": shown["estimate"],
                "live_elo": round(rating.elo, 1) if rating else None,
                "games": games,
                "matches": games,
                "wins": rating.wins if rating and two_sided else None,
                "draws": rating.draws if rating and two_sided else None,
                "losses": rating.losses if rating and two_sided else None,
                "average_rank": (
                    round(rating.rank_total / rating.matches, 2)
                    if rating and rating.matches and not two_sided
                    else None
                ),
                "provisional": games < settings.ARENA_PROVISIONAL_GAMES,
                "_sd": shown["stdev"],
                "_elo": shown["elo"],
            }
        )
    # A new version keeps its bot's place (it starts from its parent's figure); only
    # bots with nothing rated in the pool go last.
    rows.sort(key=lambda r: (r["estimate"] == "none", -r["_elo"], r["bot"]))
    for position, row in enumerate(rows, start=1):
        row["position"] = position
        following = rows[position] if position < len(rows) else None
        # Between rated rows only: an unplayed row's figure is a placeholder.
        row["los_next"] = (
            round(
                bt.los_independent(row["_elo"], row["_sd"], following["_elo"], following["_sd"]), 1
            )
            if following and "none" not in (row["estimate"], following["estimate"])
            else None
        )
    for row in rows:
        del row["_sd"], row["_elo"]
    return rows


def pool_fit_info(*, pool: str) -> dict | None:
    fit = PoolFit.objects.filter(pool=pool).first()
    ledger = RatingLedger.objects.filter(pool=pool).first()
    if fit is None and ledger is None:
        return None
    return {
        "pool": pool,
        "rated_matches": ledger.last_seq if ledger else 0,
        "fitted_matches": fit.seq if fit else 0,
        "fitted_at": fit.fitted_at if fit else None,
        "versions": fit.players if fit else 0,
        "seconds": round(fit.seconds, 3) if fit else None,
    }


def rating_pools_of_bot(*, bot: Bot) -> list[str]:
    """Pools the bot has rated matches in, most played first."""
    counts: dict[str, int] = defaultdict(int)
    for pool in Rating.objects.filter(version__bot=bot).values_list("pool", "matches"):
        counts[pool[0]] += pool[1]
    return sorted(counts, key=lambda key: (-counts[key], key))


def rating_history(*, bot: Bot, pool: str | None = None) -> list[dict]:
    """The bot's rating changes in ``pool`` (its most played by default), oldest first.

    Every point names its version: a chart draws one series per version, so a new
    version (which starts from its parent's rating) never reads as a crash.
    """
    if pool is None:
        played = rating_pools_of_bot(bot=bot)
        pool = played[0] if played else pools.default_pool(bot.game)
    changes = RatingChange.objects.filter(version__bot=bot, pool=pool).select_related("version")
    return [
        {
            "version": change.version.number,
            "version_id": change.version_id,
            "pool": change.pool,
            "match": change.match_id,
            "seq": change.seq,
            "before": round(change.before, 1),
            "after": round(change.after, 1),
            "at": change.created_at,
        }
        for change in changes.order_by("seq")
    ]


def rating_series(history: list[dict]) -> list[dict]:
    """The history split per version, in the order versions first appear."""
    series: dict[int, dict] = {}
    for point in history:
        entry = series.setdefault(point["version"], {"version": point["version"], "points": []})
        entry["points"].append(point)
    return list(series.values())


def head_to_head(*, pool: str, first: Bot, second: Bot) -> dict:
    """Two bots' record in a pool's rated matches (any versions), cutechess style.

    Every match where both sat is one comparison by rank (a win, draw or loss
    between the two, whatever other seats did). Two matches on the same seed in
    which the two bots swapped seats are a pair: a deal's luck cancels within it, so
    pairs are also summarised as pairs (pentanomial), the honest statistic for
    duplicate play; matches without a partner are left out of that part.
    """
    matches = (
        Match.objects.filter(pool=pool, rated_seq__isnull=False, seats__version__bot=first)
        .filter(seats__version__bot=second)
        .distinct()
        .prefetch_related("seats__version")
        .order_by("rated_seq")
    )
    scores = []
    by_deal: dict[int, list[tuple[tuple, float]]] = defaultdict(list)
    for match in matches:
        seats = sorted(match.seats.all(), key=lambda s: s.seat)
        keys = [seat.version.bot_id for seat in seats]
        ranks = [seat.rank for seat in seats]
        found = match_stats.head_to_head_scores([(keys, ranks)], first.pk, second.pk)
        if not found:
            continue
        scores.append(found[0])
        where = (keys.index(first.pk), keys.index(second.pk))
        by_deal[match.seed].append((where, found[0]))
    wins, draws, losses = match_stats.wdl(scores)
    elo, margin = stats.elo_margin(wins, losses, draws)
    pairs = []
    for games in by_deal.values():
        if len(games) == 2 and games[0][0] == games[1][0][::-1]:
            pairs.append((games[0][1], games[1][1]))
    counts = match_stats.pentanomial_counts(pairs)
    paired = match_stats.pentanomial(counts)
    games = wins + draws + losses
    return {
        "pool": pool,
        "pool_label": pools.label(pool),
        "first": {"bot_id": first.pk, "bot": first.name},
        "second": {"bot_id": second.pk, "bot": second.name},
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "score": round((wins + draws / 2) / games, 4) if games else None,
        "elo": _finite(elo),
        "margin": _finite(margin),
        "los": round(stats.los(wins, losses), 1),
        "pairs": {
            "pairs": len(pairs),
            "counts": counts,
            "score": round(paired.score, 4) if pairs else None,
            "elo": _finite(paired.elo) if pairs else None,
            "margin": _finite(paired.margin) if pairs else None,
            "los": round(paired.los, 1) if pairs else None,
        },
    }


def _finite(value: float) -> float | None:
    """JSON has no infinity: an undefined Elo or margin (no games, all won) is null."""
    return round(value, 1) if math.isfinite(value) else None


def gates_of_bot(*, bot: Bot) -> list[dict]:
    """The bot's version gates, newest first: LLR against its bounds, and the verdict."""
    gates = Gate.objects.filter(candidate__bot=bot).select_related("candidate", "parent")
    out = []
    for gate in gates.defer("candidate__upload", "parent__upload"):
        counts = list(gate.counts or [0] * 5)
        pairs = sum(counts)
        summary = match_stats.pentanomial(counts)
        out.append(
            {
                "id": gate.pk,
                "version": gate.candidate.number,
                "parent": gate.parent.number,
                "pool": gate.pool,
                "status": gate.status,
                "llr": round(gate.llr, 3),
                "lower": round(gate.lower, 3),
                "upper": round(gate.upper, 3),
                "elo0": gate.elo0,
                "elo1": gate.elo1,
                "alpha": gate.alpha,
                "beta": gate.beta,
                "max_games": gate.max_games,
                "pairs": pairs,
                "games": 2 * pairs,
                "counts": counts,
                "elo": _finite(summary.elo) if pairs else None,
                "margin": _finite(summary.margin) if pairs else None,
                "created_at": gate.created_at,
                "finished_at": gate.finished_at,
            }
        )
    return out


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


# --- The tournament page's live parts: points between entrants and the time left. ---


def game_points(*, tournament: Tournament) -> dict:
    """Game points of every decided game, by bot, three ways (failed games are draws):

    - ``pairwise[(a, b)]``: ``[points a took from b, games they shared]``, ranks compared
      two by two (the crosstable; with two seats, the game's own points);
    - ``tables[(round, bots sorted)]``: each bot's points at that round's table (Swiss);
    - ``series[name]``: each bot's points in that series (elimination).
    """
    from tournaments.formats.common import game_scores

    entries = seeded_entries(tournament)
    bot = [e.bot_id for e in entries]
    pairwise: dict[tuple[int, int], list] = defaultdict(lambda: [0.0, 0])
    tables: dict[tuple[int, tuple[int, ...]], dict[int, float]] = defaultdict(
        lambda: defaultdict(float)
    )
    series: dict[str, dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for result in results_of(tournament, entries) if entries else []:
        seats = [bot[e] for e in result.pairing.seats]
        for i, a in enumerate(seats):
            for j, b in enumerate(seats):
                if i != j:
                    mine, theirs = result.ranks[i], result.ranks[j]
                    cell = pairwise[(a, b)]
                    cell[0] += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
                    cell[1] += 1
        shares = {bot[e]: float(s) for e, s in game_scores(result).items()}
        table = tables[(result.pairing.round, tuple(sorted(seats)))]
        for b, share in shares.items():
            table[b] += share
            if result.pairing.series:
                series[result.pairing.series][b] += share
    return {"pairwise": dict(pairwise), "tables": dict(tables), "series": dict(series)}


def expected_games(*, tournament: Tournament, bracket: list[dict] | None = None) -> int | None:
    """About how many games the event plays in all (deciders not counted); None before the
    start. ``bracket`` is :func:`overview`'s, for elimination (the series still due)."""
    from tournaments.formats import swiss

    entrants = tournament.entries.filter(seed_number__isnull=False).count()
    if not entrants:
        return None
    games, seats = tournament.games_per_pairing, tournament.players_per_match
    known = tournament.matches.exclude(status=Match.Status.CANCELLED).count()
    if tournament.format == Tournament.Format.SWISS:
        rounds = tournament.rounds or swiss.default_rounds(entrants)
        return max(known, rounds * (entrants // seats) * games)
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


def opponents_met(*, bot: Bot, pool: str | None = None, limit: int = 10) -> dict:
    """The bots ``bot`` met most often in a pool's rated matches (its most played pool by
    default), each with W-D-L by rank, score, Elo difference with its 95% margin and LOS
    (cutechess style, games counted one by one; the head-to-head page pairs them)."""
    if pool is None:
        played = rating_pools_of_bot(bot=bot)
        pool = played[0] if played else pools.default_pool(bot.game)
    mine = MatchSeat.objects.filter(
        match__pool=pool, match__rated_seq__isnull=False, version__bot=bot
    ).values("match_id")
    seats_of: dict[int, list[tuple[int, int, int | None]]] = defaultdict(list)
    rows = MatchSeat.objects.filter(match_id__in=mine).values_list(
        "match_id", "seat", "version__bot_id", "rank"
    )
    for match_id, seat, bot_id, rank in rows:
        seats_of[match_id].append((seat, bot_id, rank))
    scores: dict[int, list[float]] = defaultdict(list)
    for seats in seats_of.values():
        seats.sort()
        keys = [bot_id for _, bot_id, _ in seats]
        ranks = [rank for _, _, rank in seats]
        for other in set(keys) - {bot.pk}:
            scores[other] += match_stats.head_to_head_scores([(keys, ranks)], bot.pk, other)
    names = dict(Bot.objects.filter(pk__in=list(scores)).values_list("pk", "name"))
    table = []
    for other, found in sorted(scores.items(), key=lambda item: (-len(item[1]), item[0]))[:limit]:
        wins, draws, losses = match_stats.wdl(found)
        elo, margin = stats.elo_margin(wins, losses, draws)
        games = wins + draws + losses
        table.append(
            {
                "bot_id": other,
                "bot": names.get(other, "?"),
                "games": games,
                "wins": wins,
                "draws": draws,
                "losses": losses,
                "score": round(100 * (wins + draws / 2) / games, 1) if games else None,
                "elo": _finite(elo),
                "margin": _finite(margin),
                "los": round(stats.los(wins, losses), 1),
            }
        )
    return {"pool": pool, "pool_label": pools.label(pool), "opponents": table}
