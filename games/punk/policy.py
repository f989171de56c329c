"""The Punk heuristic: play the card that most raises the chance of finishing first.

Model of the table (from the observation only):

- Every other seat holds cards drawn from the unseen ones (or fair dice). A random
  seat picks uniformly among the *distinct ranks* of its hand (that is what its
  legal actions are), so a rare rank is played more often than its share of the
  cards; the Dummy plays one of its cards, so it follows the cards' shares. In the
  first round of a fixed opening every hand is known: one of each rank, less the
  cards that seat has played.
- From those, exactly (a multinomial sweep over the ranks for alike seats, or an
  enumeration of the few seats' plays), the chance that each of my cards wins the
  trick and that each other seat wins it with each rank.
- A score is judged by the chance to finish first: the product, over the rivals,
  of ``Phi((mine - theirs) / sigma)``, sigma shrinking with the tricks left;
  reaching the target is a win, a rival reaching it a loss. The Dummy is no rival.

Between rounds it keeps the cards worth more (to the next round, by the same model)
than most fresh cards.
"""

from __future__ import annotations

from itertools import product
from math import comb, erfc, exp, factorial, log, sqrt

from games.punk.rules import MAX_GAMES, round_plan
from games.rng import Rng

# Spread of the score difference of two players: this times the number of ranks times
# the square root of the tricks left (higher ranks, bigger swings; tuned on 3-8 seats).
SIGMA_PER_RANK = 0.4
SIGMA_FLOOR = 0.35
LOG_FLOOR = -60.0
# Enumerate the other seats' plays when there are at most this many combinations.
ENUMERATE_LIMIT = 400
# Keep decision: a kept card must be worth more than this share of fresh cards (the
# best card of a hand is what gets played; tried: a Monte Carlo of the next hand's
# best cards against fresh draws keeps more and wins less). Fresh cards come from the
# pot and the discards: about half of the cards the other seats hold.
KEEP_SHARE = 0.8
DISCARD_SHARE = 0.5
POINTS_TIEBREAK = 1e-7


# -- what the other seats may play ------------------------------------------------------


def unseen_counts(observation: dict, with_pot: bool = False) -> list[int]:
    """Cards (index = rank) this seat cannot see; with ``with_pot`` the pot counts as
    unseen too (it is about to be dealt out again).
    """
    ranks = observation["ranks"]
    counts = [0] + [observation["copies"]] * ranks
    seen = list(observation.get("hand", []))
    if not with_pot:
        seen.extend(observation["pot"])
    seen.extend(observation["neutral"])
    for cache in observation["caches"]:
        seen.extend(cache)
    for card in seen:
        if 0 < card <= ranks:
            counts[card] -= 1
    return [max(0, c) for c in counts]


def random_hand_odds(counts: list[int], size: int) -> list[float]:
    """Chance (index = rank) that a seat holding ``size`` cards drawn from ``counts``
    plays each rank, picking uniformly among the distinct ranks it holds.

    ``P(r in hand) / E[distinct ranks | r in hand]``, the hypergeometric terms exact,
    then normalised.
    """
    ranks = len(counts) - 1
    total = sum(counts)
    if total <= 0 or size <= 0:
        return [0.0] + [1.0 / ranks] * ranks
    size = min(size, total)
    all_hands = comb(total, size)
    odds = [0.0] * (ranks + 1)
    for r in range(1, ranks + 1):
        c = counts[r]
        if not c:
            continue
        held = 1.0 - comb(total - c, size) / all_hands
        rest = total - c
        distinct = 1.0
        if size > 1 and rest:
            others = min(size - 1, rest)
            base = comb(rest, others)
            for s in range(1, ranks + 1):
                if s != r and counts[s]:
                    distinct += 1.0 - comb(rest - counts[s], others) / base
        odds[r] = held / distinct
    norm = sum(odds)
    return [p / norm for p in odds]


def seat_odds(observation: dict, next_round: bool = False) -> dict[int, list[float]]:
    """For every other table position, the chance (index = rank) of each card it plays."""
    me = observation["seat"]
    table = observation["table"]
    dummy = observation["dummy"]
    ranks = observation["ranks"]
    others = [pos for pos in range(table) if pos != me]
    if observation["dice"]:
        sides = observation["dice"]
        flat = [0.0] + [1.0 / sides] * sides
        return {pos: flat for pos in others}
    if (
        not next_round
        and observation.get("fixed_opening")
        and observation["round"] == 1
        and observation["tricks"]
    ):
        # Every hand is one of each rank less what that seat has played this round.
        known = {}
        for pos in others:
            left = set(range(1, ranks + 1)) - {cards[pos] for cards in observation["tricks"][0]}
            known[pos] = [0.0] + [
                1.0 / len(left) if r in left else 0.0 for r in range(1, ranks + 1)
            ]
        return known
    counts = unseen_counts(observation, with_pot=next_round)
    if next_round:
        size = observation["hand_size"] - 1
        sizes = {pos: size for pos in others}
    else:
        sizes = {pos: observation["hand_sizes"][pos] for pos in others}
    total = sum(counts) or 1
    cache: dict[int, list[float]] = {}
    odds = {}
    for pos in others:
        if pos == dummy:
            odds[pos] = [c / total for c in counts]
        else:
            size = sizes[pos]
            if size not in cache:
                cache[size] = random_hand_odds(counts, size)
            odds[pos] = cache[size]
    return odds


# -- who wins the trick -------------------------------------------------------------------


def _sweep(odds: list[float], seats: int, special: int | None = None) -> list[float]:
    """For each rank r, the chance that ``seats`` independent seats (card chances
    ``odds``) play no r and no lower rank exactly once; a ``special`` rank must
    instead be played at least once (my own copy makes it a pair).

    ``low[c]`` sums the multinomial weights (divided by c!) of the ways ``c`` seats
    can play the ranks below r under those rules.
    """
    fact = [factorial(k) for k in range(seats + 1)]
    low = [1.0] + [0.0] * seats
    below = 0.0
    chances = [0.0]
    for rank in range(1, len(odds)):
        p = odds[rank]
        above = max(0.0, 1.0 - below - p)
        total = 0.0
        for c in range(seats + 1):
            if low[c]:
                total += low[c] * above ** (seats - c) / fact[seats - c]
        chances.append(total * fact[seats])
        if rank == special:
            grown = [0.0] * (seats + 1)
            for c in range(seats + 1):
                if low[c]:
                    for k in range(1, seats - c + 1):
                        grown[c + k] += low[c] * p**k / fact[k]
            low = grown
        elif p > 0:
            grown = list(low)
            for c in range(seats + 1):
                if low[c]:
                    for k in range(2, seats - c + 1):
                        grown[c + k] += low[c] * p**k / fact[k]
            low = grown
        below += p
    return chances


def alike_outcomes(odds: list[float], seats: int, mine: list[int]) -> dict:
    """``seats`` alike seats: for each of my cards m, (chance m wins, chance per rank
    that one given other seat wins with it)."""
    ranks = len(odds) - 1
    alone = _sweep(odds, seats)
    rest = _sweep(odds, seats - 1) if seats > 1 else [1.0] * (ranks + 1)
    result = {}
    for m in mine:
        paired = _sweep(odds, seats - 1, special=m) if seats > 1 else [0.0] * (ranks + 1)
        theirs = [0.0] * (ranks + 1)
        for r in range(1, ranks + 1):
            if r < m:
                theirs[r] = odds[r] * rest[r]
            elif r > m:
                theirs[r] = odds[r] * paired[r]
        result[m] = (alone[m], theirs)
    return result


def enumerated_outcomes(odds: dict[int, list[float]], mine: list[int]) -> dict:
    """Every combination of the other seats' plays: for each of my cards, the chance it
    wins and, per seat, the chance per rank that this seat wins."""
    seats = list(odds)
    ranks = len(next(iter(odds.values()))) - 1
    supports = [[(r, p) for r, p in enumerate(odds[pos]) if p > 0] for pos in seats]
    result = {m: [0.0, {pos: [0.0] * (ranks + 1) for pos in seats}] for m in mine}
    for combo in product(*supports):
        chance = 1.0
        counts = [0] * (ranks + 1)
        for r, p in combo:
            chance *= p
            counts[r] += 1
        for m in mine:
            counts[m] += 1
            for r in range(1, ranks + 1):
                if counts[r] == 1:
                    entry = result[m]
                    if r == m:
                        entry[0] += chance
                    else:
                        pos = seats[next(i for i, (rr, _) in enumerate(combo) if rr == r)]
                        entry[1][pos][r] += chance
                    break
            counts[m] -= 1
    return {m: (entry[0], entry[1]) for m, entry in result.items()}


def trick_outcomes(odds: dict[int, list[float]], mine: list[int]) -> dict:
    """For each of my cards: (chance it wins, {seat: chance per rank that seat wins})."""
    seats = list(odds)
    lists = list(odds.values())
    size = 1
    for chances in lists:
        size *= sum(1 for p in chances if p > 0)
    if all(chances is lists[0] for chances in lists) or size > ENUMERATE_LIMIT:
        if all(chances is lists[0] for chances in lists):
            shared = lists[0]
        else:
            shared = [sum(col) / len(lists) for col in zip(*lists)]
        alike = alike_outcomes(shared, len(seats), mine)
        return {
            m: (mine_wins, dict.fromkeys(seats, theirs)) for m, (mine_wins, theirs) in alike.items()
        }
    return enumerated_outcomes(odds, mine)


# -- what a score is worth -----------------------------------------------------------------


def tricks_left(observation: dict, next_round: bool = False) -> int:
    """Tricks still to play after this one (after this round, between rounds),
    counting one more whole game when Play-Again may deal one."""
    plan = round_plan(observation["table"])
    done = observation["round"]
    later = sum(r["tricks"] for r in plan[done:])
    if not next_round:
        later += observation["round_tricks"] - observation["trick"] - 1
    if observation.get("play_again") and observation["game"] < MAX_GAMES - 1:
        later += sum(r["tricks"] for r in plan)
    return later


def _log_phi(x: float) -> float:
    return max(LOG_FLOOR, log(max(0.5 * erfc(-x / sqrt(2.0)), 1e-300)))


class Judge:
    """log P(finish first) of a score vector, relative to the scores now."""

    def __init__(self, observation: dict, left: int) -> None:
        self.me = observation["seat"]
        self.scores = observation["scores"]
        self.target = observation["target"]
        self.rivals = [s for s in range(observation["players"]) if s != self.me]
        self.sigma = (
            SIGMA_PER_RANK * (observation["dice"] or observation["ranks"]) * sqrt(left)
            + SIGMA_FLOOR
        )
        mine = self.scores[self.me]
        self.base = {j: _log_phi((mine - self.scores[j]) / self.sigma) for j in self.rivals}
        self.now = sum(self.base.values())
        self._mine: dict[int, float] = {}
        self._theirs: dict[tuple[int, int], float] = {}

    def mine(self, points: int) -> float:
        """P(first) after I score ``points``, over P(first) now."""
        ratio = self._mine.get(points)
        if ratio is None:
            score = self.scores[self.me] + points
            if score >= self.target:
                logu = 0.0
            else:
                logu = sum(_log_phi((score - self.scores[j]) / self.sigma) for j in self.rivals)
            ratio = self._mine[points] = exp(logu - self.now)
        return ratio

    def theirs(self, seat: int, points: int) -> float:
        """P(first) after ``seat`` scores ``points``, over P(first) now."""
        key = (seat, points)
        ratio = self._theirs.get(key)
        if ratio is None:
            if seat not in self.base:  # the Dummy: nobody's rival
                ratio = 1.0
            elif self.scores[seat] + points >= self.target:
                ratio = 0.0
            else:
                mine = self.scores[self.me]
                new = _log_phi((mine - self.scores[seat] - points) / self.sigma)
                ratio = exp(new - self.base[seat])
            self._theirs[key] = ratio
        return ratio


def card_values(observation: dict, cards: list[int]) -> dict[int, float]:
    """Expected P(first) (relative to now) after the trick, for each card I could play."""
    odds = seat_odds(observation)
    judge = Judge(observation, tricks_left(observation))
    values = {}
    for m, (mine_wins, theirs) in trick_outcomes(odds, cards).items():
        value = mine_wins * judge.mine(m)
        nobody = 1.0 - mine_wins
        for seat, chances in theirs.items():
            for r, chance in enumerate(chances):
                if chance:
                    value += chance * judge.theirs(seat, r)
                    nobody -= chance
        values[m] = value + max(0.0, nobody) + POINTS_TIEBREAK * mine_wins * m
    return values


# -- between rounds ---------------------------------------------------------------------------


def next_round_values(observation: dict) -> list[float]:
    """What each rank (index) would be worth as a card of my next hand: the chance it
    wins a trick then, times the gain in P(first) of its points."""
    ranks = observation["dice"] or observation["ranks"]
    odds = seat_odds(observation, next_round=True)
    judge = Judge(observation, tricks_left(observation, next_round=True))
    outcomes = trick_outcomes(odds, list(range(1, ranks + 1)))
    return [0.0] + [
        outcomes[r][0] * (judge.mine(r) - 1.0 + POINTS_TIEBREAK * r) for r in range(1, ranks + 1)
    ]


def fresh_odds(observation: dict) -> list[float]:
    """Chance (index = rank) of each card of the next deal: the pot, and about half
    of the cards the other seats hold now (their discards)."""
    if observation["dice"]:
        sides = observation["dice"]
        return [0.0] + [1.0 / sides] * sides
    weights = [DISCARD_SHARE * c for c in unseen_counts(observation)]
    for card in observation["pot"]:
        weights[card] += 1.0
    total = sum(weights)
    if total <= 0:
        ranks = observation["ranks"]
        return [0.0] + [1.0 / ranks] * ranks
    return [w / total for w in weights]


def choose_keep(observation: dict) -> list[int]:
    """The cards of my hand worth more than ``KEEP_SHARE`` of the fresh cards."""
    values = next_round_values(observation)
    fresh = fresh_odds(observation)
    ranked = sorted((values[r], fresh[r]) for r in range(1, len(fresh)))
    threshold = ranked[-1][0]
    seen = 0.0
    for value, chance in ranked:
        seen += chance
        if seen >= KEEP_SHARE:
            threshold = value
            break
    return sorted(card for card in observation["hand"] if values[card] > threshold)


def heuristic(observation: dict, legal: list, rng: Rng) -> object:
    """Play the card with the best expected chance to finish first; between rounds,
    keep the cards worth more than fresh ones."""
    if observation["phase"] == "trick":
        values = card_values(observation, list(legal))
        return max(legal, key=lambda card: (values[card], -card))
    keep = choose_keep(observation)
    return keep if keep in legal else legal[0]
