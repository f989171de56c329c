"""Downloads of standings, crosstables, match lists and rating histories: the page's columns
and values, as CSV and JSON, to anyone who may read the page; nothing to write."""

from __future__ import annotations

import csv
import io
import re
from html import unescape

import pytest
from django.test import Client

from tests.support.builders import (
    active_bots,
    bot_with_version,
    finished_match,
    play_queued,
    play_queued_ladder_matches,
    record_random_result,
    started_event,
    started_tournament,
    user,
)
from tournaments.models import Ladder, Match
from tournaments.services.ladder import schedule_ladders

pytestmark = pytest.mark.django_db

LONG = "msteacher_marguerite_delacroix-villeneuve"


def rows_of_csv(body: bytes) -> list[list[str]]:
    text = body.decode("utf-8")
    assert text.startswith("\ufeff")  # spreadsheets read the names as UTF-8
    return list(csv.reader(io.StringIO(text[1:])))


def cells_of(html: str, table_id: str) -> list[list[str]]:
    """A page table's rows as text, cell by cell (the narrow-screen abbreviations left out)."""
    table = re.search(rf'<table id="{table_id}".*?</table>', html, re.S).group(0)
    table = re.sub(r'<abbr class="narrow-only".*?</abbr>', "", table, flags=re.S)
    table = re.sub(r'<span class="muted wide-only">v\d+</span>', "", table)
    rows = []
    for row in re.findall(r"<tr.*?</tr>", table, re.S):
        cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)
        rows.append([unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in cells])
    return rows


@pytest.fixture
def round_robin():
    organiser = user(name=LONG)
    tournament = started_event(
        organiser=organiser, entrants=4, fields={"format": "round_robin", "name": "Class cup"}
    )
    play_queued(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    return tournament


def test_standings_csv_and_json_carry_the_page_columns_and_values(round_robin):
    client = Client()
    page = client.get(f"/tournaments/{round_robin.pk}/").content.decode()
    shown = cells_of(page, "standings")
    assert f'href="/api/tournaments/{round_robin.pk}/standings.csv"' in page
    answer = client.get(f"/api/tournaments/{round_robin.pk}/standings.csv")
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/csv")
    assert f"tournament-{round_robin.pk}-standings.csv" in answer["Content-Disposition"]
    rows = rows_of_csv(answer.content)
    header, body = rows[0], rows[1:]
    # The page's columns (and the version the page writes beside the name).
    assert header == [shown[0][0], shown[0][1], "Version", *shown[0][2:]]
    assert [r[:2] + r[3:] for r in body] == [[c.replace("·", "") for c in r] for r in shown[1:]]
    assert body[0][1] == "bot0" and body[0][0] == "1" and len(body) == 4
    data = client.get(f"/api/tournaments/{round_robin.pk}/standings.json").json()
    assert [c["label"] for c in data["columns"]] == header
    assert [str(r["bot"]) for r in data["rows"]] == [r[1] for r in body]
    assert data["rows"][0]["points"] == float(body[0][4])


def test_crosstable_download_matches_the_page_and_other_formats_have_none(round_robin):
    page = Client().get(f"/tournaments/{round_robin.pk}/").content.decode()
    shown = cells_of(page, "crosstable")
    rows = rows_of_csv(Client().get(f"/api/tournaments/{round_robin.pk}/crosstable.csv").content)
    assert rows[0][2:] == shown[0][1:]  # the numbered columns
    for mine, theirs in zip(rows[1:], shown[1:], strict=True):
        assert f"{mine[0]}. {mine[1]}" == theirs[0]
        page_cells = [c.replace("½", ".5").replace("—", "-").replace("·", "") for c in theirs[1:]]
        assert [c.replace("0.5", ".5") for c in mine[2:]] == page_cells
    bots = [entry.bot for entry in round_robin.entries.all()]
    swiss = started_tournament(organiser=user(name="other"), bots=bots, format="swiss")
    refused = Client().get(f"/api/tournaments/{swiss.pk}/crosstable.csv")
    assert refused.status_code == 404 and refused.json()["code"] == "not_found"
    assert "round robin" in refused.json()["detail"]


def test_match_list_download_has_every_match_as_the_page_rows(round_robin):
    rows = rows_of_csv(Client().get(f"/api/tournaments/{round_robin.pk}/matches.csv").content)
    assert rows[0] == ["Match", "Round", "Status", "Seats (rank, score)"]
    assert len(rows) - 1 == round_robin.matches.count() == 12  # 6 pairs, seats swapped
    first = Match.objects.filter(tournament=round_robin).order_by("-round", "-number").first()
    seats = list(first.seats.order_by("seat"))
    text = " · ".join(f"{s.version.bot.name} ({s.rank}, {s.score})" for s in seats)
    assert rows[1] == [str(first.pk), str(first.round), "finished", text]
    data = Client().get(f"/api/tournaments/{round_robin.pk}/matches.json").json()
    assert data["rows"][0] == {
        "match": first.pk,
        "round": first.round,
        "status": "finished",
        "seats": text,
    }


def test_an_elimination_match_list_names_the_series_and_the_standings_count_series():
    organiser = user(name="organiser")
    cup = started_event(organiser=organiser, entrants=4, fields={"format": "single_elimination"})
    play_queued(tournament_id=cup.pk)
    header = rows_of_csv(Client().get(f"/api/tournaments/{cup.pk}/matches.csv").content)[0]
    assert header == ["Match", "Round", "Series", "Status", "Seats (rank, score)"]
    standings = rows_of_csv(Client().get(f"/api/tournaments/{cup.pk}/standings.csv").content)
    assert "Series won" in standings[0]


def test_a_ladder_match_list_downloads_as_its_page_shows_it(settings):
    settings.ARENA_LADDER = True
    bots = active_bots(owner=user(name=LONG), count=2)
    schedule_ladders()
    play_queued_ladder_matches()
    ladder = Ladder.objects.get()
    page = Client().get(f"/ladders/{ladder.pk}/").content.decode()
    assert f'href="/api/ladders/{ladder.pk}/matches.csv"' in page
    rows = rows_of_csv(Client().get(f"/api/ladders/{ladder.pk}/matches.csv").content)
    assert rows[0] == ["Match", "Table", "Status", "Seats (rank, score)"]
    assert len(rows) > 1 and all(b.name in rows[1][3] for b in bots)
    shown = cells_of(page, "matches")
    assert [r[0].lstrip("#") for r in shown[1:]] == [r[0] for r in rows[1:]]


def test_rating_history_download_has_every_change_newest_first():
    bot, a = bot_with_version(name="alpha")
    _, b = bot_with_version(name="beta")
    matches = [finished_match(versions=[a, b], ranks=[1, 2], seed=s) for s in range(3)]
    page = Client().get(f"/bots/{bot.pk}/").content.decode()
    assert f'href="/api/bots/{bot.pk}/ratings.csv"' in page
    rows = rows_of_csv(Client().get(f"/api/bots/{bot.pk}/ratings.csv").content)
    assert rows[0] == ["#", "Version", "Match", "Elo", "Change", "Date (UTC)"]
    assert [r[2] for r in rows[1:]] == [str(m.pk) for m in reversed(matches)]
    assert [r[0] for r in rows[1:]] == ["3", "2", "1"]
    assert all(float(r[4]) > 0 for r in rows[1:])  # alpha won each
    data = Client().get(f"/api/bots/{bot.pk}/ratings.json").json()
    assert data["rows"][0]["match"] == matches[-1].pk


def test_a_name_a_spreadsheet_would_run_is_written_as_text():
    organiser = user(name="organiser")
    tournament = started_event(organiser=organiser, entrants=2, fields={"format": "round_robin"})
    bot = tournament.entries.order_by("pk").first().bot
    bot.name = "=HYPERLINK(1)"
    bot.save()
    for match in tournament.matches.all():
        record_random_result(match=match, rng=__import__("random").Random(1))
    rows = rows_of_csv(Client().get(f"/api/tournaments/{tournament.pk}/standings.csv").content)
    assert "'=HYPERLINK(1)" in [r[1] for r in rows]


@pytest.mark.parametrize(
    "path",
    [
        "/api/tournaments/{t}/standings.csv",
        "/api/tournaments/{t}/standings.json",
        "/api/tournaments/{t}/crosstable.csv",
        "/api/tournaments/{t}/matches.json",
        "/api/bots/{b}/ratings.csv",
    ],
)
def test_downloads_are_read_only_to_anyone_and_404_for_nothing(round_robin, path):
    bot = round_robin.entries.first().bot
    url = path.format(t=round_robin.pk, b=bot.pk)
    stranger = Client()
    stranger.force_login(user(name="stranger"))
    for client in (Client(), stranger):
        assert client.get(url).status_code == 200
        refused = client.post(url)
        assert refused.status_code in (401, 403, 405)  # nothing to write, signed in or not
        assert refused.json()["code"]
    missing = Client().get(path.format(t=999999, b=999999))
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    assert Client().get(url.replace(".csv", ".xls").replace(".json", ".xls")).status_code == 404
