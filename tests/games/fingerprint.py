"""A fingerprint of everything every engine shows, to prove a speed-up changed nothing.

    .venv/bin/python -m tests.games.fingerprint --save /tmp/before.json
    .venv/bin/python -m tests.games.fingerprint --check /tmp/before.json
    .venv/bin/python -m tests.games.fingerprint --check /tmp/before.json --games pairs-kitty

Every game at every player count with every option set (the defaults, then each
option changed alone to each of its other values) is played over several seeds
by a seeded random policy, and once per table size by each built-in policy. At
every step the hash takes in who acts, every seat's legal actions and default
action, every seat's and the spectator's observation (key order included), the
new events as each seat sees them and the conserved totals; at a few steps a
``perturb_hidden`` copy's view for each viewer and a playout of one copy; at
the end the result and the record. One digest per case, so a difference names
its case.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time

from games import registry
from games.rng import Rng, derive_seed

SEEDS = (1, 2, 3, 4)
VARIANT_SEEDS = (1, 2)
PERTURB_EVERY = 7
PERTURB_POINTS = 3


def _dump(value) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _option_sets(game) -> list[tuple[str, dict]]:
    sets = [("defaults", {})]
    for name, option in game.options.items():
        for value in option.allowed_values():
            if value != option.default or type(value) is not type(option.default):
                sets.append((f"{name}={value}", {name: value}))
    return sets


def _step_views(state, digest, seen: list[int]) -> None:
    players = state.players
    acting = state.to_act()
    digest.update(_dump(list(acting)))
    for seat in range(players):
        legal = state.legal_actions(seat)
        digest.update(_dump(legal))
        if seat in acting:
            digest.update(_dump(state.default_action(seat)))
    for viewer in (None, *range(players)):
        digest.update(_dump(state.observation(viewer)))
        index = 0 if viewer is None else viewer + 1
        new = state.events(viewer, seen[index])
        seen[index] += len(new)
        digest.update(_dump(new))
    digest.update(_dump(len(state._events)))
    digest.update(_dump(state.conserved()))


def _perturbed(state, digest, rng: Rng, play: bool) -> None:
    for viewer in (None, *range(state.players)):
        clone = state.perturb_hidden(viewer, rng)
        digest.update(_dump(clone.observation(viewer)))
        for seat in range(state.players):
            digest.update(_dump(clone.observation(seat)))
            digest.update(_dump(clone.legal_actions(seat)))
        digest.update(_dump(clone.events(None)))
        if play and viewer is not None:
            play = False
            moves = Rng(derive_seed(viewer, "clone"))
            while not clone.is_over():
                chosen = {}
                for seat in clone.to_act():
                    legal = clone.legal_actions(seat)
                    chosen[seat] = legal[moves.below(len(legal))]
                clone.apply(chosen)
                digest.update(_dump(clone.observation(None)))
            digest.update(_dump(clone.result()))
            digest.update(_dump(clone.to_json()))


def random_case(game, players: int, options: dict, seed: int) -> str:
    digest = hashlib.blake2b(digest_size=16)
    state = game.new_match(players=players, options=options, seed=seed)
    rng = Rng(derive_seed(seed, "fingerprint"))
    perturb_rng = Rng(derive_seed(seed, "fingerprint-perturb"))
    seen = [0] * (players + 1)
    step = perturbed = 0
    while True:
        _step_views(state, digest, seen)
        if perturbed < PERTURB_POINTS and step % PERTURB_EVERY == 0:
            _perturbed(state, digest, perturb_rng, play=perturbed == 0)
            perturbed += 1
        if state.is_over():
            break
        chosen = {}
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            chosen[seat] = legal[rng.below(len(legal))]
        state.apply(chosen)
        step += 1
    for viewer in (None, *range(players)):
        digest.update(_dump(state.events(viewer)))
    digest.update(_dump(state.result()))
    digest.update(_dump(state.to_json()))
    rebuilt = registry.rebuild(json.loads(json.dumps(state.to_json())))
    digest.update(_dump([rebuilt.observation(v) for v in (None, *range(players))]))
    return digest.hexdigest()


def policy_case(game, name: str, players: int) -> str:
    digest = hashlib.blake2b(digest_size=16)
    policy = game.policies[name]
    rng = Rng(derive_seed(17, name, players))
    state = game.new_match(players=players, seed=players * 31 + 5)
    while not state.is_over():
        moves = {}
        for seat in state.to_act():
            observation = state.observation(seat)
            moves[seat] = policy(observation, state.legal_actions(seat), rng)
        digest.update(_dump(moves))
        state.apply(moves)
    digest.update(_dump(state.result()))
    digest.update(_dump(state.events(None)))
    return digest.hexdigest()


def fingerprint(slugs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    games = [registry.get(s) for s in slugs] if slugs else registry.all_games()
    for game in games:
        start = time.perf_counter()
        for label, options in _option_sets(game):
            seeds = SEEDS if not options else VARIANT_SEEDS
            for players in game.player_counts(options):
                for seed in seeds:
                    key = f"{game.slug} p{players} {label} seed {seed}"
                    out[key] = random_case(game, players, options, seed)
        for name in sorted(game.policies):
            for players in game.player_counts():
                out[f"{game.slug} p{players} policy {name}"] = policy_case(game, name, players)
        print(f"{game.slug:22} {time.perf_counter() - start:6.1f} s", file=sys.stderr, flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", help="write the fingerprint to this file")
    parser.add_argument("--check", help="compare with the fingerprint in this file")
    parser.add_argument("--games", default="", help="comma-separated slugs (default: all)")
    args = parser.parse_args()
    slugs = [s for s in args.games.split(",") if s]
    prints = fingerprint(slugs)
    if args.save:
        with open(args.save, "w") as out:
            json.dump(prints, out, indent=0, sort_keys=True)
        print(f"{len(prints)} cases saved to {args.save}")
    if args.check:
        with open(args.check) as saved_file:
            saved = json.load(saved_file)
        differ = [key for key, value in prints.items() if saved.get(key) != value]
        if differ:
            print(f"{len(differ)} of {len(prints)} cases DIFFER:")
            for key in differ[:40]:
                print("  ", key)
            return 1
        print(f"{len(prints)} cases identical")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
