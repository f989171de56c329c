"""A competition's ladder against the database: the tables it queues within divisions,
promotion and relegation over cycles with real recorded results, new entrants through the
bottom, pause and deadline, and the order that seeds the final."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import Q
from django.utils import timezone

from bots.models import Bot, BotVersion, OptionsValidation
from tests.support.builders import active_bots, bot_with_version, outcome, play_for_real, user
from tournaments.formats.common import rotation
from tournaments.formats.divisions import competition_table_seed, next_divisions
from tournaments.models import Competition, CompetitionEntry, Match, Rating
from tournaments.selectors.competition_standings import (
    competition_standings,
    division_tables,
)
from tournaments.services import competition_phases, competitions
from tournaments.services.competition_ladder import schedule_competition_ladders
from tournaments.services.playing import claim_match, record_result

HOUR = timedelta(hours=1)


@pytest.fixture
def organiser(db):
    return user(name="organiser")


def season(organiser, *, division_size=None, promote=1, **fields) -> Competition:
    now = timezone.now()
    return competitions.create_competition(
        organiser=organiser,
        name="season",
        game="pairs",
        players=fields.pop("players", 2),
        options={},
        opens_at=fields.pop("opens_at", now),
        deadline=fields.pop("deadline", now + 24 * HOUR),
        final_at=now + 25 * HOUR,
        final_settings={},
        division_size=division_size,
        promote=promote,
        cycle_minutes=60,
        move_ms=700,
        bank_ms=7000,
        seed=4242,
        **fields,
    )


def enter(competition: Competition, bots: list[Bot]) -> list[CompetitionEntry]:
    return [
        competitions.enter_competition(competition=competition, bot=bot, user=bot.owner)
        for bot in bots
    ]


def queued() -> list[Match]:
    return list(
        Match.objects.filter(competition__isnull=False, status=Match.Status.QUEUED).order_by("pk")
    )


def play(strength: dict[int, int]) -> int:
    """Claim and record every queued competition match as a worker does: the seat whose
    bot has the higher ``strength`` wins."""
    played = 0
    for match in queued():
        attempt = claim_match(match_id=match.pk)
        bots = [s.version.bot_id for s in match.seats.select_related("version").order_by("seat")]
        order = sorted(bots, key=lambda b: -strength[b])
        ranks = [order.index(b) + 1 for b in bots]
        assert record_result(
            match_id=match.pk, attempt=attempt, outcome=outcome(match=match, ranks=ranks)
        )
        played += 1
    return played


def division_of(competition: Competition) -> dict[int, int]:
    """bot id -> division of the competition's accepted entries."""
    return dict(
        CompetitionEntry.objects.filter(
            competition=competition, status=CompetitionEntry.Status.ACCEPTED
        ).values_list("bot_id", "division")
    )


def met_pairs(competition: Competition, cycle: int) -> dict[int, set[frozenset]]:
    pairs: dict[int, set[frozenset]] = {}
    matches = Match.objects.filter(
        competition=competition, cycle=cycle, status=Match.Status.FINISHED
    ).prefetch_related("seats__version")
    for match in matches:
        bots = frozenset(s.version.bot_id for s in match.seats.all())
        pairs.setdefault(match.division or 1, set()).add(bots)
    return pairs


def play_cycle(competition: Competition, strength: dict[int, int], now) -> None:
    """Schedule and play until every two entrants of each division have met this cycle."""
    competition.refresh_from_db()
    for _ in range(200):
        schedule_competition_ladders(now=now)
        play(strength)
        competition.refresh_from_db()
        divisions = division_of(competition)
        wanted = {}
        for bot, d in divisions.items():
            wanted.setdefault(d, set()).add(bot)
        met = met_pairs(competition, competition.cycle)
        if all(
            len(met.get(d, set())) == len(bots) * (len(bots) - 1) // 2 for d, bots in wanted.items()
        ):
            return
    raise AssertionError("the divisions' entrants did not all meet")


def test_a_table_is_a_duplicate_set_of_the_competitions_own(organiser, settings):
    settings.ARENA_LADDER_SLOTS = 1
    competition = season(organiser, division_size=4)
    bots = active_bots(owner=organiser, count=4)
    enter(competition, bots)
    now = timezone.now()
    assert schedule_competition_ladders(now=now) == 2
    first, second = queued()
    for match in (first, second):
        assert match.competition_id == competition.pk
        assert match.ladder_id is None and match.tournament_id is None
        assert (match.division, match.cycle, match.round) == (1, 1, 1)
        assert (match.move_ms, match.bank_ms) == (700, 7000)
        assert match.seed == competition_table_seed(4242, 1)
    seats = [[s.version_id for s in m.seats.order_by("seat")] for m in (first, second)]
    assert seats[1] == list(rotation(seats[0], 1)[0])
    assert schedule_competition_ladders(now=now) == 0  # the division's one slot is busy
    competition.refresh_from_db()
    assert (competition.tables, competition.cycle, competition.cycle_started_at) == (1, 1, now)


def test_competition_games_are_not_rated_in_the_public_pools(organiser, settings):
    settings.ARENA_LADDER_SLOTS = 1
    competition = season(organiser)
    enter(competition, active_bots(owner=organiser, count=2))
    schedule_competition_ladders()
    for match in queued():
        played = play_for_real(match=match)  # the real runner, the game's random policy
        assert played.status == Match.Status.FINISHED
        assert played.rated_seq is None and played.pool == ""
        # Without divisions a match has none; it counts for the one table.
        assert played.division is None
    assert not Rating.objects.exists()
    competition.refresh_from_db()
    (table,) = division_tables(competition=competition)
    assert sum(row["games"] for row in table["rows"]) == 4
    assert sum(row["points"] for row in table["rows"]) == 2


def test_promotion_and_relegation_over_two_cycles(organiser, settings):
    settings.ARENA_LADDER_SLOTS = 2
    competition = season(organiser, division_size=3, promote=1)
    bots = active_bots(owner=organiser, count=6)
    enter(competition, bots)
    assert set(division_of(competition).values()) == {1}  # no divisions before a cycle
    strength = {b.pk: i for i, b in enumerate(bots)}  # bot5 strongest
    start = timezone.now()

    # Cycle 1: everyone plays in one division; its table cuts the first divisions.
    play_cycle(competition, strength, start)
    (table,) = division_tables(competition=competition)
    order = [row["bot_id"] for row in table["rows"]]
    assert order[0] == bots[5].pk and order[-1] == bots[0].pk
    assert competition_standings(competition=competition)[0]["bot_id"] == bots[5].pk
    later = start + 61 * timedelta(minutes=1)
    schedule_competition_ladders(now=later)
    competition.refresh_from_db()
    assert competition.cycle == 2 and competition.cycle_started_at == later
    divisions = division_of(competition)
    assert {b for b, d in divisions.items() if d == 1} == set(order[:3])
    assert {b for b, d in divisions.items() if d == 2} == set(order[3:])
    # The new cycle's tables keep to their divisions.
    for match in queued():
        seated = {s.version.bot_id for s in match.seats.select_related("version")}
        assert {divisions[b] for b in seated} == {match.division} and match.cycle == 2

    # Cycle 2: the weakest of division 2 is now the strongest of all, and the strongest
    # of division 1 the weakest: one goes up, the other down.
    riser = order[-1]
    faller = order[0]
    strength[riser], strength[faller] = 100, -100
    play_cycle(competition, strength, later)
    tables = division_tables(competition=competition)
    assert [t["division"] for t in tables] == [1, 2]
    assert tables[0]["rows"][-1]["bot_id"] == faller
    assert tables[1]["rows"][0]["bot_id"] == riser
    assert all(t["cycle"] == 2 for t in tables)
    end = later + 61 * timedelta(minutes=1)
    schedule_competition_ladders(now=end)
    after = division_of(competition)
    assert after[riser] == 1 and after[faller] == 2
    assert {b for b, d in after.items() if d == 1} == (set(order[:3]) - {faller}) | {riser}
    competition.refresh_from_db()
    assert competition.cycle == 3

    # Past cycles' tables stay readable: cycle 1 had everyone in one division.
    (first,) = division_tables(competition=competition, cycle=1)
    assert [row["bot_id"] for row in first["rows"]] == order
    # The final's seeding: division first, then place in it.
    standings = competition_standings(competition=competition)
    assert [row["division"] for row in standings] == [1, 1, 1, 2, 2, 2]
    assert [row["entry_id"] for row in standings] == [
        row["entry_id"] for t in division_tables(competition=competition) for row in t["rows"]
    ]


def test_a_cycle_waits_for_its_games_still_playing(organiser, settings):
    settings.ARENA_LADDER_SLOTS = 1
    competition = season(organiser, division_size=2)
    bots = active_bots(owner=organiser, count=4)
    enter(competition, bots)
    start = timezone.now()
    assert schedule_competition_ladders(now=start) == 2
    later = start + 2 * HOUR
    assert schedule_competition_ladders(now=later) == 0
    competition.refresh_from_db()
    assert competition.cycle == 1  # its games are queued: the cycle is not over
    play({b.pk: i for i, b in enumerate(bots)})
    assert schedule_competition_ladders(now=later) == 4  # a division of two each: two tables
    competition.refresh_from_db()
    assert competition.cycle == 2
    assert sorted(division_of(competition).values()) == [1, 1, 2, 2]


def test_new_entrants_place_through_the_bottom_division(organiser, settings):
    settings.ARENA_LADDER_SLOTS = 2
    competition = season(organiser, division_size=3)
    bots = active_bots(owner=organiser, count=6)
    enter(competition, bots)
    strength = {b.pk: i for i, b in enumerate(bots)}
    start = timezone.now()
    play_cycle(competition, strength, start)
    schedule_competition_ladders(now=start + 61 * timedelta(minutes=1))
    assert sorted(division_of(competition).values()) == [1, 1, 1, 2, 2, 2]

    late = user(name="late")
    newcomers = [bot_with_version(owner=late, name=f"late{i}")[0] for i in range(2)]
    entries = enter(competition, newcomers)
    assert [e.division for e in entries] == [2, 2]
    # An entry waiting for approval is placed when it is accepted, at the bottom too.
    competition.eligibility = Competition.Eligibility.APPROVAL
    competition.save(update_fields=["eligibility"])
    (waiting,) = enter(competition, [bot_with_version(owner=late, name="later")[0]])
    assert waiting.status == CompetitionEntry.Status.PENDING and waiting.division is None
    accepted = competitions.decide_entry(entry=waiting, accept=True)
    accepted.refresh_from_db()
    assert accepted.division == 2
    weakest = accepted.bot_id
    strength.update({newcomers[0].pk: -1, newcomers[1].pk: -2, weakest: -3})

    # Nine entrants: the next cut makes three divisions from the tables' order.
    competition.refresh_from_db()
    second = start + 61 * timedelta(minutes=1)
    play_cycle(competition, strength, second)
    tables = division_tables(competition=competition)
    assert [len(t["rows"]) for t in tables] == [3, 6]
    bot_of = {row["entry_id"]: row["bot_id"] for t in tables for row in t["rows"]}
    expected = next_divisions(
        [[row["entry_id"] for row in t["rows"]] for t in tables], promote=1, size=3, minimum=2
    )
    schedule_competition_ladders(now=second + 61 * timedelta(minutes=1))
    after = division_of(competition)
    assert sorted(after.values()) == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert after == {bot_of[e]: d for d, members in enumerate(expected, 1) for e in members}
    assert all(after[b.pk] > 1 for b in newcomers)
    assert after[weakest] == 3  # it lost every game: last of division 2, cut to division 3


def test_an_entry_accepted_without_a_division_is_placed_by_the_beat(organiser):
    competition = season(organiser)
    bots = active_bots(owner=organiser, count=2)
    for bot in bots:
        CompetitionEntry.objects.create(competition=competition, bot=bot)
    assert schedule_competition_ladders() == 2
    assert set(division_of(competition).values()) == {1}


def test_a_paused_competition_schedules_nothing_and_its_cycle_waits(organiser, settings):
    settings.ARENA_LADDER_SLOTS = 1
    competition = season(organiser, division_size=2)
    bots = active_bots(owner=organiser, count=4)
    enter(competition, bots)
    start = timezone.now()
    assert schedule_competition_ladders(now=start) == 2
    play({b.pk: i for i, b in enumerate(bots)})
    competition_phases.set_competition_paused(competition=competition, paused=True)
    assert schedule_competition_ladders(now=start + 2 * HOUR) == 0
    assert not queued()
    competition.refresh_from_db()
    assert competition.cycle == 1
    competition_phases.set_competition_paused(competition=competition, paused=False)
    assert schedule_competition_ladders(now=start + 2 * HOUR) > 0
    competition.refresh_from_db()
    assert competition.cycle == 2


def test_nothing_is_scheduled_before_the_opening_nor_after_the_deadline(organiser):
    now = timezone.now()
    early = season(organiser, opens_at=now + HOUR, deadline=now + 2 * HOUR)
    enter(early, active_bots(owner=organiser, count=2))
    assert schedule_competition_ladders(now=now) == 0
    assert schedule_competition_ladders(now=now + 2 * HOUR) == 0  # the deadline
    assert not Match.objects.filter(competition=early).exists()
    assert schedule_competition_ladders(now=now + HOUR) == 2
    early.refresh_from_db()
    assert early.cycle == 1


def test_nothing_is_scheduled_once_frozen(organiser):
    competition = season(organiser)
    enter(competition, active_bots(owner=organiser, count=2))
    Competition.objects.filter(pk=competition.pk).update(phase=Competition.Phase.FROZEN)
    assert schedule_competition_ladders() == 0


def test_a_disqualified_entry_leaves_the_tables_and_its_games_stay(organiser, settings):
    settings.ARENA_LADDER_SLOTS = 3
    competition = season(organiser)
    bots = active_bots(owner=organiser, count=3)
    entries = enter(competition, bots)
    strength = {b.pk: i for i, b in enumerate(bots)}
    schedule_competition_ladders()
    play(strength)
    competitions.disqualify_entry(entry=entries[2], reason="shared code")
    (table,) = division_tables(competition=competition)
    assert bots[2].pk not in [row["bot_id"] for row in table["rows"]]
    assert bots[2].pk not in [r["bot_id"] for r in competition_standings(competition=competition)]
    assert Match.objects.filter(competition=competition, seats__version__bot=bots[2]).exists()
    # Its games still count for those who played it; it is seated no more.
    schedule_competition_ladders(now=timezone.now() + timedelta(seconds=1))
    for match in queued():
        assert bots[2].pk not in [s.version.bot_id for s in match.seats.all()]


def test_entrants_without_a_current_version_are_not_seated(organiser, settings):
    settings.ARENA_LADDER_SLOTS = 1
    competition = season(organiser)
    bots = active_bots(owner=organiser, count=3)
    enter(competition, bots)
    bots[0].versions.update(status=BotVersion.Status.DISABLED)
    schedule_competition_ladders()
    seated = {s.version.bot_id for m in queued() for s in m.seats.all()}
    assert bots[0].pk not in seated and len(seated) == 2


def test_a_release_rule_leaves_its_matches_out_of_the_tables(organiser, settings):
    settings.ARENA_LADDER_SLOTS = 1
    competition = season(organiser)
    bots = active_bots(owner=organiser, count=2)
    enter(competition, bots)
    schedule_competition_ladders()
    play({bots[0].pk: 1, bots[1].pk: 0})
    competition.refresh_from_db()
    first = Match.objects.filter(competition=competition).order_by("pk").first()
    (table,) = division_tables(competition=competition, hidden=Q(pk=first.pk))
    assert sum(row["games"] for row in table["rows"]) == 2
    (table,) = division_tables(competition=competition)
    assert sum(row["games"] for row in table["rows"]) == 4
    assert [row["bot_id"] for row in table["rows"]] == [bots[0].pk, bots[1].pk]
    assert table["rows"][0]["points"] == 2.0 and table["rows"][0]["score"] == 1.0
    assert table["rows"][0]["owner"] == "organiser" and table["rows"][0]["team"] is None


def test_an_entry_not_placed_yet_comes_last_in_the_standings(organiser):
    competition = season(organiser, division_size=2)
    bots = active_bots(owner=organiser, count=3)
    enter(competition, bots[:2])
    CompetitionEntry.objects.filter(competition=competition).update(division=2)
    late = CompetitionEntry.objects.create(competition=competition, bot=bots[2])
    standings = competition_standings(competition=competition)
    assert [row["bot_id"] for row in standings] == [b.pk for b in bots]
    assert standings[-1]["entry_id"] == late.pk and standings[-1]["division"] == 3


def test_three_seat_tables_rotate_every_seat_and_divisions_hold_a_table(organiser, settings):
    settings.ARENA_LADDER_SLOTS = 1
    competition = season(organiser, division_size=3, players=3)
    bots = active_bots(owner=organiser, count=7)
    enter(competition, bots)
    start = timezone.now()
    # Validated under two seats only, each version first plays a validation match with
    # three (asked for here) and sits out until it passes.
    assert schedule_competition_ladders(now=start) == 0
    asked = OptionsValidation.objects.filter(version__bot__in=bots)
    assert asked.count() == 7
    asked.update(status=OptionsValidation.Status.PASSED)
    assert schedule_competition_ladders(now=start) == 3
    games = queued()
    seats = [[s.version_id for s in m.seats.order_by("seat")] for m in games]
    assert [seats[0], *(list(rotation(seats[0], g)[0]) for g in (1, 2))] == seats
    assert len({m.seed for m in games}) == 1
    play({b.pk: i for i, b in enumerate(bots)})
    schedule_competition_ladders(now=start + 2 * HOUR)
    # Seven entrants in divisions of three: a remainder of one cannot seat a table.
    assert sorted(division_of(competition).values()) == [1, 1, 1, 2, 2, 2, 2]
