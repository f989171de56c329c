"""The tournament page's live fragment, its bracket, rounds and crosstable, paged matches,
the typed game options of the tournament form and its time-zone conversion."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from arena.dashboard.forms import TournamentForm, local_to_utc, option_field_name
from arena.dashboard.tournament_page import MATCHES_PER_PAGE, points_text, time_left_text
from games import registry
from tests.support.builders import active_bots, bot_with_version, play_queued, started_tournament
from tournaments import selectors
from tournaments.models import Tournament


@pytest.fixture
def organiser(db, client):
    user = get_user_model().objects.create_user(username="org", password="a long password 42")
    client.force_login(user)
    return user


def started(organiser, count=4, **settings) -> Tournament:
    bots = active_bots(owner=organiser, count=count)
    return started_tournament(organiser=organiser, bots=bots, **settings)


def test_the_live_fragment_polls_while_running_and_stops_at_the_end(client, organiser):
    tournament = started(organiser, 3)
    live = client.get(f"/tournaments/{tournament.pk}/live/")
    assert live.status_code == 200
    text = live.content.decode()
    assert text.startswith('<div id="live"')
    assert 'hx-trigger="every 3s"' in text and "<html" not in text
    assert "0 of 6 matches played, 6 queued" in text
    assert 'id="organiser"' not in text  # the organiser's controls stay while it runs
    play_queued(tournament_id=tournament.pk, limit=2)
    text = client.get(f"/tournaments/{tournament.pk}/live/").content.decode()
    assert "2 of 6 matches played" in text
    assert 'aria-valuenow="2"' in text
    assert "Time left: about 1 min" in text
    play_queued(tournament_id=tournament.pk)
    text = client.get(f"/tournaments/{tournament.pk}/live/").content.decode()
    assert "6 of 6 matches played" in text
    assert "hx-trigger" not in text  # finished: the page stops polling
    assert '<div id="organiser" hx-swap-oob="true"></div>' in text  # and drops the cancel
    assert 'id="status" class="status finished" hx-swap-oob="true"' in text
    assert "Time left" not in text
    # The full page has neither a refresh tag nor htmx once it is over.
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'http-equiv="refresh"' not in page and "htmx.min.js" not in page


def test_the_full_page_loads_htmx_and_never_refreshes_itself(client, organiser):
    tournament = started(organiser, 3)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'http-equiv="refresh"' not in page
    assert "arena/vendor/htmx.min.js" in page
    assert f'hx-get="/tournaments/{tournament.pk}/live/"' in page


def test_an_unknown_tournament_has_no_fragment(client, db):
    assert client.get("/tournaments/999999/live/").status_code == 404


def shown_matches(html: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'<a href="/matches/([0-9]+)/">', html)]


def link(html: str, rel: str) -> str | None:
    found = re.search(rf'rel="{rel}" href="[^"?]*\?((?:before|after)=[0-9.]+)', html)
    return found.group(1) if found else None


def test_matches_come_in_keyset_pages_of_fifty_newest_first(client, organiser):
    tournament = started(organiser, 8, games_per_pairing=4)  # 28 pairings x 4 = 112 games
    newest_first = tournament.matches.order_by("-round", "-number", "-id")
    ids = list(newest_first.values_list("pk", flat=True))
    assert len(ids) == 112
    page = f"/tournaments/{tournament.pk}/"
    live = f"/tournaments/{tournament.pk}/live/"
    first = client.get(page).content.decode()
    assert shown_matches(first) == ids[:MATCHES_PER_PAGE]
    assert f'hx-get="{live}"' in first and link(first, "prev") is None
    older = link(first, "next")
    second = client.get(f"{live}?{older}").content.decode()
    assert shown_matches(second) == ids[50:100]
    assert f'hx-get="{live}?{older}"' in second  # polling keeps the reader's place
    back = client.get(f"{live}?{link(second, 'prev')}").content.decode()
    assert shown_matches(back) == ids[:50]
    last = client.get(f"{live}?{link(second, 'next')}").content.decode()
    assert shown_matches(last) == ids[100:] and link(last, "next") is None
    assert shown_matches(client.get(f"{page}?after=0").content.decode()) == ids[-50:]
    # Walking the older links reaches every match exactly once, and back again.
    seen, query = [], ""
    while query is not None:
        html = client.get(f"{page}?{query}").content.decode()
        seen += shown_matches(html)
        query = link(html, "next")
    assert seen == ids
    seen, query = [], "after=0"
    while query is not None:
        html = client.get(f"{page}?{query}").content.decode()
        seen = shown_matches(html) + seen
        query = link(html, "prev")
    assert seen == ids
    # Nonsense gives a page, never an error; a cursor past an end gives that end's page.
    assert shown_matches(client.get(f"{page}?before=abc").content.decode()) == ids[:50]
    assert shown_matches(client.get(f"{page}?before=1.1.1").content.decode()) == ids[-50:]
    assert shown_matches(client.get(f"{page}?after=99.99.99").content.decode()) == ids[:50]


def test_a_match_page_keeps_its_rows_while_matches_are_added(client, organiser):
    tournament = started(organiser, 8, games_per_pairing=4)
    page = f"/tournaments/{tournament.pk}/"
    older = link(client.get(page).content.decode(), "next")
    before = shown_matches(client.get(f"{page}?{older}").content.decode())
    newest = tournament.matches.order_by("-pk").first()
    for n in range(3):  # three more matches arrive (copies, for the rows only)
        newest.pk = None
        newest.pairing_key = f"extra-{n}"
        newest.number += 1000
        newest.save()
    after = shown_matches(client.get(f"{page}?{older}").content.decode())
    assert after == before and len(after) == MATCHES_PER_PAGE


def test_a_ladder_pages_its_matches_by_id(client, db):
    from tournaments.models import Ladder, Match

    ladder = Ladder.objects.create(key="pairs:2", game="pairs", players=2)
    ids = [
        Match.objects.create(
            game="pairs", engine_version=1, seed=i, ladder=ladder, round=i, status="finished"
        ).pk
        for i in range(120)
    ]
    html = client.get(f"/ladders/{ladder.pk}/").content.decode()
    assert shown_matches(html) == sorted(ids, reverse=True)[:50]
    second = client.get(f"/ladders/{ladder.pk}/?{link(html, 'next')}").content.decode()
    assert shown_matches(second) == sorted(ids, reverse=True)[50:100]


def test_a_ladder_lists_only_its_own_matches_past_newer_tournament_ones(
    client, db, django_assert_max_num_queries
):
    """Ladder pages read the page's ids first (tournaments.selectors.LadderMatchQuerySet):
    still only the ladder's matches, in order, with their seats, past newer matches of
    other events, on both ends of the list and in the API."""
    from rest_framework.test import APIClient

    from tournaments.models import Ladder, Match

    ladder = Ladder.objects.create(key="pairs:2", game="pairs", players=2)
    other = Ladder.objects.create(key="pairs:3", game="pairs", players=3)
    ids = []
    for i in range(130):
        made = Match.objects.create(
            game="pairs", engine_version=1, seed=i, ladder=ladder, round=i, status="finished"
        )
        ids.append(made.pk)
        Match.objects.create(game="pairs", engine_version=1, seed=i, ladder=other, round=i)
    for i in range(60):  # newer than every ladder match, none of them the ladder's
        Match.objects.create(game="pairs", engine_version=1, seed=i, round=i)
    newest = sorted(ids, reverse=True)
    with django_assert_max_num_queries(5):
        html = client.get(f"/ladders/{ladder.pk}/").content.decode()
    assert shown_matches(html) == newest[:50]
    assert (
        shown_matches(client.get(f"/ladders/{ladder.pk}/?after=0").content.decode())
        == (newest[-50:])
    )
    api = APIClient()
    body = api.get(f"/api/ladders/{ladder.pk}/matches/?page_size=40").json()
    assert [m["id"] for m in body["results"]] == newest[:40]
    following = api.get(body["next"]).json()
    assert [m["id"] for m in following["results"]] == newest[40:80]
    back = api.get(following["previous"]).json()
    assert [m["id"] for m in back["results"]] == newest[:40]


def test_the_crosstable_of_a_round_robin(client, organiser):
    tournament = started(organiser, 3)
    play_queued(tournament_id=tournament.pk)  # the lower bot id wins every game
    text = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'id="crosstable"' in text
    bots = sorted(tournament.entries.values_list("bot_id", flat=True))
    pairwise = selectors.game_points(tournament=tournament)["pairwise"]
    assert pairwise[(bots[0], bots[1])] == [2.0, 2]
    assert pairwise[(bots[2], bots[0])] == [0.0, 2]
    crosstable = client.get(f"/tournaments/{tournament.pk}/").context["crosstable"]
    first = crosstable["rows"][0]
    assert first["bot_id"] == bots[0]
    assert [c.get("points") for c in first["cells"]] == [None, "2", "2"]
    assert first["cells"][0]["self"]


def test_more_than_thirty_entrants_get_a_note_instead_of_a_crosstable(client, organiser):
    tournament = started(organiser, 31, games_per_pairing=2)
    text = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'id="crosstable-note"' in text and 'id="crosstable"' not in text


def test_swiss_round_tables_show_points_and_byes(client, organiser):
    tournament = started(organiser, 5, format="swiss", rounds=2, seeding="entry")
    play_queued(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    response = client.get(f"/tournaments/{tournament.pk}/")
    rounds = response.context["round_tables"]
    assert [r["round"] for r in rounds] == [1, 2]
    assert all(len(r["byes"]) == 1 and len(r["tables"]) == 2 for r in rounds)
    for table in rounds[0]["tables"]:
        assert table["played"]
        # The lower bot id wins both games of the pairing: 2 - 0.
        assert sorted(s["points"] for s in table["seats"]) == ["0", "2"]
    text = response.content.decode()
    assert "sits out and scores a win" in text and 'id="round-2"' in text


def test_a_finished_double_elimination_bracket_names_its_champion(client, organiser):
    tournament = started(organiser, 4, format="double_elimination", seeding="entry")
    play_queued(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    response = client.get(f"/tournaments/{tournament.pk}/")
    text = response.content.decode()
    champion = tournament.entries.order_by("place").first().bot.name
    assert f"Champion: <strong>{champion}</strong>" in text
    stages = [s["stage"] for s in response.context["bracket"]]
    assert stages == ["winners", "losers", "final"]
    final = response.context["bracket"][-1]["rounds"]
    states = [box["state"] for r in final for box in r["series"]]
    # The winners' champion won the first final: the reset is not needed.
    assert states == ["decided", "not needed"]
    assert "winner" in text and 'class="series not-needed"' in text


def test_a_bracket_with_byes_says_so(client, organiser):
    tournament = started(organiser, 3, format="single_elimination", seeding="entry")
    text = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'class="series bye"' in text


def test_cancel_asks_first_without_javascript(client, organiser):
    tournament = started(organiser, 3)
    confirm = client.get(f"/tournaments/{tournament.pk}/cancel/")
    assert confirm.status_code == 200 and "cannot be undone" in confirm.content.decode()
    tournament.refresh_from_db()
    assert tournament.status == "running"  # asking changes nothing


def test_small_texts():
    assert [points_text(v) for v in (0.0, 0.5, 1.0, 1.5, 12.5)] == ["0", "½", "1", "1½", "12½"]
    assert time_left_text(None) == "" and time_left_text(5) == "about 1 min"
    assert time_left_text(61) == "about 2 min"


# --- The tournament form: typed game options and the start time zone. ---


def form_data(bots, game="pairs", **fields) -> dict:
    return {
        "name": "web cup",
        "game": game,
        "bots": [b.pk for b in bots],
        "format": "round_robin",
        "seeding": "rating",
        "move_ms": 1000,
        "bank_ms": 10000,
        "rotate_seats": "on",
        "rated": "on",
        **fields,
    }


def defaults_as_posted(slug: str) -> dict:
    """What a browser posts for a game's option inputs left at their initial values."""
    posted = {}
    for name, option in registry.get(slug).options.items():
        field = option_field_name(slug, name)
        if isinstance(option.default, bool):
            if option.default:
                posted[field] = "on"
        else:
            posted[field] = str(option.default)
    return posted


@pytest.mark.parametrize("slug", registry.slugs())
def test_every_games_option_defaults_round_trip(organiser, slug):
    form = TournamentForm(form_data([], game=slug, **defaults_as_posted(slug)), organiser=organiser)
    form.is_valid()
    assert not [name for name in form.errors if name.startswith("option__")], form.errors
    assert form.cleaned_data["options"] == {}
    # Each input shows its default and its help.
    for name, option in registry.get(slug).options.items():
        field = form.fields[option_field_name(slug, name)]
        assert field.initial == option.default
        assert option.help in field.help_text


def test_typed_options_become_the_options_dict(client, organiser):
    bots = active_bots(owner=organiser, count=2, game="pairs-rocket")
    fields = {
        option_field_name("pairs-rocket", "decks"): "3",
        option_field_name("pairs-rocket", "max_bet"): "100",
        option_field_name("pairs-rocket", "button"): "on",
        option_field_name("pairs-rocket", "rotations"): "1",
        # Another game's inputs are not read, even nonsense.
        option_field_name("pairs", "games"): "many",
    }
    answer = client.post("/tournaments/new/", form_data(bots, game="pairs-rocket", **fields))
    assert answer.status_code == 302, answer.content.decode()[-3000:]
    chosen = {"decks": 3, "max_bet": 100, "button": True}
    assert Tournament.objects.get().options == registry.get("pairs-rocket").resolve_options(chosen)


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("decks", "9", "Decks must be 8 or less"),
        ("decks", "two", "Decks must be a whole number"),
        ("max_bet", "70", "Max bet must be one of"),
    ],
)
def test_bad_option_values_are_clear_form_errors(client, organiser, field, value, message):
    bots = active_bots(owner=organiser, count=2, game="pairs-rocket")
    data = form_data(bots, game="pairs-rocket", **{option_field_name("pairs-rocket", field): value})
    answer = client.post("/tournaments/new/", data)
    assert answer.status_code == 200
    assert message in answer.content.decode()
    assert not Tournament.objects.exists()


def test_local_times_become_utc():
    summer = local_to_utc(datetime(2026, 7, 1, 18, 0), "Europe/Paris")
    assert summer == datetime(2026, 7, 1, 16, 0, tzinfo=UTC)
    winter = local_to_utc(datetime(2026, 12, 1, 18, 0), "Europe/Paris")
    assert winter == datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
    assert local_to_utc(datetime(2026, 12, 1, 18, 0), "") == datetime(2026, 12, 1, 18, tzinfo=UTC)
    # An aware reading (Django's, in UTC) keeps its wall-clock reading.
    aware = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)
    assert local_to_utc(aware, "America/New_York") == datetime(2026, 12, 1, 23, 0, tzinfo=UTC)
    with pytest.raises(ValueError, match="unknown time zone"):
        local_to_utc(datetime(2026, 12, 1), "Mars/Olympus")


@pytest.mark.parametrize(
    "zone, stored",
    [
        ("Asia/Tokyo", datetime(2030, 1, 2, 0, 30, tzinfo=UTC)),
        ("", datetime(2030, 1, 2, 9, 30, tzinfo=UTC)),  # no script: read as UTC
    ],
)
def test_the_form_stores_the_start_in_utc(client, organiser, zone, stored):
    bots = active_bots(owner=organiser, count=2)
    data = form_data(bots, start_at="2030-01-02T09:30", time_zone=zone)
    answer = client.post("/tournaments/new/", data)
    assert answer.status_code == 302, answer.content.decode()[-3000:]
    tournament = Tournament.objects.get()
    assert tournament.start_at == stored
    assert tournament.status == "scheduled"
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert stored.strftime("starts %Y-%m-%d %H:%M UTC") in page


def test_an_unknown_zone_is_a_form_error(client, organiser):
    bots = active_bots(owner=organiser, count=2)
    data = form_data(bots, start_at="2030-01-02T09:30", time_zone="Nowhere/Land")
    answer = client.post("/tournaments/new/", data)
    assert "unknown time zone" in answer.content.decode()
    assert not Tournament.objects.exists()


def test_a_start_in_the_past_is_refused_on_its_field_with_the_time_now(client, organiser):
    bots = active_bots(owner=organiser, count=2)
    answer = client.post("/tournaments/new/", form_data(bots, start_at="2024-01-15T09:00"))
    page = answer.content.decode()
    assert answer.status_code == 200 and not Tournament.objects.exists()
    # On the start's own field (arena/field.html), not at the top of the form.
    field = page[page.index('<label for="id_start_at"') : page.index('id="start-zone"')]
    assert "2024-01-15 09:00 UTC has passed (it is now " in field
    # The minute being typed is now, not a mistake.
    just_now = timezone.now().strftime("%Y-%m-%dT%H:%M")
    assert client.post("/tournaments/new/", form_data(bots, start_at=just_now)).status_code == 302


def test_the_api_refuses_a_past_start_with_its_field(organiser):
    from rest_framework.test import APIClient

    bots = active_bots(owner=organiser, count=2)
    api = APIClient()
    api.force_authenticate(organiser)
    body = {"name": "cup", "game": "pairs", "bots": [b.pk for b in bots]}
    refused = api.post("/api/tournaments/", {**body, "start_at": "2024-01-15T09:00:00Z"}, "json")
    assert refused.status_code == 400
    assert "leave start_at out" in refused.json()["errors"]["start_at"][0]
    assert not Tournament.objects.exists()
    soon = (timezone.now() - timedelta(seconds=30)).isoformat()
    assert api.post("/api/tournaments/", {**body, "start_at": soon}, "json").status_code == 201


def test_bots_carry_their_game_for_the_page_to_filter(client, organiser):
    bot_with_version(owner=organiser, name="paired", game="pairs", announce=False)
    bot_with_version(owner=organiser, name="punker", game="punk", announce=False)
    page = client.get("/tournaments/new/").content.decode()
    assert 'data-game="pairs"' in page and 'data-game="punk"' in page
    assert 'type="datetime-local"' in page
    assert '<textarea name="options"' not in page  # no raw JSON any more
    for slug in registry.slugs():  # without scripts, every game's options are there
        assert f'<fieldset class="game-options" data-game="{slug}"' in page


def test_the_server_refuses_a_bot_of_another_game(client, organiser):
    pairs = [
        bot_with_version(owner=organiser, name=f"paired{i}", game="pairs", announce=False)[0]
        for i in range(2)
    ]
    other = bot_with_version(owner=organiser, name="punker", game="punk", announce=False)[0]
    answer = client.post("/tournaments/new/", form_data([*pairs, other]))
    assert answer.status_code == 200
    assert "punker plays punk, not pairs" in answer.content.decode()
    assert not Tournament.objects.exists()
