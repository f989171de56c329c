"""Finished matches for replay tests, played cheaply by the real runner with built-in bots.

``bots.runner.play_match`` plays the game's own random policy in-process (no sandbox:
milliseconds a match) and the outcome is stored as the worker stores one, so pages and
APIs read exactly what they would after a real tournament match.
"""

from __future__ import annotations

from django.utils import timezone

from bots.models import Bot, BotVersion
from bots.players import ActResult, BuiltinPlayer
from bots.runner import play_match
from games import registry
from tests.support.builders import version
from tournaments.models import Match, MatchSeat


class IllegalOnMove(BuiltinPlayer):
    """The random policy, except that its ``n``-th decision is an action no game allows."""

    def __init__(self, game, seed: int, n: int):
        super().__init__(game, "random", seed)
        self.n, self.decisions = n, 0

    def act(self, observation, legal, clock, *, move):
        self.decisions += 1
        if self.decisions == self.n:
            return ActResult({"not": "an action"}, None, 1, 1)
        return super().act(observation, legal, clock, move=move)


def table_size(slug: str) -> int:
    counts = registry.get(slug).player_counts()
    return 3 if 3 in counts else counts[0]


def _version(owner, name: str, game: str) -> BotVersion:
    bot, _ = Bot.objects.get_or_create(owner=owner, name=name, defaults={"game": game})
    return version(bot=bot, source=f"# {name}\n".encode(), announce=False)


def store_match(
    owner,
    slug: str,
    *,
    seed: int = 7,
    options: dict | None = None,
    illegal_seat: int | None = None,
    players: int | None = None,
) -> Match:
    """Play one ``slug`` match with random bots and store it finished; ``illegal_seat``
    answers an illegal action on its second decision (a fault in the record)."""
    game = registry.get(slug)
    players = players or table_size(slug)
    seats = [
        IllegalOnMove(game, seed + seat, 2)
        if seat == illegal_seat
        else BuiltinPlayer(game, "random", seed + seat)
        for seat in range(players)
    ]
    outcome = play_match(game_slug=slug, players=seats, options=options or {}, seed=seed)
    now = timezone.now()
    match = Match.objects.create(
        game=slug,
        engine_version=game.version,
        options=outcome.options,
        seed=seed,
        status=Match.Status.FINISHED,
        started_at=now,
        finished_at=now,
        result=outcome.result,
        moves=outcome.moves,
        record=outcome.record,
    )
    short = slug.replace("pairs-", "p-")[:20]
    for seat, row in enumerate(outcome.result["seats"]):
        MatchSeat.objects.create(
            match=match,
            seat=seat,
            version=_version(owner, f"{short}-{seat}", slug),
            score=row["score"],
            rank=row["rank"],
            fault=row["fault"],
        )
    return match


def record_played(owner, slug: str, *, seed: int = 7, options: dict | None = None, players=None):
    """A match played with random bots and recorded as a worker records one: stored as
    running (attempt 1), then finished by ``record_result`` with the runner's outcome
    (its ``on_commit`` callbacks run when the caller's transaction commits)."""
    from tournaments.services.playing import record_result

    game = registry.get(slug)
    players = players or table_size(slug)
    seats = [BuiltinPlayer(game, "random", seed + seat) for seat in range(players)]
    outcome = play_match(game_slug=slug, players=seats, options=options or {}, seed=seed)
    match = Match.objects.create(
        game=slug,
        engine_version=game.version,
        options=outcome.options,
        seed=seed,
        status=Match.Status.RUNNING,
        attempts=1,
        started_at=timezone.now(),
    )
    short = slug.replace("pairs-", "p-")[:20]
    for seat in range(players):
        MatchSeat.objects.create(
            match=match, seat=seat, version=_version(owner, f"{short}-{seat}", slug)
        )
    assert record_result(match_id=match.pk, attempt=1, outcome=outcome.to_dict())
    match.refresh_from_db()
    return match
