"""What the trigger migrations (0007, 0010-0014) share. Django's loader skips modules whose
name starts with "_", so this is no migration. Keep these two functions as they are: the
migrations that call them are history, and their SQL lives in each migration itself."""


def split_events(events: str) -> list[str]:
    """PostgreSQL's ``INSERT OR UPDATE OF a, b`` as SQLite wants it: one trigger per event."""
    return [event.strip() for event in events.split(" OR ")]


def execute_for_vendor(schema_editor, postgresql: str, sqlite: list[str]) -> None:
    """PostgreSQL takes the whole script at once; SQLite's ``execute`` one statement at a time."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(postgresql)
    else:
        for statement in sqlite:
            schema_editor.execute(statement)
