"""Version gates: an SPRT on paired deals decides whether a new version becomes current."""

from __future__ import annotations

import pytest
from django.test import Client

from bots import selectors as bot_selectors
from bots import services as bot_services
from bots.models import BotVersion
from tests.support.builders import bot_with_version, user, version
from tournaments import services
from tournaments.models import Gate, Match, Rating
from tournaments.services.playing import claim_match, record_result

pytestmark = pytest.mark.django_db


def gated_bot(settings, **gate):
    settings.ARENA_GATE_BATCH_PAIRS = 4
    bot, first = bot_with_version(name="gated", gating=True, **gate)
    candidate = version(bot=bot, number=2, status=BotVersion.Status.VALIDATING)
    return bot, first, candidate


def activate(candidate, django_capture_on_commit_callbacks):
    """The validation verdict, with its after-commit hook run (it opens the gate)."""
    with django_capture_on_commit_callbacks(execute=True):
        bot_services._record_verdict(version=candidate, ok=True, reason="")
    candidate.refresh_from_db()
    return candidate


def play_out(gate: Gate, candidate_score) -> Gate:
    """Play queued gate matches through the real lifecycle until the gate decides.

    ``candidate_score(pair, half)`` gives the candidate's result in that match: 1, 0.5 or 0.
    """
    for _ in range(200):
        queued = list(gate.matches.filter(status=Match.Status.QUEUED).order_by("round", "number"))
        if not queued:
            break
        for match in queued:
            attempt = claim_match(match_id=match.pk)
            if attempt is None:
                continue  # cancelled by a verdict meanwhile
            score = candidate_score(match.round, match.number)
            seats = list(match.seats.order_by("seat"))
            ranks = []
            for seat in seats:
                mine = seat.version_id == gate.candidate_id
                if score == 0.5:
                    ranks.append(1)
                else:
                    ranks.append(1 if mine == (score == 1) else 2)
            outcome = {
                "version": match.engine_version,
                "result": {
                    "seats": [{"score": 0, "rank": r, "fault": None} for r in ranks],
                    "teams": [],
                },
                "moves": [],
                "record": {},
            }
            record_result(match_id=match.pk, attempt=attempt, outcome=outcome)
        gate.refresh_from_db()
        if gate.status != Gate.Status.RUNNING:
            break
    gate.refresh_from_db()
    return gate


def test_activation_opens_a_gate_of_paired_deals_and_keeps_the_parent_current(
    settings, django_capture_on_commit_callbacks
):
    bot, first, candidate = gated_bot(settings)
    candidate = activate(candidate, django_capture_on_commit_callbacks)
    assert candidate.status == BotVersion.Status.ACTIVE
    assert candidate.parent_id == first.pk and candidate.gating == BotVersion.Gating.RUNNING
    assert bot_selectors.current_version(bot=bot) == first
    gate = candidate.gate
    assert gate.pool == "pairs:2" and gate.status == Gate.Status.RUNNING
    matches = list(gate.matches.order_by("round", "number"))
    assert len(matches) == 8 and all(m.tournament_id is None for m in matches)
    for one, two in zip(matches[::2], matches[1::2]):
        assert one.round == two.round and one.seed == two.seed  # the same deal
        seats_one = [s.version_id for s in one.seats.order_by("seat")]
        seats_two = [s.version_id for s in two.seats.order_by("seat")]
        assert seats_one == seats_two[::-1] == [candidate.pk, first.pk]  # seats swapped
    assert len({m.seed for m in matches}) == 4


def test_a_stronger_version_passes_and_becomes_current(
    settings, django_capture_on_commit_callbacks
):
    bot, first, candidate = gated_bot(settings)
    gate = activate(candidate, django_capture_on_commit_callbacks).gate
    # Wins three games in four: much stronger than elo1 = 20.
    gate = play_out(gate, lambda pair, half: 0 if (pair % 2 and half == 2) else 1)
    assert gate.status == Gate.Status.PASSED and gate.llr >= gate.upper
    candidate.refresh_from_db()
    assert candidate.gating == BotVersion.Gating.PASSED
    assert bot_selectors.current_version(bot=bot) == candidate
    # Whatever was still queued is cancelled; gate matches are not rated.
    assert not gate.matches.filter(status=Match.Status.QUEUED).exists()
    assert not Rating.objects.filter(version__bot=bot).exists()
    assert sum(gate.counts) * 2 <= gate.max_games


def test_an_identical_version_fails_and_the_parent_stays(
    settings, django_capture_on_commit_callbacks
):
    bot, first, candidate = gated_bot(settings)
    gate = activate(candidate, django_capture_on_commit_callbacks).gate
    # Every deal goes to whoever holds its better seat: each pair splits 1-1.
    gate = play_out(gate, lambda pair, half: 1 if half == 1 else 0)
    assert gate.status == Gate.Status.FAILED and gate.llr <= gate.lower
    assert gate.counts[2] == sum(gate.counts)
    candidate.refresh_from_db()
    assert candidate.gating == BotVersion.Gating.FAILED
    assert bot_selectors.current_version(bot=bot) == first


def test_the_game_cap_ends_a_gate_without_promotion(settings, django_capture_on_commit_callbacks):
    bot, first, candidate = gated_bot(settings, gate_max_games=12)
    gate = activate(candidate, django_capture_on_commit_callbacks).gate
    gate = play_out(gate, lambda pair, half: 0.5)
    assert gate.status == Gate.Status.CAPPED and gate.lower < gate.llr < gate.upper
    assert gate.matches.filter(status=Match.Status.FINISHED).count() == 12
    assert bot_selectors.current_version(bot=bot) == first


def test_ungated_bots_and_first_versions_need_no_gate(django_capture_on_commit_callbacks):
    bot, first = bot_with_version(name="plain")
    second = version(bot=bot, number=2, status=BotVersion.Status.VALIDATING)
    activate(second, django_capture_on_commit_callbacks)
    assert second.gating == BotVersion.Gating.NONE and second.parent_id == first.pk
    assert bot_selectors.current_version(bot=bot) == second
    assert not Gate.objects.exists()


def test_the_beat_opens_a_gate_the_hook_missed(settings):
    bot, first, candidate = gated_bot(settings)
    BotVersion.objects.filter(pk=candidate.pk).update(
        status=BotVersion.Status.ACTIVE, parent=first, gating=BotVersion.Gating.RUNNING
    )
    assert services.check_gates() == 1
    assert Gate.objects.get(candidate=candidate).matches.count() == 8
    assert services.check_gates() == 0  # running, its matches still queued


def test_gating_api_shows_llr_and_bounds_and_only_the_owner_changes_settings(
    settings, django_capture_on_commit_callbacks
):
    bot, first, candidate = gated_bot(settings)
    gate = activate(candidate, django_capture_on_commit_callbacks).gate
    play_out(gate, lambda pair, half: 1 if half == 1 else 0)
    client = Client()
    answer = client.get(f"/api/bots/{bot.pk}/gating/").json()
    assert answer["gating"] is True and answer["elo1"] == 20.0
    shown = answer["gates"][0]
    assert shown["status"] == "failed" and shown["version"] == 2 and shown["parent"] == 1
    assert shown["lower"] == pytest.approx(-2.944, abs=1e-3) and shown["llr"] <= shown["lower"]
    client.force_login(bot.owner)
    changed = client.patch(
        f"/api/bots/{bot.pk}/gating/",
        {"elo0": 5, "elo1": 15, "max_games": 400},
        content_type="application/json",
    )
    assert changed.status_code == 200 and changed.json()["elo0"] == 5.0
    refused = client.patch(
        f"/api/bots/{bot.pk}/gating/", {"elo0": 30}, content_type="application/json"
    )
    assert refused.status_code == 400 and set(refused.json()) == {"detail", "code", "errors"}
    bot.refresh_from_db()
    assert (bot.gate_elo0, bot.gate_elo1) == (5.0, 15.0)
    stranger = Client()
    stranger.force_login(user(name="stranger"))
    assert (
        stranger.patch(
            f"/api/bots/{bot.pk}/gating/", {"gating": False}, content_type="application/json"
        ).status_code
        == 403
    )
