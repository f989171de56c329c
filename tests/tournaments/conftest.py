"""Fixtures the tournaments tests share: a started tournament, and the ladder tests' owner."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tests.support.builders import active_bots, started_tournament, user


@pytest.fixture
def tournament(db):
    """A started round robin of three bots, two games a pairing: six matches queued."""
    owner = user(name="org")
    bots = active_bots(owner=owner, count=3)
    return started_tournament(organiser=owner, bots=bots, games_per_pairing=2, seed=99)


@pytest.fixture
def owner(db):
    """The owner of the ladder tests' bots."""
    return get_user_model().objects.create_user(username="ladder-owner")
