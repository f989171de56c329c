"""Release control: a competition's held-back results (its final's, and its ladder's from
``ladder_hidden_from`` on) are hidden everywhere from whoever the release level leaves out,
and appear everywhere once revealed.

One competition with a finished final (a real round robin of Pairs among three entered
bots) and two finished ladder matches (one before ``ladder_hidden_from``, always public; one
after, held), read at each level by every kind of reader over every endpoint and page that
shows a match or a tournament (``READS``: a new one is one line), with the read caches on
throughout: an answer stored for one reader or at one level never reaches another.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from arena.integrations.models import Notification
from games import registry
from tests.support.builders import bot_with_version, play_for_real, started_tournament
from tournaments import release
from tournaments.models import (
    Competition,
    CompetitionEntry,
    Match,
    Team,
    TeamMember,
    Tournament,
)
from tournaments.services import telling
from tournaments.services.scheduling import seed_commitment

GAME = "pairs"
# None: anonymous. eve: signed in, in no way part of it. bob: another entrant. carol: a
# member of the team that entered c (created by dave). alice: a participant (a's owner).
# org: the organiser. root: staff.
READERS = [None, "eve", "bob", "carol", "alice", "org", "root"]
SEES = {
    Competition.Release.HIDDEN: {"org", "root"},
    Competition.Release.PARTICIPANTS: {"org", "root", "alice", "bob", "carol", "dave"},
    Competition.Release.PUBLIC: set(READERS),
}


@pytest.fixture(autouse=True)
def _empty(empty_cache):
    pass


@dataclass
class Season:
    competition: Competition
    final: Tournament
    final_match: Match  # a finished game of the final
    early: Match  # a ladder game finished before ladder_hidden_from: never held
    late: Match  # a ladder game finished after it: held like the final's
    bots: dict


def _ladder_game(competition, versions, *, seed: int) -> Match:
    match = Match.objects.create(
        game=GAME,
        engine_version=registry.get(GAME).version,
        seed=seed,
        status=Match.Status.QUEUED,
        competition=competition,
    )
    for seat, version in enumerate(versions):
        match.seats.create(seat=seat, version=version)
    return play_for_real(match=match)


@pytest.fixture
def people(make_user):
    return make_people(make_user)


def make_people(make_user) -> dict:
    found = {name: make_user(name) for name in ("eve", "bob", "carol", "alice", "org", "dave")}
    root = make_user("root")
    root.is_staff = True
    root.save()
    found["root"] = root
    return found


@pytest.fixture
def season(people, django_capture_on_commit_callbacks) -> Season:
    return make_season(people, committing=lambda: django_capture_on_commit_callbacks(execute=True))


def make_season(people, *, committing) -> Season:
    """The competition of the module's docstring, release hidden; ``committing()``: a
    context in which what the writes send after their commit is sent."""
    made = {
        name: bot_with_version(name=name, game=GAME, owner=people[owner])
        for name, owner in (("a", "alice"), ("b", "bob"), ("c", "dave"))
    }
    bots = {name: bot for name, (bot, _) in made.items()}
    now = timezone.now()
    competition = Competition.objects.create(
        name="spring",
        organiser=people["org"],
        game=GAME,
        players=2,
        opens_at=now - timedelta(days=3),
        deadline=now - timedelta(days=1),
        final_at=now - timedelta(hours=20),
        phase=Competition.Phase.FINAL,
        release=Competition.Release.HIDDEN,
        ladder_hidden_from=now - timedelta(days=2),
        seed=99,
        seed_salt="salt",
        seed_commitment=seed_commitment(seed=99, salt="salt"),
    )
    team = Team.objects.create(competition=competition, name="cee", created_by=people["dave"])
    team.bots.add(bots["c"])
    for member in ("dave", "carol"):
        TeamMember.objects.create(team=team, user=people[member], competition=competition)
    for name in "abc":
        CompetitionEntry.objects.create(
            competition=competition,
            bot=bots[name],
            team=team if name == "c" else None,
            frozen_version=made[name][1],
        )
    # An entry waiting for approval makes nobody a participant (eve stays an outsider).
    waiting, _ = bot_with_version(name="e", game=GAME, owner=people["eve"])
    CompetitionEntry.objects.create(
        competition=competition, bot=waiting, status=CompetitionEntry.Status.PENDING
    )
    with committing():
        final = started_tournament(
            organiser=people["org"],
            bots=list(bots.values()),
            game=GAME,
            seeding="entry",
            rated=False,
        )
        competition.final = final
        competition.save()
        while queued := list(final.matches.filter(status=Match.Status.QUEUED)):
            for match in queued:
                play_for_real(match=match)
    final.refresh_from_db()
    assert final.status == Tournament.Status.FINISHED
    early = _ladder_game(competition, [made["a"][1], made["b"][1]], seed=5)
    Match.objects.filter(pk=early.pk).update(finished_at=now - timedelta(days=2, hours=1))
    late = _ladder_game(competition, [made["a"][1], made["c"][1]], seed=6)
    final_match = final.matches.filter(seats__version__bot=bots["a"]).order_by("pk").first()
    return Season(competition, final, final_match, early, late, bots)


@pytest.fixture
def set_level(django_capture_on_commit_callbacks):
    """Set the competition's release level and commit, as the organiser's change does."""

    def change(competition: Competition, level: str) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            competition.release = level
            fields = ["release"]
            if level == Competition.Release.PUBLIC:
                competition.revealed_at = timezone.now()
                fields.append("revealed_at")
            competition.save(update_fields=fields)

    return change


def client_of(people, name) -> Client:
    client = Client()
    if name is not None:
        client.force_login(people[name])
    return client


# --- What each read shows: each probe answers whether the results show, and holds a
# hidden answer to its shape (hidden as hidden, never an error). ---


def _api_match(body: dict) -> bool:
    assert body["status"] == "finished"
    if body["results_hidden"]:
        assert body["result"] is None and body["moves"] is None and body["record"] is None
        assert body["seed"] is None and body["reproduce"] is None
        assert all(s["score"] is None and s["rank"] is None for s in body["seats"])
        assert len(body["seats"]) == 2 and all(s["bot"] for s in body["seats"])  # who played
        return False
    assert body["result"] is not None and body["moves"]
    assert all(s["rank"] is not None for s in body["seats"])
    return True


def _replay(body: dict) -> bool:
    if body.get("results_hidden"):
        assert body["moves"] == [] and body["events"] == []
        assert body["detail"] == release.HIDDEN_NOTE
        return False
    assert body["moves"] and body["events"]
    return True


def _frames(body: dict) -> bool:
    if body.get("results_hidden"):
        assert body["frames"] == []
        return False
    assert body["frames"]
    return True


def _match_page(html: str) -> bool:
    hidden = 'id="results-hidden"' in html
    assert 'id="hidden-record"' not in html or not hidden
    assert hidden is ('id="replay-config"' not in html)
    assert hidden is ("manage.py play" not in html or "seed hidden" in html)
    return not hidden


def _tournament_api(body: dict) -> bool:
    placed = any(row["position"] is not None for row in body["standings"])
    assert body["results_hidden"] is not placed
    assert body["status"] == "finished"
    assert {row["bot"] for row in body["standings"]} == {"a", "b", "c"}  # entrants show
    assert placed or all(row["points"] is None for row in body["standings"])
    assert placed or all(not series["winners"] for series in body["bracket"])
    return placed


def _tournament_matches_api(body: dict) -> bool:
    rows = body["results"]
    assert rows and all(row["status"] == "finished" for row in rows)
    shown = [row["result"] is not None for row in rows]
    assert len(set(shown)) == 1
    if not shown[0]:
        assert all(row["results_hidden"] for row in rows)
        assert all(s["rank"] is None for row in rows for s in row["seats"])
    return shown[0]


def _tournament_page(html: str) -> bool:
    hidden = 'id="results-hidden"' in html
    assert not (hidden and 'id="results-held"' in html)
    assert hidden is ('id="champion"' not in html)
    assert hidden is (re.search(r"\(\d+, -?\d+\)", html) is None)  # the rows' (rank, score)
    return not hidden


def _standings_json(body: dict) -> bool:
    placed = [row["position"] is not None for row in body["rows"]]
    assert len(body["rows"]) == 3 and len(set(placed)) == 1
    assert placed[0] or all(row["points"] is None for row in body["rows"])
    return placed[0]


def _crosstable_json(body: dict) -> bool:
    cells = [v for row in body["rows"] for k, v in row.items() if k not in ("number", "bot")]
    return any(cell not in ("", "-") for cell in cells)


def _matches_csv(text: str) -> bool:
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))[1:]
    assert rows
    ranked = [bool(re.search(r"\(\d+, -?\d+\)", row[-1])) for row in rows]
    assert len(set(ranked)) == 1
    return ranked[0]


def _bot_page(held_ids):
    def probe(html: str) -> bool:
        hidden = html.count('class="muted results-hidden"')
        assert hidden in (0, len(held_ids))
        return hidden == 0

    return probe


# (what, URL from the season, which result it shows: "final", "late" or "early", probe,
# whether the answer is JSON (else text)).
READS = [
    ("match API, final", lambda s: f"/api/matches/{s.final_match.pk}/", "final", _api_match, 1),
    ("match API, late ladder", lambda s: f"/api/matches/{s.late.pk}/", "late", _api_match, 1),
    ("match API, early ladder", lambda s: f"/api/matches/{s.early.pk}/", "early", _api_match, 1),
    ("replay", lambda s: f"/api/matches/{s.final_match.pk}/replay/", "final", _replay, 1),
    ("replay, seat", lambda s: f"/api/matches/{s.late.pk}/replay/?seat=0", "late", _replay, 1),
    ("frames", lambda s: f"/api/matches/{s.final_match.pk}/frames/", "final", _frames, 1),
    ("frames, seat", lambda s: f"/api/matches/{s.late.pk}/frames/?seat=1", "late", _frames, 1),
    ("match page", lambda s: f"/matches/{s.final_match.pk}/", "final", _match_page, 0),
    ("match page, seat", lambda s: f"/matches/{s.late.pk}/?seat=0", "late", _match_page, 0),
    ("early match page", lambda s: f"/matches/{s.early.pk}/", "early", _match_page, 0),
    ("tournament API", lambda s: f"/api/tournaments/{s.final.pk}/", "final", _tournament_api, 1),
    (
        "tournament matches API",
        lambda s: f"/api/tournaments/{s.final.pk}/matches/",
        "final",
        _tournament_matches_api,
        1,
    ),
    ("tournament page", lambda s: f"/tournaments/{s.final.pk}/", "final", _tournament_page, 0),
    ("tournament live", lambda s: f"/tournaments/{s.final.pk}/live/", "final", _tournament_page, 0),
    (
        "standings JSON",
        lambda s: f"/api/tournaments/{s.final.pk}/standings.json",
        "final",
        _standings_json,
        1,
    ),
    (
        "crosstable JSON",
        lambda s: f"/api/tournaments/{s.final.pk}/crosstable.json",
        "final",
        _crosstable_json,
        1,
    ),
    (
        "matches CSV",
        lambda s: f"/api/tournaments/{s.final.pk}/matches.csv",
        "final",
        _matches_csv,
        0,
    ),
]


def expected(level: str, reader: str | None, which: str) -> bool:
    return which == "early" or reader in SEES[level]


def check_every_read(season: Season, people, level: str) -> None:
    for reader in READERS:
        client = client_of(people, reader)
        for what, url_of, which, probe, is_json in READS:
            for _ in range(2):  # the second answer may come from what the first stored
                answer = client.get(url_of(season))
                where = (level, reader, what)
                assert answer.status_code == 200, (*where, answer.content[:300])
                body = answer.json() if is_json else answer.content.decode()
                assert probe(body) is expected(level, reader, which), where
        held = [*season.final.matches.filter(seats__version__bot=season.bots["a"]), season.late]
        bot_page = client.get(f"/bots/{season.bots['a'].pk}/")
        assert bot_page.status_code == 200
        shown = _bot_page(held)(bot_page.content.decode())
        assert shown is (reader in SEES[level]), (level, reader, "bot page")


def test_every_read_shows_held_results_as_the_release_level_says(season, people, set_level):
    for level in Competition.Release.values:  # hidden, participants, public: the reveal
        set_level(season.competition, level)
        check_every_read(season, people, level)


def test_hiding_again_after_public_answers_reaches_no_stored_public_answer(
    season, people, set_level
):
    """Answers stored while public are not served once the organiser hides the results."""
    set_level(season.competition, Competition.Release.PUBLIC)
    check_every_read(season, people, Competition.Release.PUBLIC)
    set_level(season.competition, Competition.Release.HIDDEN)
    check_every_read(season, people, Competition.Release.HIDDEN)


def test_the_rules_agree_with_the_condition_on_matches(season, people):
    """``hidden_results_q`` (querysets) and ``match_results_hidden`` (one match) agree for
    every reader and level."""
    from django.contrib.auth.models import AnonymousUser

    matches = [season.final_match, season.late, season.early]
    competition = season.competition
    for level in Competition.Release.values:
        competition.release = level
        competition.save(update_fields=["release"])
        for reader in READERS:
            user = AnonymousUser() if reader is None else people[reader]
            one_by_one = {
                m.pk
                for m in Match.objects.filter(pk__in=[m.pk for m in matches])
                if release.match_results_hidden(match=m, user=user)
            }
            three = Match.objects.filter(pk__in=[m.pk for m in matches])
            by_q = set(
                three.filter(release.hidden_results_q(user=user)).values_list("pk", flat=True)
            )
            at_once = release.hidden_match_ids(matches=three, user=user)
            want = set() if reader in SEES[level] else {season.final_match.pk, season.late.pk}
            assert one_by_one == by_q == at_once == want, (level, reader)
            hidden = release.tournament_results_hidden(tournament=season.final, user=user)
            assert hidden is (reader not in SEES[level]), (level, reader)
            by_ids = release.hidden_tournament_ids(tournament_ids=[season.final.pk], user=user)
            assert by_ids == ({season.final.pk} if hidden else set()), (level, reader)


def test_a_seat_log_of_a_held_match_is_held_from_its_own_bot_owner(season, people):
    seat = season.late.seats.get(version__bot=season.bots["a"]).seat
    url = f"/api/matches/{season.late.pk}/seats/{seat}/log/"
    alice = client_of(people, "alice")
    answer = alice.get(url)
    assert answer.status_code == 200 and release.HIDDEN_NOTE in answer.content.decode()
    competition = season.competition
    competition.release = Competition.Release.PUBLIC
    competition.save(update_fields=["release"])
    assert release.HIDDEN_NOTE not in alice.get(url).content.decode()


def test_the_final_s_places_are_told_at_the_reveal_not_before(
    season, people, django_capture_on_commit_callbacks
):
    """While held, the finish is told without places (to the organiser and the entrants'
    owners); the reveal tells the places."""
    told = Notification.objects.filter(kind="tournament.finished")
    assert told.exists()
    for note in told:
        assert "hidden until the organiser releases them" in note.text, note.text
        assert not re.search(r"\d\. ", note.text), note.text
    competition = season.competition
    competition.release = Competition.Release.PUBLIC
    competition.save(update_fields=["release"])
    with django_capture_on_commit_callbacks(execute=True):
        telling.competition_revealed(competition)
    places = told.exclude(text__contains="hidden until")
    assert places.filter(user=people["alice"]).exists()
    assert "1. " in places.get(user=people["alice"]).text


def test_competition_matches_stay_out_of_head_to_head_and_ratings(season, people):
    """Unrated everywhere public: head to head and the leaderboard never count them."""
    a, b = season.bots["a"], season.bots["b"]
    for reader in READERS:
        client = client_of(people, reader)
        page = client.get(f"/games/{GAME}/head-to-head/", {"first": a.name, "second": b.name})
        assert page.status_code == 200
        assert not Match.objects.filter(
            competition=season.competition, rated_seq__isnull=False
        ).exists()
        assert not season.final.matches.filter(rated_seq__isnull=False).exists()


def test_a_competition_ladder_match_page_links_its_competition(season, people):
    html = client_of(people, None).get(f"/matches/{season.late.pk}/").content.decode()
    assert f'href="/competitions/{season.competition.pk}/"' in html


def test_without_ladder_hidden_from_the_ladder_is_public_and_the_final_still_held(
    season, people, django_capture_on_commit_callbacks
):
    competition = season.competition
    with django_capture_on_commit_callbacks(execute=True):
        competition.ladder_hidden_from = None
        competition.save(update_fields=["ladder_hidden_from"])
    anonymous = client_of(people, None)
    assert _api_match(anonymous.get(f"/api/matches/{season.late.pk}/").json()) is True
    assert _api_match(anonymous.get(f"/api/matches/{season.final_match.pk}/").json()) is False


def test_a_running_final_game_shows_no_moves_while_held(season, people, set_level):
    """A game of the final still being played: its moves so far are held back too."""
    running = Match.objects.create(
        tournament=season.final,
        round=9,
        number=1,
        game=GAME,
        engine_version=registry.get(GAME).version,
        seed=17,
        status=Match.Status.QUEUED,
    )
    for seat, name in enumerate("ab"):
        running.seats.create(seat=seat, version=season.bots[name].versions.get())
    play_for_real(match=running, finish=False)
    url = f"/api/matches/{running.pk}/"
    for reader in READERS:
        body = client_of(people, reader).get(url).json()
        assert body["status"] == "running"
        assert (body["moves"] is None) is (reader not in SEES["hidden"]), reader
        replay = client_of(people, reader).get(f"/api/matches/{running.pk}/replay/").json()
        assert bool(replay.get("results_hidden")) is (reader not in SEES["hidden"]), reader


def test_an_unfinished_ladder_game_is_held_only_once_the_hidden_time_has_come(season, people):
    """Before ``ladder_hidden_from`` a game being played is the public ladder's; after it,
    held like the games finished since."""
    from django.contrib.auth.models import AnonymousUser

    versions = [season.bots[name].versions.get() for name in "bc"]
    running = Match.objects.create(
        game=GAME,
        engine_version=registry.get(GAME).version,
        seed=21,
        status=Match.Status.QUEUED,
        competition=season.competition,
    )
    for seat, version in enumerate(versions):
        running.seats.create(seat=seat, version=version)
    play_for_real(match=running, finish=False)
    anonymous = client_of(people, None)
    for hidden_from, held in ((timezone.now() + timedelta(hours=1), False), (None, False)):
        Competition.objects.filter(pk=season.competition.pk).update(ladder_hidden_from=hidden_from)
        running.refresh_from_db()
        assert release.match_results_hidden(match=running, user=AnonymousUser()) is held
        body = anonymous.get(f"/api/matches/{running.pk}/").json()
        assert body["results_hidden"] is held and body["status"] == "running"
    Competition.objects.filter(pk=season.competition.pk).update(
        ladder_hidden_from=timezone.now() - timedelta(minutes=1)
    )
    running.refresh_from_db()
    assert release.match_results_hidden(match=running, user=AnonymousUser())
    assert anonymous.get(f"/api/matches/{running.pk}/").json()["results_hidden"] is True
    ids = Match.objects.filter(release.hidden_results_q(user=AnonymousUser()))
    assert running.pk in set(ids.values_list("pk", flat=True))
