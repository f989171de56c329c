"""The competition pages: the list, the new and edit forms, a competition's page with its
enter form and the organiser's manage box, and the teams page; each read anonymously, as
another user and as the organiser. A form given bad input answers 400 with the refusal on
its field and changes nothing."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from tests.support.builders import bot_with_version, user
from tournaments.models import Announcement, Competition, CompetitionEntry, Team, TeamMember
from tournaments.services import competitions as competition_services
from tournaments.services import teams as team_services

PASSWORD = "a long password 42"


@pytest.fixture
def organiser(db):
    return user(name="organiser", password=PASSWORD)


@pytest.fixture
def author(db):
    return user(name="author", password=PASSWORD)


@pytest.fixture
def other(db):
    return user(name="other", password=PASSWORD)


def client_of(person=None) -> Client:
    client = Client()
    if person is not None:
        client.force_login(person)
    return client


def competition_of(organiser, **fields) -> Competition:
    now = timezone.now()
    settings = {
        "name": "spring season",
        "game": "pairs",
        "players": 2,
        "options": {},
        "opens_at": now - timedelta(minutes=5),
        "deadline": now + timedelta(days=3),
        "final_at": now + timedelta(days=4),
        "final_settings": {"format": "round_robin"},
        **fields,
    }
    return competition_services.create_competition(organiser=organiser, **settings)


def form_data(**changes) -> dict:
    """A valid new-competition form, with ``changes``."""
    now = timezone.now()
    data = {
        "name": "autumn cup",
        "description": "for the class",
        "game": "pairs",
        "players": "2",
        "move_ms": "1000",
        "bank_ms": "10000",
        "opens_at": "",
        "deadline": (now + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M"),
        "final_at": (now + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M"),
        "format": "single_elimination",
        "third_place": "on",
        "advance": "1",
        "rotate_seats": "on",
        "release": "hidden",
        "ladder_hidden_from": "",
        "eligibility": "invite",
        "invite_code": "swordfish",
        "division_size": "4",
        "promote": "1",
        "cycle_minutes": "30",
        "time_zone": "UTC",
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def field_error(html: str, field: str) -> str:
    """The refusal shown beside the input ``field`` (Django's field group: the error list
    with the input's id)."""
    found = re.search(rf'<ul class="errorlist" id="id_{field}_error">(.*?)</ul>', html, re.S)
    assert found, f"no refusal beside {field}"
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


def stored(competition: Competition) -> tuple:
    competition.refresh_from_db()
    entries = tuple(competition.entries.order_by("id").values_list("bot_id", "status", "reason"))
    return (
        competition.name,
        competition.deadline,
        competition.release,
        competition.paused,
        competition.eligibility,
        entries,
        competition.announcements.count(),
        competition.teams.count(),
    )


# --- the list and the nav ----------------------------------------------------------------


@pytest.mark.parametrize("who", ["anonymous", "other", "organiser"])
def test_the_list_shows_every_competition_to_everyone(organiser, other, who):
    competition = competition_of(organiser)
    person = {"anonymous": None, "other": other, "organiser": organiser}[who]
    answer = client_of(person).get("/competitions/")
    html = answer.content.decode()
    assert answer.status_code == 200
    assert f'href="/competitions/{competition.pk}/"' in html
    assert "spring season" in html
    assert 'href="/competitions/"' in html  # the nav link
    assert ('id="new-competition"' in html) == (person is not None)


def test_the_new_form_asks_to_log_in(db):
    answer = client_of().get("/competitions/new/")
    assert answer.status_code == 302 and "/login/" in answer["Location"]
    answer = client_of().post("/competitions/new/", form_data())
    assert answer.status_code == 302 and "/login/" in answer["Location"]
    assert not Competition.objects.exists()


# --- creating and editing --------------------------------------------------------------------


def test_an_organiser_creates_a_competition_through_the_form(organiser):
    web = client_of(organiser)
    assert web.get("/competitions/new/").status_code == 200
    answer = web.post("/competitions/new/", form_data())
    competition = Competition.objects.get()
    assert answer.status_code == 302 and answer["Location"] == f"/competitions/{competition.pk}/"
    assert competition.organiser == organiser
    assert competition.name == "autumn cup" and competition.description == "for the class"
    assert competition.final_settings["format"] == "single_elimination"
    assert competition.final_settings["third_place"] is True
    assert competition.release == "hidden"
    assert (competition.eligibility, competition.invite_code) == ("invite", "swordfish")
    assert (competition.division_size, competition.promote, competition.cycle_minutes) == (4, 1, 30)
    assert abs(competition.opens_at - timezone.now()) < timedelta(minutes=1)


def test_dates_are_read_in_the_browsers_time_zone(organiser):
    answer = client_of(organiser).post(
        "/competitions/new/",
        form_data(
            deadline="2031-03-04T10:00", final_at="2031-03-05T10:00", time_zone="Europe/Paris"
        ),
    )
    assert answer.status_code == 302
    competition = Competition.objects.get()
    assert competition.deadline.isoformat() == "2031-03-04T09:00:00+00:00"


@pytest.mark.parametrize(
    "changes, field, words",
    [
        ({"name": ""}, "name", "Give the competition a name"),
        ({"deadline": "not a date"}, "deadline", "Give a date and a time"),
        ({"deadline": "2001-01-01T10:00"}, "deadline", "deadline comes after the opening"),
        (
            {"final_at": (timezone.now() + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")},
            "final_at",
            "final starts at the deadline or after it",
        ),
        ({"invite_code": ""}, "invite_code", "invite code"),
        ({"division_size": "1"}, "division_size", "Division size must be 2 or more"),
        ({"cycle_minutes": "many"}, "cycle_minutes", "must be a whole number"),
        ({"players": "12", "game": "pairs-five-cards"}, "players", "played by 2 players"),
        ({"game": "chess"}, "game", "Pick a game of the list"),
        ({"format": "gauntlet", "games_per_pairing": "3"}, "games_per_pairing", ""),
    ],
)
def test_bad_input_is_refused_on_its_field_and_nothing_is_stored(organiser, changes, field, words):
    answer = client_of(organiser).post("/competitions/new/", form_data(**changes))
    assert answer.status_code == 400
    html = answer.content.decode()
    assert 'id="error-summary"' in html
    assert words in field_error(html, field)
    assert not Competition.objects.exists()


def test_editing_is_the_organisers_alone(organiser, other):
    competition = competition_of(organiser)
    before = stored(competition)
    assert client_of().get(f"/competitions/{competition.pk}/edit/").status_code == 302
    assert client_of(other).get(f"/competitions/{competition.pk}/edit/").status_code == 403
    answer = client_of(other).post(f"/competitions/{competition.pk}/edit/", form_data())
    assert answer.status_code == 403
    assert stored(competition) == before


def test_the_organiser_edits_the_dates_and_name(organiser):
    competition = competition_of(organiser)
    web = client_of(organiser)
    page = web.get(f"/competitions/{competition.pk}/edit/").content.decode()
    assert 'value="spring season"' in page and "data-utc" in page
    later = (competition.deadline + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    data = form_data(
        name="spring season 2",
        deadline=later,
        final_at=(competition.final_at + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M"),
        opens_at=competition.opens_at.strftime("%Y-%m-%dT%H:%M"),
        format="round_robin",
        release="public",
        eligibility="open",
        invite_code="",
        division_size="",
        cycle_minutes="60",
    )
    answer = web.post(f"/competitions/{competition.pk}/edit/", data)
    assert answer.status_code == 302, answer.content.decode()[:3000]
    competition.refresh_from_db()
    assert competition.name == "spring season 2"
    assert competition.deadline.strftime("%Y-%m-%dT%H:%M") == later


def test_an_edit_with_bad_input_changes_nothing(organiser):
    competition = competition_of(organiser)
    before = stored(competition)
    data = form_data(name="x" * 101, deadline="2001-01-01T10:00")
    answer = client_of(organiser).post(f"/competitions/{competition.pk}/edit/", data)
    assert answer.status_code == 400
    assert "Keep the name to 100 characters" in field_error(answer.content.decode(), "name")
    assert stored(competition) == before


# --- the competition's page ------------------------------------------------------------------


def test_the_page_anonymously(organiser):
    competition = competition_of(organiser, description="Bring your best bot")
    Announcement.objects.create(competition=competition, text="Welcome, everyone")
    answer = client_of().get(f"/competitions/{competition.pk}/")
    html = answer.content.decode()
    assert answer.status_code == 200
    assert "Bring your best bot" in html and "Welcome, everyone" in html
    assert html.count('class="countdown"') == 2  # to the deadline and to the final
    assert competition.seed_commitment in html
    assert 'id="manage"' not in html and 'id="enter-form"' not in html
    assert "Log in</a> to enter" in html
    assert client_of().get("/competitions/999999/").status_code == 404


def test_the_page_as_another_user_offers_their_bots(organiser, other):
    competition = competition_of(organiser)
    mine, _ = bot_with_version(owner=other, name="mybot")
    bot_with_version(owner=other, name="punker", game="punk")  # another game: not offered
    bot_with_version(owner=organiser, name="theirs")  # someone else's: not offered
    html = client_of(other).get(f"/competitions/{competition.pk}/").content.decode()
    assert 'id="enter-form"' in html and 'id="manage"' not in html
    assert f'<option value="{mine.pk}">mybot</option>' in html
    assert "punker" not in html and "theirs" not in html


def test_the_page_as_the_organiser_shows_the_manage_box(organiser):
    competition = competition_of(organiser)
    html = client_of(organiser).get(f"/competitions/{competition.pk}/").content.decode()
    assert 'id="manage"' in html and 'id="pause"' in html and 'id="edit-link"' in html
    assert 'id="reveal"' not in html  # public already: nothing to reveal


# --- entering ----------------------------------------------------------------------------------


def test_an_author_enters_an_open_competition(organiser, author):
    competition = competition_of(organiser)
    bot, _ = bot_with_version(owner=author, name="ace")
    answer = client_of(author).post(f"/competitions/{competition.pk}/enter/", {"bot": bot.pk})
    assert answer.status_code == 302
    entry = CompetitionEntry.objects.get(competition=competition)
    assert (entry.bot, entry.status) == (bot, "accepted")
    html = client_of().get(f"/competitions/{competition.pk}/").content.decode()
    assert f'id="entry-{entry.pk}"' in html and "ace" in html


def test_entering_asks_to_log_in(organiser, author):
    competition = competition_of(organiser)
    bot, _ = bot_with_version(owner=author, name="ace")
    answer = client_of().post(f"/competitions/{competition.pk}/enter/", {"bot": bot.pk})
    assert answer.status_code == 302 and "/login/" in answer["Location"]
    assert not CompetitionEntry.objects.exists()


def test_someone_elses_bot_is_refused_on_the_field(organiser, author, other):
    competition = competition_of(organiser)
    bot, _ = bot_with_version(owner=author, name="ace")
    answer = client_of(other).post(f"/competitions/{competition.pk}/enter/", {"bot": bot.pk})
    assert answer.status_code == 400
    assert "Pick one of your bots" in field_error(answer.content.decode(), "bot")
    answer = client_of(other).post(f"/competitions/{competition.pk}/enter/", {"bot": "x"})
    assert answer.status_code == 400
    assert not CompetitionEntry.objects.exists()


def test_an_invite_code_that_does_not_match_is_refused_on_its_field(organiser, author):
    competition = competition_of(organiser, eligibility="invite", invite_code="swordfish")
    bot, _ = bot_with_version(owner=author, name="ace")
    web = client_of(author)
    url = f"/competitions/{competition.pk}/enter/"
    answer = web.post(url, {"bot": bot.pk, "invite_code": "tuna"})
    assert answer.status_code == 400
    assert "invite code does not match" in field_error(answer.content.decode(), "invite_code")
    answer = web.post(url, {"bot": bot.pk})
    assert "Give the invite code" in field_error(answer.content.decode(), "invite_code")
    assert not CompetitionEntry.objects.exists()
    assert web.post(url, {"bot": bot.pk, "invite_code": "swordfish"}).status_code == 302
    assert CompetitionEntry.objects.get().status == "accepted"


def test_entering_twice_is_refused(organiser, author):
    competition = competition_of(organiser)
    bot, _ = bot_with_version(owner=author, name="ace")
    web = client_of(author)
    web.post(f"/competitions/{competition.pk}/enter/", {"bot": bot.pk})
    answer = web.post(f"/competitions/{competition.pk}/enter/", {"bot": bot.pk})
    assert answer.status_code == 400
    assert CompetitionEntry.objects.count() == 1


# --- managing ---------------------------------------------------------------------------------


def manage(client, competition, **data):
    return client.post(f"/competitions/{competition.pk}/manage/", data)


def test_managing_is_the_organisers_alone(organiser, author, other):
    competition = competition_of(organiser, eligibility="approval")
    bot, _ = bot_with_version(owner=author, name="ace")
    entry = competition_services.enter_competition(competition=competition, bot=bot, user=author)
    before = stored(competition)
    for action in ("accept", "refuse", "disqualify", "pause", "reveal", "announce", "release"):
        data = {
            "action": action,
            "entry": entry.pk,
            "reason": "r",
            "text": "t",
            "release": "hidden",
        }
        assert manage(client_of(other), competition, **data).status_code == 403
        assert manage(client_of(author), competition, **data).status_code == 403
        answer = manage(client_of(), competition, **data)
        assert answer.status_code == 302 and "/login/" in answer["Location"]
    assert client_of(organiser).get(f"/competitions/{competition.pk}/manage/").status_code == 405
    assert stored(competition) == before


def test_the_organiser_accepts_and_refuses_entries(organiser, author, other):
    competition = competition_of(organiser, eligibility="approval")
    first, _ = bot_with_version(owner=author, name="ace")
    second, _ = bot_with_version(owner=other, name="deuce")
    web_author = client_of(author)
    answer = web_author.post(f"/competitions/{competition.pk}/enter/", {"bot": first.pk})
    assert answer.status_code == 302
    client_of(other).post(f"/competitions/{competition.pk}/enter/", {"bot": second.pk})
    one, two = CompetitionEntry.objects.order_by("id")
    assert (one.status, two.status) == ("pending", "pending")
    web = client_of(organiser)
    html = web.get(f"/competitions/{competition.pk}/").content.decode()
    assert f'id="accept-{one.pk}"' in html and 'id="refuse-form"' in html
    assert manage(web, competition, action="accept", entry=one.pk).status_code == 302
    # A refusal needs its reason: refused on the field, nothing changes.
    before = stored(competition)
    answer = manage(web, competition, action="refuse", entry=two.pk, reason="  ")
    assert answer.status_code == 400
    assert "Say why" in answer.content.decode()
    assert stored(competition) == before
    assert manage(web, competition, action="refuse", entry=two.pk, reason="late").status_code == 302
    one.refresh_from_db()
    two.refresh_from_db()
    assert (one.status, two.status, two.reason) == ("accepted", "refused", "late")
    # Deciding again is refused in words, on the page, and changes nothing.
    answer = manage(web, competition, action="accept", entry=two.pk)
    assert answer.status_code == 400 and "only a pending one is decided" in answer.content.decode()
    two.refresh_from_db()
    assert two.status == "refused"
    # An entry of another competition, or none, is refused too.
    answer = manage(web, competition, action="accept", entry="nonsense")
    assert answer.status_code == 400


def test_the_organiser_disqualifies_with_a_reason(organiser, author):
    competition = competition_of(organiser)
    bot, _ = bot_with_version(owner=author, name="ace")
    entry = competition_services.enter_competition(competition=competition, bot=bot, user=author)
    web = client_of(organiser)
    before = stored(competition)
    answer = manage(web, competition, action="disqualify", entry=entry.pk, reason="")
    assert answer.status_code == 400
    assert 'id="disqualify-reason-error"' in answer.content.decode()
    assert stored(competition) == before
    answer = manage(web, competition, action="disqualify", entry=entry.pk, reason="copied code")
    assert answer.status_code == 302
    entry.refresh_from_db()
    assert (entry.status, entry.reason) == ("disqualified", "copied code")
    html = client_of().get(f"/competitions/{competition.pk}/").content.decode()
    assert "entry-disqualified" in html and "copied code" in html


def test_the_organiser_pauses_resumes_and_reveals(organiser):
    competition = competition_of(organiser, release="hidden")
    web = client_of(organiser)
    assert 'id="reveal"' in web.get(f"/competitions/{competition.pk}/").content.decode()
    assert manage(web, competition, action="pause").status_code == 302
    competition.refresh_from_db()
    assert competition.paused
    html = client_of().get(f"/competitions/{competition.pk}/").content.decode()
    assert 'id="paused"' in html
    assert manage(web, competition, action="resume").status_code == 302
    competition.refresh_from_db()
    assert not competition.paused
    assert manage(web, competition, action="release", release="participants").status_code == 302
    competition.refresh_from_db()
    assert competition.release == "participants"
    before = stored(competition)
    assert manage(web, competition, action="release", release="everyone").status_code == 400
    assert manage(web, competition, action="dance").status_code == 400
    assert stored(competition) == before
    assert manage(web, competition, action="reveal").status_code == 302
    competition.refresh_from_db()
    assert competition.release == "public" and competition.revealed_at is not None


def test_the_organiser_announces(organiser):
    competition = competition_of(organiser)
    web = client_of(organiser)
    answer = manage(web, competition, action="announce", text="   ")
    assert answer.status_code == 400
    assert "Write the announcement" in field_error(answer.content.decode(), "text")
    assert not Announcement.objects.exists()
    assert manage(web, competition, action="announce", text="Final on Friday").status_code == 302
    html = client_of().get(f"/competitions/{competition.pk}/").content.decode()
    assert "Final on Friday" in html


# --- teams --------------------------------------------------------------------------------------


def teams(client, competition, **data):
    return client.post(f"/competitions/{competition.pk}/teams/", data)


def test_the_teams_page_anonymously_and_signed_in(organiser, author):
    competition = competition_of(organiser)
    team = team_services.create_team(competition=competition, name="Owls", user=author)
    html = client_of().get(f"/competitions/{competition.pk}/teams/").content.decode()
    assert f'id="team-{team.pk}"' in html and "Owls" in html and "Log in</a> to create" in html
    assert 'id="team-form"' not in html
    html = client_of(organiser).get(f"/competitions/{competition.pk}/teams/").content.decode()
    assert 'id="team-form"' in html
    html = client_of(author).get(f"/competitions/{competition.pk}/teams/").content.decode()
    assert 'id="member-form"' in html and 'id="team-form"' not in html
    answer = teams(client_of(), competition, action="create", name="Larks")
    assert answer.status_code == 302 and "/login/" in answer["Location"]
    assert Team.objects.count() == 1


def test_a_team_is_made_members_added_and_a_bot_given(organiser, author, other):
    competition = competition_of(organiser)
    web = client_of(author)
    assert teams(web, competition, action="create", name="Owls").status_code == 302
    team = Team.objects.get()
    assert team.created_by == author
    # Bad input on each form: refused on its field, nothing changes.
    before = stored(competition)
    answer = teams(client_of(other), competition, action="create", name="owls")
    assert answer.status_code == 400
    assert "There is a team named" in field_error(answer.content.decode(), "name")
    answer = teams(web, competition, action="add", username="nobody-here")
    assert "Nobody is called nobody-here" in field_error(answer.content.decode(), "username")
    answer = teams(web, competition, action="give", bot="12345")
    assert answer.status_code == 400 and "Pick one of your bots" in answer.content.decode()
    assert stored(competition) == before and not team.bots.exists()
    # The creator adds a member and gives a bot; the member manages it.
    assert teams(web, competition, action="add", username="other").status_code == 302
    assert TeamMember.objects.filter(team=team, user=other).exists()
    answer = teams(web, competition, action="add", username="other")
    assert "in this team already" in field_error(answer.content.decode(), "username")
    bot, _ = bot_with_version(owner=author, name="ace")
    assert teams(web, competition, action="give", bot=bot.pk).status_code == 302
    assert list(team.bots.all()) == [bot]
    html = client_of().get(f"/competitions/{competition.pk}/teams/").content.decode()
    assert "ace" in html and "other" in html
    html = client_of().get(f"/competitions/{competition.pk}/").content.decode()
    assert f'id="team-{team.pk}"' in html and "author, other" in html
    # A member who is not the creator adds nobody; someone in no team changes nothing.
    assert (
        teams(client_of(other), competition, action="add", username="organiser").status_code == 403
    )
    assert teams(client_of(organiser), competition, action="give", bot=bot.pk).status_code == 403
    # The member enters the team's bot from the competition's page.
    html = client_of(other).get(f"/competitions/{competition.pk}/").content.decode()
    assert f'<option value="{bot.pk}">ace</option>' in html
    answer = client_of(other).post(f"/competitions/{competition.pk}/enter/", {"bot": bot.pk})
    assert answer.status_code == 302
    entry = CompetitionEntry.objects.get()
    assert entry.team == team


def test_members_are_removed_or_leave(organiser, author, other):
    competition = competition_of(organiser)
    team = team_services.create_team(competition=competition, name="Owls", user=author)
    team_services.add_team_member(team=team, user=other, by=author)
    team_services.add_team_member(team=team, user=user(name="third", password=PASSWORD), by=author)
    html = client_of(author).get(f"/competitions/{competition.pk}/teams/").content.decode()
    assert 'id="remove-other"' in html and 'id="remove-author"' not in html
    html = client_of(other).get(f"/competitions/{competition.pk}/teams/").content.decode()
    assert 'id="remove-other"' in html and 'id="remove-third"' not in html
    assert 'id="give-form"' not in html  # the creator gives the team bots
    # A member who is not the creator removes nobody else; the creator stays.
    answer = teams(client_of(other), competition, action="remove", username="third")
    assert answer.status_code == 403
    answer = teams(client_of(author), competition, action="remove", username="author")
    assert answer.status_code == 400
    assert team.members.count() == 3
    assert (
        teams(client_of(other), competition, action="remove", username="other").status_code == 302
    )
    assert (
        teams(client_of(author), competition, action="remove", username="third").status_code == 302
    )
    assert list(team.members.values_list("user__username", flat=True)) == ["author"]


def test_after_the_freeze_an_edit_keeps_the_fixed_settings(organiser, author):
    competition = competition_of(organiser, final_settings={"format": "round_robin"})
    bot, version = bot_with_version(owner=author, name="ace", announce=False)
    type(version).objects.filter(pk=version.pk).update(
        created_at=timezone.now() - timedelta(days=1)
    )
    competition_services.enter_competition(competition=competition, bot=bot, user=author)
    Competition.objects.filter(pk=competition.pk).update(phase="frozen")
    competition.refresh_from_db()
    web = client_of(organiser)
    page = web.get(f"/competitions/{competition.pk}/edit/").content.decode()
    assert 'value="spring season"' in page

    def same(**changes):
        data = form_data(
            name=competition.name,
            description="",
            opens_at=competition.opens_at.strftime("%Y-%m-%dT%H:%M"),
            deadline=competition.deadline.strftime("%Y-%m-%dT%H:%M"),
            final_at=competition.final_at.strftime("%Y-%m-%dT%H:%M"),
            format="round_robin",
            third_place=None,
            release="public",
            eligibility="open",
            invite_code="",
            division_size="",
            cycle_minutes="60",
        )
        data.update(changes)
        return data

    # The pool and the final's settings sent back as they are: only the name changes.
    answer = web.post(f"/competitions/{competition.pk}/edit/", same(name="renamed"))
    assert answer.status_code == 302, answer.content.decode()[:2000]
    competition.refresh_from_db()
    assert competition.name == "renamed"
    # A new deadline after the freeze is refused on its field, and nothing changes.
    before = stored(competition)
    later = (competition.deadline + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    answer = web.post(f"/competitions/{competition.pk}/edit/", same(deadline=later, name="x"))
    assert answer.status_code == 400
    assert "fixed since the freeze" in field_error(answer.content.decode(), "deadline")
    assert stored(competition) == before


def test_an_opening_still_to_come_counts_down_too(organiser):
    now = timezone.now()
    competition = competition_of(organiser, opens_at=now + timedelta(hours=5))
    html = client_of().get(f"/competitions/{competition.pk}/").content.decode()
    assert html.count('class="countdown"') == 3


def test_entering_after_the_deadline_is_refused_in_words(organiser, author):
    competition = competition_of(organiser)
    bot, _ = bot_with_version(owner=author, name="ace")
    Competition.objects.filter(pk=competition.pk).update(phase="frozen")
    answer = client_of(author).post(f"/competitions/{competition.pk}/enter/", {"bot": bot.pk})
    assert answer.status_code == 400
    assert "Entries are closed" in answer.content.decode()
    assert not CompetitionEntry.objects.exists()


def test_new_competitions_count_with_new_tournaments(organiser, settings):
    from django.core.cache import cache

    cache.clear()
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "tournaments": "2/hour",
        },
    }
    web = client_of(organiser)
    # Refused forms give their place back: only competitions made count.
    for _ in range(3):
        assert web.post("/competitions/new/", form_data(name="")).status_code == 400
    assert web.post("/competitions/new/", form_data(name="one")).status_code == 302
    assert web.post("/competitions/new/", form_data(name="two")).status_code == 302
    answer = web.post("/competitions/new/", form_data(name="three"))
    assert answer.status_code == 429
    assert "Too many new tournaments" in answer.content.decode()
    assert Competition.objects.count() == 2
