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
    made = (
        Tournament(
            name=f"t{i:03d}", organiser=organiser, game="pairs", players_per_match=2, seed=i,
            start_at=now - timedelta(hours=i // 3),
        )
        for i in range(COUNT)
    )  # fmt: skip
    return _ids_latest_first(Tournament, made, "start_at")


def many_competitions() -> list[int]:
    """COUNT competitions, two to an opening time; their ids latest opening first."""
    organiser, now = user(), timezone.now()
    made = (
        Competition(
            name=f"c{i:03d}", organiser=organiser, game="pairs", players=2,
            opens_at=now - timedelta(days=i // 2), deadline=now + timedelta(days=1),
            final_at=now + timedelta(days=2), seed=i, seed_salt="salt",
            seed_commitment="commitment",
        )
        for i in range(COUNT)
    )  # fmt: skip
    return _ids_latest_first(Competition, made, "opens_at")


def _ids_latest_first(model, rows, field: str) -> list[int]:
    model.objects.bulk_create(rows)
    stored = model.objects.values_list("pk", field)
    return [pk for pk, _ in sorted(stored, key=lambda row: (row[1], row[0]), reverse=True)]
