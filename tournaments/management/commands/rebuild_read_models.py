"""``manage.py rebuild_read_models``: rebuild the tables kept up to date as results arrive.

Each read model is rebuilt from the matches by one call; ``--only`` picks some. Safe while
workers record results: each tournament is rebuilt under its lock, so a result waits for
it and is then counted on top.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.management.base import BaseCommand

from tournaments.read_models import opponents, rebuild_standings
from tournaments.read_models.leaderboard_rows import rebuild_leaderboards
from tournaments.read_models.replays import rebuild_replays
from tournaments.services.ladder import recount_ladders


def _standings(*, tournament_ids: list[int] | None, progress: Callable[[str], None]) -> int:
    return rebuild_standings(tournament_ids=tournament_ids, progress=progress)


def _leaderboards(*, tournament_ids: list[int] | None, progress: Callable[[str], None]) -> int:
    """Every pool's board from the ratings (``--tournament`` does not apply): rows written."""
    rows = 0
    for pool, count in rebuild_leaderboards().items():
        progress(f"  {pool}: {count} rows")
        rows += count
    return rows


def _opponents(*, tournament_ids: list[int] | None, progress: Callable[[str], None]) -> int:
    """Every pool's results per pair of bots from its pair sums (``--tournament`` does not
    apply): rows written."""
    return opponents.rebuild_every_pool()


def _ladders(*, tournament_ids: list[int] | None, progress: Callable[[str], None]) -> int:
    """Every ladder's match counters (kept by a trigger; ``--tournament`` does not apply)."""
    return recount_ladders()


def _replays(*, tournament_ids: list[int] | None, progress: Callable[[str], None]) -> int:
    """The stored replay of every finished match without a current one: rows written."""
    return rebuild_replays(tournament_ids=tournament_ids, progress=progress)


# Read model name -> its rebuild: (tournament ids or None for all, progress) -> count.
READ_MODELS: dict[str, Callable[..., int]] = {
    "standings": _standings,
    "leaderboards": _leaderboards,
    "opponents": _opponents,
    "ladders": _ladders,
    "replays": _replays,
}
# Rebuilt only when named: a stored replay is built by the first read that misses it, so
# the default run (every match of a large installation played through again) would cost hours for nothing.
ON_REQUEST = {"replays"}


class Command(BaseCommand):
    help = (
        "Rebuild read models (tournament standings totals and snapshots, leaderboard rows, "
        "bots' results against each other, "
        "ladder match counters, finished matches' stored replays) "
        "from the matches and ratings."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--only",
            action="append",
            choices=sorted(READ_MODELS),
            help="rebuild only this read model (may be repeated); default: all but replays",
        )
        parser.add_argument(
            "--tournament",
            action="append",
            type=int,
            dest="tournaments",
            help="standings, replays: only this tournament id (may be repeated)",
        )

    def handle(self, *args, only=None, tournaments=None, **options):
        verbose = options["verbosity"] > 0

        def progress(line: str) -> None:
            if verbose:
                self.stdout.write(line)

        for name in only or [name for name in READ_MODELS if name not in ON_REQUEST]:
            count = READ_MODELS[name](tournament_ids=tournaments, progress=progress)
            self.stdout.write(self.style.SUCCESS(f"{name}: rebuilt {count}"))
