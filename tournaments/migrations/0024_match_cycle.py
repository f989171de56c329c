from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0023_competitions"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="cycle",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
    ]
