"""The bot page's recent matches: the newest ones, cancelled ones left out and counted (or
shown on request), a match where two of the bot's versions met listed once."""

from __future__ import annotations

import pytest

from arena.dashboard.bot_page import recent_match_rows
from tests.support.builders import bot_with_version, finished_match, version
from tournaments.models import Match

pytestmark = pytest.mark.django_db


def test_recent_rows_leave_out_and_count_cancelled_matches():
    bot, first = bot_with_version(name="me")
    second = version(bot=bot, number=2, parent=first)
    _, other = bot_with_version(name="other")
    matches = []
    for i in range(9):
        mine = first if i % 2 else second
        matches.append(finished_match(versions=[mine, other], ranks=[1, 2], seed=i, rate=False))
    matches.append(
        finished_match(versions=[first, second], ranks=[2, 1], seed=9, rate=False)
    )  # both mine
    cancelled = [matches[1], matches[4], matches[9]]
    Match.objects.filter(pk__in=[m.pk for m in cancelled]).update(status="cancelled")
    newest_first = [m.pk for m in reversed(matches)]
    shown = [pk for pk in newest_first if pk not in {m.pk for m in cancelled}]

    rows, hidden = recent_match_rows(bot_id=bot.pk, with_cancelled=False, limit=4)
    assert [r["match"].pk for r in rows] == shown[:4]
    assert hidden == 3
    rows, hidden = recent_match_rows(bot_id=bot.pk, with_cancelled=False, limit=30)
    assert [r["match"].pk for r in rows] == shown and hidden == 3
    rows, hidden = recent_match_rows(bot_id=bot.pk, with_cancelled=True, limit=30)
    assert [r["match"].pk for r in rows] == newest_first and hidden == 0
    both = rows[0]  # the match between its own versions: listed once, no opponent
    assert both["match"].pk == matches[9].pk and both["opponents"] == []
    assert [r["opponents"][0].version.bot.name for r in rows[1:]] == ["other"] * 9
