"""``manage.py play --games N``: the schedule, the printed statistics, reproducibility,
concurrency, the result table, the progress bar and the exit status."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bots import sandbox
from games import registry
from games.protocol import Game, Option
from tests.support import toygame
from tournaments.bulk import play as bulkplay

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "bots"


def play(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("play", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def needs_sandbox():
    if not sandbox.sandbox_available():
        pytest.skip("bubblewrap is not usable here")


# -- the schedule ------------------------------------------------------------------------


def test_two_seats_play_each_deal_twice_with_the_seats_swapped():
    plans = bulkplay.schedule(groups=[(0, 1)], games=6, seed=7)
    assert [p.lineup for p in plans] == [(0, 1), (1, 0)] * 3
    assert [p.deal for p in plans] == [0, 0, 1, 1, 2, 2]
    seeds = [p.seed for p in plans]
    assert seeds[0] == seeds[1] != seeds[2] == seeds[3] != seeds[4] == seeds[5]
    assert seeds == [p.seed for p in bulkplay.schedule(groups=[(0, 1)], games=6, seed=7)]
    assert seeds != [p.seed for p in bulkplay.schedule(groups=[(0, 1)], games=6, seed=8)]
    assert len(bulkplay.schedule(groups=[(0, 1)], games=5, seed=7)) == 6  # whole deals


def test_more_seats_play_every_rotation_of_a_deal():
    plans = bulkplay.schedule(groups=[(0, 1, 2)], games=3, seed=1)
    assert [p.lineup for p in plans] == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    assert len({p.seed for p in plans}) == 1
    for bot in range(3):  # each bot sits once in each seat
        assert sorted(p.lineup.index(bot) for p in plans) == [0, 1, 2]


def test_round_robin_and_gauntlet_groups():
    assert bulkplay.pairings("round-robin", 3, 2) == [(0, 1), (0, 2), (1, 2)]
    assert bulkplay.pairings("gauntlet", 3, 2) == [(0, 1), (0, 2)]
    assert bulkplay.pairings("gauntlet", 4, 3) == [(0, 1, 2), (0, 1, 3), (0, 2, 3)]
    assert bulkplay.pairings("match", 2, 2) == [(0, 1)]
    # The same deals for every pairing: duplicate across the whole event.
    plans = bulkplay.schedule(groups=[(0, 1), (0, 2)], games=2, seed=3)
    assert plans[0].seed == plans[2].seed


# -- the printed figures against the reference vectors -----------------------------------


class ForcedState(toygame.ToyState):
    """One move per seat; the result is looked up from (seed, seat of the bot playing 1)."""

    table: dict = {}

    def _result(self):
        first = self.history[0]["0"] if self.history else 0
        a_seat = 0 if first == 1 else 1
        outcome = self.table[(self.seed, a_seat)]
        ranks = [1, 1] if outcome == 0.5 else ([1, 2] if outcome == 1 else [2, 1])
        if a_seat == 1:
            ranks.reverse()
        return {"seats": [{"score": 0, "rank": r} for r in ranks]}


FORCED = Game(
    slug="forced",
    title="Forced",
    version=1,
    min_players=2,
    max_players=2,
    state_class=ForcedState,
    options={"rounds": Option(1, minimum=1, maximum=1), "simultaneous": Option(False)},
    policies={"one": lambda o, legal, rng: 1, "zero": lambda o, legal, rng: 0},
    team_rule=None,
)


@pytest.fixture
def forced_game(monkeypatch):
    games = registry._load()
    monkeypatch.setitem(games, "forced", FORCED)
    monkeypatch.setitem(games, "toy", toygame.GAME)
    return FORCED


def force(wins: int, losses: int, draws: int, seed: int) -> int:
    """Fix the outcome of every game the command will play: returns the game count."""
    games = wins + losses + draws
    outcomes = [1.0] * wins + [0.0] * losses + [0.5] * draws
    ForcedState.table = {}
    for plan, outcome in zip(bulkplay.schedule(groups=[(0, 1)], games=games, seed=seed), outcomes):
        ForcedState.table[(plan.seed, plan.lineup.index(0))] = outcome
    return games


@pytest.mark.parametrize(
    "wins, losses, draws, elo, los",
    [
        (99, 97, 104, "Elo +2.3 +- 31.9", "LOS 55.7%"),
        (45, 37, 18, "Elo +27.9 +- 62.5", "LOS 81.2%"),
    ],
)
def test_printed_figures_equal_the_reference_vectors(forced_game, wins, losses, draws, elo, los):
    games = force(wins, losses, draws, seed=11)
    out, _ = play("forced", "one", "zero", "--games", str(games), "--seed", "11")
    line = next(x for x in out.splitlines() if "independent" in x)
    assert f"W-D-L {wins}-{draws}-{losses}" in out
    assert line.strip().startswith(elo) and los in line
    # The paired figures are the pentanomial of these very pairs.
    counts = re.search(r"pentanomial (\d+)-(\d+)-(\d+)-(\d+)-(\d+)", out).groups()
    assert sum(map(int, counts)) == games // 2


def test_json_figures(forced_game):
    games = force(99, 97, 104, seed=4)
    out, _ = play("forced", "one", "zero", "--games", str(games), "--seed", "4", "--json")
    data = json.loads(out)
    figures = data["pairings"][0]
    assert (figures["wins"], figures["draws"], figures["losses"]) == (99, 104, 97)
    assert round(figures["elo"], 1) == 2.3 and round(figures["elo_margin"], 1) == 31.9
    assert round(figures["los"], 1) == 55.7
    assert len(data["games"]) == games and data["failed"] is False


# -- playing for real ----------------------------------------------------------------------


def test_bulk_play_is_reproducible_from_its_seed_and_concurrency_changes_nothing():
    needs_sandbox()
    bots = [str(EXAMPLES / "sdk_bot.py"), "random"]
    common = ["pairs", *bots, "--games", "6", "--json"]
    first = json.loads(play(*common, "--seed", "21")[0])
    again = json.loads(play(*common, "--seed", "21", "--concurrency", "2")[0])
    other = json.loads(play(*common, "--seed", "22")[0])
    assert first["games"] == again["games"]  # every game, move for move (digests)
    assert first["pairings"] == again["pairings"]
    assert [g["digest"] for g in first["games"]] != [g["digest"] for g in other["games"]]
    # Each game is the single match `play --seed` would play with that lineup.
    game = first["games"][1]
    single = io.StringIO()
    lineup = [bots[i] for i in game["lineup"]]
    call_command("play", "pairs", *lineup, "--seed", str(game["seed"]), "--json", stdout=single)
    result = json.loads(single.getvalue())["result"]["seats"]
    assert [s["rank"] for s in result] == game["ranks"]


def test_round_robin_table_and_progress(forced_game):
    out, err = play("toy", "heuristic", "random", "random", "--round-robin", "--games", "20",
                    "--seed", "3")  # fmt: skip
    assert out.count(" vs ") == 3  # three pairings
    table = out[out.index("table:") : out.index("faults:")].splitlines()
    assert len(table) == 5  # title, header, three bots
    assert table[2].split()[1] == "heuristic"  # plays 3 every round: never loses
    assert "random#2" in out
    progress = [line for line in err.splitlines() if "games" in line and "[" in line]
    assert progress[-1].startswith("[" + "#" * 30 + "] 60/60 games")
    assert len(progress) <= 11  # not a tty: about a line per tenth


def test_gauntlet_plays_the_first_bot_against_each_other(forced_game):
    out, _ = play("toy", "heuristic", "random", "random", "--gauntlet", "--games", "4")
    assert "heuristic vs random:" in out and "heuristic vs random#2:" in out
    assert "random vs random#2" not in out


def test_exit_status_when_a_file_bot_faults(forced_game, make_bot_file):
    needs_sandbox()
    crasher = make_bot_file("import sys\nsys.exit(4)\n")
    with pytest.raises(CommandError) as raised:
        play("toy", crasher, "random", "--games", "2", "--seed", "1")
    assert raised.value.returncode == 1
    out, _ = play("toy", crasher, "random", "--games", "2", "--seed", "1", "--fail-on", "timeout")
    assert "crashed 2" in out and "again: python manage.py play toy" in out
    # The printed command plays that very game again.
    assert "--seed" in out.split("again:")[1]


def test_bad_bulk_arguments(forced_game):
    for args, message in [
        (["--games", "0"], "--games must be at least 1"),
        (["--games", "2", "--concurrency", "0"], "--concurrency must be at least 1"),
        (["--games", "2", "--fail-on", "slow"], "unknown fault kind"),
        (["--round-robin", "--players", "3"], "needs at least 3 bots"),
    ]:
        with pytest.raises(CommandError, match=message) as raised:
            play("toy", "random", "heuristic", *args)
        assert raised.value.returncode == 2


@pytest.fixture
def make_bot_file(tmp_path):
    def make(source: str) -> str:
        path = tmp_path / "crasher.py"
        path.write_text(source)
        return str(path)

    return make


def test_a_faulted_game_is_one_line_and_its_tail_is_printed_once(forced_game, make_bot_file):
    """Every game crashes alike: the faults list one line per game shown (and the command
    that plays it again); what the bot wrote on stderr is printed once, after them."""
    needs_sandbox()
    crasher = make_bot_file(
        "import sys\nprint('first words\\nmiddle words\\nlast words', file=sys.stderr)\n"
        "sys.exit(4)\n"
    )
    out, _ = play("toy", crasher, "random", "--games", "4", "--seed", "1", "--fail-on", "none")
    faults = out[out.index("first faulted games:") :].splitlines()
    shown = [line for line in faults if line.startswith("  game ")]
    assert len(shown) == 3
    for line in shown:
        assert line.endswith("crashed: crashed with exit code 4 before it was ready"), line
    for words in ("first words", "middle words", "last words"):
        assert out.count(words) == 1, out
    assert "games 1, 2, 3" in out[out.index("first words") - 200 : out.index("first words")]


def test_the_report_names_every_option_it_played(forced_game):
    """The defaults of the options not given too, as a single match's summary does."""
    games = force(1, 1, 0, seed=5)
    out, _ = play("forced", "one", "zero", "--games", str(games), "--seed", "5")
    assert 'options {"rounds": 1, "simultaneous": false}' in out.splitlines()[0]
    out, _ = play("forced", "one", "zero", "--games", str(games), "--seed", "5", "--json")
    assert json.loads(out)["options"] == {"rounds": 1, "simultaneous": False}
