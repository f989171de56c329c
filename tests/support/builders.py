"""Builders for the rows tests stand on: users, bots with active versions, started
tournaments and finished matches, stored directly (no validation match, no worker)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable

from django.contrib.auth import get_user_model
from django.utils import timezone

from bots import hooks
from bots.models import Bot, BotVersion
from bots.players import BuiltinPlayer
from bots.runner import play_match
from games import registry
from tournaments import services
from tournaments.models import Match, MatchSeat, Tournament
from tournaments.services.playing import claim_match, record_result, release_attempt
from tournaments.services.rating import rate_match


def user(*, name: str = "owner", password: str | None = None):
    """The user ``name``: the one stored already, else a new one (with ``password``, else
    with no usable password)."""
    users = get_user_model().objects
    return users.filter(username=name).first() or users.create_user(
        username=name, password=password
    )


def version(
    *,
    bot: Bot,
    number: int | None = None,
    source: bytes | None = None,
    status: str = BotVersion.Status.ACTIVE,
    announce: bool = True,
    **fields,
) -> BotVersion:
    """Version ``number`` (default: the bot's next) of ``bot`` stored as it is, with
    ``source`` as its upload (default: a comment naming it). ``announce``: the bot's read
    models follow, as bots.services has them follow a version that becomes active."""
    if number is None:
        number = bot.versions.count() + 1
    if source is None:
        source = f"# {bot.name} {number}\n".encode()
    fields.setdefault("filename", "main.py")
    fields.setdefault("sha256", hashlib.sha256(source).hexdigest())
    stored = BotVersion.objects.create(
        bot=bot, number=number, upload=source, size=len(source), status=status, **fields
    )
    if announce:
        hooks.bot_changed(bot.pk)
    return stored


def bot_with_version(
    *,
    name: str,
    game: str = "pairs",
    owner=None,
    source: bytes | None = None,
    announce: bool = True,
    **fields,
) -> tuple[Bot, BotVersion]:
    """A bot of ``owner`` (default: the user "owner") with one active version; ``fields``
    are the bot's own (description, ...)."""
    bot = Bot.objects.create(owner=owner or user(), name=name, game=game, **fields)
    return bot, version(bot=bot, source=source, announce=announce)


def active_bots(*, owner, count: int, game: str = "pairs") -> list[Bot]:
    """``count`` bots of ``owner`` named bot0, bot1, ... each with one active version,
    stored without telling the bots' read models (``announce`` false)."""
    return [
        bot_with_version(owner=owner, name=f"bot{i}", game=game, announce=False)[0]
        for i in range(count)
    ]


def started_tournament(
    *, organiser, bots: list[Bot], name: str = "cup", game: str = "pairs", **fields
) -> Tournament:
    """A tournament of ``bots`` created and started (its first matches queued)."""
    tournament = services.create_tournament(
        organiser=organiser, name=name, game=game, bot_ids=[b.pk for b in bots], **fields
    )
    assert services.start_tournament(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    return tournament


def started_event(*, organiser, entrants: int, fields: dict) -> Tournament:
    """A started tournament of ``entrants`` new bots (bot0, bot1, ...) seeded in entry
    order; ``fields`` are the tournament's, with ``challengers`` given as entrant indexes."""
    bots = active_bots(owner=organiser, count=entrants)
    fields = dict(fields)
    if "challengers" in fields:
        fields["challengers"] = [bots[i].pk for i in fields["challengers"]]
    return started_tournament(organiser=organiser, bots=bots, seeding="entry", seed=11, **fields)


def outcome(*, match: Match, ranks: list[int]) -> dict:
    """A worker's outcome for ``match``: these ranks (score 10 - rank), no moves."""
    return {
        "version": match.engine_version,
        "result": {
            "seats": [{"score": 10 - r, "rank": r, "fault": None} for r in ranks],
            "teams": [],
        },
        "moves": [],
        "record": {"game": match.game, "moves": []},
    }


def play_queued(
    *,
    tournament_id: int,
    limit: int | None = None,
    ranks_of: Callable[[Match, list[MatchSeat]], list[int]] | None = None,
) -> int:
    """Claim and record up to ``limit`` of the tournament's queued matches, oldest first, as
    a worker does; ``ranks_of(match, seats)`` picks the ranks (default: the lower bot id
    wins). Returns how many were played."""
    played = 0
    while limit is None or played < limit:
        match = (
            Match.objects.filter(tournament_id=tournament_id, status=Match.Status.QUEUED)
            .order_by("pk")
            .first()
        )
        if match is None:
            break
        attempt = claim_match(match_id=match.pk)
        seats = list(match.seats.select_related("version").order_by("seat"))
        if ranks_of is not None:
            ranks = ranks_of(match, seats)
        else:
            order = sorted(s.version.bot_id for s in seats)
            ranks = [order.index(s.version.bot_id) + 1 for s in seats]
        result = outcome(match=match, ranks=ranks)
        assert record_result(match_id=match.pk, attempt=attempt, outcome=result)
        played += 1
    return played


def play_for_real(*, match: Match, finish: bool = True) -> Match:
    """Claim ``match`` and play it as a worker does, with the game's random policy in every
    seat, in-process (no sandbox: milliseconds); record its outcome, or with ``finish``
    false leave it running with its moves and record stored, as a view of a match in
    progress would read them."""
    game = registry.get(match.game)
    attempt = claim_match(match_id=match.pk)
    players = [
        BuiltinPlayer(game, "random", match.seed + seat) for seat in range(match.seats.count())
    ]
    outcome = play_match(
        game_slug=match.game, players=players, options=match.options, seed=match.seed
    ).to_dict()
    if finish:
        assert record_result(match_id=match.pk, attempt=attempt, outcome=outcome)
    else:
        Match.objects.filter(pk=match.pk).update(moves=outcome["moves"], record=outcome["record"])
    match.refresh_from_db()
    return match


def play_queued_ladder_matches() -> None:
    """Claim and record every queued ladder match as a worker does, seat 0 winning."""
    for match in Match.objects.filter(ladder__isnull=False, status=Match.Status.QUEUED):
        attempt = claim_match(match_id=match.pk)
        record_result(
            match_id=match.pk, attempt=attempt, outcome=outcome(match=match, ranks=[1, 2])
        )


def finished_match(
    *,
    versions: list[BotVersion],
    ranks: list[int],
    game: str = "pairs",
    options: dict | None = None,
    seed: int = 1,
    teams: list | None = None,
    rate: bool = True,
) -> Match:
    """A finished match outside any tournament with ``versions`` in seats 0.. and these
    ranks, then rated unless ``rate`` is false."""
    match = Match.objects.create(
        game=game,
        engine_version=registry.get(game).version,
        options=options or {},
        seed=seed,
        status=Match.Status.FINISHED,
        finished_at=timezone.now(),
        result={
            "seats": [{"score": 0, "rank": r, "fault": None} for r in ranks],
            "teams": teams or [],
        },
    )
    for seat, (v, rank) in enumerate(zip(versions, ranks)):
        match.seats.create(seat=seat, version=v, rank=rank, score=0)
    if rate:
        rate_match(match=match)
    return match


def random_ranks(*, seats: int, rng: random.Random) -> list[int]:
    """Random ranks for ``seats``: now and then a draw for all, or a place shared below the
    top."""
    if rng.random() < 0.15:
        return [1] * seats
    ranks = list(range(1, seats + 1))
    rng.shuffle(ranks)
    if seats > 2 and rng.random() < 0.3:  # a shared place below the top
        ranks = [min(r, seats - 1) for r in ranks]
    return ranks


def record_random_result(*, match: Match, rng: random.Random) -> None:
    """Claim ``match`` and record a random result as a worker would: draws, shared places,
    scores, and now and then a seat's fault."""
    attempt = claim_match(match_id=match.pk)
    seats = match.seats.count()
    result = outcome(match=match, ranks=random_ranks(seats=seats, rng=rng))
    for seat in result["result"]["seats"]:
        if rng.random() < 0.1:
            seat["fault"] = {"kind": "crashed", "reason": "exit code 1"}
        seat["score"] = rng.randint(-5, 30)
    assert record_result(match_id=match.pk, attempt=attempt, outcome=result)


def fail_every_attempt(*, match: Match) -> None:
    """``match`` failed: the host cannot play it, every attempt (the caller's
    ARENA_MAX_MATCH_ATTEMPTS is 1)."""
    attempt = claim_match(match_id=match.pk)
    release_attempt(match.pk, attempt, "OSError: the host is out of sandboxes")
    assert Match.objects.get(pk=match.pk).status == Match.Status.FAILED
