"""The bot list API's version (migration 0014) moves with a bot's ``accepts_challenges``
too, a column its rows show: the bots table's triggers are made again with it."""

import importlib

from django.db import migrations
from tournaments.migrations._triggers import execute_for_vendor, split_events

api = importlib.import_module("tournaments.migrations.0014_bot_list_api_version")

BOT_SHOWN = (*api.BOT_SHOWN, "accepts_challenges")
VERSION_SHOWN = api.VERSION_SHOWN


def _events(shown: tuple[str, ...]) -> str:
    return f"INSERT OR DELETE OR UPDATE OF {', '.join(shown)}"


def _postgresql(shown: tuple[str, ...]) -> str:
    events = _events(shown)
    return (
        "DROP TRIGGER IF EXISTS bots_bot_bot_list_api_version ON bots_bot;\n"
        "DROP TRIGGER IF EXISTS bots_bot_bot_list_api_flush ON bots_bot;\n"
        f"CREATE TRIGGER bots_bot_bot_list_api_version AFTER {events} ON bots_bot "
        "FOR EACH ROW EXECUTE FUNCTION tournaments_bot_list_api_note();\n"
        f"CREATE CONSTRAINT TRIGGER bots_bot_bot_list_api_flush AFTER {events} ON bots_bot "
        "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
        "EXECUTE FUNCTION tournaments_bot_pages_flush();\n"
    )


def _sqlite(shown: tuple[str, ...]) -> list[str]:
    events = split_events(_events(shown))
    drops = [f"DROP TRIGGER IF EXISTS bots_bot_bot_list_api_version_{n}" for n in range(3)]
    return drops + [
        f"CREATE TRIGGER bots_bot_bot_list_api_version_{n} AFTER {event} ON bots_bot "
        f"BEGIN {api.BUMP}; END"
        for n, event in enumerate(events)
    ]


def install(apps, schema_editor):
    execute_for_vendor(schema_editor, _postgresql(BOT_SHOWN), _sqlite(BOT_SHOWN))


def remove(apps, schema_editor):
    execute_for_vendor(schema_editor, _postgresql(api.BOT_SHOWN), _sqlite(api.BOT_SHOWN))


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0019_challenges"),
        ("bots", "0010_accepts_challenges"),
    ]

    operations = [migrations.RunPython(install, remove)]
