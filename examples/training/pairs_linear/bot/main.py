"""A trained Pairs bot: a linear action-value policy over the adapter's observation vector.

Ships with ``codec.py`` (a copy of games/adapters/codec.py: the same vector and action
numbering the policy was trained on) and ``policy.json`` (the codec's layout and one
weight vector per action). Standard library only: the sandbox has no numpy.
"""

import json
from pathlib import Path

import arena_sdk
from codec import load_codec

HERE = Path(__file__).resolve().parent
POLICY = json.loads((HERE / "policy.json").read_text())
CODEC = load_codec(POLICY["codec"])
WEIGHTS = {int(index): weights for index, weights in POLICY["weights"].items()}


def value(index, vector):
    weights = WEIGHTS.get(index)
    if weights is None:
        return float("-inf")  # an action the training never took
    return sum(w * x for w, x in zip(weights, vector) if x)


def act(observation, legal):
    vector, mask = CODEC.vector_and_mask(observation, legal)
    choices = [i for i, allowed in enumerate(mask) if allowed]
    best = max(choices, key=lambda i: value(i, vector))
    return CODEC.to_action(best, legal)


if __name__ == "__main__":
    arena_sdk.run(act)
