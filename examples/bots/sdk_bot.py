"""An Arena bot using the Python SDK: works for any game (it picks a random legal action).

Try it locally:  python manage.py play pairs examples/bots/sdk_bot.py random
"""

import random

import arena_sdk  # provided by the arena (bots/sdk/arena_sdk.py); put it on PYTHONPATH locally

rng = random.Random()


def on_start(info):
    # info: game, version, seat, players, options, teams, clock
    rng.seed(info["seat"])
    arena_sdk.log(f"playing {info['game']} as seat {info['seat']} of {info['players']}")


def act(observation, legal):
    return rng.choice(legal)


arena_sdk.run(act, on_start=on_start)
