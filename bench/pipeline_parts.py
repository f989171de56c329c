"""The pieces of bench/pipeline.py that set up and watch a run: the database, the broker,
the two example bots, tournaments of them, and the CPU the run kept busy."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES_PER_TOURNAMENT = 100  # the most games one pairing may have
BOTS = {"bench-cautious": "pairs_cautious.py", "bench-raw": "raw_bot.py"}
QUEUES = ("matches", "validations", "maintenance")


def ensure_database(url: str) -> None:
    """Create the bench's database when it does not exist yet."""
    from urllib.parse import urlsplit

    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def purge_broker() -> None:
    from arena.celery import app

    with app.connection_for_write() as connection:
        for queue in QUEUES:
            connection.default_channel.queue_purge(queue)


def setup_bots() -> tuple[object, list[int]]:
    from django.contrib.auth import get_user_model

    from arena.management.commands.demo import example_upload
    from bots import services as bot_services
    from bots.models import Bot, BotVersion

    user, _ = get_user_model().objects.get_or_create(username="bench")
    ids = []
    for name, filename in BOTS.items():
        bot = Bot.objects.filter(name=name).first() or bot_services.create_bot(
            owner=user, name=name, game="pairs", description=f"examples/bots/{filename}"
        )
        if not bot.versions.exists():
            upload_name, data = example_upload(ROOT / "examples" / "bots" / filename)
            version = bot_services.upload_version(bot=bot, filename=upload_name, data=data)
            version = bot_services.validate_version(version_id=version.pk)
            if version.status != BotVersion.Status.ACTIVE:
                sys.exit(f"{name} did not validate: {version.reason}")
        ids.append(bot.pk)
    return user, ids


def create_tournaments(user, bot_ids: list[int], matches: int, label: str) -> list[int]:
    from tournaments import services

    ids = []
    for number in range(max(1, matches // GAMES_PER_TOURNAMENT)):
        tournament = services.create_tournament(
            organiser=user,
            name=f"bench {label} {number}",
            game="pairs",
            bot_ids=bot_ids,
            games_per_pairing=GAMES_PER_TOURNAMENT,
            seed=18_000 + number,
            seeding="entry",
        )
        ids.append(tournament.pk)
    return ids


def start(tournament_ids: list[int]) -> None:
    from tournaments import services

    for pk in tournament_ids:
        services.start_tournament(tournament_id=pk)


def finished_count(tournament_ids: list[int]) -> int:
    from tournaments.models import Match

    return Match.objects.filter(
        tournament_id__in=tournament_ids, status__in=[Match.Status.FINISHED, Match.Status.FAILED]
    ).count()


def failed_count(tournament_ids: list[int]) -> int:
    from tournaments.models import Match

    return Match.objects.filter(
        tournament_id__in=tournament_ids, status=Match.Status.FAILED
    ).count()


def cpu_seconds() -> float:
    """CPU time of this process and of its reaped children (the bots, through bubblewrap)."""
    import resource

    return sum(
        usage.ru_utime + usage.ru_stime
        for usage in (
            resource.getrusage(resource.RUSAGE_SELF),
            resource.getrusage(resource.RUSAGE_CHILDREN),
        )
    )


def own_costs() -> tuple[float, float, int]:
    """This process's own CPU seconds, its reaped children's, and its minor page faults: a
    fork of this process for each sandbox showed in all three (bots/sandbox/launcher.py)."""
    import resource

    own, kids = (
        resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime, own.ru_minflt


def per_match(before: tuple[float, float, int], matches: int) -> str:
    own, kids, faults = (now - then for now, then in zip(own_costs(), before, strict=True))
    return (
        f"per match: this process {own / matches * 1000:.1f} ms CPU and"
        f" {faults / matches:.0f} minor faults, the bots {kids / matches * 1000:.1f} ms CPU"
    )


def process_cpu(pid: int) -> tuple[float, float]:
    """CPU seconds of ``pid`` itself and of its reaped children (a pool process's bots)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks, (int(fields[13]) + int(fields[14])) / ticks


def named_cpu(names: tuple[str, ...] = ("postgres", "redis-server")) -> dict[str, float]:
    """CPU seconds of every live process by these names (PostgreSQL's backends, Redis)."""
    ticks, out = os.sysconf("SC_CLK_TCK"), dict.fromkeys(names, 0.0)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                text = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            name = text[text.index("(") + 1 : text.rindex(")")]
            if name in out:
                fields = text.rsplit(")", 1)[1].split()
                out[name] += (int(fields[11]) + int(fields[12])) / ticks
    return out


def machine_busy() -> float:
    """Busy CPU seconds of the whole machine so far, every core (/proc/stat's first line:
    all but idle and iowait; guest time is already counted in user)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def machine_cores(before: float, seconds: float) -> str:
    """The machine's cores kept busy since ``before`` (everything running, not only the
    bench), out of how many it has: whether a run was bound by the machine."""
    busy = machine_busy() - before
    return f"machine {busy / seconds:.2f} of {os.cpu_count()} cores busy"
