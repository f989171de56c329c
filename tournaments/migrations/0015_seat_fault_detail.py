from django.db import migrations, models

# ADD COLUMN with a constant default, on PostgreSQL and SQLite alike: Django's SQLite
# backend would rebuild the table for a NOT NULL column instead, which the read-version
# triggers on it (0013) do not survive.
ADD = "ALTER TABLE tournaments_matchseat ADD COLUMN fault_detail text NOT NULL DEFAULT ''"
DROP = "ALTER TABLE tournaments_matchseat DROP COLUMN fault_detail"


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0014_bot_list_api_version"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(ADD, DROP)],
            state_operations=[
                migrations.AddField(
                    model_name="matchseat",
                    name="fault_detail",
                    field=models.TextField(blank=True, db_default="", default=""),
                ),
            ],
        ),
    ]
