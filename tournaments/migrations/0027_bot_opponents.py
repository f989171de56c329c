"""``BotOpponent``: each pool's pair sums (``RatingPair``) summed per pair of bots, both
directions, kept with the pairs (tournaments.read_models.opponents). Filled here from the
pairs as they stand; the SQL is this migration's own (the module's may change later)."""

import django.db.models.deletion
from django.db import migrations, models

BACKFILL = (
    "INSERT INTO tournaments_botopponent (pool, bot_id, opponent_id, wins, draws, losses)"
    " SELECT s.pool, s.bot, s.opponent, SUM(s.wins), SUM(s.draws), SUM(s.losses) FROM ("
    " SELECT p.pool, a.bot_id AS bot, b.bot_id AS opponent, p.wins AS wins, p.draws,"
    " p.losses AS losses FROM tournaments_ratingpair p"
    " JOIN bots_botversion a ON a.id = p.first_id JOIN bots_botversion b ON b.id = p.second_id"
    " UNION ALL"
    " SELECT p.pool, b.bot_id, a.bot_id, p.losses, p.draws, p.wins FROM tournaments_ratingpair p"
    " JOIN bots_botversion a ON a.id = p.first_id JOIN bots_botversion b ON b.id = p.second_id"
    ") s WHERE s.bot <> s.opponent GROUP BY s.pool, s.bot, s.opponent"
)


def backfill(apps, schema_editor):
    schema_editor.execute(BACKFILL)


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0010_accepts_challenges"),
        ("tournaments", "0026_leaderboard_order_covering"),
    ]

    operations = [
        migrations.CreateModel(
            name="BotOpponent",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("pool", models.CharField(max_length=200)),
                ("wins", models.FloatField(default=0.0)),
                ("draws", models.FloatField(default=0.0)),
                ("losses", models.FloatField(default=0.0)),
                (
                    "bot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="bots.bot",
                    ),
                ),
                (
                    "opponent",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="bots.bot",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("pool", "bot", "opponent"), name="unique_bot_opponent"
                    )
                ],
            },
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
