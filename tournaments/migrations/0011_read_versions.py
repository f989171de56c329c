"""``ReadVersion('tournaments')``: the version of the tournament list (API, page, the home
page's recent tournaments), moved by triggers with every insert and delete of a tournament
or entry, every update of a tournament column the list shows (not ``results_version``,
which a result moves: the list shows no result) or of an entry, and every change of a
username (organisers are shown by name)."""

from django.db import migrations, models
from tournaments.migrations._triggers import execute_for_vendor, split_events

# Every tournament column the list shows (tests hold the API's fields to this list).
TOURNAMENT_SHOWN = (
    "name",
    "organiser_id",
    "game",
    "options",
    "format",
    "players_per_match",
    "games_per_pairing",
    "rotate_seats",
    "move_ms",
    "bank_ms",
    "rated",
    "rounds",
    "advance",
    "third_place",
    "grand_final_reset",
    "seeding",
    "seed",
    "seed_salt",
    "seed_commitment",
    "start_at",
    "status",
    "created_at",
    "started_at",
    "finished_at",
)

BUMP = "UPDATE tournaments_readversion SET changes = changes + 1 WHERE name = 'tournaments'"
WATCHED = [
    ("tournaments_tournament", f"INSERT OR DELETE OR UPDATE OF {', '.join(TOURNAMENT_SHOWN)}"),
    ("tournaments_entry", "INSERT OR DELETE OR UPDATE"),
    ("auth_user", "UPDATE OF username"),
]

TRIGGER = f"""
CREATE OR REPLACE FUNCTION tournaments_list_version() RETURNS trigger AS $$
BEGIN
    {BUMP};
    RETURN NULL;
END $$ LANGUAGE plpgsql;
""" + "".join(
    f"CREATE TRIGGER {table}_list_version AFTER {events} ON {table} "
    "FOR EACH ROW EXECUTE FUNCTION tournaments_list_version();\n"
    for table, events in WATCHED
)
UNTRIGGER = "".join(
    f"DROP TRIGGER IF EXISTS {table}_list_version ON {table};\n" for table, _ in WATCHED
) + ("DROP FUNCTION IF EXISTS tournaments_list_version();")


SQLITE_TRIGGER = [
    f"CREATE TRIGGER {table}_list_version_{n} AFTER {event} ON {table} BEGIN {BUMP}; END"
    for table, events in WATCHED
    for n, event in enumerate(split_events(events))
]
SQLITE_UNTRIGGER = [
    f"DROP TRIGGER IF EXISTS {table}_list_version_{n}"
    for table, events in WATCHED
    for n, _ in enumerate(split_events(events))
]


def install(apps, schema_editor):
    apps.get_model("tournaments", "ReadVersion").objects.create(name="tournaments")
    execute_for_vendor(schema_editor, TRIGGER, SQLITE_TRIGGER)


def remove(apps, schema_editor):
    execute_for_vendor(schema_editor, UNTRIGGER, SQLITE_UNTRIGGER)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0010_ladder_changes"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.CreateModel(
            name="ReadVersion",
            fields=[
                ("name", models.CharField(max_length=40, primary_key=True, serialize=False)),
                ("changes", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.RunPython(install, remove),
    ]
