"""The demo `make run` loads: every example bot validates, the tournament finishes, and the
competition is played to its close, its archive exported and verified."""

from io import StringIO

import pytest
from django.core.management import call_command

from bots.models import BotVersion
from tournaments import selectors
from tournaments.models import Competition, Match, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def test_demo_loads_active_examples_and_a_finished_tournament():
    call_command("demo", play_all=True)
    versions = BotVersion.objects.select_related("bot")
    assert {v.bot.name: v.status for v in versions} == {
        "cautious-pairs": "active",
        "random-sdk": "active",
        "first-legal-raw": "active",
        "largest-zip": "active",
    }
    events = Tournament.objects.filter(competition__isnull=True)  # not the competition's final
    formats = dict(events.values_list("format", "status"))
    assert formats == {
        "round_robin": "finished",
        "swiss": "finished",
        "single_elimination": "finished",
        "double_elimination": "finished",
        "gauntlet": "finished",
    }
    tournament = Tournament.objects.get(format="round_robin")
    matches = tournament.matches.all()
    assert matches and all(m.status == Match.Status.FINISHED for m in matches)
    table = selectors.standings(tournament=tournament)
    assert len(table) == 4
    # The card-counting example must beat the one that picks at random.
    names = [row["bot"] for row in table]
    assert names.index("cautious-pairs") < names.index("random-sdk")
    # Idempotent: a second run adds nothing.
    call_command("demo")
    assert Tournament.objects.count() == 6  # the five and the competition's final
    assert Competition.objects.count() == 1
    assert BotVersion.objects.count() == 4


def test_without_play_all_the_demo_leaves_all_but_the_round_robin_to_the_workers(
    tmp_path,
):
    call_command("demo")
    events = Tournament.objects.filter(competition__isnull=True)
    statuses = dict(events.values_list("format", "status"))
    assert statuses.pop("round_robin") == "finished"
    assert set(statuses.values()) == {"running"}
    assert Match.objects.filter(status=Match.Status.QUEUED).exists()
    # The competition, played to its close with its final, exports and verifies (the
    # commands docs/archive.md shows on a fresh clone).
    competition = Competition.objects.get()
    assert competition.phase == Competition.Phase.CLOSED
    assert competition.final.status == Tournament.Status.FINISHED
    assert competition.matches.filter(status=Match.Status.FINISHED).count() >= 4
    frozen = competition.entries.filter(frozen_version__isnull=False).count()
    assert frozen == competition.final.entries.count() == 4
    path = tmp_path / "demo.json.gz"
    call_command("export_competition", competition.pk, str(path), stdout=StringIO())
    out = StringIO()
    call_command("verify_competition", str(path), stdout=out)
    assert out.getvalue().startswith("verified: ")
    assert "the final's pairings and table rebuilt" in out.getvalue()
