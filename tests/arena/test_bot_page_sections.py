"""The bot page reads its challenges, games against people and version gates only when the
bot has some (``bot_page.with_sections``, in the bot's own query): each flag says what its
list would find, and a bot with none shows the same page without those three queries."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.dashboard import bot_page
from bots.models import Bot
from tests.support.builders import bot_with_version, user
from tests.support.stored_reads import new_version, open_gate
from tournaments import selectors
from tournaments.selectors import challenges, human_games
from tournaments.services.challenges import Asked, create_challenge
from tournaments.services.human_games import Seating, create_human_game

pytestmark = pytest.mark.django_db


def sections(bot: Bot) -> tuple[bool, bool, bool]:
    found = bot_page.with_sections(Bot.objects.all()).get(pk=bot.pk)
    return found.has_challenges, found.has_people_games, found.has_gates


def lists(bot: Bot) -> tuple[bool, bool, bool]:
    return (
        bool(challenges.challenges_of_bot(bot_id=bot.pk)),
        bool(human_games.games_against_people(bot_id=bot.pk)),
        bool(selectors.gates_of_bot(bot=bot)),
    )


def test_each_flag_says_whether_its_list_has_a_row(client):
    owner, person = user(name="owner"), user(name="person")
    challenger, _ = bot_with_version(name="challenger", owner=owner, announce=False)
    challenged, _ = bot_with_version(
        name="challenged", owner=person, announce=False, accepts_challenges="anyone"
    )
    played, _ = bot_with_version(name="played", owner=owner, announce=False)
    gated, first = bot_with_version(name="gated", owner=owner, announce=False)
    quiet, _ = bot_with_version(name="quiet", owner=owner, announce=False)
    bots = [challenger, challenged, played, gated, quiet]
    assert [sections(b) for b in bots] == [(False, False, False)] * 5

    asked = Asked(bot_id=challenger.pk, opponent_ids=[challenged.pk], games=2, options={})
    create_challenge(user=owner, asked=asked)
    seating = Seating(game="pairs", players=2, options={}, seat=0, bots=[played.pk])
    create_human_game(user=person, seating=seating)
    open_gate(candidate=new_version(bot=gated, number=2))
    expected = [
        (True, False, False),  # the challenger's own
        (True, False, False),  # received
        (False, True, False),
        (False, False, True),
        (False, False, False),
    ]
    assert [sections(b) for b in bots] == [lists(b) for b in bots] == expected
    assert first.bot_id == gated.pk

    # The page shows each list where it has rows; a quiet bot's page reads none of them.
    assert 'id="people-games"' in client.get(f"/bots/{played.pk}/").content.decode()
    with CaptureQueriesContext(connection) as read:
        page = client.get(f"/bots/{quiet.pk}/").content.decode()
    sql = " ".join(q["sql"] for q in read.captured_queries)
    # Only the flags' subqueries (aliased U0...) name those tables; no list is read.
    assert not re.search(r'FROM "tournaments_(challenge|gate)"(?! U\d)', sql)
    assert '"tournaments_humangame"' not in sql
    assert 'id="people-games"' not in page and 'id="challenges-heading"' in page
