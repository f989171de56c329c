"""The leaderboard read model: rows kept up to date as results, refits and version changes
are recorded equal a rebuild from the ratings and the board computed on the spot; its pages
walk the whole board."""

from __future__ import annotations

import random

import pytest
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from django.utils import timezone

from bots import services as bot_services
from bots.models import Bot, BotVersion
from games import registry
from tests.support.builders import bot_with_version, finished_match, user, version
from tournaments import selectors, services
from tournaments.models import LeaderboardRow, Match
from tournaments.read_models import leaderboard_rows as leaderboards
from tournaments.services.requeue import requeue_failed_match

pytestmark = pytest.mark.django_db

POOLS = [
    ("pairs:2", 2, {}),
    ("pairs:3", 3, {}),
    ("pairs:2:continuous=true", 2, {"continuous": True}),
]


def boards(game: str = "pairs") -> dict[str, list[dict]]:
    return {
        pool: selectors.leaderboard(game=game, pool=pool)
        for pool in selectors.pools_of_game(game=game)
        for pool in [pool["key"]]
    }


def direct(game: str = "pairs") -> dict[str, list[dict]]:
    return {
        pool["key"]: selectors.leaderboard_direct(game=game, pool=pool["key"])
        for pool in selectors.pools_of_game(game=game)
    }


def upload_and_activate(bot: Bot, rng: random.Random) -> BotVersion:
    """A new version through the service that records a validation verdict."""
    number = (bot.versions.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    source = f"# {bot.name} {number} {rng.random()}\n".encode()
    pending = version(
        bot=bot,
        number=number,
        source=source,
        status=BotVersion.Status.VALIDATING,
        announce=False,
    )
    return bot_services._record_verdict(version=pending, ok=True, reason="")


def play(rng: random.Random, versions: list[BotVersion], seed: int) -> None:
    pool, players, options = rng.choice(POOLS)
    if len(versions) < players:
        return
    seated = rng.sample(versions, players)
    ranks = [rng.randint(1, players) for _ in seated]
    kind = rng.random()
    if kind < 0.1:  # cancelled before it was played: never rated
        Match.objects.create(
            game="pairs",
            engine_version=registry.get("pairs").version,
            options=options,
            seed=seed,
            status=Match.Status.CANCELLED,
        )
    elif kind < 0.25:  # failed, queued again by staff, then played and delivered twice
        match = finished_match(versions=seated, ranks=ranks, options=options, seed=seed, rate=False)
        Match.objects.filter(pk=match.pk).update(status=Match.Status.FAILED)
        match.refresh_from_db()
        requeue_failed_match(match=match)
        Match.objects.filter(pk=match.pk).update(
            status=Match.Status.FINISHED, finished_at=timezone.now()
        )
        match.refresh_from_db()
        services.rate_match(match=match)
        services.rate_match(match=Match.objects.get(pk=match.pk))  # a re-delivery: no-op
    else:
        finished_match(versions=seated, ranks=ranks, options=options, seed=seed)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_incremental_leaderboards_equal_a_rebuild_and_the_direct_board(seed, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    rng = random.Random(seed)
    bots = [bot_with_version(name=f"bot-{seed}-{i}")[0] for i in range(6)]
    for step in range(70):
        action = rng.random()
        bot = rng.choice(bots)
        if action < 0.55:
            # Any active version may sit (a tournament pins the one current at its start).
            active = list(BotVersion.objects.filter(status=BotVersion.Status.ACTIVE))
            play(rng, active, seed=step)
        elif action < 0.65:
            services.fit_pool(pool=rng.choice(POOLS)[0])
        elif action < 0.78:
            upload_and_activate(bot, rng)
        elif action < 0.88:
            numbers = list(
                bot.versions.filter(status=BotVersion.Status.ACTIVE).values_list(
                    "number", flat=True
                )
            )
            if numbers:
                bot_services.set_current_version(bot=bot, number=rng.choice(numbers))
        elif action < 0.92:
            bot_services.disable_bot(bot=bot, reason="test")
        elif action < 0.96:
            fresh, _ = bot_with_version(name=f"late-{seed}-{step}")
            bots.append(fresh)
        else:
            # A rolled-back transaction leaves the rows as they were.
            with pytest.raises(RuntimeError), transaction.atomic():
                active = list(BotVersion.objects.filter(status=BotVersion.Status.ACTIVE))
                play(rng, active, seed=step)
                raise RuntimeError("rolled back")
        if step % 10 == 9:
            assert boards() == direct(), f"step {step}"
    incremental = boards()
    assert incremental == direct()
    assert any(row["estimate"] == "fit" for rows in incremental.values() for row in rows)
    assert any(row["estimate"] == "parent" for rows in incremental.values() for row in rows)
    stored = {pool: leaderboards.stored_rows(pool=pool) for pool in incremental}
    call_command("rebuild_read_models", "--only", "leaderboards")
    assert {pool: leaderboards.stored_rows(pool=pool) for pool in incremental} == stored
    assert boards() == incremental


def test_rows_follow_the_bot_through_disable_and_delete():
    bot, v1 = bot_with_version(name="solo")
    _, other = bot_with_version(name="other")
    finished_match(versions=[v1, other], ranks=[1, 2])
    assert {r["bot"] for r in selectors.leaderboard(game="pairs")} == {"solo", "other"}
    bot_services.disable_bot(bot=bot, reason="abuse")
    assert [r["bot"] for r in selectors.leaderboard(game="pairs")] == ["other"]
    assert not LeaderboardRow.objects.filter(bot=bot).exists()
    idle, _ = bot_with_version(name="idle")  # a bot with no match can be deleted
    assert LeaderboardRow.objects.filter(bot=idle).count() == 1  # the one pool, unrated
    idle.delete()
    assert not LeaderboardRow.objects.filter(bot_id=idle.pk).exists()


def test_a_version_that_passes_its_gate_takes_the_row():
    bot, v1 = bot_with_version(name="gated", gating=True)
    _, other = bot_with_version(name="other")
    finished_match(versions=[v1, other], ranks=[1, 2])
    v2 = version(bot=bot, number=2, parent=v1, gating=BotVersion.Gating.RUNNING)
    rows = {r["bot"]: r for r in selectors.leaderboard(game="pairs")}
    assert rows["gated"]["version"] == 1
    gate = services.start_gate(version_id=v2.pk)
    from tournaments.services.gating import _finish

    with transaction.atomic():
        _finish(gate, "passed")
    rows = {r["bot"]: r for r in selectors.leaderboard(game="pairs")}
    assert rows["gated"]["version"] == 2 and rows["gated"]["estimate"] == "parent"
    assert selectors.leaderboard(game="pairs") == selectors.leaderboard_direct(game="pairs")


def many_bots(count: int) -> list[BotVersion]:
    crowd = user(name="crowd")
    bots = Bot.objects.bulk_create(
        [Bot(owner=crowd, name=f"crowd-{i:03d}", game="pairs") for i in range(count)]
    )
    versions = []
    for bot in bots:
        versions.append(version(bot=bot))
    return versions


def test_leaderboard_pages_walk_the_whole_board_both_ways():
    versions = many_bots(23)
    rng = random.Random(4)
    for i in range(60):
        a, b = rng.sample(versions[:18], 2)  # five bots never play: unrated rows last
        finished_match(versions=[a, b], ranks=[1, 2] if rng.random() < 0.6 else [2, 1], seed=i)
    services.fit_pool(pool="pairs:2")
    whole = selectors.leaderboard(game="pairs")
    assert whole == selectors.leaderboard_direct(game="pairs")
    client = Client()
    seen, url, pages = [], "/api/leaderboards/pairs/?page_size=5", []
    while url:
        answer = client.get(url).json()
        assert answer["count"] == 23
        pages.append(url)
        seen += answer["ratings"]
        url = answer["next"]
    assert seen == whole  # positions and los_next (the last row of a page too) included
    assert len(pages) == 5
    # Backwards from the last page gives the same pages.
    back, url = [], client.get(pages[-1]).json()["previous"]
    while url:
        answer = client.get(url).json()
        back = answer["ratings"] + back
        url = answer["previous"]
    assert back == whole[:20]
    # A search keeps each row's place and its comparison with the next row on the board.
    found = client.get("/api/leaderboards/pairs/?search=CROWD-01&page_size=3").json()
    expected = [row for row in whole if "crowd-01" in row["bot"]]
    assert found["count"] == len(expected) == 10
    assert found["ratings"] == expected[:3]
    rest = client.get(found["next"]).json()
    assert rest["ratings"] == expected[3:6]


def test_a_search_keeps_every_row_in_place_wherever_its_rows_sit():
    """A search's rows, read with their positions in one walk down the board, equal the
    whole board's rows: rows matched by name or by owner, the board's last row (nothing
    follows it), ties among unrated rows, a pattern with LIKE's wildcards taken as text."""
    versions = many_bots(12)
    other = user(name="x_100%")
    tail = [
        version(bot=Bot.objects.create(owner=other, name=f"z%_{i}", game="pairs")) for i in (1, 2)
    ]
    rng = random.Random(7)
    for i in range(30):
        a, b = rng.sample(versions[:8] + tail[:1], 2)
        finished_match(versions=[a, b], ranks=[1, 2] if rng.random() < 0.5 else [2, 1], seed=i)
    whole = selectors.leaderboard(game="pairs")
    client = Client()

    def searched(text: str, size: int) -> tuple[list[dict], int]:
        """Every page forwards, then back again from the last one (the previous links)."""
        found, url, count = [], f"/api/leaderboards/pairs/?search={text}&page_size={size}", None
        while url:
            answer = client.get(url).json()
            count = answer["count"] if count is None else count
            assert answer["count"] == count
            found += answer["ratings"]
            url = answer["next"]
        back, url = answer["ratings"], answer["previous"]
        while url:
            answer = client.get(url).json()
            back = answer["ratings"] + back
            url = answer["previous"]
        assert back == found
        return found, count

    cases = {
        "crowd-00": lambda r: "crowd-00" in r["bot"],  # rated and unrated (tied) rows
        "z%25_": lambda r: "z%_" in r["bot"],  # wildcards as text; "z%_2" is the last row
        "X_100": lambda r: r["owner"] == "x_100%",  # by owner, case aside
        "-01": lambda r: "-01" in r["bot"],  # unrated rows near the end
    }
    for text, wanted in cases.items():
        expected = [row for row in whole if wanted(row)]
        assert expected, text
        for size in (1, 2, 50):
            assert searched(text, size) == (expected, len(expected)), (text, size)
    assert whole[-1]["bot"] == "z%_2" and whole[-1]["los_next"] is None  # found above


@pytest.mark.parametrize(
    "query",
    [
        "page_size=0",
        "page_size=201",
        "page_size=abc",
        "page_size=1.5",
        "cursor=nonsense",
        "cursor=WzEsMl0",  # base64 of [1,2]: not a cursor this board gave
        "cursor=" + "A" * 500,
    ],
)
def test_bad_leaderboard_page_parameters_are_400s(query):
    bot_with_version(name="a")
    answer = Client().get(f"/api/leaderboards/pairs/?{query}")
    assert answer.status_code == 400, answer.content
    assert set(answer.json()) == {"detail", "code", "errors"}


def run_side_by_side(*bodies) -> list[Exception]:
    """Run each body in a thread of its own (its own database connection, closed at its
    end) and wait for them all; returns what they raised."""
    import threading

    from django.db import connection

    errors = []

    def run(body):
        try:
            body()
        except Exception as exc:  # pragma: no cover - reported by the caller
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(body,)) for body in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


@pytest.mark.django_db(transaction=True)
def test_concurrent_results_and_version_changes_leave_no_drift():
    """Results rated in one connection while another switches the bots' current versions:
    the game's leaderboard lock orders them, so the rows still equal the direct board."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("one writer at a time on SQLite")
    bots = [bot_with_version(name=f"race-{i}")[0] for i in range(4)]
    for bot in bots:
        upload_and_activate(bot, random.Random(bot.pk))

    def results():
        rng = random.Random(1)
        for seed in range(40):
            active = list(BotVersion.objects.filter(status=BotVersion.Status.ACTIVE))
            a, b = rng.sample(active, 2)
            finished_match(
                versions=[a, b], ranks=[1, 2] if rng.random() < 0.5 else [2, 1], seed=seed
            )

    def switches():
        rng = random.Random(2)
        for _ in range(40):
            bot = rng.choice(bots)
            bot_services.set_current_version(bot=bot, number=rng.choice([1, 2]))

    errors = run_side_by_side(results, switches)
    assert not errors, errors
    assert boards() == direct()


@pytest.mark.django_db(transaction=True)
def test_a_result_rated_while_the_current_version_changes_sees_the_change():
    """The race the game's lock closes: a version switch not yet committed while a result of
    the bot's other version is rated. Without the lock the result's transaction computes
    the row from the old current version and, committing last, overwrites the switch's."""
    import threading
    import time

    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("one writer at a time on SQLite")
    bot, v1 = bot_with_version(name="switching")
    _, other = bot_with_version(name="other")
    v2 = upload_and_activate(bot, random.Random(3))
    finished_match(versions=[v1, other], ranks=[1, 2], seed=1)
    switched = threading.Event()

    def switch_back():
        with transaction.atomic():
            bot_services.set_current_version(bot=bot, number=1)
            switched.set()
            time.sleep(0.5)  # the result below is rated meanwhile

    def rate():
        switched.wait(5)
        finished_match(versions=[v1, other], ranks=[1, 2], seed=2)

    errors = run_side_by_side(switch_back, rate)
    assert not errors, errors
    row = {r["bot"]: r for r in selectors.leaderboard(game="pairs")}["switching"]
    assert row["version"] == 1 and row["games"] == 2 and v2.number == 2
    assert boards() == direct()


def test_a_search_finds_what_icontains_finds_beyond_ascii():
    """The walk's match (on PostgreSQL the name upper-cased when its row was written) finds
    the rows the ORM's ``icontains`` finds, letters outside ASCII too."""
    owner = user(name="ann")
    names = ["Éclair", "éclair-deux", "ÉCLAIR-3", "eclair-4", "Straße", "STRASSE", "other"]
    versions = [version(bot=Bot.objects.create(owner=owner, name=n, game="pairs")) for n in names]
    finished_match(versions=versions[:2], ranks=[1, 2], seed=1)
    for text in ("éclair", "ÉCLAIR", "clair-", "straße", "STRASSE", "ß"):
        wanted = set(Bot.objects.filter(name__icontains=text).values_list("name", flat=True))
        board = selectors.leaderboard(game="pairs")
        expected = [row for row in board if row["bot"] in wanted]
        page = selectors.leaderboard_page(pool="pairs:2", search=text)
        assert page["rows"] == expected and page["count"] == len(expected), text
