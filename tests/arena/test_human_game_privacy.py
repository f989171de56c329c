"""A live game against bots hides the bots' hands from the person, and everything from
everyone else: Paiute (hidden hands), the person in seat 0 and built-in bots in seats 1
and 2, read at the person's first turn by the person, another user, staff and anonymously
over every endpoint and page that shows the game or its match. No card of a bot's hand
that the person's seat cannot see appears in any answer."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client, override_settings

from games import registry
from tests.support.builders import user
from tests.support.human_play import GameThread, wait_for_status
from tournaments.models import HumanGame, Match

pytestmark = pytest.mark.django_db(transaction=True)
CARD = re.compile(r'"([2-9TJQKA][CDHS])"')


def cards_in(text: str) -> set[str]:
    return set(CARD.findall(text))


@override_settings(ARENA_HUMAN_POLL_SECONDS=0.005)
def test_a_live_game_shows_each_reader_no_more_than_their_own_seat():
    person, stranger = user(name="person"), user(name="stranger")
    staff = user(name="root")
    staff.is_staff = True
    staff.save()
    client = Client()
    client.force_login(person)
    made = client.post(
        "/api/human-games/",
        {"game": "paiute", "players": 3, "seat": 0, "bots": ["random", "random"]},
        content_type="application/json",
    )
    assert made.status_code == 201, made.content
    game_id, match_id = made.json()["id"], made.json()["match"]
    worker = GameThread(match_id)
    worker.start()
    try:
        wait_for_status(client, game_id, {"your_turn"})
        state = registry.rebuild(Match.objects.get(pk=match_id).record)
        seen = cards_in(json.dumps(state.observation(0)) + json.dumps(state.events(0)))
        hidden = set()
        for seat in (1, 2):
            hidden |= set(state.observation(seat)["hand"]) - seen
        assert hidden, "the bots hold cards the person cannot see"
        urls = [
            f"/api/human-games/{game_id}/",
            "/api/human-games/",
            f"/api/matches/{match_id}/",
            f"/api/matches/{match_id}/replay/",
            f"/api/matches/{match_id}/replay/?seat=1",
            f"/api/matches/{match_id}/frames/",
            f"/api/matches/{match_id}/frames/?seat=2",
            f"/api/matches/{match_id}/seats/1/log/",
            f"/matches/{match_id}/",
            f"/matches/{match_id}/?seat=1",
            f"/play/{game_id}/",
            "/play/",
        ]
        for reader in (person, stranger, staff, None):
            browser = Client()
            if reader is not None:
                browser.force_login(reader)
            for url in urls:
                answer = browser.get(url)
                assert answer.status_code < 500, (url, answer.status_code)
                if answer.status_code == 200:
                    leaked = cards_in(answer.content.decode()) & hidden
                    assert not leaked, (reader, url, leaked)
            # The game's own endpoints are the person's alone.
            mine = browser.get(f"/api/human-games/{game_id}/")
            assert mine.status_code == (200 if reader is person else 404 if reader else 401)
        # The person's answer is exactly their seat's view.
        answer = client.get(f"/api/human-games/{game_id}/").json()
        assert answer["observation"] == state.observation(0)
        HumanGame.objects.filter(pk=game_id).update(resigned=True)
    finally:
        worker.join(30)
    assert worker.error is None
