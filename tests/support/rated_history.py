"""A bot with a real rating history over two versions, through the services a worker calls."""

from __future__ import annotations

from bots import services as bot_services
from tournaments import services

FIRST_LEGAL = b"from arena_sdk import run\n\nrun(lambda observation, legal: legal[0])\n"
LAST_LEGAL = b"from arena_sdk import run\n\nrun(lambda observation, legal: legal[-1])\n"


def _play(organiser, name: str, bot_ids: list[int], games: int):
    tournament = services.create_tournament(
        organiser=organiser, name=name, game="pairs", bot_ids=bot_ids, games_per_pairing=games
    )
    services.start_tournament(tournament_id=tournament.pk)
    for match in tournament.matches.all():
        services.play_match(match_id=match.pk)
    return tournament


def bots_with_history(organiser, games: int = 4):
    """Two Pairs bots; the first plays ``games`` rated matches as v1, then ``games`` as v2."""
    bots = []
    for name, source in (("charted", FIRST_LEGAL), ("sparring", LAST_LEGAL)):
        bot = bot_services.create_bot(owner=organiser, name=name, game="pairs")
        version = bot_services.upload_version(bot=bot, filename="main.py", data=source)
        bot_services.validate_version(version_id=version.pk)
        bots.append(bot)
    ids = [b.pk for b in bots]
    _play(organiser, "First cup", ids, games)
    version = bot_services.upload_version(bot=bots[0], filename="main.py", data=LAST_LEGAL)
    bot_services.validate_version(version_id=version.pk)
    last = _play(organiser, "Second cup", ids, games)
    return bots, last
