"""Play a tournament's queued matches the way a worker records them, with chosen ranks."""

from __future__ import annotations

from tests.tournaments.test_lifecycle import outcome
from tournaments.models import Match
from tournaments.services.playing import claim_match, record_result


def play_queued(tournament_id: int, limit: int | None = None, ranks_of=None) -> int:
    """Answer up to ``limit`` queued matches, oldest first; ``ranks_of(match, seats)`` picks
    the ranks (default: the lower bot id wins). Returns how many were played."""
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
        assert record_result(match_id=match.pk, attempt=attempt, outcome=outcome(match, ranks))
        played += 1
    return played


def named_bot(owner, name: str, game: str):
    """One bot with an active version (bot names are unique across games)."""
    import hashlib

    from bots.models import Bot, BotVersion

    bot = Bot.objects.create(owner=owner, name=name, game=game)
    source = f"# {name}\n".encode()
    BotVersion.objects.create(
        bot=bot,
        number=1,
        filename="main.py",
        upload=source,
        sha256=hashlib.sha256(source).hexdigest(),
        size=len(source),
        status=BotVersion.Status.ACTIVE,
    )
    return bot
