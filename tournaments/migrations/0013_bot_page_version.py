"""``ReadVersion('bot:<id>')``: the version of a bot's page, moved by triggers in the
writer's transaction with every write the page shows: the bot's row, its versions, its
gates, its matches' seats (version, rank, fault) and the shown columns of its matches
(status, attempts, times, tournament; a heartbeat or a stored record moves nothing). A
bot without a row yet reads as version 0: the first write makes the row at 1.

A match's write moves the row of every bot seated in it. On PostgreSQL the rows are moved
at the writer's commit, in name order (see FLUSH)."""

from django.db import migrations
from tournaments.migrations._triggers import execute_for_vendor, split_events

# Every match and seat column the page shows (tests hold the page's reads to these).
MATCH_SHOWN = ("status", "attempts", "queued_at", "started_at", "finished_at", "tournament_id")
SEAT_SHOWN = ("match_id", "version_id", "rank", "fault")

UPSERT = (
    "INSERT INTO tournaments_readversion (name, changes) {select} "
    "ON CONFLICT (name) DO UPDATE SET changes = tournaments_readversion.changes + 1"
)
OF_BOT = "SELECT 'bot:' || {bot}, 1"
OF_VERSION = "SELECT 'bot:' || v.bot_id, 1 FROM bots_botversion v WHERE v.id = {version}"
# A seat shows on every page of its match's bots (opponents' ranks): a seat moves them all,
# its own bot's included when the seat is gone (a delete).
OF_SEAT = (
    "SELECT 'bot:' || v.bot_id, 1 FROM bots_botversion v WHERE v.id = {row}.version_id UNION "
    "SELECT 'bot:' || v.bot_id, 1 FROM tournaments_matchseat s "
    "JOIN bots_botversion v ON v.id = s.version_id WHERE s.match_id = {row}.match_id ORDER BY 1"
)
OF_MATCH = (
    "SELECT DISTINCT 'bot:' || v.bot_id, 1 FROM tournaments_matchseat s "
    "JOIN bots_botversion v ON v.id = s.version_id WHERE s.match_id = {match} ORDER BY 1"
)
# (table, events, the columns naming the bot rows a row moves, how to find them from it)
WATCHED = [
    ("bots_bot", "UPDATE", "id", OF_BOT.format(bot="{row}.id")),
    ("bots_botversion", "INSERT OR DELETE OR UPDATE", "bot_id", OF_BOT.format(bot="{row}.bot_id")),
    (
        "tournaments_gate",
        "INSERT OR DELETE OR UPDATE",
        "candidate_id",
        OF_VERSION.format(version="{row}.candidate_id"),
    ),
    (
        "tournaments_matchseat",
        f"INSERT OR DELETE OR UPDATE OF {', '.join(SEAT_SHOWN)}",
        "match_id version_id",
        OF_SEAT,
    ),
    (
        "tournaments_match",
        f"UPDATE OF {', '.join(MATCH_SHOWN)}",
        "id",
        OF_MATCH.format(match="{row}.id"),
    ),
]


# PostgreSQL: a write only notes the bots it moves (a setting local to the transaction);
# the notes are applied at commit, by a deferred trigger, in one statement in name order.
# So a transaction that writes many matches (a tournament's round, a ladder's tables)
# locks its bots' rows only at its commit and always in the same order as every other
# writer: no lock-order deadlock with a worker claiming a match of the same bots, and a
# row stays locked only for the commit.
NOTES = "arena.bot_pages"
# Past this many characters of notes (about 400 bots) a transaction moves every bot's page
# at its commit (one pass over the bots) and stops noting: a bulk write of many bots or
# matches must not search a growing list once a row.
EVERY_BOT_AFTER = 4000
FLUSH = f"""
CREATE OR REPLACE FUNCTION tournaments_bot_pages_flush() RETURNS trigger AS $$
DECLARE
    notes text := current_setting('{NOTES}', true);
BEGIN
    IF coalesce(notes, '') = '' THEN RETURN NULL; END IF;
    PERFORM set_config('{NOTES}', '', true);
    IF notes = '*' THEN
        INSERT INTO tournaments_readversion (name, changes)
        SELECT 'bot:' || id, 1 FROM bots_bot ORDER BY 1
        ON CONFLICT (name) DO UPDATE SET changes = tournaments_readversion.changes + 1;
        RETURN NULL;
    END IF;
    INSERT INTO tournaments_readversion (name, changes)
    SELECT DISTINCT name, 1 FROM unnest(string_to_array(trim(BOTH ',' FROM notes), ',')) name
    ORDER BY 1
    ON CONFLICT (name) DO UPDATE SET changes = tournaments_readversion.changes + 1;
    RETURN NULL;
END $$ LANGUAGE plpgsql;
"""


def _function(table: str, column: str, select: str) -> str:
    # An update that moves a row to another bot (a seat to another version) moves the old
    # bot's page as well as the new one's; any other update notes the new row only.
    moved = " OR ".join(f"OLD.{c} IS DISTINCT FROM NEW.{c}" for c in column.split())
    return f"""
CREATE OR REPLACE FUNCTION {table}_bot_page_version() RETURNS trigger AS $$
DECLARE
    notes text := coalesce(current_setting('{NOTES}', true), '');
    bot text;
BEGIN
    IF notes = '*' THEN RETURN NULL; END IF;
    IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND ({moved})) THEN
        FOR bot IN SELECT t.name FROM ({select.format(row="OLD")}) AS t(name, one) LOOP
            IF position(',' || bot || ',' IN notes) = 0 THEN
                notes := coalesce(nullif(notes, ''), ',') || bot || ',';
            END IF;
        END LOOP;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        FOR bot IN SELECT t.name FROM ({select.format(row="NEW")}) AS t(name, one) LOOP
            IF position(',' || bot || ',' IN notes) = 0 THEN
                notes := coalesce(nullif(notes, ''), ',') || bot || ',';
            END IF;
        END LOOP;
    END IF;
    IF length(notes) > {EVERY_BOT_AFTER} THEN notes := '*'; END IF;
    PERFORM set_config('{NOTES}', notes, true);
    RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER {table}_bot_page_version AFTER {{events}} ON {table}
FOR EACH ROW EXECUTE FUNCTION {table}_bot_page_version();
CREATE CONSTRAINT TRIGGER {table}_bot_pages_flush AFTER {{events}} ON {table}
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION tournaments_bot_pages_flush();
"""


TRIGGER = FLUSH + "".join(
    _function(table, column, select).replace("{events}", events)
    for table, events, column, select in WATCHED
)
UNTRIGGER = (
    "".join(
        f"DROP TRIGGER IF EXISTS {table}_bot_page_version ON {table};\n"
        f"DROP TRIGGER IF EXISTS {table}_bot_pages_flush ON {table};\n"
        f"DROP FUNCTION IF EXISTS {table}_bot_page_version();\n"
        for table, *_ in WATCHED
    )
    + "DROP FUNCTION IF EXISTS tournaments_bot_pages_flush();\n"
)


# SQLite has one writer at a time (no lock order to keep): its triggers move the rows at
# once.
def _sqlite_body(event: str, column: str, select: str) -> str:
    rows = {"INSERT": ["NEW"], "DELETE": ["OLD"]}.get(event.split()[0], ["OLD", "NEW"])
    moved = " OR ".join(f"OLD.{c} IS NOT NEW.{c}" for c in column.split())
    only = f"({moved})" if len(rows) == 2 else "true"
    return " ".join(
        UPSERT.format(select=_where(select.format(row=row), only if row == "OLD" else "true")) + ";"
        for row in rows
    )


def _where(select: str, condition: str) -> str:
    # SQLite needs a WHERE in an upsert's SELECT (to tell ON CONFLICT from a join's ON).
    return f"SELECT * FROM ({select}) WHERE {condition}"


SQLITE_TRIGGER = [
    f"CREATE TRIGGER {table}_bot_page_version_{n} AFTER {event} ON {table} "
    f"BEGIN {_sqlite_body(event, column, select)} END"
    for table, events, column, select in WATCHED
    for n, event in enumerate(split_events(events))
]
SQLITE_UNTRIGGER = [
    f"DROP TRIGGER IF EXISTS {table}_bot_page_version_{n}"
    for table, events, *_ in WATCHED
    for n, _ in enumerate(split_events(events))
]


def install(apps, schema_editor):
    execute_for_vendor(schema_editor, TRIGGER, SQLITE_TRIGGER)


def remove(apps, schema_editor):
    execute_for_vendor(schema_editor, UNTRIGGER, SQLITE_UNTRIGGER)
    # The rows stay: a version never goes back to one a stored page may still be under.


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0012_bot_list_version"),
        ("tournaments", "0004_ratings_pools"),
    ]

    operations = [migrations.RunPython(install, remove)]
