"""``ReadVersion('bots')``: the version of the bot list page (names, games, owners, dates),
moved by triggers with every insert and delete of a bot, every update of a bot column the
page shows and every change of a username. Other bot columns (the current version, gating,
description) and versions move nothing: the page shows none of them."""

from django.db import migrations
from tournaments.migrations._triggers import execute_for_vendor, split_events

BOT_SHOWN = ("name", "game", "owner_id", "created_at")
BUMP = "UPDATE tournaments_readversion SET changes = changes + 1 WHERE name = 'bots'"
WATCHED = [
    ("bots_bot", f"INSERT OR DELETE OR UPDATE OF {', '.join(BOT_SHOWN)}"),
    ("auth_user", "UPDATE OF username"),
]

TRIGGER = f"""
CREATE OR REPLACE FUNCTION tournaments_bot_list_version() RETURNS trigger AS $$
BEGIN
    {BUMP};
    RETURN NULL;
END $$ LANGUAGE plpgsql;
""" + "".join(
    f"CREATE TRIGGER {table}_bot_list_version AFTER {events} ON {table} "
    "FOR EACH ROW EXECUTE FUNCTION tournaments_bot_list_version();\n"
    for table, events in WATCHED
)
UNTRIGGER = "".join(
    f"DROP TRIGGER IF EXISTS {table}_bot_list_version ON {table};\n" for table, _ in WATCHED
) + ("DROP FUNCTION IF EXISTS tournaments_bot_list_version();")


SQLITE_TRIGGER = [
    f"CREATE TRIGGER {table}_bot_list_version_{n} AFTER {event} ON {table} BEGIN {BUMP}; END"
    for table, events in WATCHED
    for n, event in enumerate(split_events(events))
]
SQLITE_UNTRIGGER = [
    f"DROP TRIGGER IF EXISTS {table}_bot_list_version_{n}"
    for table, events in WATCHED
    for n, _ in enumerate(split_events(events))
]


def install(apps, schema_editor):
    apps.get_model("tournaments", "ReadVersion").objects.create(name="bots")
    execute_for_vendor(schema_editor, TRIGGER, SQLITE_TRIGGER)


def remove(apps, schema_editor):
    apps.get_model("tournaments", "ReadVersion").objects.filter(name="bots").delete()
    execute_for_vendor(schema_editor, UNTRIGGER, SQLITE_UNTRIGGER)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0011_read_versions"),
        ("bots", "0006_read_indexes"),
    ]

    operations = [migrations.RunPython(install, remove)]
