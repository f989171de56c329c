"""The training example end to end on the server path: train a small Pairs policy on the
PettingZoo adapter, package it as a zip bot, upload it and let the product's validation
service validate it, then play matches in the sandbox (the bots' runner) against the
built-in random bot and beat it beyond chance."""

from __future__ import annotations

import math

import pytest
from django.contrib.auth import get_user_model

from bots import services
from bots.models import BotVersion
from bots.players import BuiltinPlayer, ProgramPlayer
from bots.runner import play_match
from bots.sandbox import Limits
from examples.training.pairs_linear.train import package, train
from games import registry

MATCHES = 30
WINS_NEEDED = 24  # P(X >= 24) for X ~ Binomial(30, 1/2) is below 0.001: no coin flip


def test_the_threshold_is_beyond_chance():
    tail = sum(math.comb(MATCHES, k) for k in range(WINS_NEEDED, MATCHES + 1)) / 2**MATCHES
    assert tail < 0.001


@pytest.fixture
def cache(settings, tmp_path):
    settings.ARENA_BOT_CACHE = tmp_path / "bot-cache"
    return settings.ARENA_BOT_CACHE


@pytest.mark.django_db
def test_trained_policy_uploads_validates_and_beats_random(tmp_path, cache):
    policy = train(episodes=600, seed=1)
    archive = package(policy, tmp_path / "pairs_linear.zip")

    owner = get_user_model().objects.create_user(username="trainer")
    bot = services.create_bot(owner=owner, name="pairs-linear", game="pairs")
    version = services.upload_version(bot=bot, filename=archive.name, data=archive.read_bytes())
    version = services.validate_version(version_id=version.pk)
    assert version.status == BotVersion.Status.ACTIVE, version.reason

    game = registry.get("pairs")
    folder = services.version_dir(version=version)
    wins = 0
    for match in range(MATCHES):
        hero = match % 2  # both seats, in turn
        players = [BuiltinPlayer(game, "random", 500 + match) for _ in range(2)]
        players[hero] = ProgramPlayer(folder, Limits(), label="pairs-linear")
        outcome = play_match(game_slug="pairs", players=players, options={}, seed=9000 + match)
        seats = outcome.result["seats"]
        assert seats[hero]["fault"] is None, seats[hero]["fault"]
        wins += seats[hero]["rank"] < seats[1 - hero]["rank"]
    assert wins >= WINS_NEEDED, f"won {wins} of {MATCHES}"
