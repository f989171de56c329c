"""Games a person plays against bots: ``HumanGame``, ``Match.human_game``, and seats
played by a person (``MatchSeat.user``) or a built-in policy (``MatchSeat.policy``).

On SQLite the seat and match tables are remade (a column made nullable, a constraint, a
unique column), which drops the triggers and hand-written indexes on them (the read
versions' and ladder counters' triggers of earlier migrations): they are read before and
created again after, unchanged.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


REMADE = ("tournaments_matchseat", "tournaments_match")
_kept: list[tuple[str, str, str]] = []


def keep_triggers(apps, schema_editor):
    """SQLite only: set aside the triggers and hand-written indexes that are on the remade
    tables or name them (a trigger naming a table being renamed stops the rename)."""
    if schema_editor.connection.vendor != "sqlite":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master"
            " WHERE type IN ('trigger', 'index') AND sql IS NOT NULL"
        )
        rows = cursor.fetchall()
        _kept[:] = [
            (kind, name, sql)
            for kind, name, table, sql in rows
            if table in REMADE or (kind == "trigger" and any(t in sql for t in REMADE))
        ]
        for kind, name, _ in _kept:
            if kind == "trigger":
                cursor.execute(f'DROP TRIGGER "{name}"')


def restore_triggers(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE type IN ('trigger', 'index')")
        present = {row[0] for row in cursor.fetchall()}
        for _, name, sql in _kept:
            if name not in present:
                cursor.execute(sql)
    _kept.clear()


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0010_accepts_challenges"),
        ("tournaments", "0020_bot_list_api_challenges"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(keep_triggers, migrations.RunPython.noop),
        migrations.CreateModel(
            name="HumanGame",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("seat", models.PositiveSmallIntegerField()),
                ("move_seconds", models.PositiveIntegerField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("turn", models.PositiveIntegerField(blank=True, null=True)),
                ("legal", models.JSONField(blank=True, null=True)),
                ("turn_deadline", models.DateTimeField(blank=True, null=True)),
                ("action", models.JSONField(blank=True, null=True)),
                ("answered", models.BooleanField(default=False)),
                ("resigned", models.BooleanField(default=False)),
                ("faults", models.JSONField(blank=True, default=dict)),
                ("fault_details", models.JSONField(blank=True, default=dict)),
            ],
        ),
        migrations.AddField(
            model_name="matchseat",
            name="policy",
            field=models.CharField(blank=True, db_default="", default="", max_length=40),
        ),
        migrations.AddField(
            model_name="matchseat",
            name="user",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AlterField(
            model_name="matchseat",
            name="version",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="seats",
                to="bots.botversion",
            ),
        ),
        migrations.AddConstraint(
            model_name="matchseat",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("policy", ""), ("user__isnull", True), ("version__isnull", False)),
                    models.Q(("policy", ""), ("user__isnull", False), ("version__isnull", True)),
                    models.Q(
                        ("user__isnull", True),
                        ("version__isnull", True),
                        models.Q(("policy", ""), _negated=True),
                    ),
                    _connector="OR",
                ),
                name="match_seat_one_player",
            ),
        ),
        migrations.AddField(
            model_name="humangame",
            name="rematch_of",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="rematches",
                to="tournaments.humangame",
            ),
        ),
        migrations.AddField(
            model_name="humangame",
            name="user",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="human_games",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="match",
            name="human_game",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="match",
                to="tournaments.humangame",
            ),
        ),
        migrations.AddIndex(
            model_name="humangame",
            index=models.Index(fields=["user", "-id"], name="human_game_user_newest"),
        ),
        migrations.RunPython(restore_triggers, migrations.RunPython.noop),
    ]
