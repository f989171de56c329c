"""A version of each ladder's matches, ``LadderCount.changes``: a database trigger moves it
with every insert and delete of a ladder's match or seat and every update of a column the
ladder's pages and API show, in the writer's transaction, whichever code path writes (ORM
save, bulk update, raw SQL). The ladder's reads are stored under it (tournaments.readcache).
Heartbeats (``heartbeat_at``, ``worker``) and a seat's log move nothing: no read of the
ladder shows them."""

from django.db import migrations, models
from tournaments.migrations._triggers import execute_for_vendor

# The columns of a match and of a seat that the ladder's reads show (the match rows of the
# API and pages, their reproduce commands); tests hold the API's fields to this list.
MATCH_SHOWN = (
    "tournament_id",
    "ladder_id",
    "round",
    "number",
    "series",
    "game",
    "engine_version",
    "options",
    "seed",
    "move_ms",
    "bank_ms",
    "status",
    "attempts",
    "queued_at",
    "started_at",
    "finished_at",
    "result",
    "error",
)
SEAT_SHOWN = ("match_id", "seat", "version_id", "score", "rank", "fault")

BUMP = "UPDATE tournaments_laddercount SET changes = changes + 1 WHERE ladder_id = {}"
SEAT_LADDER = "(SELECT ladder_id FROM tournaments_match WHERE id = {}.match_id)"

# Named after tournaments_match_ladder_count so that PostgreSQL (which fires a table's
# triggers by name) moves the version after the counters made the ladder's first row.
TRIGGER = f"""
CREATE OR REPLACE FUNCTION tournaments_match_ladder_version() RETURNS trigger AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.ladder_id IS NOT NULL THEN
        {BUMP.format("OLD.ladder_id")};
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.ladder_id IS NOT NULL
            AND (TG_OP = 'INSERT' OR NEW.ladder_id IS DISTINCT FROM OLD.ladder_id) THEN
        {BUMP.format("NEW.ladder_id")};
    END IF;
    RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER tournaments_match_ladder_version
AFTER INSERT OR DELETE OR UPDATE OF {", ".join(MATCH_SHOWN)} ON tournaments_match
FOR EACH ROW EXECUTE FUNCTION tournaments_match_ladder_version();

CREATE OR REPLACE FUNCTION tournaments_seat_ladder_version() RETURNS trigger AS $$
BEGIN
    {BUMP.format(SEAT_LADDER.format("OLD"))};
    IF NEW.match_id <> OLD.match_id THEN
        {BUMP.format(SEAT_LADDER.format("NEW"))};
    END IF;
    RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER tournaments_seat_ladder_version
AFTER UPDATE OF {", ".join(SEAT_SHOWN)} ON tournaments_matchseat
FOR EACH ROW EXECUTE FUNCTION tournaments_seat_ladder_version();

-- Seats come and go in bulk (a round robin's start writes tens of thousands): one bump
-- per statement and ladder, from the statement's rows, not one per seat.
CREATE OR REPLACE FUNCTION tournaments_seats_ladder_version() RETURNS trigger AS $$
BEGIN
    UPDATE tournaments_laddercount SET changes = changes + 1 WHERE ladder_id IN (
        SELECT m.ladder_id FROM changed s JOIN tournaments_match m ON m.id = s.match_id
        WHERE m.ladder_id IS NOT NULL);
    RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER tournaments_seat_insert_ladder_version
AFTER INSERT ON tournaments_matchseat REFERENCING NEW TABLE AS changed
FOR EACH STATEMENT EXECUTE FUNCTION tournaments_seats_ladder_version();

CREATE TRIGGER tournaments_seat_delete_ladder_version
AFTER DELETE ON tournaments_matchseat REFERENCING OLD TABLE AS changed
FOR EACH STATEMENT EXECUTE FUNCTION tournaments_seats_ladder_version();
"""

UNTRIGGER = """
DROP TRIGGER IF EXISTS tournaments_match_ladder_version ON tournaments_match;
DROP FUNCTION IF EXISTS tournaments_match_ladder_version();
DROP TRIGGER IF EXISTS tournaments_seat_ladder_version ON tournaments_matchseat;
DROP FUNCTION IF EXISTS tournaments_seat_ladder_version();
DROP TRIGGER IF EXISTS tournaments_seat_insert_ladder_version ON tournaments_matchseat;
DROP TRIGGER IF EXISTS tournaments_seat_delete_ladder_version ON tournaments_matchseat;
DROP FUNCTION IF EXISTS tournaments_seats_ladder_version();
"""


def _sqlite(name: str, event: str, table: str, ladder: str, when: str = "") -> str:
    condition = f"{ladder} IS NOT NULL" + (f" AND ({when})" if when else "")
    return (
        f"CREATE TRIGGER {name} AFTER {event} ON {table} WHEN {condition} "
        f"BEGIN {BUMP.format(ladder)}; END"
    )


SQLITE_TRIGGER = [
    _sqlite("tml_version_insert", "INSERT", "tournaments_match", "NEW.ladder_id"),
    _sqlite("tml_version_delete", "DELETE", "tournaments_match", "OLD.ladder_id"),
    _sqlite(
        "tml_version_update_old",
        f"UPDATE OF {', '.join(MATCH_SHOWN)}",
        "tournaments_match",
        "OLD.ladder_id",
    ),
    _sqlite(
        "tml_version_update_new",
        f"UPDATE OF {', '.join(MATCH_SHOWN)}",
        "tournaments_match",
        "NEW.ladder_id",
        "OLD.ladder_id IS NULL OR NEW.ladder_id <> OLD.ladder_id",
    ),
    _sqlite("tsl_version_insert", "INSERT", "tournaments_matchseat", SEAT_LADDER.format("NEW")),
    _sqlite("tsl_version_delete", "DELETE", "tournaments_matchseat", SEAT_LADDER.format("OLD")),
    _sqlite(
        "tsl_version_update_old",
        f"UPDATE OF {', '.join(SEAT_SHOWN)}",
        "tournaments_matchseat",
        SEAT_LADDER.format("OLD"),
    ),
    _sqlite(
        "tsl_version_update_new",
        f"UPDATE OF {', '.join(SEAT_SHOWN)}",
        "tournaments_matchseat",
        SEAT_LADDER.format("NEW"),
        "NEW.match_id <> OLD.match_id",
    ),
]
SQLITE_UNTRIGGER = [
    f"DROP TRIGGER IF EXISTS {name}"
    for name in (
        "tml_version_insert",
        "tml_version_delete",
        "tml_version_update_old",
        "tml_version_update_new",
        "tsl_version_insert",
        "tsl_version_delete",
        "tsl_version_update_old",
        "tsl_version_update_new",
    )
]


def install_triggers(apps, schema_editor):
    execute_for_vendor(schema_editor, TRIGGER, SQLITE_TRIGGER)


def remove_triggers(apps, schema_editor):
    execute_for_vendor(schema_editor, UNTRIGGER, SQLITE_UNTRIGGER)


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0009_ladder_newest_by_ladder")]

    operations = [
        # A plain ADD COLUMN: SQLite's AddField rebuilds the table, which its match
        # triggers (0007_ladder_counts) name, and refuses.
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    "ALTER TABLE tournaments_laddercount "
                    "ADD COLUMN changes bigint NOT NULL DEFAULT 0",
                    "ALTER TABLE tournaments_laddercount DROP COLUMN changes",
                )
            ],
            state_operations=[
                migrations.AddField(
                    model_name="laddercount",
                    name="changes",
                    field=models.BigIntegerField(default=0, db_default=0),
                )
            ],
        ),
        migrations.RunPython(install_triggers, remove_triggers),
    ]
