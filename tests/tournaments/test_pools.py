"""Pool keys: one pool per game, table size and play-changing options; never mixed."""

import itertools

import pytest

from games import registry
from tournaments.ratings import pools


def test_standard_configuration_is_the_default_pool():
    assert pools.default_pool("pairs") == "pairs:2"
    assert pools.pool_key("pairs", 2, {}) == pools.pool_key("pairs", 2, None) == "pairs:2"
    # Naming a default explicitly is the same pool.
    assert pools.pool_key("pairs", 2, {"continuous": False, "gambling": "none"}) == "pairs:2"


def test_variants_and_table_sizes_are_separate_pools():
    keys = {
        pools.pool_key("pairs", 2, {}),
        pools.pool_key("pairs", 3, {}),
        pools.pool_key("pairs", 2, {"continuous": True}),
        pools.pool_key("pairs", 3, {"continuous": True}),
    }
    assert len(keys) == 4
    assert pools.pool_key("pairs", 3, {"continuous": True}) == "pairs:3:continuous=true"


def test_an_option_that_does_not_change_play_does_not_split_a_pool():
    # Only Tacoma gambling pays the stake.
    assert pools.pool_key("pairs", 2, {"stake": 9}) == "pairs:2"
    assert pools.pool_key("pairs", 2, {"gambling": "tacoma", "stake": 9}) != pools.pool_key(
        "pairs", 2, {"gambling": "tacoma"}
    )


def test_label_reads_like_a_title():
    assert pools.label("pairs:3:continuous=true") == "Pairs, 3 players, continuous"
    assert (
        pools.label(pools.pool_key("pairs-rocket", 2, {"decks": 4})) == "Rocket, 2 players, decks 4"
    )


@pytest.mark.parametrize("slug", registry.slugs())
def test_every_configuration_round_trips_and_distinct_configurations_never_share_a_pool(slug):
    game = registry.get(slug)
    seen: dict[str, tuple] = {}
    names = sorted(game.options)
    # Every value of each option alone, at every table size (all combinations are too many).
    variants = [{}] + [{n: v} for n in names for v in game.options[n].allowed_values()[:6]]
    for players, options in itertools.product(game.player_counts(), variants):
        try:
            key = pools.pool_key(slug, players, options)
        except pools.InvalidPool:
            continue  # a combination the rules refuse
        parsed = pools.parse(key)
        assert (parsed.game, parsed.players) == (slug, players)
        assert pools.pool_key(slug, players, parsed.options) == key
        resolved = game.resolve_options(options)
        played = pools.PLAY_NEUTRAL.get(slug, lambda o: o)(dict(resolved))
        signature = (players, tuple(sorted((k, v) for k, v in played.items())))
        if key in seen:
            assert seen[key] == signature, f"{key} mixes {seen[key]} and {signature}"
        seen[key] = signature
        assert pools.label(key).startswith(game.title)


@pytest.mark.parametrize(
    "key",
    [
        "",
        "pairs",
        "pairs:9",
        "nogame:2",
        "pairs:2:stake=7",
        "pairs:2:continuous=false",
        "pairs:2:continuous=1",
        "pairs:2:nothing=1",
        "pairs:2:continuous",
        "PAIRS:2",
    ],
)
def test_keys_that_are_not_canonical_are_refused(key):
    with pytest.raises(pools.InvalidPool):
        pools.parse(key)
