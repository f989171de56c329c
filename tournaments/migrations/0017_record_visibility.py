"""``Tournament.record_visibility`` (who sees a finished match's whole record), the index
of unfinished games by seed (a finished game's record stays hidden while another game of
its deal is to be played: ``tournaments.visibility``), and the tournament list's trigger
(migration 0011) watching the new column, which the list shows."""

import importlib

from django.db import migrations, models
from tournaments.migrations._triggers import execute_for_vendor, split_events

versions = importlib.import_module("tournaments.migrations.0011_read_versions")

TABLE = "tournaments_tournament"
TOURNAMENT_SHOWN = (*versions.TOURNAMENT_SHOWN, "record_visibility")


def _events(shown: tuple[str, ...]) -> str:
    return f"INSERT OR DELETE OR UPDATE OF {', '.join(shown)}"


def _postgresql(shown: tuple[str, ...]) -> str:
    return (
        f"DROP TRIGGER IF EXISTS {TABLE}_list_version ON {TABLE};\n"
        f"CREATE TRIGGER {TABLE}_list_version AFTER {_events(shown)} ON {TABLE} "
        "FOR EACH ROW EXECUTE FUNCTION tournaments_list_version();\n"
    )


def _sqlite(shown: tuple[str, ...]) -> list[str]:
    events = split_events(_events(shown))
    return [f"DROP TRIGGER IF EXISTS {TABLE}_list_version_{n}" for n in range(len(events))] + [
        f"CREATE TRIGGER {TABLE}_list_version_{n} AFTER {event} ON {TABLE} "
        f"BEGIN {versions.BUMP}; END"
        for n, event in enumerate(events)
    ]


def watch_new_column(apps, schema_editor):
    execute_for_vendor(schema_editor, _postgresql(TOURNAMENT_SHOWN), _sqlite(TOURNAMENT_SHOWN))


def watch_old_columns(apps, schema_editor):
    shown = versions.TOURNAMENT_SHOWN
    execute_for_vendor(schema_editor, _postgresql(shown), _sqlite(shown))


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0016_split_fault_reasons"),
    ]

    operations = [
        migrations.AddField(
            model_name="tournament",
            name="record_visibility",
            field=models.CharField(
                choices=[
                    ("finished", "Finished"),
                    ("tournament_end", "Tournament End"),
                    ("owners", "Owners"),
                ],
                db_default="finished",
                default="finished",
                max_length=16,
            ),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(
                condition=models.Q(("status__in", ["scheduled", "queued", "running"])),
                fields=["seed"],
                name="match_live_seed",
            ),
        ),
        migrations.RunPython(watch_new_column, watch_old_columns),
    ]
