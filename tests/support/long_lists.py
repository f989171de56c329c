"""Lists longer than a page: tournaments and competitions made in one statement each."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from tests.support.builders import user
from tournaments.models import Competition, Tournament
from tournaments.selectors.newest_first import PAGE_SIZE

COUNT = 2 * PAGE_SIZE + 7


def many_tournaments() -> list[int]:
    """COUNT tournaments, three to a start time (ties the id must break); their ids in the
    list's order: latest start first, then the higher id."""
    organiser, now = user(), timezone.now()
    Tournament.objects.bulk_create(
        Tournament(
            name=f"t{i:03d}",
            organiser=organiser,
            game="pairs",
            players_per_match=2,
            seed=i,
            start_at=now - timedelta(hours=i // 3),
        )
        for i in range(COUNT)
    )
    rows = Tournament.objects.values_list("pk", "start_at")
    return [pk for pk, _ in sorted(rows, key=lambda row: (row[1], row[0]), reverse=True)]


def many_competitions() -> list[int]:
    organiser, now = user(), timezone.now()
    Competition.objects.bulk_create(
        Competition(
            name=f"c{i:03d}",
            organiser=organiser,
            game="pairs",
            players=2,
            opens_at=now - timedelta(days=i // 2),
            deadline=now + timedelta(days=1),
            final_at=now + timedelta(days=2),
            seed=i,
            seed_salt="salt",
            seed_commitment="commitment",
        )
        for i in range(COUNT)
    )
    rows = Competition.objects.values_list("pk", "opens_at")
    return [pk for pk, _ in sorted(rows, key=lambda row: (row[1], row[0]), reverse=True)]
