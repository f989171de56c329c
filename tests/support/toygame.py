"""A tiny game for the bot tests (not registered in games/): fast, two modes.

Each of ``rounds`` rounds, the seats pick a number from ``legal`` (0..3), in turn or all at
once (``simultaneous``); the score is the sum of the picks. ``default_action`` is 0.
"""

from __future__ import annotations

from games.policies import random_policy
from games.protocol import Game, Option, State
from games.scoring import ranks_from_scores


class ToyState(State):
    def setup(self) -> None:
        self.turn = 0
        self.scores = [0] * self.players
        self.history: list = []

    def _total_turns(self) -> int:
        rounds = self.options["rounds"]
        return rounds if self.options["simultaneous"] else rounds * self.players

    def _to_act(self):
        if self.turn >= self._total_turns():
            return ()
        if self.options["simultaneous"]:
            return tuple(range(self.players))
        return (self.turn % self.players,)

    def _legal_actions(self, seat):
        return [0, 1, 2, 3]

    def _apply(self, actions):
        for seat, action in actions.items():
            self.scores[seat] += action
        self.history.append({str(s): a for s, a in actions.items()})
        self.turn += 1

    def _observation(self, seat):
        return {
            "seat": seat,
            "turn": self.turn,
            "scores": list(self.scores),
            "history": self.history,
        }

    def _result(self):
        ranks = ranks_from_scores(self.scores)
        return {"seats": [{"score": s, "rank": r} for s, r in zip(self.scores, ranks)]}

    def _default_action(self, seat):
        return 0

    def perturb_hidden(self, seat, rng):
        return self.clone()


def heuristic(observation, legal, rng):
    return max(legal)


GAME = Game(
    slug="toy",
    title="Toy",
    version=1,
    min_players=2,
    max_players=6,
    state_class=ToyState,
    options={
        "rounds": Option(3, minimum=1, maximum=1000),
        "simultaneous": Option(False),
    },
    policies={"random": random_policy, "heuristic": heuristic},
    team_rule=None,
)


def team_rule(players: int, options: dict) -> list[list[int]]:
    return [list(range(0, players, 2)), list(range(1, players, 2))]


TEAM_GAME = Game(
    slug="toy-teams",
    title="Toy teams",
    version=1,
    min_players=4,
    max_players=4,
    state_class=ToyState,
    options=dict(GAME.options),
    policies=dict(GAME.policies),
    team_rule=team_rule,
)
