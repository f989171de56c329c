"""The archive's verifier on its own (no Django, no database): archives built here the way
the services build them (the formats' own pairings, the runner's matches with the games'
built-in policies, the deals derived from committed seeds), then checked and tampered with."""

from __future__ import annotations

import copy
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bots.players import ActResult, BuiltinPlayer
from bots.runner import Clock, play_match
from games import registry
from tournaments import formats
from tournaments.archive.verify import (
    KIND,
    VERSION,
    Discrepancy,
    Unreadable,
    dump_archive,
    final_match_seed,
    load_archive,
    seed_commitment,
    verify_archive,
)
from tournaments.formats import Event, Finished, Result
from tournaments.formats.divisions import Game, competition_table_seed, division_table

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = "2026-06-01T12:00:00+00:00"


class Stumbling(BuiltinPlayer):
    """A built-in policy that answers nonsense when first asked from move ``on`` on: the
    runner faults it."""

    def __init__(self, game, seed: int, on: int):
        super().__init__(game, "random", seed)
        self.on = on

    def act(self, observation, legal, clock, *, move):
        if move >= self.on:
            return ActResult("no such action", None, 0, None)
        return super().act(observation, legal, clock, move=move)


def played(*, seed: int, seats: int, match_id: int, stumble: dict | None = None) -> dict:
    """A match played by the runner, as its record is stored: moves and result as JSON."""
    game = registry.get("pairs")
    players = [
        Stumbling(game, seed + s, stumble[s]) if stumble and s in stumble else
        BuiltinPlayer(game, "random", seed + s)
        for s in range(seats)
    ]  # fmt: skip
    outcome = play_match(
        game_slug="pairs", players=players, options={}, seed=seed, clock=Clock(1000, 10000)
    )
    data = json.loads(json.dumps(outcome.to_dict()))
    return {
        "id": match_id,
        "status": "finished",
        "game": "pairs",
        "engine_version": game.version,
        "options": data["options"],
        "seed": seed,
        "move_ms": 1000,
        "bank_ms": 10000,
        "moves": data["moves"],
        "result": data["result"],
    }


def archive(
    fmt: str = "round_robin", *, entrants: int = 4, ladder: int = 3, stumble=None, **params
) -> dict:
    """A closed competition: ``ladder`` ladder matches and a final of ``fmt``."""
    game = registry.get("pairs")
    competition = {
        "id": 1, "name": "spring", "game": "pairs", "players": 2, "options": {},
        "deadline": DEADLINE, "move_ms": 1000, "bank_ms": 10000,
        "seed": 12345, "seed_salt": "c0ffee",
        "seed_commitment": seed_commitment(seed=12345, salt="c0ffee"),
    }  # fmt: skip
    entries = [
        {
            "id": 10 + i,
            "bot_id": 20 + i,
            "bot": f"bot{i}",
            "status": "accepted",
            "division": 1,
            "frozen_version": {
                "id": 30 + i,
                "number": 1,
                "sha256": f"{i:064x}",
                "created_at": "2026-05-01T00:00:00+00:00",
            },
        }  # fmt: skip
        for i in range(entrants)
    ]
    matches = []
    for table in range(1, ladder + 1):
        match = played(
            seed=competition_table_seed(competition["seed"], table), seats=2, match_id=table
        )
        a, b = (table - 1) % entrants, table % entrants
        match.update(stage="ladder", table=table, division=1, round=table, number=1)
        match["seats"] = [_seat(0, entries[a]), _seat(1, entries[b])]
        matches.append(match)
    final = {
        "id": 5, "format": fmt, "players_per_match": 2, "games_per_pairing": 2,
        "rotate_seats": True, "rounds": None, "advance": 1, "third_place": False,
        "grand_final_reset": True, "game": "pairs", "options": game.resolve_options({}),
        "move_ms": 1000, "bank_ms": 10000, "seed": 777, "seed_salt": "f1na1",
        "seed_commitment": seed_commitment(seed=777, salt="f1na1"), "status": "finished",
        "entrants": [
            {
                "bot_id": e["bot_id"], "bot": e["bot"], "version": e["frozen_version"],
                "seed_number": i, "challenger": fmt == "gauntlet" and i == 0,
            }
            for i, e in enumerate(entries)
        ],
        **params,
    }  # fmt: skip
    event = Event(
        entrants=entrants, players_per_match=2, games_per_pairing=2,
        rounds=params.get("rounds"), challengers=(0,),
        third_place=params.get("third_place", False),
    )  # fmt: skip
    results: list[Result] = []
    seen: set[str] = set()
    number = 0
    answer = formats.next_matches(fmt, event, results)
    while not isinstance(answer, Finished):
        for pairing in [p for p in answer if p.key not in seen]:
            seen.add(pairing.key)
            number += 1
            match = played(
                seed=final_match_seed(final["seed"], pairing), seats=2,
                match_id=100 + number, stumble=(stumble or {}).get(number),
            )  # fmt: skip
            match.update(
                stage="final", pairing_key=pairing.key, round=pairing.round, number=number,
                series=pairing.series or "",
            )  # fmt: skip
            match["seats"] = [_seat(s, final["entrants"][e]) for s, e in enumerate(pairing.seats)]
            ranks = tuple(s["rank"] for s in match["result"]["seats"])
            faults = tuple(e for e, s in zip(pairing.seats, match["result"]["seats"]) if s["fault"])
            results.append(Result(pairing, ranks, faults))
            matches.append(match)
        answer = formats.next_matches(fmt, event, results)
    for standing in answer.standings:
        entrant = final["entrants"][standing.entrant]
        entrant.update(
            place=standing.place, points=standing.points, tiebreaks=dict(standing.tiebreaks)
        )
    return {
        "kind": KIND, "version": VERSION, "competition": competition, "entries": entries,
        "final": final, "standings": {}, "matches": json.loads(json.dumps(matches)),
    }  # fmt: skip


def _seat(seat: int, entry: dict) -> dict:
    version = entry.get("frozen_version") or entry["version"]
    return {
        "seat": seat, "bot_id": entry["bot_id"], "bot": entry["bot"],
        "version_id": version["id"], "version": 1, "sha256": version["sha256"],
    }  # fmt: skip


def discrepancy(doc: dict) -> str:
    with pytest.raises(Discrepancy) as caught:
        verify_archive(doc)
    return str(caught.value)


def final_matches(doc: dict) -> list[dict]:
    return [m for m in doc["matches"] if m["stage"] == "final"]


@pytest.mark.parametrize(
    "fmt, params",
    [
        ("round_robin", {}),
        ("swiss", {"rounds": 2}),
        ("single_elimination", {"third_place": True}),
        ("double_elimination", {}),
        ("gauntlet", {}),
    ],
)
def test_every_format_verifies(fmt, params):
    doc = archive(fmt, **params)
    done = verify_archive(doc)
    assert done.final_finished
    assert done.ladder_matches == 3
    assert done.final_matches == len(final_matches(doc))
    assert done.commitments == 2
    assert done.summary().startswith("verified: ")


def test_a_faulted_seat_is_replayed_by_default_from_its_fault_on():
    doc = archive(stumble={1: {0: 3}})
    faulted = final_matches(doc)[0]
    fault = faulted["result"]["seats"][0]["fault"]
    assert fault["kind"] == "illegal" and fault["move"] is not None
    verify_archive(doc)
    # The seat chose after its fault: the default was not played for it.
    tampered = copy.deepcopy(doc)
    move = next(
        m for m in final_matches(tampered)[0]["moves"][fault["move"] :] if "0" in m["actions"]
    )
    move["defaulted"] = []
    assert "seat 0 chose an action after its fault" in discrepancy(tampered)
    # A fault taken out of the result: the defaulted moves no longer have a reason.
    tampered = copy.deepcopy(doc)
    final_matches(tampered)[0]["result"]["seats"][0]["fault"] = None
    assert "played by default, but its result records no fault" in discrepancy(tampered)


def test_one_move_changed_is_caught():
    doc = archive()
    match = final_matches(doc)[2]
    # An action seat 0 played elsewhere in the match, where the engine does not allow it.
    index, seat = next(
        (i, s)
        for i, m in enumerate(match["moves"])
        for s, a in m["actions"].items()
        if any(a != o["actions"].get(s) for o in match["moves"])
    )
    legal_here = match["moves"][index]["actions"][seat]
    other = next(
        m["actions"][seat]
        for m in match["moves"]
        if m["actions"].get(seat, legal_here) != legal_here
    )
    match["moves"][index]["actions"][seat] = other
    text = discrepancy(doc)
    # Caught in that match: at the move, or where the game it leads to parts from the record.
    found = re.match(rf"match {match['id']} \(final {match['pairing_key']}\)( move (\d+))?", text)
    assert found, text
    assert found.group(2) is None or int(found.group(2)) >= index + 1


def test_one_action_that_is_no_action_at_all_is_caught():
    doc = archive()
    match = doc["matches"][0]
    seat = next(iter(match["moves"][0]["actions"]))
    match["moves"][0]["actions"][seat] = "steal the pot"
    assert f'match 1 (ladder table 1) move 1: seat {seat} played "steal the pot", not a legal' in (
        discrepancy(doc)
    )


def test_one_result_changed_is_caught():
    doc = archive()
    match = final_matches(doc)[1]
    seats = match["result"]["seats"]
    seats[0]["rank"], seats[1]["rank"] = seats[1]["rank"], seats[0]["rank"]
    text = discrepancy(doc)
    assert f"match {match['id']} (final {match['pairing_key']}): seat 0 rank" in text
    assert "the replay gives" in text


def test_one_score_changed_is_caught():
    doc = archive()
    doc["matches"][1]["result"]["seats"][1]["score"] += 1
    assert "match 2 (ladder table 2): seat 1 score" in discrepancy(doc)


def test_one_final_seed_changed_is_caught():
    doc = archive("single_elimination")
    match = final_matches(doc)[0]
    match["seed"] += 1
    text = discrepancy(doc)
    assert f"match {match['id']} (final {match['pairing_key']}): deal seed" in text
    assert "does not derive from the final's committed seed" in text


def test_one_ladder_seed_changed_is_caught():
    doc = archive()
    doc["matches"][2]["seed"] = 42
    assert "match 3 (ladder table 3): deal seed 42 does not derive from the competition's" in (
        discrepancy(doc)
    )


def test_a_seed_not_the_committed_one_is_caught():
    doc = archive()
    doc["competition"]["seed"] += 1
    assert "the competition's seed: sha256(" in discrepancy(doc)
    doc = archive()
    doc["final"]["seed_salt"] = "other"
    assert 'the final\'s seed: sha256("other:777")' in discrepancy(doc)


def test_a_changed_standing_is_caught():
    doc = archive()
    first, second = sorted(doc["final"]["entrants"], key=lambda e: e["place"])[:2]
    first["place"], second["place"] = second["place"], first["place"]
    text = discrepancy(doc)
    assert "the final's table:" in text and "place" in text
    doc = archive("swiss", rounds=2)
    doc["final"]["entrants"][3]["points"] += 0.5
    assert f"the final's table: {doc['final']['entrants'][3]['bot']} has points" in discrepancy(doc)


def test_pairings_the_format_does_not_make_are_caught():
    doc = archive("single_elimination")
    match = final_matches(doc)[0]
    match["seats"].reverse()
    for seat, row in enumerate(match["seats"]):
        row["seat"] = seat
    assert f"the format seats bot0 v bot3 in game {match['pairing_key']}" in discrepancy(doc) or (
        "the format seats" in discrepancy(doc)
    )
    doc = archive("single_elimination")
    gone = final_matches(doc)[-1]
    doc["matches"].remove(gone)
    assert f"schedules game {gone['pairing_key']}" in discrepancy(doc)
    doc = archive()
    extra = copy.deepcopy(final_matches(doc)[0])
    extra.update(id=999, pairing_key="X9")
    doc["matches"].append(extra)
    assert "match 999 (final X9) is in the final, but its format never schedules it" in (
        discrepancy(doc)
    )


def test_frozen_versions_are_checked_against_the_deadline_and_the_final():
    doc = archive()
    doc["entries"][1]["frozen_version"]["created_at"] = DEADLINE
    assert "entry bot1: its frozen version v1 was uploaded at" in discrepancy(doc)
    doc = archive()
    doc["final"]["entrants"][2]["version"] = {**doc["entries"][2]["frozen_version"], "sha256": "0"}
    assert "the final's entrant bot2 plays version v1 (sha256 0), not its frozen" in (
        discrepancy(doc)
    )


def test_a_timeout_must_agree_with_the_recorded_times():
    doc = archive()
    match = doc["matches"][0]
    move = match["moves"][0]
    seat = next(iter(move["actions"]))
    move["ms"][seat] = 1000 + 10000 + 1  # beyond the move's time and the whole bank
    assert "took 11001 ms, beyond its 1000 ms and 10000 ms of bank, yet no timeout" in (
        discrepancy(doc)
    )


def test_a_record_cut_short_or_run_on_is_caught():
    doc = archive()
    doc["matches"][0]["moves"].pop()
    assert "match 1 (ladder table 1): the record ends after" in discrepancy(doc)
    doc = archive()
    doc["matches"][0]["moves"].append(doc["matches"][0]["moves"][-1])
    assert "the match was already over; the record goes on" in discrepancy(doc)


def test_an_unentered_bot_in_the_ladder_is_caught():
    doc = archive()
    doc["matches"][0]["seats"][0].update(bot_id=999, version_id=999)
    assert "match 1 (ladder table 1): seat 0 is bot0, not an entry" in discrepancy(doc)
    # The same version is the same bot, number and sha256 wherever it sits.
    doc = archive()
    doc["matches"][0]["seats"][0]["sha256"] = "f" * 64
    text = discrepancy(doc)
    assert "seat 0 plays version id 30 as (20, 1, '" in text and "'ffff" in text


def test_a_ladder_match_plays_the_competitions_pool():
    doc = archive()
    doc["matches"][1]["move_ms"] = 60000
    assert "match 2 (ladder table 2): move_ms 60000, the competition's is 1000" in (
        discrepancy(doc)
    )
    doc = archive()
    doc["final"]["entrants"][1]["version"] = dict(doc["final"]["entrants"][1]["version"])
    match = next(m for m in final_matches(doc) if any(s["bot"] == "bot1" for s in m["seats"]))
    seat = next(s for s in match["seats"] if s["bot"] == "bot1")
    for other in doc["matches"]:
        for row in other["seats"]:
            if row["version_id"] == seat["version_id"]:
                row["sha256"] = "e" * 64
    assert f"seat {seat['seat']} plays sha256 eeee" in discrepancy(doc)


def test_files_gzip_and_plain_and_the_command_line(tmp_path):
    doc = archive(ladder=1)
    plain, packed = tmp_path / "a.json", tmp_path / "a.json.gz"
    dump_archive(doc, plain)
    dump_archive(doc, packed)
    assert packed.read_bytes()[:2] == b"\x1f\x8b"
    assert load_archive(plain) == load_archive(packed) == json.loads(json.dumps(doc))
    assert dump_archive(doc, packed) is None and packed.read_bytes() == packed.read_bytes()
    (tmp_path / "other.json").write_text('{"matches": []}')
    with pytest.raises(Unreadable, match="not a competition archive"):
        load_archive(tmp_path / "other.json")
    # Without Django: a participant's machine needs the games and the formats only.
    run = [sys.executable, "-m", "tournaments.archive.verify"]
    ok = subprocess.run([*run, str(packed)], cwd=ROOT, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip().splitlines()[-1].startswith("verified: ")
    doc["matches"][0]["result"]["seats"][0]["rank"] = 9
    dump_archive(doc, packed)
    bad = subprocess.run([*run, str(packed)], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 1
    assert bad.stdout.startswith(
        "discrepancy: match 1 (ladder table 1): seat 0 rank is 9 in the archive"
    )
    # Nothing but the standard library, the engines and the formats (the verifier, the
    # divisions' table): no Django, no bots/, no third-party package.
    script = (
        "import sys, tournaments.archive.verify as v, tournaments.formats.divisions; "
        "print(sorted({m.split('.')[0] for m in sys.modules} - set(sys.stdlib_module_names)"
        " - {'__main__', '_distutils_hack'}))"
    )
    pure = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert pure.stdout.strip() == "['games', 'tournaments']", pure.stderr


def with_divisions(doc: dict) -> dict:
    """``doc``'s ladder in two cycles and two divisions, and the standings the competition
    would show: each cycle's tables by the divisions' own table, the overall order."""
    entries = doc["entries"]
    # Cycle 1: everyone in division 1; cycle 2: entries 0, 1 above and 2, 3 below.
    # Table 5 is a duplicate pair: its second game rotates the seats on the same deal.
    plan = [(1, 1, 0, 1, 1), (1, 1, 2, 3, 2), (1, 1, 1, 2, 3), (2, 1, 0, 1, 4), (2, 2, 2, 3, 5),
            (2, 2, 3, 2, 5)]  # fmt: skip
    doc["matches"] = [m for m in doc["matches"] if m["stage"] != "ladder"]
    for index, (cycle, division, a, b, table) in enumerate(plan, start=1):
        match = played(
            seed=competition_table_seed(doc["competition"]["seed"], table), seats=2,
            match_id=index,
        )  # fmt: skip
        number = 1 + sum(1 for other in plan[: index - 1] if other[4] == table)
        match.update(stage="ladder", table=table, cycle=cycle, division=division, round=table,
                     number=number)  # fmt: skip
        match["seats"] = [_seat(0, entries[a]), _seat(1, entries[b])]
        doc["matches"].insert(index - 1, match)
    doc["competition"]["cycle"] = 2
    for index, entry in enumerate(entries):
        entry["division"] = 1 if index < 2 else 2
    cycles = []
    for cycle in (1, 2):
        tables = []
        for division in (1, 2):
            games = [
                Game(
                    seats=tuple(10 + int(s["bot"][3:]) for s in m["seats"]),
                    ranks=tuple(s["rank"] for s in m["result"]["seats"]),
                )
                for m in doc["matches"]
                if m["stage"] == "ladder" and m["cycle"] == cycle and m["division"] == division
            ]
            if cycle == 2:
                members = [e["id"] for e in entries if e["division"] == division]
            else:
                members = sorted({s for g in games for s in g.seats})
            if not members:
                continue
            rows = [
                {"entry_id": r.entrant, "bot": f"bot{r.entrant - 10}", "place": r.place,
                 "points": float(r.points), "games": r.games, "division": division}
                for r in division_table(members, games)
            ]  # fmt: skip
            tables.append({"division": division, "cycle": cycle, "rows": rows})
        cycles.append({"cycle": cycle, "tables": tables})
    overall = [row for table in cycles[-1]["tables"] for row in table["rows"]]
    doc["standings"] = {"cycles": cycles, "overall": overall}
    # The final seeded in the standings' order.
    seed_of = {row["entry_id"] - 10: n for n, row in enumerate(overall)}
    final = doc["final"]
    by_bot = {e["bot"]: e for e in final["entrants"]}
    return rebuild_final(doc, [by_bot[f"bot{i}"] for i in sorted(seed_of, key=seed_of.get)])


def rebuild_final(doc: dict, order: list[dict]) -> dict:
    """``doc`` with its final played again, ``order``'s entrants seeded 0, 1, ..."""
    fresh = archive(doc["final"]["format"], ladder=0)
    who = dict(enumerate(order))  # the fresh final's bot{n} is seed n: it becomes who[n]
    for match in fresh["matches"]:
        for seat in match["seats"]:
            entrant = who[int(seat["bot"][3:])]
            version = entrant["version"]
            seat.update(bot=entrant["bot"], bot_id=entrant["bot_id"], version_id=version["id"],
                        sha256=version["sha256"])  # fmt: skip
    entrants = [
        {**e, "bot": who[e["seed_number"]]["bot"], "bot_id": who[e["seed_number"]]["bot_id"],
         "version": who[e["seed_number"]]["version"]}
        for e in fresh["final"]["entrants"]
    ]  # fmt: skip
    doc["final"] = {**fresh["final"], "entrants": entrants}
    doc["matches"] = [m for m in doc["matches"] if m["stage"] == "ladder"] + fresh["matches"]
    return doc


def test_division_tables_of_every_cycle_are_recomputed():
    doc = with_divisions(archive())
    done = verify_archive(doc)
    assert done.division_tables == 3  # cycle 1's one division, cycle 2's two


def test_a_changed_ladder_standing_is_caught():
    doc = with_divisions(archive())
    doc["standings"]["cycles"][0]["tables"][0]["rows"][0]["points"] += 1
    assert "cycle 1 division 1: bot" in discrepancy(doc) and "points" in discrepancy(doc)
    doc = with_divisions(archive())
    rows = doc["standings"]["cycles"][1]["tables"][1]["rows"]
    rows.reverse()
    assert "cycle 2 division 2: the table's order is entries" in discrepancy(doc)
    doc = with_divisions(archive())
    doc["entries"][0]["division"] = 2
    assert "cycle 2" in discrepancy(doc)


def test_the_overall_order_and_the_final_seeding_follow_the_tables():
    doc = with_divisions(archive())
    overall = doc["standings"]["overall"]
    overall[0], overall[1] = overall[1], overall[0]
    assert "the overall standings list entries" in discrepancy(doc)
    doc = with_divisions(archive())
    seeded = sorted(doc["final"]["entrants"], key=lambda e: e["seed_number"])
    order = [seeded[1], seeded[0], *seeded[2:]]
    doc = rebuild_final(doc, order)
    assert "the final is seeded" in discrepancy(doc)


def test_a_mangled_archive_is_a_discrepancy_never_a_crash():
    doc = with_divisions(archive("single_elimination"))
    rng = random.Random(5)

    def places(node, path=()):
        if isinstance(node, dict):
            for key, value in node.items():
                yield path + (key,)
                yield from places(value, path + (key,))
        elif isinstance(node, list):
            for index, value in enumerate(node[:3]):
                yield path + (index,)
                yield from places(value, path + (index,))

    # (A mangled kind, version or list of matches is not an archive at all: Unreadable.)
    paths = [p for p in places(doc) if p[0] not in ("kind", "version") and p != ("matches",)]
    for path in rng.sample(paths, 150):
        mangled = copy.deepcopy(doc)
        holder = mangled
        for step in path[:-1]:
            holder = holder[step]
        holder[path[-1]] = rng.choice([None, "x", -1, [], {}, 1.5, True])
        try:
            verify_archive(mangled)
        except Discrepancy:
            pass


def test_a_ladder_table_rotates_its_seats_on_one_deal():
    doc = with_divisions(archive())
    verify_archive(doc)
    second = doc["matches"][5]
    assert (second["table"], second["number"]) == (5, 2)
    second["seats"].reverse()
    for seat, row in enumerate(second["seats"]):
        row["seat"] = seat
    assert "match 6 (ladder table 5): game 2 of the table does not rotate" in discrepancy(doc)
    doc = with_divisions(archive())
    doc["matches"][5]["number"] = 3
    assert "ladder table 5: its games are numbered [1, 3]" in discrepancy(doc)


def test_a_final_cancelled_at_its_start_verifies_with_a_note():
    doc = archive(ladder=1)
    doc["matches"] = [m for m in doc["matches"] if m["stage"] == "ladder"]
    final = doc["final"]
    final.update(status="cancelled", cancel_reason="cancelled at the start: 1 of 4 could play")
    for entrant in final["entrants"]:
        entrant.update(place=None, points=None, tiebreaks=None)
    for entrant in final["entrants"][1:]:
        entrant["seed_number"] = None  # withdrawn: failed validation under its options
    done = verify_archive(doc)
    assert done.notes == [
        "the final was cancelled at its start: cancelled at the start: 1 of 4 could play"
    ]


def test_standings_compare_numbers_as_numbers():
    doc = archive("swiss", rounds=2)
    entrant = doc["final"]["entrants"][0]
    entrant["points"] = (
        int(entrant["points"])
        if entrant["points"] == int(entrant["points"])
        else (entrant["points"] + 1e-12)
    )
    entrant["tiebreaks"] = {k: v + 1e-13 for k, v in entrant["tiebreaks"].items()}
    verify_archive(doc)
