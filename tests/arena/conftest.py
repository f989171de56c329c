from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bots.models import Bot
from tests.support.builders import version
from tournaments import readcache
from tournaments.selectors import forget_replay_bodies


@pytest.fixture
def make_user(db):
    def make(username: str):
        user = get_user_model().objects.create_user(username=username, password="correct horse 1")
        return user

    return make


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
