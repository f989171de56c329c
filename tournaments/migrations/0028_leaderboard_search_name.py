"""``LeaderboardRow.search_name``: the bot's name upper-cased by the database (a generated
column, so every row has it as soon as it is added), carried by ``leaderboard_order`` for
a search's walk and count."""

import django.db.models.functions.text
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('bots', '0010_accepts_challenges'),
        ('tournaments', '0027_bot_opponents'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='leaderboardrow',
            name='leaderboard_order',
        ),
        migrations.AddField(
            model_name='leaderboardrow',
            name='search_name',
            field=models.GeneratedField(db_persist=True, expression=django.db.models.functions.text.Upper('bot_name'), output_field=models.TextField()),
        ),
        migrations.AddIndex(
            model_name='leaderboardrow',
            index=models.Index(fields=['pool', 'sort_key', 'bot_name'], include=('id', 'bot', 'elo', 'stdev', 'estimate', 'search_name'), name='leaderboard_order'),
        ),
    ]
