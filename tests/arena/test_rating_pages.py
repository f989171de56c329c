"""The rating pages: leaderboard per pool, head to head, and the bot page's gating section."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.support.builders import bot_with_version, finished_match, user
from tournaments import services

pytestmark = pytest.mark.django_db


def test_leaderboard_page_shows_intervals_pools_and_refuses_unknown_pools():
    _, a = bot_with_version(name="alpha")
    _, b = bot_with_version(name="beta")
    for seed in range(6):
        finished_match(versions=[a, b], ranks=[1, 2] if seed % 3 else [2, 1], seed=seed)
    finished_match(versions=[a, b], ranks=[1, 2], seed=9, options={"continuous": True})
    services.fit_pool(pool="pairs:2")
    page = Client().get("/games/pairs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Pairs, 2 players (standard)" in html and "Pairs, 2 players, continuous" in html
    assert "95% interval" in html and "provisional" in html and "4-0-2" in html
    other = Client().get("/games/pairs/?pool=pairs:2:continuous=true").content.decode()
    assert "1-0-0" in other and "live" in other  # not fitted yet: the live estimate, marked
    assert Client().get("/games/pairs/?pool=punk:2").status_code == 404
    assert Client().get("/games/pairs/?pool=pairs:2:stake=2").status_code == 404


def test_head_to_head_page_compares_two_bots():
    bot_a, a = bot_with_version(name="alpha")
    bot_b, b = bot_with_version(name="beta")
    finished_match(versions=[a, b], ranks=[1, 2], seed=1)
    finished_match(versions=[b, a], ranks=[1, 2], seed=1)  # the same deal, seats swapped: a pair
    html = Client().get(f"/games/pairs/head-to-head/?a={bot_a.pk}&b={bot_b.pk}").content.decode()
    assert "alpha against beta" in html and "1-0-1" in html and "1 pairs" in html
    same = Client().get(f"/games/pairs/head-to-head/?a={bot_a.pk}&b={bot_a.pk}").content.decode()
    assert "Pick two different bots." in same
    assert Client().get("/games/nogame/head-to-head/").status_code == 404


def test_owner_turns_gating_on_from_the_bot_page_and_others_cannot():
    bot, _ = bot_with_version(name="alpha")
    client = Client()
    client.force_login(bot.owner)
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert 'id="gating-form"' in page and "Off: a new version" in page
    answer = client.post(
        f"/bots/{bot.pk}/gating/",
        {"gating": "on", "elo0": "0", "elo1": "15", "max_games": "300"},
        follow=True,
    )
    bot.refresh_from_db()
    assert bot.gating and bot.gate_elo1 == 15 and bot.gate_max_games == 300
    assert "elo1 15, at most 300 games" in answer.content.decode()
    refused = client.post(
        f"/bots/{bot.pk}/gating/",
        {"gating": "on", "elo0": "20", "elo1": "15", "max_games": "300"},
        follow=True,
    )
    assert "elo1 must be greater than elo0" in refused.content.decode()
    bot.refresh_from_db()
    assert bot.gate_elo0 == 0
    stranger = Client()
    stranger.force_login(user(name="stranger"))
    assert stranger.post(f"/bots/{bot.pk}/gating/", {"elo0": "0"}).status_code == 404
    assert 'id="gating-form"' not in stranger.get(f"/bots/{bot.pk}/").content.decode()


def test_the_gating_box_shows_only_when_gating_is_on_or_to_its_owner():
    bot, _ = bot_with_version(name="student_minimax_alphabeta_v2")
    page = Client().get(f"/bots/{bot.pk}/").content.decode()
    assert 'id="gating"' not in page and "head to head" in page  # off: nothing to read
    owner = Client()
    owner.force_login(bot.owner)
    mine = owner.get(f"/bots/{bot.pk}/").content.decode()
    assert '<details id="gating"' in mine and "Test new versions before they play" in mine
    owner.post(
        f"/bots/{bot.pk}/gating/",
        {"gating": "on", "elo0": "0", "elo1": "15", "max_games": "300"},
    )
    page = " ".join(Client().get(f"/bots/{bot.pk}/").content.decode().split())
    assert '<section id="gating">' in page and "New versions are tested first" in page
    assert "about 15 Elo stronger" in page and "wrong at most 5%" in page
    assert "after 300 games at most" in page
