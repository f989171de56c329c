"""``ReadVersion('bots:api')``: the version of the bot list API (any filter or page), moved
with every write of what a row shows: a bot's name, game, owner, date, description,
``accepts_entries`` and chosen version, an insert or delete of a bot, a version's bot,
number, status or gate verdict (which decide the current version), and a username.

On PostgreSQL the move is noted and made at the writer's commit, with the bot pages' notes
(migration 0013) in the same ordered statement: a gate verdict inside a result's
transaction holds the row only for the commit, locked in name order with the bot pages'
rows, so no lock-order deadlock with other writers."""

import importlib

from django.db import migrations
from tournaments.migrations._triggers import execute_for_vendor, split_events

pages = importlib.import_module("tournaments.migrations.0013_bot_page_version")

NAME = "bots:api"
BOT_SHOWN = (
    "name",
    "game",
    "owner_id",
    "created_at",
    "description",
    "accepts_entries",
    "current_id",
)
VERSION_SHOWN = ("bot_id", "number", "status", "gating")
WATCHED = [
    ("bots_bot", f"INSERT OR DELETE OR UPDATE OF {', '.join(BOT_SHOWN)}"),
    ("bots_botversion", f"INSERT OR DELETE OR UPDATE OF {', '.join(VERSION_SHOWN)}"),
    ("auth_user", "UPDATE OF username"),
]
NOTES = pages.NOTES

NOTE = f"""
CREATE OR REPLACE FUNCTION tournaments_bot_list_api_note() RETURNS trigger AS $$
DECLARE
    notes text := coalesce(current_setting('{NOTES}', true), '');
BEGIN
    IF notes = '*' OR position(',{NAME},' IN notes) > 0 THEN RETURN NULL; END IF;
    PERFORM set_config('{NOTES}', coalesce(nullif(notes, ''), ',') || '{NAME},', true);
    RETURN NULL;
END $$ LANGUAGE plpgsql;
"""
# Every bot's page moved at once ('*', a bulk write) moves the list API too: the notes no
# longer say whether it was among them.
FLUSH = pages.FLUSH.replace(
    "SELECT 'bot:' || id, 1 FROM bots_bot ORDER BY 1",
    f"SELECT 'bot:' || id, 1 FROM bots_bot UNION ALL SELECT '{NAME}', 1 ORDER BY 1",
)
assert FLUSH != pages.FLUSH

TRIGGER = (
    FLUSH
    + NOTE
    + "".join(
        f"CREATE TRIGGER {table}_bot_list_api_version AFTER {events} ON {table} "
        "FOR EACH ROW EXECUTE FUNCTION tournaments_bot_list_api_note();\n"
        f"CREATE CONSTRAINT TRIGGER {table}_bot_list_api_flush AFTER {events} ON {table} "
        "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
        "EXECUTE FUNCTION tournaments_bot_pages_flush();\n"
        for table, events in WATCHED
    )
)
UNTRIGGER = (
    "".join(
        f"DROP TRIGGER IF EXISTS {table}_bot_list_api_version ON {table};\n"
        f"DROP TRIGGER IF EXISTS {table}_bot_list_api_flush ON {table};\n"
        for table, _ in WATCHED
    )
    + "DROP FUNCTION IF EXISTS tournaments_bot_list_api_note();\n"
    + pages.FLUSH
)

# SQLite: one writer at a time, so the row is moved at once.
BUMP = f"UPDATE tournaments_readversion SET changes = changes + 1 WHERE name = '{NAME}'"


SQLITE_TRIGGER = [
    f"CREATE TRIGGER {table}_bot_list_api_version_{n} AFTER {event} ON {table} "
    f"BEGIN {BUMP}; END"
    for table, events in WATCHED
    for n, event in enumerate(split_events(events))
]
SQLITE_UNTRIGGER = [
    f"DROP TRIGGER IF EXISTS {table}_bot_list_api_version_{n}"
    for table, events in WATCHED
    for n, _ in enumerate(split_events(events))
]


def install(apps, schema_editor):
    apps.get_model("tournaments", "ReadVersion").objects.get_or_create(name=NAME)
    execute_for_vendor(schema_editor, TRIGGER, SQLITE_TRIGGER)


def remove(apps, schema_editor):
    execute_for_vendor(schema_editor, UNTRIGGER, SQLITE_UNTRIGGER)
    # The row stays: a version never goes back to one a stored answer may still be under.


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0013_bot_page_version")]

    operations = [migrations.RunPython(install, remove)]
