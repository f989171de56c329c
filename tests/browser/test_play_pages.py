"""Playing against bots in Chromium, through clicks only: a game of Pairs from a bot's page
and a 3-seat game from a game's page, at 1280 and 390 px; leaving and coming back resumes
the game; the keyboard alone plays a move; another person never sees the game."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from django.test import override_settings

from tests.support.builders import bot_with_version
from tests.support.human_play import GameThread
from tests.support.page_checks import NARROW, WIDE, check_page, follow, screenshot
from tournaments.models import HumanGame, Match

PASSWORD = "a long password 1"
EXAMPLES = Path(__file__).parents[2] / "examples" / "bots"
LONG = "a_person_with_a_rather_long_name_42"


@pytest.fixture
def people(transactional_db, django_user_model):
    player = django_user_model.objects.create_user(username=LONG, password=PASSWORD)
    owner = django_user_model.objects.create_user(username="owner", password=PASSWORD)
    # A real program, played in the sandbox as on the server.
    source = (EXAMPLES / "pairs_cautious.py").read_bytes()
    demo, _ = bot_with_version(name="demo_bot_with_a_long_name", owner=owner, source=source)
    return player, owner, demo


@pytest.fixture(autouse=True)
def quick_polls():
    with override_settings(ARENA_HUMAN_POLL_SECONDS=0.01):
        yield


def log_in(page, base: str, username: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    follow(page, "button[type=submit]")


def click_through(page, rng: random.Random, *, shots: str, limit: int = 400) -> None:
    """Click a legal move on each of the person's turns until the game is over."""
    for turn in range(limit):
        assert not page.locator("#play-result .fault").count()
        page.wait_for_function(
            "() => ['your_turn', 'finished', 'ended'].includes(document.getElementById('play').dataset.status)",
            timeout=30000,
        )
        status = page.get_attribute("#play", "data-status")
        if status != "your_turn":
            return
        if turn == 0:
            check_page(page, f"{shots}-your-turn")
        buttons = page.locator("#play-actions button.act")
        count = buttons.count()
        assert count > 0
        shown = page.get_attribute("#play", "data-turn")
        buttons.nth(rng.randrange(count)).click()
        # The next state: another turn of yours, or the bots moving, or the end.
        page.wait_for_function(
            "(t) => { const p = document.getElementById('play');"
            " return p.dataset.turn !== t || p.dataset.status !== 'your_turn'; }",
            arg=shown,
            timeout=30000,
        )
    raise AssertionError("the game did not end")


def wait_for_your_turn(page, game: HumanGame) -> None:
    try:
        page.wait_for_function(
            "() => document.getElementById('play').dataset.status === 'your_turn'",
            timeout=30000,
        )
    except Exception:
        match = Match.objects.get(human_game=game)
        raise AssertionError(
            f"never your turn: {page.get_attribute('#play', 'data-status')}, "
            f"{match.status} {match.result} {match.moves} {match.error}"
        ) from None


def worker_for_newest_game() -> GameThread:
    match = Match.objects.filter(human_game__isnull=False).order_by("-id").first()
    worker = GameThread(match.pk)
    worker.start()
    return worker


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_a_newcomer_plays_pairs_against_a_bot_from_its_page(page_at, live_server, people, width):
    player, _, demo = people
    page = page_at(width, 800)
    # Signed out, the button leads through the log-in back to the form.
    page.goto(f"{live_server.url}/bots/{demo.pk}/")
    follow(page, "#play-link")
    assert "/login/" in page.url
    page.fill("input[name=username]", LONG)
    page.fill("input[name=password]", PASSWORD)
    follow(page, "button[type=submit]")
    assert "/play/new/" in page.url
    check_page(page, "play-form")
    follow(page, "#play-start")
    game = HumanGame.objects.get(user=player)
    assert page.url.endswith(f"/play/{game.pk}/")
    worker = worker_for_newest_game()
    click_through(page, random.Random(width), shots="play-pairs")
    worker.join(30)
    assert worker.error is None
    page.wait_for_selector("#play-outcome")
    check_page(page, "play-pairs-finished")
    assert page.get_attribute("#play", "data-status") == "finished"
    finished = Match.objects.get(human_game=game)
    assert finished.status == "finished"
    assert [seat["fault"] for seat in finished.result["seats"]] == [None, None]
    assert not page.script_errors
    # Listed on the bot's page; the replay opens from the result.
    page.goto(f"{live_server.url}/bots/{demo.pk}/")
    assert page.locator("#people-games").inner_text().count(LONG) == 1
    # Play again: the same seats, a new game.
    page.go_back()
    page.click("#play-again")
    page.wait_for_url(f"**/play/{game.pk + 1}/")
    assert HumanGame.objects.get(pk=game.pk + 1).rematch_of_id == game.pk


def test_a_three_seat_game_from_the_game_page_resumes_after_a_reload_and_plays_by_keyboard(
    page_at, live_server, people
):
    # Sweep, where every seat drafts in every round: a game of Pairs may end before a seat
    # is ever asked (the others fold out first).
    player, _, _ = people
    page = page_at(NARROW, 800)
    log_in(page, live_server.url, LONG)
    page.goto(f"{live_server.url}/games/pairs-sweep/")
    follow(page, "#play-game-link")
    page.select_option("#players", "4")
    follow(page, "#players-form button")
    page.select_option("#players", "3")
    follow(page, "#players-form button")
    page.select_option("select[name=seat]", "1")
    page.select_option("select[name=other_1]", "policy:random")
    page.select_option("select[name=other_2]", "policy:random")
    follow(page, "#play-start")
    game = HumanGame.objects.get(user=player)
    assert game.seat == 1
    worker = worker_for_newest_game()
    wait_for_your_turn(page, game)
    # Leave and come back: the same turn is waiting.
    turn = page.get_attribute("#play", "data-turn")
    page.reload()
    page.wait_for_function(
        "() => document.getElementById('play').dataset.status === 'your_turn'", timeout=30000
    )
    assert page.get_attribute("#play", "data-turn") == turn
    # The keyboard alone: the key 1 plays the first move.
    page.keyboard.press("1")
    page.wait_for_function(
        "(t) => { const p = document.getElementById('play');"
        " return p.dataset.turn !== t || p.dataset.status !== 'your_turn'; }",
        arg=turn,
        timeout=30000,
    )
    screenshot(page, "play-three-seats-after-a-key")
    click_through(page, random.Random(3), shots="play-three-seats")
    worker.join(30)
    assert worker.error is None
    check_page(page, "play-three-seats-finished")
    seats = Match.objects.get(human_game=game).result["seats"]
    assert len(seats) == 3 and seats[1]["bot"] == f"{LONG} (person)"
    assert not page.script_errors


def test_another_person_cannot_open_the_game(page_at, live_server, people):
    player, owner, demo = people
    game = HumanGame.objects.create(user=player, seat=0, move_seconds=60)
    page = page_at(WIDE)
    log_in(page, live_server.url, "owner")
    answer = page.goto(f"{live_server.url}/play/{game.pk}/")
    assert answer.status == 404
    anonymous = page_at(WIDE)
    anonymous.goto(f"{live_server.url}/play/{game.pk}/")
    assert "/login/" in anonymous.url
