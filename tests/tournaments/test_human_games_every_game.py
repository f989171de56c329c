"""Every game, at every player count, played to its end with a person in one seat (the
test answers through the API) and built-in bots in the others; at each of the person's
turns the API's answer is exactly that seat's view, and nothing of the other hands
reaches the person through the game or its match's endpoints while it is played."""

from __future__ import annotations

import json
import random
import time

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from games import registry
from tests.support.builders import user
from tests.support.human_play import GameThread
from tournaments.models import Match
from tournaments.selectors import human_games as selectors
from tournaments.services.human_games import submit_action

pytestmark = pytest.mark.django_db(transaction=True)

# What the API answers about a game; the seat's view is in observation, legal and events.
ANSWER_KEYS = {
    "id", "match", "game", "players", "options", "seat", "seats", "status", "message",
    "move", "turn", "to_act", "observation", "legal", "deadline", "seconds_left",
    "move_seconds", "events", "events_from", "resigned", "result", "rematch_of",
    "created_at",
}  # fmt: skip

GAMES = [game.slug for game in registry.all_games()]
# Shorter matches where an option allows (each still a whole game at every player count).
LIGHTER = {"paks": {"target": 100}}


def play_through(client, game_id: int, person, rng: random.Random, check) -> dict:
    """The person's side of the game: through the API for the first turns, then through
    the same service and selector the API calls (the HTTP round trips of a thousand-move
    game would only make the test slow); ``check`` sees each turn's answer."""
    give_up = time.monotonic() + 120
    turns = 0
    match_id = None
    while time.monotonic() < give_up:
        # The answer's status changes only with these (read before it, so a change while it
        # is built is not missed): while the bots move, one small query a poll instead of
        # the whole answer, which is read once they can make it other than "waiting".
        seen = turn_state(match_id) if match_id is not None else None
        if seen is not None and not may_be_the_persons_turn_or_over(seen):
            while turn_state(match_id) == seen and time.monotonic() < give_up:
                time.sleep(0.002)
            continue
        if turns < 3:
            answer = client.get(f"/api/human-games/{game_id}/").json()
        else:
            found = selectors.game_of_user(user=person, pk=game_id)  # as the API reads it
            answer = selectors.human_game_answer(human_game=found, match=found.match)
        match_id = answer["match"]
        if answer["status"] in ("finished", "ended"):
            return answer
        if answer["status"] != "your_turn":
            while turn_state(match_id) == seen and time.monotonic() < give_up:
                time.sleep(0.002)
            continue
        check(answer)
        action = rng.choice(answer["legal"])
        if turns < 3:
            moved = client.post(
                f"/api/human-games/{game_id}/act/",
                {"action": action, "turn": answer["turn"]},
                format="json",
            )
            assert moved.status_code == 200, moved.content
        else:
            submit_action(user=person, human_game_id=game_id, action=action, turn=answer["turn"])
        turns += 1
    raise AssertionError("the game did not end in time")


def may_be_the_persons_turn_or_over(state: tuple) -> bool:
    """Whether ``turn_state`` allows any status but "waiting" (status_of: a running game
    waits on the bots unless a turn is put to the person and not yet answered)."""
    status, _, turn, answered = state
    return status != Match.Status.RUNNING or (turn is not None and not answered)


def turn_state(match_id: int) -> tuple:
    """What the person's status is made of (tournaments.selectors.human_games.status_of)."""
    return (
        Match.objects.filter(pk=match_id)
        .values_list("status", "heartbeat_at", "human_game__turn", "human_game__answered")
        .get()
    )


def policy_of(game) -> str:
    return "random" if "random" in game.policies else sorted(game.policies)[0]


@pytest.mark.parametrize("slug", GAMES)
@override_settings(ARENA_HUMAN_POLL_SECONDS=0.003)
def test_a_person_finishes_every_game_at_every_player_count_and_sees_only_their_seat(slug):
    game = registry.get(slug)
    person = user(name="person")
    counts = game.player_counts(LIGHTER.get(slug, {}))
    assert counts
    for players in counts:  # one test per game: a database flush each, not per count
        play_one_table(game, person, players)


def play_one_table(game, person, players: int) -> None:
    slug = game.slug
    client = APIClient()
    client.force_authenticate(person)
    seat = players - 1 if players % 2 else 0
    body = {
        "game": slug,
        "players": players,
        "seat": seat,
        "bots": [policy_of(game)] * (players - 1),
        "options": LIGHTER.get(slug, {}),
    }
    made = client.post("/api/human-games/", body, format="json")
    assert made.status_code == 201, made.content
    game_id, match_id = made.json()["id"], made.json()["match"]
    worker = GameThread(match_id)
    worker.start()
    turns = [0]
    # The engine's own state, kept up with the record move by move (no replay per turn).
    position: dict = {"state": None, "applied": 0}

    def check(answer):
        assert set(answer) == ANSWER_KEYS
        # The record alone: the row's other JSON (the worker's timed moves) is as long.
        record = Match.objects.values_list("record", flat=True).get(pk=match_id)
        if position["state"] is None:
            position["state"] = registry.rebuild({**record, "moves": []})
        state = position["state"]
        for move in record["moves"][position["applied"] :]:
            state.apply({int(s): action for s, action in move.items()})
        position["applied"] = len(record["moves"])
        assert answer["observation"] == state.observation(seat)
        assert answer["events"] == state.events(seat, since=answer["events_from"])
        assert answer["legal"] == state.legal_actions(seat)
        if turns[0] < 2:  # the match's own endpoints while it is played: hidden
            others = [s for s in range(players) if s != seat]
            detail = APIClient().get(f"/api/matches/{match_id}/").json()
            assert detail["hidden"] and detail["seed"] is None and detail["record"] is None
            mine = client.get(f"/api/matches/{match_id}/replay/?seat={seat}")
            assert mine.status_code == 200
            for other in others:
                answer_other = client.get(f"/api/matches/{match_id}/replay/?seat={other}")
                assert answer_other.status_code == 403
                frames = client.get(f"/api/matches/{match_id}/frames/?seat={other}")
                assert frames.status_code == 403
            text = json.dumps(client.get(f"/api/human-games/{game_id}/").json())
            assert '"record"' not in text and str(state.seed) not in text
        turns[0] += 1

    final = play_through(client, game_id, person, random.Random(players), check)
    worker.join(30)
    assert worker.error is None and worker.recorded is True
    assert final["status"] == "finished", final["message"]
    result = final["result"]["seats"]
    assert len(result) == players and result[seat]["fault"] is None
    assert result[seat]["bot"] == "person (person)"
    match = Match.objects.get(pk=match_id)
    assert registry.rebuild(match.record).is_over() and match.rated_seq is None
