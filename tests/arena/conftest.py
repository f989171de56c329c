from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bots.models import Bot
from games import registry
from games.policies import play_out, random_policy
from games.rng import Rng
from tests.support.builders import version
from tournaments import readcache, selectors
from tournaments.models import Match, MatchSeat
from tournaments.readcache.replay_answers import forget_all as forget_replay_bodies


@pytest.fixture
def make_user(db):
    def make(username: str):
        user = get_user_model().objects.create_user(username=username, password="correct horse 1")
        return user

    return make


@pytest.fixture
def owner(db):
    """The owner of the stored-read tests' bots and ladder."""
    return get_user_model().objects.create_user(username="ladder-owner")


@pytest.fixture
def client_for():
    def make(user):
        client = APIClient()
        if user is not None:
            client.credentials(
                HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}"
            )
        return client

    return make


@pytest.fixture
def stored_version(db):
    """A version stored directly (no validation match): for permission tests."""

    def make(bot: Bot, source: bytes = b"print('secret strategy')\n"):
        return version(bot=bot, source=source, announce=False)

    return make


@pytest.fixture
def empty_cache(monkeypatch):
    """Nothing stored before or after the test (stored reads and replays). Every stored
    answer is also kept in the process's memory, however small (in production only the
    largest are): each test of a stored read holds the kept copy to its rules too."""
    monkeypatch.setattr(readcache, "MEMORY_FROM", 0)
    cache.clear()
    forget_replay_bodies()
    readcache.forget_kept()
    yield
    cache.clear()
    forget_replay_bodies()
    readcache.forget_kept()


@pytest.fixture
def finished_match(make_user, stored_version):
    """A Paiute match (hidden hands) played out in-process and stored as the worker stores one."""
    game = registry.get("paiute")
    state = play_out(game.new_match(players=2, seed=7), [random_policy] * 2, Rng(7))
    match = Match.objects.create(
        game="paiute",
        engine_version=game.version,
        seed=7,
        status=Match.Status.FINISHED,
        result={"seats": [{"seat": 0}, {"seat": 1}]},
        moves=[],
        record=state.to_json(),
    )
    owner = make_user("alice")
    for seat in (0, 1):
        bot = Bot.objects.create(owner=owner, name=f"b{seat}", game="paiute")
        MatchSeat.objects.create(match=match, seat=seat, version=stored_version(bot))
    yield match
    for seat in (None, 0, 1):
        cache.delete(selectors.replay_cache_key(match=match, seat=seat))
