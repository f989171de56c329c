"""A real competition exported and verified: the example bots play its ladder and its final
in the sandbox through the services a worker calls (tournaments.services.play_match), the
archive is written by ``export_competition`` and checked by ``verify_competition``; then
one move, one result, one seed and one standing are changed, and each is caught."""

from __future__ import annotations

import copy
import gzip
import json
import subprocess
import sys
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.utils import timezone

from bots.models import Bot
from tests.support.builders import user, version
from tournaments import services
from tournaments.archive.export import archive_for, competition_archive
from tournaments.archive.verify import dump_archive
from tournaments.models import Competition, Match, Tournament
from tournaments.services import competition_ladder, competition_phases, competitions

EXAMPLES = Path(settings.BASE_DIR) / "examples" / "bots"
BOTS = {"cautious": "pairs_cautious.py", "raw": "raw_bot.py", "sdk": "sdk_bot.py"}


def play_queued(**where) -> int:
    """Play every queued match of ``where`` as a worker does (the sandbox, the runner, the
    recording service), until none is queued; how many were played."""
    played = 0
    while ids := list(
        Match.objects.filter(status=Match.Status.QUEUED, **where).values_list("pk", flat=True)
    ):
        for match_id in ids:
            services.play_match(match_id=match_id)
            played += 1
    return played


def run_competition() -> Competition:
    """A competition of the example bots (and one disqualified after the ladder), its
    ladder played over two cycles (the second in two divisions), frozen, its final played,
    closed."""
    organiser = user(name="organiser")
    now = timezone.now()
    competition = competitions.create_competition(
        organiser=organiser,
        name="Archive cup",
        game="pairs",
        players=2,
        options={},
        opens_at=now - timedelta(minutes=5),
        deadline=now + timedelta(hours=1),
        final_at=now + timedelta(hours=2),
        final_settings={"format": "single_elimination", "games_per_pairing": 2},
        division_size=2,
        cycle_minutes=1,
    )
    for name, filename in {**BOTS, "cheat": "raw_bot.py"}.items():
        author = user(name=f"author-{name}")
        bot = Bot.objects.create(owner=author, name=f"archive-{name}", game="pairs")
        source = (EXAMPLES / filename).read_bytes() + f"\n# {name}\n".encode()
        version(bot=bot, source=source, announce=False)
        competitions.enter_competition(competition=competition, bot=bot, user=author)
    # Cycle 1 plays everyone in one division; a minute later it ends and cycle 2 plays in
    # two divisions of two.
    for beat in (0, 1, 61):
        competition_ladder.schedule_competition(
            competition_id=competition.pk, now=now + timedelta(seconds=beat)
        )
        assert play_queued(competition=competition)
    competition.refresh_from_db()
    assert competition.cycle == 2
    assert set(competition.matches.values_list("division", flat=True)) >= {1, 2}
    cheat = competition.entries.get(bot__name="archive-cheat")
    competitions.disqualify_entry(entry=cheat, reason="shared code")
    assert competition_phases.freeze_competition(
        competition=competition, now=competition.deadline + timedelta(seconds=1)
    )
    competition.refresh_from_db()
    assert services.start_tournament(tournament_id=competition.final_id)
    assert play_queued(tournament_id=competition.final_id)
    competition_phases.advance_competitions(now=competition.final_at + timedelta(hours=1))
    competition.refresh_from_db()
    assert competition.phase == Competition.Phase.CLOSED
    assert competition.final.status == "finished"
    return competition


@pytest.fixture(scope="module")
def exported(django_db_setup, django_db_blocker, tmp_path_factory) -> dict:
    """The competition played once for the module, exported through the command (to
    .json.gz and .json), its rows rolled back afterwards."""
    folder = tmp_path_factory.mktemp("archive")
    with django_db_blocker.unblock(), transaction.atomic():
        competition = run_competition()
        out = StringIO()
        for name in ("cup.json.gz", "cup.json"):
            call_command("export_competition", competition.pk, str(folder / name), stdout=out)
        document = competition_archive(competition=competition)
        ladder = competition.matches.count()
        transaction.set_rollback(True)
    return {"folder": folder, "out": out.getvalue(), "document": document, "ladder": ladder}


def verify(path: Path) -> str:
    out = StringIO()
    call_command("verify_competition", str(path), stdout=out)
    return out.getvalue()


def tampered(exported: dict, change) -> str:
    """The discrepancy ``verify_competition`` finds in the archive changed by ``change``."""
    document = copy.deepcopy(exported["document"])
    change(document)
    path = exported["folder"] / "tampered.json.gz"
    dump_archive(document, path)
    out = StringIO()
    with pytest.raises(CommandError) as failed:
        call_command("verify_competition", str(path), stdout=out)
    assert failed.value.returncode == 1
    line = out.getvalue().strip()
    assert line.startswith("discrepancy: ") and "verified" not in line
    return line


def finished(document: dict, stage: str) -> list[dict]:
    return [m for m in document["matches"] if m["stage"] == stage and m["status"] == "finished"]


def test_a_real_competition_exports_and_verifies(exported):
    folder, document = exported["folder"], exported["document"]
    assert "cup.json.gz" in exported["out"]
    packed = (folder / "cup.json.gz").read_bytes()
    assert packed[:2] == b"\x1f\x8b"
    zipped = json.loads(gzip.decompress(packed))
    plain = json.loads((folder / "cup.json").read_bytes())
    assert zipped.pop("exported_at") and plain.pop("exported_at")
    assert zipped == plain
    # The fixed names: a top-level list of matches, each with its seed, moves and result.
    ladder, final = finished(document, "ladder"), finished(document, "final")
    assert len(ladder) == exported["ladder"] >= 4 and len(final) >= 4
    for match in ladder + final:
        assert {"seed", "moves", "result"} <= set(match) and match["moves"]
        assert all(len(seat["sha256"]) == 64 for seat in match["seats"])
    # The disqualified entry's matches stay; it is out of the final and the standings.
    cheat = next(e for e in document["entries"] if e["bot"] == "archive-cheat")
    assert cheat["status"] == "disqualified" and cheat["reason"] == "shared code"
    assert any(s["bot"] == "archive-cheat" for m in ladder for s in m["seats"])
    assert "archive-cheat" not in {e["bot"] for e in document["final"]["entrants"]}
    assert cheat["id"] not in {row["entry_id"] for row in document["standings"]["overall"]}
    places = sorted(e["place"] for e in document["final"]["entrants"])
    assert places == [1, 2, 3]
    for name in ("cup.json.gz", "cup.json"):
        out = verify(folder / name)
        assert "verified" in out and f"{len(ladder) + len(final)} match(es) replayed" in out
        # Cycle 1's one division, cycle 2's two: as the competition's own tables show them.
        assert "3 division table(s) recomputed" in out
    assert [len(c["tables"]) for c in document["standings"]["cycles"]] == [1, 2]


def test_one_move_changed_is_caught(exported):
    match = finished(exported["document"], "final")[0]

    def change(document):
        moved = next(m for m in document["matches"] if m["id"] == match["id"])
        actions = moved["moves"][0]["actions"]
        seat = next(iter(actions))
        actions[seat] = "a card nobody holds"

    line = tampered(exported, change)
    assert f"match {match['id']} (final {match['pairing_key']}) move 1: seat" in line
    assert "not a legal action" in line


def test_one_result_changed_is_caught(exported):
    match = finished(exported["document"], "ladder")[1]

    def change(document):
        changed = next(m for m in document["matches"] if m["id"] == match["id"])
        seats = changed["result"]["seats"]
        seats[0]["rank"], seats[1]["rank"] = seats[1]["rank"], seats[0]["rank"]
        if seats[0]["rank"] == seats[1]["rank"]:  # a draw: make it a win
            seats[0]["rank"] = 1 if seats[1]["rank"] != 1 else 2

    line = tampered(exported, change)
    assert f"match {match['id']} (ladder table {match['table']}): seat 0 rank is" in line


def test_one_seed_changed_is_caught(exported):
    final = finished(exported["document"], "final")
    match = final[-1]

    def change(document):
        next(m for m in document["matches"] if m["id"] == match["id"])["seed"] += 1

    line = tampered(exported, change)
    assert f"match {match['id']} (final {match['pairing_key']}): deal seed" in line
    assert "does not derive from the final's committed seed" in line

    def the_ladder_seed(document):
        document["competition"]["seed"] += 1

    assert "the competition's seed: sha256(" in tampered(exported, the_ladder_seed)


def test_a_changed_standing_is_caught(exported):
    def final_place(document):
        first, second = sorted(document["final"]["entrants"], key=lambda e: e["place"])[:2]
        first["place"], second["place"] = 2, 1

    assert "the final's table: " in tampered(exported, final_place)

    def ladder_points(document):
        table = document["standings"]["cycles"][-1]["tables"][0]
        table["rows"][-1]["points"] += 1

    line = tampered(exported, ladder_points)
    assert "division 1:" in line and "points" in line


def test_the_command_line_needs_no_database(exported):
    """Anyone verifies: no database reachable, no bot at hand."""
    root = Path(settings.BASE_DIR)
    env = {"PATH": "/usr/bin:/bin", "DATABASE_URL": "postgres://nobody@127.0.0.1:9/none"}
    run = subprocess.run(
        [sys.executable, "manage.py", "verify_competition", str(exported["folder"] / "cup.json.gz")],
        cwd=root, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "verified" in run.stdout


@pytest.mark.django_db
def test_participants_download_it_only_when_closed_and_public():
    organiser = user(name="org")
    now = timezone.now()
    competition = competitions.create_competition(
        organiser=organiser, name="Later", game="pairs", players=2, options={},
        opens_at=now, deadline=now + timedelta(hours=1), final_at=now + timedelta(hours=2),
        final_settings={"format": "round_robin"}, release="hidden",
    )  # fmt: skip
    visitor = user(name="visitor")
    assert archive_for(competition=competition, user=visitor) is None  # open
    Competition.objects.filter(pk=competition.pk).update(phase="closed")
    competition.refresh_from_db()
    assert archive_for(competition=competition, user=visitor) is None  # hidden
    competitions.reveal_results(competition=competition)
    competition.refresh_from_db()
    document = archive_for(competition=competition, user=visitor)
    assert document["competition"]["name"] == "Later" and document["matches"] == []
    # A final whose records only the bots' owners see: the archive would hold them all.
    final = competition.final
    competition.final = Tournament.objects.create(
        organiser=organiser, name="f", game="pairs", players_per_match=2, seed=1,
        start_at=now, record_visibility="owners",
    )  # fmt: skip
    competition.save()
    assert archive_for(competition=competition, user=visitor) is None
    assert archive_for(competition=competition, user=organiser) is not None
    assert final is None


@pytest.mark.django_db
def test_the_commands_refuse_clearly(tmp_path):
    with pytest.raises(CommandError, match="there is no competition 404"):
        call_command("export_competition", 404, str(tmp_path / "x.json"))
    organiser = user(name="org")
    now = timezone.now()
    competition = competitions.create_competition(
        organiser=organiser, name="Open", game="pairs", players=2, options={},
        opens_at=now, deadline=now + timedelta(hours=1), final_at=now + timedelta(hours=2),
        final_settings={"format": "round_robin"},
    )  # fmt: skip
    err = StringIO()
    path = tmp_path / "open.json"
    call_command("export_competition", competition.pk, str(path), stdout=StringIO(), stderr=err)
    assert "not closed: this archive reveals its ladder's seed" in err.getvalue()
    assert "verified" in verify(path)  # nothing played yet, but the commitment holds
    with pytest.raises(CommandError, match="cannot write"):
        call_command("export_competition", competition.pk, str(tmp_path / "no" / "such.json"))
    (tmp_path / "notes.txt").write_text("not JSON")
    for name, message in (("notes.txt", "is not JSON"), ("missing.json", "cannot read")):
        with pytest.raises(CommandError, match=message) as refused:
            call_command("verify_competition", str(tmp_path / name), stdout=StringIO())
        assert refused.value.returncode == 2
