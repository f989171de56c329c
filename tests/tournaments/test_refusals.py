"""A refused tournament says, per field, what to do: every format's and game's refusals
land on the setting at fault, never as a format's or engine's own sentence alone."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from tests.support.builders import active_bots, user
from tournaments import services
from tournaments.models import Tournament

FORMATS = list(Tournament.Format.values)
# What a developer reads, not an organiser: none of these may reach a refusal.
DEVELOPER_TEXT = ("entrants cannot fill", "got ", "bot ids", "Ensure this value", "option '")


def refusal(count: int = 3, game: str = "pairs", **settings) -> dict[str, list[str]]:
    owner = user(name="org")
    bots = active_bots(owner=owner, count=count, game=game)
    with pytest.raises(ValidationError) as caught:
        services.create_tournament(
            organiser=owner, name="cup", game=game, bot_ids=[b.pk for b in bots], **settings
        )
    assert not Tournament.objects.exists()
    errors = caught.value.message_dict
    for messages in errors.values():
        for message in messages:
            assert not any(text in message for text in DEVELOPER_TEXT), message
    return errors


@pytest.mark.django_db
@pytest.mark.parametrize("format", FORMATS)
def test_one_bot_is_told_to_pick_two_in_every_format(format):
    extra = {"challengers": []} if format == "gauntlet" else {}
    errors = refusal(count=1, format=format, **extra)
    assert errors["bots"] == ["Pick at least two bots (you picked 1)"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("settings", "field", "words"),
    [
        (
            {"format": "round_robin", "players_per_match": 4},
            "bots",
            "Pick at least 4 bots: each game seats 4 (you picked 3)",
        ),
        (
            {"format": "single_elimination", "players_per_match": 3, "third_place": True},
            "third_place",
            "A series for third place needs two-seat games",
        ),
        (
            {"format": "single_elimination", "players_per_match": 2, "advance": 2},
            "advance",
            "With two seats one bot goes through each series: leave it at 1",
        ),
        (
            {"format": "double_elimination", "players_per_match": 3},
            "players_per_match",
            "Double elimination plays two-seat games: set players per match to 2",
        ),
        ({"format": "round_robin", "challengers": [1]}, "challengers", "gauntlet only"),
        ({"rotate_seats": True, "games_per_pairing": 5}, "games_per_pairing", "try 4 or 6"),
        ({"move_ms": 5}, "move_ms", "from 10 to 60000 ms"),
        ({"options": {"stake": 0}}, "options.stake", "Stake must be at least 1: try 1 or more"),
        ({"options": {"continuous": 3}}, "options.continuous", "on or off"),
    ],
)
def test_each_refusal_sits_on_its_field(settings, field, words):
    errors = refusal(**settings)
    assert any(words in message for message in errors[field]), errors


@pytest.mark.django_db
def test_a_field_narrowed_by_tables_is_told_which_sizes_fit():
    errors = refusal(count=6, format="single_elimination", players_per_match=3, advance=1)
    assert errors["bots"] == [
        "With tables of 3 and 1 going through each, the field must be 3, 5, 7, 9… bots "
        "(you picked 6): change the bots, or how many go through"
    ]


@pytest.mark.django_db
def test_a_table_size_a_game_refuses_lands_on_the_players():
    errors = refusal(count=5, game="paks", players_per_match=5)  # Paks has no table of five
    assert errors["players_per_match"] == [
        "Paks cannot be played by 5: it takes 2 or 3 players alone, or 4 or 6 in two teams"
    ]


@pytest.mark.django_db
def test_options_a_game_refuses_together_land_on_the_option():
    errors = refusal(game="punk", options={"dice": 6, "fixed_opening": True})
    assert errors["options.fixed_opening"] == [
        "Fixed opening needs cards: dice have no fixed opening hand"
    ]


@pytest.mark.django_db
def test_every_mistake_is_found_at_once():
    errors = refusal(count=1, games_per_pairing=3, rounds=0, move_ms=5, options={"games": 99})
    assert set(errors) == {"bots", "games_per_pairing", "rounds", "move_ms", "options.games"}


@pytest.mark.django_db
def test_a_table_too_big_is_refused_alone():
    # Not also "games per pairing must be a multiple of 200": the seats are the mistake.
    assert refusal(players_per_match=200) == {
        "players_per_match": ["Pairs is played by 2 to 8 players: give a number from 2 to 8"]
    }
