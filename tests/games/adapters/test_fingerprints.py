"""The adapters' vectors, masks and legal integers are exactly the reference ones
(fingerprints.json) for the same seeds and choices: speed-ups of the encoder, the masks
or the environments must not change a single number a learner sees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.games.adapters.fingerprints import cases, openspiel_fingerprint, pettingzoo_fingerprint

REFERENCE = json.loads((Path(__file__).parent / "fingerprints.json").read_text())


@pytest.mark.parametrize(("slug", "players"), cases(), ids=[f"{s}-p{p}" for s, p in cases()])
def test_same_numbers_as_the_reference(slug, players):
    expected = REFERENCE[f"{slug}-p{players}"]
    assert pettingzoo_fingerprint(slug, players) == expected["pettingzoo"]
    assert openspiel_fingerprint(slug, players) == expected["openspiel"]
