from django.db import migrations, models

# ADD COLUMN with a constant default, on PostgreSQL and SQLite alike: Django's SQLite
# backend would rebuild the table for a NOT NULL column instead, which the read-version
# triggers on it (tournaments 0012-0014) do not survive.
ADD = "ALTER TABLE bots_botversion ADD COLUMN reason_detail text NOT NULL DEFAULT ''"
DROP = "ALTER TABLE bots_botversion DROP COLUMN reason_detail"


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0006_read_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(ADD, DROP)],
            state_operations=[
                migrations.AddField(
                    model_name="botversion",
                    name="reason_detail",
                    field=models.TextField(blank=True, db_default="", default=""),
                ),
            ],
        ),
    ]
