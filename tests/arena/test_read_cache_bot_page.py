"""A bot's page stored for anonymous readers under its version (``ReadVersion('bot:<id>')``,
moved by triggers with every write the page shows, with the tournament list's and the
game's ratings versions): a stored page equals a fresh render, a hit reads the version
alone, and every kind of write moves it, so no reader is answered from before it."""

from __future__ import annotations

import importlib
import inspect
import sqlite3
import threading

import pytest
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from arena.dashboard import bot_page as botpage
from bots import services as bot_services
from bots.models import Bot, BotVersion
from tests.support.builders import active_bots
from tests.support.stored_reads import (
    answer,
    claim_then_result,
    fresh,
    new_version,
    open_gate,
    queued_ladder,
)
from tournaments import readcache
from tournaments.models import Gate, Match, MatchSeat, ReadVersion
from tournaments.readcache import marks
from tournaments.services.playing import claim_match

pytestmark = pytest.mark.django_db(transaction=True)

page_migration = importlib.import_module("tournaments.migrations.0013_bot_page_version")


@pytest.fixture(autouse=True)
def _stored(empty_cache, settings):
    settings.ARENA_READ_CACHE_TOKENS = True  # writers run in this process
    ReadVersion.objects.get_or_create(name="tournaments")


@pytest.fixture
def match(owner, settings) -> Match:
    ladder = queued_ladder(owner=owner, settings=settings)
    return ladder.matches.filter(status="queued").order_by("pk").first()


def seated(match: Match) -> list[Bot]:
    return list(Bot.objects.filter(versions__seats__match=match).order_by("pk").distinct())


def page_version(bot: Bot) -> tuple:
    """The page's version with its ratings token's current value."""
    return readcache.current(botpage.page_mark(bot_id=bot.pk))


def reads(bot: Bot) -> list[str]:
    return [f"/bots/{bot.pk}/", f"/bots/{bot.pk}/?cancelled=1"]


def moves_the_pages(bots: list[Bot], write) -> None:
    """``write()`` moves every page of ``bots``, and each then answers as fresh."""
    before = {bot.pk: page_version(bot) for bot in bots}
    for bot in bots:
        for url in reads(bot):
            answer(url)  # stored under the version before the write
    write()
    for bot in bots:
        assert page_version(bot) != before[bot.pk], bot
        after = {url: answer(url) for url in reads(bot)}
        for url in reads(bot):
            assert after[url] == fresh(url), url


def test_a_stored_page_equals_a_fresh_render_and_a_hit_reads_the_version_alone(match):
    for bot in seated(match):
        for url in reads(bot):
            first = fresh(url)
            with CaptureQueriesContext(connection) as queries:
                assert answer(url) == first, url
            assert len(queries) == 1, (url, [q["sql"] for q in queries])


def test_a_match_queued_claimed_finished_requeued_and_cancelled_moves_its_bots(match):
    bots = seated(match)
    claim, result = claim_then_result(match)
    moves_the_pages(bots, claim)
    moves_the_pages(bots, result)
    assert Match.objects.get(pk=match.pk).status == "finished"
    # A failure queued again: the same status as before the claim, one more attempt.
    other = Match.objects.filter(status="queued").exclude(pk=match.pk).order_by("pk").first()
    claim_match(match_id=other.pk)
    moves_the_pages(
        seated(other), lambda: Match.objects.filter(pk=other.pk).update(status="failed")
    )
    moves_the_pages(
        seated(other),
        lambda: Match.objects.filter(pk=other.pk).update(status="queued", attempts=5),
    )
    moves_the_pages(
        seated(other), lambda: Match.objects.filter(pk=other.pk).update(status="cancelled")
    )
    # A new match: its seats move its bots' pages.
    new = Match.objects.create(game="pairs", engine_version=1, seed=9, status="queued")
    versions = [b.versions.get() for b in bots]
    moves_the_pages(
        bots,
        lambda: MatchSeat.objects.bulk_create(
            [MatchSeat(match=new, seat=i, version=v) for i, v in enumerate(versions)]
        ),
    )
    moves_the_pages(bots, lambda: Match.objects.filter(pk=new.pk).delete())


def test_a_seat_moves_every_page_of_its_match(match):
    """An opponent's rank shows on each page of the match: one seat moves them all."""
    bots = seated(match)
    seat = MatchSeat.objects.filter(match=match).order_by("seat").first()
    moves_the_pages(bots, lambda: MatchSeat.objects.filter(pk=seat.pk).update(rank=2))
    moves_the_pages(
        bots, lambda: MatchSeat.objects.filter(pk=seat.pk).update(fault={"kind": "timeout"})
    )


def test_versions_a_verdict_the_current_choice_a_gate_and_a_disable_move_the_page(match):
    bot = seated(match)[0]
    made = {}
    moves_the_pages([bot], lambda: made.setdefault("v2", new_version(bot=bot, number=2)))
    v2 = made["v2"]
    moves_the_pages(
        [bot], lambda: BotVersion.objects.filter(pk=v2.pk).update(status="active", reason="ok")
    )
    moves_the_pages([bot], lambda: bot_services.set_current_version(bot=bot, number=1))
    moves_the_pages([bot], lambda: bot_services.set_current_version(bot=bot, number=2))

    moves_the_pages([bot], lambda: made.update(gate=open_gate(candidate=v2)))
    moves_the_pages(
        [bot],
        lambda: Gate.objects.filter(pk=made["gate"].pk).update(llr=1.5, counts=[0, 1, 2, 1, 0]),
    )
    moves_the_pages([bot], lambda: Gate.objects.filter(pk=made["gate"].pk).delete())
    moves_the_pages([bot], lambda: bot_services.disable_bot(bot=bot, reason="cheats"))
    moves_the_pages(
        [bot], lambda: Bot.objects.filter(pk=bot.pk).update(description="new", gating=True)
    )


def test_a_heartbeat_and_another_bots_write_move_nothing(match):
    bots = seated(match)
    claim_match(match_id=match.pk)
    before = page_version(bots[0])
    Match.objects.filter(pk=match.pk).update(heartbeat_at=match.queued_at, worker="w2")
    MatchSeat.objects.filter(match=match).update(log="more")
    stranger = Bot.objects.exclude(pk__in=[b.pk for b in bots]).first()
    Bot.objects.filter(pk=stranger.pk).update(description="elsewhere")
    assert page_version(bots[0]) == before


def test_a_tournament_rename_and_a_new_rating_move_the_page(match):
    """Tournament names show (the tournament list's version) and so do ratings (the game's
    ratings token, moved after the commit of every rating write)."""
    bot = seated(match)[0]
    from tournaments.readcache import bump_after_commit

    moves_the_pages([bot], lambda: bump_after_commit(f"board:{bot.game}"))
    row = ReadVersion.objects.get(name="tournaments")
    moves_the_pages([bot], lambda: ReadVersion.objects.filter(pk=row.pk).update(changes=9))


def test_no_stored_page_without_a_shared_cache_or_a_bot(match, settings, client):
    settings.ARENA_READ_CACHE_TOKENS = False
    assert botpage.page_mark(bot_id=seated(match)[0].pk) is None
    settings.ARENA_READ_CACHE_TOKENS = True
    assert marks.bot_page_mark(pk=10**9) is None
    assert client.get(f"/bots/{10**9}/").status_code == 404


def test_the_triggers_watch_every_column_the_page_shows():
    """The match and seat columns the rows read are watched (the bot's own columns, its
    versions and its gates are watched whole)."""
    read = {
        Match._meta.get_field(name).column
        for name in botpage.RECENT_FIELDS
        if "__" not in name  # the tournament's name: the tournament list's version
    }
    assert read <= set(page_migration.MATCH_SHOWN)
    # The recent matches' rows are written by bot_page.matches_table.
    rows = inspect.getsource(botpage.matches_table)
    assert 'r["rank"]' in rows and 'r["fault"]' in rows and "seat.rank" in rows
    assert {"rank", "fault", "version_id", "match_id"} <= set(page_migration.SEAT_SHOWN)
    shown_seat_columns = {"rank", "fault", "version_id", "match_id"}
    unwatched = {f.column for f in MatchSeat._meta.concrete_fields} - set(page_migration.SEAT_SHOWN)
    assert not (unwatched & shown_seat_columns)


def test_the_sqlite_triggers_move_the_same_rows():
    """The embedded default's triggers, on the tables they read (SQLite's own engine)."""
    db = sqlite3.connect(":memory:")
    db.executescript(
        """
        CREATE TABLE tournaments_readversion (name TEXT PRIMARY KEY, changes INTEGER);
        CREATE TABLE bots_bot (id INTEGER PRIMARY KEY, description TEXT);
        CREATE TABLE bots_botversion (id INTEGER PRIMARY KEY, bot_id INTEGER, status TEXT);
        CREATE TABLE tournaments_gate (id INTEGER PRIMARY KEY, candidate_id INTEGER, llr REAL);
        CREATE TABLE tournaments_match (id INTEGER PRIMARY KEY, status TEXT, attempts INTEGER,
            queued_at TEXT, started_at TEXT, finished_at TEXT, tournament_id INTEGER,
            heartbeat_at TEXT);
        CREATE TABLE tournaments_matchseat (id INTEGER PRIMARY KEY, match_id INTEGER,
            version_id INTEGER, rank INTEGER, fault TEXT, log TEXT);
        """
    )
    for statement in page_migration.SQLITE_TRIGGER:
        db.execute(statement)

    def changes() -> dict:
        return dict(db.execute("SELECT name, changes FROM tournaments_readversion"))

    db.execute("INSERT INTO bots_bot VALUES (1, ''), (2, '')")
    assert changes() == {}
    db.execute("INSERT INTO bots_botversion VALUES (11, 1, 'pending'), (12, 1, 'active')")
    db.execute("INSERT INTO bots_botversion VALUES (21, 2, 'active')")
    assert changes() == {"bot:1": 2, "bot:2": 1}
    db.execute("INSERT INTO tournaments_match VALUES (5, 'queued', 0, '', '', '', NULL, '')")
    # A gating match: two versions of one bot (one move each), then an opponent.
    db.execute("INSERT INTO tournaments_matchseat VALUES (1, 5, 11, NULL, NULL, '')")
    db.execute("INSERT INTO tournaments_matchseat VALUES (2, 5, 12, NULL, NULL, '')")
    db.execute("INSERT INTO tournaments_matchseat VALUES (3, 5, 21, NULL, NULL, '')")
    assert changes() == {"bot:1": 5, "bot:2": 2}
    db.execute("UPDATE tournaments_match SET heartbeat_at = 'now' WHERE id = 5")
    db.execute("UPDATE tournaments_matchseat SET log = 'x' WHERE id = 3")
    assert changes() == {"bot:1": 5, "bot:2": 2}
    db.execute("UPDATE tournaments_match SET status = 'running' WHERE id = 5")
    assert changes() == {"bot:1": 6, "bot:2": 3}
    db.execute("UPDATE tournaments_matchseat SET rank = 1 WHERE id = 3")
    assert changes() == {"bot:1": 7, "bot:2": 4}
    db.execute("UPDATE tournaments_matchseat SET version_id = 21 WHERE id = 2")
    # The old version's match and bot, then the new one's: moved twice, at least once each.
    assert changes() == {"bot:1": 9, "bot:2": 6}
    db.execute("INSERT INTO tournaments_gate VALUES (1, 12, 0.0)")
    db.execute("UPDATE tournaments_gate SET llr = 1.0")
    db.execute("UPDATE bots_bot SET description = 'd' WHERE id = 2")
    assert changes() == {"bot:1": 11, "bot:2": 7}
    db.execute("DELETE FROM tournaments_matchseat WHERE id = 3")
    assert changes() == {"bot:1": 12, "bot:2": 8}
    db.execute("DELETE FROM tournaments_gate")
    db.execute("DELETE FROM bots_botversion WHERE id = 11")
    assert changes() == {"bot:1": 14, "bot:2": 8}


def test_a_write_locks_no_bot_row_before_its_commit(match):
    """On PostgreSQL the versions move at the writer's commit, in one statement in name
    order: an open transaction holds no bot's row, so two writers of many matches (a
    tournament's round, a worker's claim) cannot wait on each other's rows in turn."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite has one writer at a time")
    bot = seated(match)[0]
    ReadVersion.objects.get_or_create(name=f"bot:{bot.pk}")
    before = marks.bot_page_mark(pk=bot.pk)
    opened, release, seen = threading.Event(), threading.Event(), {}

    def writer():
        try:
            with transaction.atomic():
                Match.objects.filter(pk=match.pk).update(status="running")
                opened.set()
                release.wait(10)
        finally:
            connections.close_all()

    thread = threading.Thread(target=writer)
    thread.start()
    assert opened.wait(10)
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "SELECT changes FROM tournaments_readversion WHERE name = %s FOR UPDATE NOWAIT",
                [f"bot:{bot.pk}"],
            )
            seen["row"] = cursor.fetchone()
    finally:
        release.set()
        thread.join(10)
    assert seen["row"] is not None
    assert marks.bot_page_mark(pk=bot.pk) != before  # moved at the commit


def test_a_write_of_many_bots_moves_every_page(owner):
    """Past about 400 bots noted, a transaction moves every bot's page at its commit."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite's triggers move each row at once")
    active_bots(owner=owner, count=2)
    first = Bot.objects.order_by("pk").first()
    before = marks.bot_page_mark(pk=first.pk)
    many = Bot.objects.bulk_create(
        [Bot(owner=owner, name=f"many{i}", game="pairs") for i in range(600)]
    )
    with transaction.atomic(), connection.cursor() as cursor:
        Bot.objects.filter(pk__in=[b.pk for b in many]).update(description="bulk")
        cursor.execute(f"SELECT current_setting('{page_migration.NOTES}', true)")
        assert cursor.fetchone() == ("*",)
    # The first bot was not written, but its page moved with every other.
    assert marks.bot_page_mark(pk=first.pk) != before
    assert ReadVersion.objects.filter(name__startswith="bot:").count() >= 602
