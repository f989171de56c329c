"""The test database is emptied after transactional tests by deleting rows with triggers off
(tests/support/fast_flush.py): every model table ends empty but the content types and
permissions, and the triggers work again afterwards."""

from __future__ import annotations

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection

from games import registry
from tests.support.builders import active_bots, user
from tests.support.fast_flush import KEPT, delete_every_row
from tournaments.models import Ladder, LadderCount, Match

pytestmark = pytest.mark.django_db(transaction=True)


def match_on(ladder: Ladder) -> Match:
    return Match.objects.create(
        game="pairs",
        engine_version=registry.get("pairs").version,
        options={},
        seed=1,
        ladder=ladder,
        status=Match.Status.QUEUED,
    )


def row_counts() -> dict[str, int]:
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    with connection.cursor() as cursor:
        counts = {}
        for table in tables:
            cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")
            counts[table] = cursor.fetchone()[0]
    return counts


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's own emptying")
def test_every_row_goes_but_the_content_types_and_the_triggers_come_back() -> None:
    active_bots(owner=user(), count=2)
    ladder = Ladder.objects.create(key="pairs-2", game="pairs", players=2)
    match_on(ladder)
    assert LadderCount.objects.get(ladder=ladder).queued == 1  # a row trigger wrote it
    kept = {table: n for table, n in row_counts().items() if table in KEPT}
    assert kept["django_content_type"] > 0 and kept["auth_permission"] > 0

    delete_every_row()

    after = row_counts()
    assert {table: n for table, n in after.items() if n} == kept
    ContentType.objects.clear_cache()
    assert ContentType.objects.get_for_model(Match).model == "match"
    # The triggers were off only inside the deleting transaction.
    ladder = Ladder.objects.create(key="pairs-2", game="pairs", players=2)
    match_on(ladder)
    assert LadderCount.objects.get(ladder=ladder).queued == 1
