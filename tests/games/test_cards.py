"""Decks and shoes: a lazy shoe deals exactly what an eager one deals."""

import pytest

from games.cards import Shoe, pairs_deck, standard_deck
from games.rng import Rng


def drain(shoe: Shoe, extra_discards: list) -> list:
    """Draw everything, put ``extra_discards`` back once the pile is empty, draw again."""
    out = [shoe.draw() for _ in range(len(shoe))]
    shoe.discard(*out[: len(extra_discards)])
    out += [shoe.draw() for _ in range(len(shoe) + len(shoe.discards) - shoe.burn)]
    return out


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("burn", [0, 5])
def test_lazy_shoe_deals_the_eager_order(seed, burn):
    forced = [3, 7, 7] if seed % 3 == 0 else None
    eager = Shoe(pairs_deck(), Rng(seed), forced, burn=burn)
    lazy = Shoe(pairs_deck(), Rng(seed), forced, burn=burn, lazy=True)
    assert eager.discards == lazy.discards  # the burn
    half = len(eager) // 2
    assert [eager.draw() for _ in range(half)] == [lazy.draw() for _ in range(half)]
    assert drain(eager, list(range(20))) == drain(lazy, list(range(20)))
    assert eager.rng.next_u64() == lazy.rng.next_u64()  # the streams stayed in step


def test_settle_orders_the_pile_as_an_eager_shuffle_would():
    eager = Shoe(standard_deck(2), Rng(9))
    lazy = Shoe(standard_deck(2), Rng(9), lazy=True)
    assert [lazy.draw() for _ in range(7)] == [eager.draw() for _ in range(7)]
    assert lazy.cards() == eager.cards()  # cards() settles what is still pending
    assert lazy.to_json() == eager.to_json()


def test_forced_cards_come_first_then_the_rest():
    shoe = Shoe(pairs_deck(), Rng(1), forced=[10, 1, 5], lazy=True)
    assert [shoe.draw() for _ in range(3)] == [10, 1, 5]
    rest = [shoe.draw() for _ in range(len(shoe))]
    assert sorted(rest + [10, 1, 5]) == sorted(pairs_deck())


@pytest.mark.parametrize("seed", range(20))
def test_drawing_several_at_once_deals_what_single_draws_deal(seed):
    """``draw_many`` and ``draw_until`` settle in one go what ``draw`` settles card by card."""
    forced = [10, 2] if seed % 4 == 0 else None
    single = Shoe(pairs_deck(), Rng(seed), forced, lazy=True)
    batch = Shoe(pairs_deck(), Rng(seed), forced, lazy=True)
    assert batch.draw_many(4) == [single.draw() for _ in range(4)]
    until = batch.draw_until(30, 10, 2)
    assert until.count(10) == 2 or len(until) == 30
    assert until[-1] == 10 or len(until) == 30
    assert until == [single.draw() for _ in range(len(until))]
    assert [batch.draw() for _ in range(5)] == [single.draw() for _ in range(5)]
    assert batch.to_json() == single.to_json()
    assert batch.rng.next_u64() == single.rng.next_u64()


@pytest.mark.parametrize("seed", range(12))
def test_drawing_until_a_card_over_cards_settled_ahead_deals_what_single_draws_deal(seed):
    """Some top cards settled ahead (as Blackstone's new deck is), the rest pending: the
    draw stops at the same card, settled or not, and leaves the same pile and stream."""
    for ahead in (0, 1, 5, 12, 55):
        for count, card, times in ((3, 10, 1), (20, 10, 2), (40, 7, 2), (55, 1, 1), (9, 9, 0)):
            single = Shoe(pairs_deck(), Rng(seed), lazy=True)
            batch = Shoe(pairs_deck(), Rng(seed), lazy=True)
            for shoe in (single, batch):
                # Blackstone's way of settling the top cards ahead.
                shoe._stepper.shuffle_steps(shoe._pile, 54, 55 - ahead)
                shoe._unshuffled = min(shoe._unshuffled, 55 - ahead)
            until = batch.draw_until(count, card, times)
            want = []
            while len(want) < count:
                want.append(single.draw())
                if times and want.count(card) == times:
                    break
            assert until == want
            assert batch.to_json() == single.to_json()
            assert batch.rng.next_u64() == single.rng.next_u64()


@pytest.mark.parametrize("seed", range(20))
def test_a_lazy_shoe_given_a_new_rng_deals_the_eager_order(seed):
    """A game may hand its shoe a new Rng for later reshuffles (a stream per hand): the
    pending steps of the first shuffle still come from the first Rng, as an eager
    shuffle's all did, and the reshuffles from the new one."""
    eager = Shoe(pairs_deck(), Rng(seed), burn=5)
    lazy = Shoe(pairs_deck(), Rng(seed), burn=5, lazy=True)
    assert [eager.draw() for _ in range(9)] == [lazy.draw() for _ in range(9)]
    eager.rng, lazy.rng = Rng(seed + 100), Rng(seed + 100)
    assert lazy.pile_counts(range(1, 11)) == eager.pile_counts(range(1, 11))
    assert drain(eager, list(range(20))) == drain(lazy, list(range(20)))
    assert eager.rng.next_u64() == lazy.rng.next_u64()


@pytest.mark.parametrize("seed", range(20))
def test_dropping_the_pending_steps_moves_the_rng_as_settling_does(seed):
    settled = Shoe(pairs_deck(), Rng(seed), lazy=True)
    dropped = Shoe(pairs_deck(), Rng(seed), lazy=True)
    assert [settled.draw() for _ in range(seed)] == [dropped.draw() for _ in range(seed)]
    settled.settle()
    dropped.drop_pending()
    assert settled.rng.next_u64() == dropped.rng.next_u64()
