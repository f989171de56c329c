"""The bots' read APIs stored for anonymous readers: the list under
``ReadVersion('bots:api')`` (migration 0014), a bot, its versions, a version and its gating
under its ``ReadVersion('bot:<id>')`` (migration 0013). A stored answer equals a fresh render, a hit
reads the version alone, and every kind of write a read shows moves its version. The
ladders' list and detail read each ladder with its counters in one query when built
(stored: tests/arena/test_read_cache_ladders.py)."""

from __future__ import annotations

import importlib
import sqlite3

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from bots import services as bot_services
from bots.apis import BotSerializer, VersionSerializer
from bots.models import Bot, BotVersion
from tests.support.builders import active_bots
from tests.support.stored_reads import answer, fresh, new_version, open_gate
from tournaments import selectors
from tournaments.models import Gate, Ladder, ReadVersion
from tournaments.readcache import marks

# The versions move at the writer's commit on PostgreSQL: real commits only.
pytestmark = pytest.mark.django_db(transaction=True)

api_migration = importlib.import_module("tournaments.migrations.0014_bot_list_api_version")
# The bots table's triggers as made again with accepts_challenges.
bot_columns_migration = importlib.import_module(
    "tournaments.migrations.0020_bot_list_api_challenges"
)
NOTES = importlib.import_module("tournaments.migrations.0013_bot_page_version").NOTES


@pytest.fixture(autouse=True)
def _stored(empty_cache, settings):
    settings.ARENA_READ_CACHE_TOKENS = True  # writers run in this process
    # A transactional test elsewhere may have flushed the row the migration made.
    ReadVersion.objects.get_or_create(name="bots:api")


@pytest.fixture
def owner(db):
    return get_user_model().objects.create_user(username="bot-owner")


@pytest.fixture
def bots(owner) -> list[Bot]:
    return active_bots(owner=owner, count=3)


def list_reads(owner) -> list[str]:
    return [
        "/api/bots/",
        "/api/bots/?game=pairs",
        f"/api/bots/?owner={owner.pk}",
        "/api/bots/?page_size=1",
    ]


def bot_reads(bot: Bot) -> list[str]:
    first = bot.versions.order_by("number").first()
    return [
        f"/api/bots/{bot.pk}/",
        f"/api/bots/{bot.pk}/versions/",
        f"/api/bots/{bot.pk}/gating/",
        f"/api/versions/{first.pk}/",
    ]


def test_stored_answers_equal_a_fresh_render_and_a_hit_reads_the_version_alone(owner, bots):
    for url in [*list_reads(owner), *bot_reads(bots[0])]:
        first = fresh(url)
        with CaptureQueriesContext(connection) as queries:
            assert answer(url) == first, url
        assert len(queries) == 1, (url, [q["sql"] for q in queries])


def test_a_missing_bot_is_a_404_and_nothing_is_stored(bots):
    missing = Bot.objects.order_by("-pk").first().pk + 100
    for url in [f"/api/bots/{missing}/", f"/api/bots/{missing}/versions/"]:
        assert answer_status(url) == 404
    assert answer_status("/api/versions/999999/") == 404
    assert marks.bot_api_mark(pk=missing) is None
    assert marks.bot_version_api_mark(pk=999999) is None


def answer_status(url: str) -> int:
    return APIClient().get(url).status_code


def moves_the_list(owner, write) -> None:
    before = marks.bot_list_api_mark()
    for url in list_reads(owner):
        answer(url)  # stored under the version before the write
    write()
    assert marks.bot_list_api_mark() != before
    after = {url: answer(url) for url in list_reads(owner)}  # before fresh() clears
    for url in list_reads(owner):
        assert after[url] == fresh(url), url


def test_every_write_the_list_shows_moves_it(owner, bots):
    bot = bots[0]
    made = {}
    moves_the_list(
        owner,
        lambda: made.setdefault("bot", Bot.objects.create(owner=owner, name="new", game="pairs")),
    )
    moves_the_list(owner, lambda: Bot.objects.filter(pk=bot.pk).update(name="aaa-first"))
    moves_the_list(owner, lambda: Bot.objects.filter(pk=bot.pk).update(description="new"))
    moves_the_list(owner, lambda: Bot.objects.filter(pk=bot.pk).update(accepts_entries=False))
    moves_the_list(owner, lambda: Bot.objects.filter(pk=bot.pk).update(accepts_challenges="nobody"))
    moves_the_list(
        owner, lambda: made.setdefault("v2", new_version(bot=bot, number=2, status="active"))
    )
    moves_the_list(owner, lambda: bot_services.set_current_version(bot=bot, number=1))
    moves_the_list(
        owner, lambda: BotVersion.objects.filter(pk=made["v2"].pk).update(gating="running")
    )
    moves_the_list(
        owner, lambda: BotVersion.objects.filter(pk=made["v2"].pk).update(status="disabled")
    )
    moves_the_list(owner, lambda: BotVersion.objects.filter(pk=made["v2"].pk).delete())
    moves_the_list(
        owner, lambda: get_user_model().objects.filter(pk=owner.pk).update(username="renamed")
    )
    moves_the_list(owner, lambda: Bot.objects.filter(pk=made["bot"].pk).delete())
    # What no row shows moves nothing: a bot's gating settings, a version's reason.
    before = marks.bot_list_api_mark()
    Bot.objects.filter(pk=bot.pk).update(gating=True)
    BotVersion.objects.filter(bot=bot).update(reason="checked")
    assert marks.bot_list_api_mark() == before


def test_the_list_moves_once_at_the_commit_and_with_every_bot_page(owner, bots):
    before = marks.bot_list_api_mark()[1]
    with transaction.atomic():
        for bot in bots:
            Bot.objects.filter(pk=bot.pk).update(description="x")
        assert marks.bot_list_api_mark()[1] == before  # only noted so far
    assert marks.bot_list_api_mark()[1] == before + 1
    # A bulk write past the notes' bound moves every bot page, and the list with them.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT set_config(%s, '*', true)", [NOTES])
        Bot.objects.filter(pk=bots[0].pk).update(gating=True)
    assert marks.bot_list_api_mark()[1] == before + 2


def test_the_triggers_watch_every_column_the_list_shows(owner, bots):
    shown = {
        Bot._meta.get_field(name).column
        for name in BotSerializer.Meta.fields
        if name not in {"id", "owner", "current_version"}
    }
    assert shown | {"owner_id", "current_id"} <= set(bot_columns_migration.BOT_SHOWN)
    # The current version is chosen from these (bots.selectors.current_version).
    assert {"bot_id", "number", "status", "gating"} <= set(api_migration.VERSION_SHOWN)


def moves_the_bot(bot: Bot, write) -> None:
    before = marks.bot_api_mark(pk=bot.pk)
    for url in bot_reads(bot):
        answer(url)
    write()
    assert marks.bot_api_mark(pk=bot.pk) != before
    after = {url: answer(url) for url in bot_reads(bot)}
    for url in bot_reads(bot):
        assert after[url] == fresh(url), url


def test_every_write_a_bots_reads_show_moves_them(bots):
    bot = bots[0]
    made = {}
    moves_the_bot(bot, lambda: made.setdefault("v2", new_version(bot=bot, number=2)))
    v2 = made["v2"]
    moves_the_bot(
        bot, lambda: BotVersion.objects.filter(pk=v2.pk).update(status="active", reason="ok")
    )
    moves_the_bot(bot, lambda: bot_services.set_current_version(bot=bot, number=1))
    moves_the_bot(
        bot, lambda: BotVersion.objects.filter(bot=bot, number=1).update(reason="re-checked")
    )
    moves_the_bot(bot, lambda: Bot.objects.filter(pk=bot.pk).update(description="d"))
    moves_the_bot(bot, lambda: Bot.objects.filter(pk=bot.pk).update(gating=True, gate_elo1=30))

    moves_the_bot(bot, lambda: made.update(gate=open_gate(candidate=v2)))
    moves_the_bot(
        bot, lambda: Gate.objects.filter(pk=made["gate"].pk).update(llr=1.5, counts=[0, 1, 2, 1, 0])
    )
    moves_the_bot(bot, lambda: BotVersion.objects.filter(pk=v2.pk).update(gating="passed"))
    moves_the_bot(bot, lambda: Gate.objects.filter(pk=made["gate"].pk).delete())
    # Another bot's write moves nothing.
    before = marks.bot_api_mark(pk=bot.pk)
    Bot.objects.filter(pk=bots[1].pk).update(description="elsewhere")
    assert marks.bot_api_mark(pk=bot.pk) == before


def test_the_version_list_shows_only_columns_of_the_bot_and_its_versions():
    """What the bot's version covers: its row and its versions' rows (any column)."""
    assert VersionSerializer.Meta.fields == [
        "id",
        "bot",
        "number",
        "filename",
        "kind",
        "sha256",
        "size",
        "status",
        "reason",
        "reason_detail",  # its owner's only: null in every stored (anonymous) answer
        "created_at",
        "validated_at",
    ]


def test_the_sqlite_triggers_move_the_list():
    """The embedded default's triggers, on the tables they watch (SQLite's own engine)."""
    db = sqlite3.connect(":memory:")
    db.executescript(
        """
        CREATE TABLE tournaments_readversion (name TEXT PRIMARY KEY, changes INTEGER);
        INSERT INTO tournaments_readversion VALUES ('bots:api', 1);
        CREATE TABLE bots_bot (id INTEGER PRIMARY KEY, name TEXT, game TEXT, owner_id INTEGER,
            created_at TEXT, description TEXT, accepts_entries INTEGER, current_id INTEGER,
            gating INTEGER);
        CREATE TABLE bots_botversion (id INTEGER PRIMARY KEY, bot_id INTEGER, number INTEGER,
            status TEXT, gating TEXT, reason TEXT);
        CREATE TABLE auth_user (id INTEGER PRIMARY KEY, username TEXT, last_login TEXT);
        """
    )
    for statement in api_migration.SQLITE_TRIGGER:
        db.execute(statement)

    def changes() -> int:
        return db.execute("SELECT changes FROM tournaments_readversion").fetchone()[0]

    db.execute("INSERT INTO bots_bot VALUES (1, 'a', 'pairs', 1, '', '', 1, NULL, 0)")
    assert changes() == 2
    db.execute("UPDATE bots_bot SET description = 'd' WHERE id = 1")
    db.execute("INSERT INTO bots_botversion VALUES (11, 1, 1, 'pending', '', '')")
    db.execute("UPDATE bots_botversion SET status = 'active' WHERE id = 11")
    db.execute("INSERT INTO auth_user VALUES (1, 'a', NULL)")
    db.execute("UPDATE auth_user SET username = 'b'")
    assert changes() == 6
    db.execute("UPDATE bots_bot SET gating = 1 WHERE id = 1")
    db.execute("UPDATE bots_botversion SET reason = 'r' WHERE id = 11")
    db.execute("UPDATE auth_user SET last_login = 'now'")
    assert changes() == 6
    db.execute("DELETE FROM bots_botversion")
    db.execute("DELETE FROM bots_bot")
    assert changes() == 8


def test_ladders_are_read_with_their_counters_in_one_query(owner, settings):
    settings.ARENA_LADDER, settings.ARENA_LADDER_SLOTS = True, 4
    active_bots(owner=owner, count=4)
    from tournaments.services.ladder import schedule_ladders

    assert schedule_ladders() > 0
    ladder = Ladder.objects.get()
    reader = APIClient()
    reader.force_authenticate(user=owner)  # built every time (not stored)
    for url in ["/api/ladders/", f"/api/ladders/{ladder.pk}/"]:
        with CaptureQueriesContext(connection) as queries:
            body = reader.get(url).content
        assert len(queries) == 1, (url, [q["sql"] for q in queries])
        assert b'"queued":' in body
    progress = selectors.ladder_progress(ladder=Ladder.objects.get())
    assert progress["queued"] > 0
    assert selectors.ladder_progress(ladder=Ladder.objects.select_related("count").get()) == (
        progress
    )
