"""The competition page after the freeze: the final's standings and bracket come from the
tournament page's own pieces, as the release lets each reader see them (anonymous, another
user, a participant, the organiser); the ladder's tables likewise from ladder_hidden_from."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from tests.support.builders import bot_with_version, play_for_real, user
from tests.support.competitions import enter_bots, new_competition, play_final
from tournaments.models import Competition, Match
from tournaments.services import competition_phases
from tournaments.services import competitions as competition_services

PASSWORD = "a long password 42"


@pytest.fixture
def people(db):
    return {
        name: user(name=name, password=PASSWORD)
        for name in ("organiser", "author", "rival", "other")
    }


def client_of(person=None) -> Client:
    client = Client()
    if person is not None:
        client.force_login(person)
    return client


def finished_final(people, **fields) -> Competition:
    """A competition of four entries frozen and its final (single elimination) played."""
    now = timezone.now()
    competition = new_competition(
        people["organiser"],
        name="winter season",
        now=now,
        final_settings={"format": "single_elimination"},
        **fields,
    )
    enter_bots(competition, [people["author"], people["rival"], people["rival"], people["rival"]])
    return play_final(competition, at=now + timedelta(hours=1, minutes=1))


def page(person, competition) -> str:
    answer = client_of(person).get(f"/competitions/{competition.pk}/")
    assert answer.status_code == 200
    return answer.content.decode()


def test_a_public_final_shows_its_bracket_to_everyone(people):
    competition = finished_final(people)
    for person in (None, people["other"], people["organiser"]):
        html = page(person, competition)
        assert 'id="final-link"' in html
        assert 'id="bracket"' in html and 'id="standings"' in html
        assert 'id="champion"' in html
        assert 'id="final-hidden"' not in html


@pytest.mark.parametrize(
    "release, sees",
    [
        ("hidden", {"anonymous": False, "other": False, "author": False, "organiser": True}),
        ("participants", {"anonymous": False, "other": False, "author": True, "organiser": True}),
    ],
)
def test_a_held_final_shows_its_results_only_as_the_release_says(people, release, sees):
    competition = finished_final(people, release=release)
    for who, shown in sees.items():
        html = page(None if who == "anonymous" else people[who], competition)
        assert 'id="final-link"' in html  # that there is a final is not held back
        assert ('id="final-hidden"' in html) != shown, who
        assert ('id="champion"' in html) == shown, who
        assert ('id="standings"' in html) == shown, who
        assert ('id="not-public-yet"' in html) == shown, who
    client_of(people["organiser"]).post(
        f"/competitions/{competition.pk}/manage/", {"action": "reveal"}
    )
    html = page(None, competition)
    assert 'id="champion"' in html and 'id="final-hidden"' not in html


def test_the_ladder_tables_are_held_back_from_ladder_hidden_from(people):
    now = timezone.now()
    competition = new_competition(
        people["organiser"],
        name="held ladder",
        now=now,
        opened=timedelta(hours=2),
        final_settings={},
        release="participants",
    )
    bot, _ = bot_with_version(owner=people["author"], name="ace", announce=False)
    competition_services.enter_competition(competition=competition, bot=bot, user=people["author"])
    html = page(None, competition)
    assert 'id="division-1"' in html and 'id="ladder-hidden"' not in html
    Competition.objects.filter(pk=competition.pk).update(
        ladder_hidden_from=now - timedelta(minutes=1)
    )
    competition.refresh_from_db()
    for person, shown in (
        (None, False),
        (people["other"], False),
        (people["author"], True),
        (people["organiser"], True),
    ):
        html = page(person, competition)
        assert ('id="division-1"' in html) == shown
        assert ('id="ladder-hidden"' in html) != shown


def test_a_whole_season_run_from_the_dashboard(people, tmp_path):
    """The organiser creates, accepts, announces and reveals through the pages; the beat's
    services move the phases at their dates; the final plays; everyone sees its champion
    once revealed."""
    from tournaments.services.scheduling import start_due_tournaments

    now = timezone.now()
    organiser = client_of(people["organiser"])
    answer = organiser.post(
        "/competitions/new/",
        {
            "name": "whole season",
            "game": "pairs",
            "players": "2",
            "move_ms": "1000",
            "bank_ms": "10000",
            "deadline": (now + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M"),
            "final_at": (now + timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M"),
            "format": "round_robin",
            "rotate_seats": "on",
            "release": "hidden",
            "eligibility": "approval",
            "promote": "1",
            "cycle_minutes": "60",
        },
    )
    assert answer.status_code == 302
    competition = Competition.objects.get()
    for number, who in enumerate(("author", "rival", "other")):
        bot, _ = bot_with_version(owner=people[who], name=f"season{number}", announce=False)
        answer = client_of(people[who]).post(
            f"/competitions/{competition.pk}/enter/", {"bot": bot.pk}
        )
        assert answer.status_code == 302
    for entry in competition.entries.all():
        answer = organiser.post(
            f"/competitions/{competition.pk}/manage/", {"action": "accept", "entry": entry.pk}
        )
        assert answer.status_code == 302
    organiser.post(
        f"/competitions/{competition.pk}/manage/", {"action": "announce", "text": "Good luck"}
    )
    competition_phases.advance_competitions(now=competition.deadline + timedelta(minutes=1))
    competition.refresh_from_db()
    assert competition.phase == "frozen" and competition.final is not None
    assert 'id="final-link"' in page(None, competition)
    assert start_due_tournaments(now=competition.final_at + timedelta(minutes=1))
    competition_phases.advance_competitions(now=competition.final_at + timedelta(minutes=2))
    competition.refresh_from_db()
    assert competition.phase == "final"
    # Played as a worker plays them (real moves), so the archive replays them.
    while queued := Match.objects.filter(
        tournament_id=competition.final_id, status=Match.Status.QUEUED
    ).first():
        play_for_real(match=queued)
    competition_phases.advance_competitions(now=competition.final_at + timedelta(hours=1))
    competition.refresh_from_db()
    assert competition.phase == "closed"
    held = page(None, competition)
    assert 'id="final-hidden"' in held and 'id="archive-link"' not in held
    assert 'id="champion"' in page(people["organiser"], competition)
    organiser.post(f"/competitions/{competition.pk}/manage/", {"action": "reveal"})
    html = page(None, competition)
    assert 'id="champion"' in html and "Good luck" in html
    assert f"seed <code>{competition.seed}</code>" in html  # revealed at the close
    assert 'class="countdown"' not in html  # nothing left to count down to
    assert 'id="archive-link"' in html
    archive = client_of().get(f"/api/competitions/{competition.pk}/archive/")
    assert archive.status_code == 200 and archive["Content-Type"] == "application/gzip"
    # A participant verifies the downloaded archive on their own.
    path = tmp_path / f"competition-{competition.pk}-archive.json.gz"
    path.write_bytes(archive.content)
    said = io.StringIO()
    call_command("verify_competition", str(path), stdout=said)
    assert "verified" in said.getvalue()


def test_the_archive_is_offered_to_whom_its_address_answers(people):
    competition = finished_final(people)
    competition_phases.advance_competitions(now=timezone.now() + timedelta(days=1))
    competition.refresh_from_db()
    assert competition.phase == "closed"
    Competition.objects.filter(pk=competition.pk).update(release="participants")
    competition.refresh_from_db()
    for who in (None, "other", "author", "organiser"):
        person = people[who] if who else None
        offered = 'id="archive-link"' in page(person, competition)
        answer = client_of(person).get(f"/api/competitions/{competition.pk}/archive/")
        assert offered == (answer.status_code == 200), who
        assert offered == (who in ("author", "organiser")), who
    # A final whose whole records only the owners see: the archive is the organiser's.
    type(competition.final).objects.filter(pk=competition.final_id).update(
        record_visibility="owners"
    )
    competition.refresh_from_db()
    assert 'id="archive-link"' not in page(people["author"], competition)
    assert 'id="archive-link"' in page(people["organiser"], competition)
