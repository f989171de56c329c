"""Playing a game against bots as a person would, through the API, with the worker's
service running in a thread of the test (the same code a "human_games" worker runs)."""

from __future__ import annotations

import random
import threading
import time

from django.db import connection

from tournaments.services.human_games import play_human_game


class GameThread(threading.Thread):
    """``play_human_game(match_id)`` in a thread, with its own database connection."""

    def __init__(self, match_id: int):
        super().__init__(daemon=True)
        self.match_id = match_id
        self.recorded: bool | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.recorded = play_human_game(match_id=self.match_id)
        except BaseException as exc:  # reported by the test that joins
            self.error = exc
        finally:
            connection.close()


def wait_for_status(client, game_id: int, wanted: set[str], timeout: float = 30.0) -> dict:
    """The game's API answer once its status is one of ``wanted``."""
    give_up = time.monotonic() + timeout
    while True:
        answer = client.get(f"/api/human-games/{game_id}/")
        assert answer.status_code == 200, answer.content
        body = answer.json()
        if body["status"] in wanted:
            return body
        assert time.monotonic() < give_up, f"status stayed {body['status']}: {body['message']}"
        time.sleep(0.01)


def play_out(
    client, game_id: int, rng: random.Random, *, check=None, timeout: float = 60.0
) -> dict:
    """Answer every turn with a random legal action until the game ends; ``check(body)`` is
    called on each of the person's turns. The final answer."""
    give_up = time.monotonic() + timeout
    while True:
        body = wait_for_status(client, game_id, {"your_turn", "finished", "ended"})
        if body["status"] != "your_turn":
            return body
        if check is not None:
            check(body)
        action = rng.choice(body["legal"])
        answer = client.post(
            f"/api/human-games/{game_id}/act/",
            {"action": action, "turn": body["turn"]},
            format="json",
        )
        assert answer.status_code == 200, answer.content
        assert time.monotonic() < give_up, "the game did not end in time"
