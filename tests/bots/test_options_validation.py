"""A version's validation match under a configuration its own validation did not play: a
bot that crashes only when an option is set passes its own validation and fails this one,
with the fault (its stderr's tail) as the reason; the same bot passes with the option off."""

from __future__ import annotations

import pytest

from bots import sandbox, services
from bots.models import BotVersion, OptionsValidation
from tests.support import builders
from tests.support.raw_bot import option_shy_source

pytestmark = pytest.mark.skipif(
    not sandbox.sandbox_available(), reason="bubblewrap is not usable here"
)


@pytest.fixture
def cache(settings, tmp_path):
    settings.ARENA_BOT_CACHE = tmp_path / "bot-cache"


@pytest.fixture
def shy(db, cache) -> BotVersion:
    """A version that crashes at its start under continuous Pairs, validated as uploads are."""
    bot = services.create_bot(owner=builders.user(), name="shy", game="pairs")
    version = builders.version(
        bot=bot, source=option_shy_source("continuous", "no continuous for me"),
        status=BotVersion.Status.PENDING, announce=False,
    )  # fmt: skip
    version = services.validate_version(version_id=version.pk)
    assert version.status == BotVersion.Status.ACTIVE, version.reason
    return version


def run(version: BotVersion, *, players: int, options: dict) -> OptionsValidation:
    key = f"test:{players}:{sorted(options.items())}"
    row = services.request_options_validation(
        version=version, key=key, players=players, options=options
    )
    return services.validate_options(validation_id=row.pk)


def test_a_bot_that_crashes_only_under_an_option_fails_its_validation_under_it(shy):
    row = run(shy, players=2, options={"continuous": True})
    assert row.status == OptionsValidation.Status.FAILED
    assert row.reason.startswith("in a test match as seat 0, the bot ")
    assert "no continuous for me" in row.reason  # the stderr's tail: the owner's to read
    assert row.attempts == 1 and row.validated_at is not None


def test_the_same_bot_passes_under_other_options_and_player_counts(shy):
    assert run(shy, players=3, options={}).status == OptionsValidation.Status.PASSED
    assert run(shy, players=2, options={"games": 2}).status == OptionsValidation.Status.PASSED


def test_a_validation_asked_for_twice_is_one_row_and_one_match(shy):
    first = run(shy, players=2, options={"continuous": True})
    again = services.request_options_validation(
        version=shy, key=first.key, players=2, options={"continuous": True}
    )
    assert again.pk == first.pk and again.status == OptionsValidation.Status.FAILED
    assert services.validate_options(validation_id=first.pk).attempts == 1  # not played again
