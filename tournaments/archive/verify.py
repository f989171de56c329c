"""Checking a competition's archive on its own: no bots, no database, no Django.

What is checked, in this order, stopping at the first discrepancy (:class:`Discrepancy`):

1. The commitments: SHA-256 of "salt:seed" for the competition's ladder seed and for the
   final tournament's seed, as published before any deal was made
   (``tournaments.services.scheduling.seed_commitment``).
2. Each version that counts for the final was uploaded before the deadline, and the
   final plays exactly those versions.
3. Every ladder match: it plays the competition's pool, its deal seed derives from the
   competition's seed and its table number
   (``tournaments.formats.divisions.competition_table_seed``), its seats are entries of
   the competition, the games of a table rotate one table's seats on its deal, and its
   replay through the game's engine (below) gives its recorded result. (Throughout, a
   version is the same bot, number and SHA-256 wherever it sits.)
4. The final: its pairings are rebuilt by the format's own code
   (``tournaments.formats.next_matches``) from the entrants in seed order and the recorded
   results, game by game; each game the format schedules must be in the archive with the
   entrants in the seats the format gives and the deal seed derived from the final's seed
   for its group and deal (as ``tournaments.services.advancing`` deals them), and is
   replayed. Nothing else may be in the final. The format's final table must be the
   recorded places, points and tie-breaks.
5. The ladder's division tables of every cycle, recomputed from the recorded results; the
   overall order they give; the final seeded in that order.

A replay applies every recorded move to the engine from the deal seed: each seat that
acts must be one the engine asks, each action it chose must be legal there, and a seat
played by default (it had faulted: crashed, timed out, moved illegally...) must have the
engine's default action from its fault's move on; the times recorded must agree with the
clock (a move within its allowance, a timeout beyond it). The result is then ranked as
the runner ranks it (``games.faults.rank_with_faults``, which both use: faulted seats last)
and compared seat by seat with the record.

What no archive can show: that a legal move was the one the bot chose. A participant
checks that of their own bot by replaying its matches with its file (``manage.py
replay --bot``).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from games import registry
from games.rng import derive_seed
from tournaments import formats
from tournaments.archive.discrepancy import Discrepancy, canonical, match_label, short
from tournaments.archive.rerun import rerun_match
from tournaments.formats import Event, Finished, Pairing, Result
from tournaments.formats.common import rotation
from tournaments.formats.divisions import Game, competition_table_seed, division_table

KIND = "arena-competition-archive"
VERSION = 1
GZIP_MAGIC = b"\x1f\x8b"


class Unreadable(Exception):
    """Not an archive this verifier can read (not JSON, another kind, a later version)."""


@dataclass
class Verified:
    """What was checked, for the closing line."""

    commitments: int = 0
    ladder_matches: int = 0
    final_matches: int = 0
    moves: int = 0
    failed: int = 0  # the host could not play them: no replay (a draw for the format)
    unplayed: int = 0  # cancelled or never played: nothing to check
    final_finished: bool = False
    division_tables: int = 0
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        replayed = self.ladder_matches + self.final_matches
        parts = [
            f"{self.commitments} seed commitment(s)",
            f"{replayed} match(es) replayed ({self.ladder_matches} ladder, "
            f"{self.final_matches} final; {self.moves} moves)",
        ]
        if self.failed:
            parts.append(f"{self.failed} failed on the host (no moves, counted as draws)")
        if self.unplayed:
            parts.append(f"{self.unplayed} not played")
        if self.final_finished:
            parts.append("the final's pairings and table rebuilt")
        if self.division_tables:
            parts.append(f"{self.division_tables} division table(s) recomputed")
        return "verified: " + "; ".join(parts)


# -- reading and writing --------------------------------------------------------------


def load_archive(path: str | Path) -> dict:
    """The archive at ``path`` (gzip or plain JSON, told by its first bytes)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise Unreadable(f"cannot read {path}: {exc.strerror}") from None
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise Unreadable(f"{path} is not a readable gzip file: {exc}") from None
    try:
        archive = json.loads(data)
    except ValueError as exc:
        raise Unreadable(f"{path} is not JSON: {exc}") from None
    return check_kind(archive)


def check_kind(archive: object) -> dict:
    if not isinstance(archive, dict) or archive.get("kind") != KIND:
        raise Unreadable(f'not a competition archive (no "kind": "{KIND}")')
    version = archive.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise Unreadable(
            f"archive version {version!r}: this verifier reads version {VERSION} and earlier"
        )
    if not isinstance(archive.get("matches"), list):
        raise Unreadable("the archive has no list of matches")
    return archive


def archive_bytes(archive: dict, *, packed: bool) -> bytes:
    """The archive as a file holds it: compact JSON with sorted keys, gzip-compressed when
    ``packed`` (no time stamp in it, so the same archive gives the same bytes)."""
    text = json.dumps(archive, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    data = text.encode()
    return gzip.compress(data, mtime=0) if packed else data


def dump_archive(archive: dict, path: str | Path) -> None:
    """Write ``archive`` to ``path``: gzip when the name ends in .gz."""
    Path(path).write_bytes(archive_bytes(archive, packed=str(path).endswith(".gz")))


# -- the checks -----------------------------------------------------------------------


def seed_commitment(*, seed: int, salt: str) -> str:
    """SHA-256 of "salt:seed" in hex (``tournaments.services.scheduling.seed_commitment``,
    which imports Django: the same two lines, kept apart on purpose)."""
    return hashlib.sha256(f"{salt}:{seed}".encode()).hexdigest()


def final_match_seed(final_seed: int, pairing: Pairing) -> int:
    """The deal of a final's game: games sharing (group, deal) are dealt the same cards
    (``tournaments.services.advancing``)."""
    return derive_seed(final_seed, "group", pairing.group, "deal", pairing.deal) >> 2


def verify_archive(archive: dict) -> Verified:
    """Check everything the module says; :class:`Discrepancy` at the first that fails
    (a field missing or of the wrong kind is one too, not a crash)."""
    archive = check_kind(archive)
    try:
        return _verify(archive)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise Discrepancy(f"the archive is malformed: {type(exc).__name__} {exc}") from None


def _verify(archive: dict) -> Verified:
    done = Verified()
    competition = _need(archive, "competition", dict, "the archive")
    final = archive.get("final")
    matches = archive["matches"]
    _check_match_rows(matches)

    _check_commitment("the competition's seed", competition)
    done.commitments += 1
    if final is not None:
        _check_commitment("the final's seed", final)
        done.commitments += 1

    entries = _need(archive, "entries", list, "the archive")
    _check_frozen_versions(competition, entries, final)

    ladder = [m for m in matches if m.get("stage") == "ladder"]
    in_final = [m for m in matches if m.get("stage") == "final"]
    stray = [m for m in matches if m.get("stage") not in ("ladder", "final")]
    if stray:
        raise Discrepancy(f"match {stray[0].get('id')}: stage {stray[0].get('stage')!r} is "
                          "neither 'ladder' nor 'final'")  # fmt: skip
    if in_final and final is None:
        raise Discrepancy("the archive has final matches but no final")

    entered_bots = {e.get("bot_id") for e in entries}
    for match in ladder:
        _check_ladder_match(match, competition, entered_bots)
        _replay_counted(match, done, stage="ladder")
    _check_table_rotations(ladder)

    if final is not None:
        _check_final(final, in_final, done)

    _check_division_tables(archive, ladder, done)
    return done


def _check_match_rows(matches: list) -> None:
    """Each match once, its seats numbered 0, 1, ... in order, and each version the same
    bot's, number and SHA-256 wherever it sits."""
    seen: set = set()
    versions: dict = {}
    for index, match in enumerate(matches):
        if not isinstance(match, dict):
            raise Discrepancy(f"matches[{index}] is not a match (a JSON object)")
        ident = match.get("id")
        if ident in seen:
            raise Discrepancy(f"match {ident} is in the archive twice")
        seen.add(ident)
        seats = match.get("seats") or []
        if [seat.get("seat") for seat in seats] != list(range(len(seats))):
            raise Discrepancy(
                f"{match_label(match)}: its seats are not numbered 0, 1, ... in order"
            )
        for seat in seats:
            known = (seat.get("bot_id"), seat.get("version"), seat.get("sha256"))
            if versions.setdefault(seat.get("version_id"), known) != known:
                raise Discrepancy(
                    f"{match_label(match)}: seat {seat.get('seat')} plays version id "
                    f"{seat.get('version_id')} as {known}; elsewhere it is "
                    f"{versions[seat.get('version_id')]} (bot id, number, sha256)"
                )


def _need(holder: dict, key: str, kind: type, where: str) -> Any:
    value = holder.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        raise Discrepancy(f"{where} has no {key} (or not a {kind.__name__})")
    return value


def _check_commitment(what: str, holder: dict) -> None:
    seed = _need(holder, "seed", int, what)
    salt = holder.get("seed_salt")
    published = holder.get("seed_commitment")
    if not isinstance(salt, str) or not isinstance(published, str):
        raise Discrepancy(f"{what}: the salt or the commitment is missing")
    found = seed_commitment(seed=seed, salt=salt)
    if found != published:
        raise Discrepancy(
            f'{what}: sha256("{salt}:{seed}") is {found}, not the published commitment '
            f"{published}: the seed or its salt is not the one committed to"
        )


def _when(text: object, what: str) -> datetime:
    try:
        return datetime.fromisoformat(str(text))
    except ValueError:
        raise Discrepancy(f"{what}: {text!r} is not a date") from None


def _check_frozen_versions(competition: dict, entries: list, final: dict | None) -> None:
    deadline = _when(competition.get("deadline"), "the competition's deadline")
    frozen: dict[int, dict] = {}
    for entry in entries:
        version = entry.get("frozen_version")
        if version is None:
            continue
        created = _when(version.get("created_at"), f"entry {entry.get('bot')}'s frozen version")
        if created >= deadline:
            raise Discrepancy(
                f"entry {entry.get('bot')}: its frozen version v{version.get('number')} was "
                f"uploaded at {version.get('created_at')}, not before the deadline "
                f"{competition.get('deadline')}"
            )
        frozen[entry.get("bot_id")] = version
    if final is None:
        return
    for entrant in final.get("entrants") or []:
        if entrant.get("seed_number") is None:
            continue  # did not play (withdrawn, or no version)
        counted = frozen.get(entrant.get("bot_id"))
        version = entrant.get("version") or {}
        if counted is None:
            raise Discrepancy(
                f"the final's entrant {entrant.get('bot')} has no frozen version in the "
                "competition's entries"
            )
        if version.get("sha256") != counted.get("sha256"):
            raise Discrepancy(
                f"the final's entrant {entrant.get('bot')} plays version "
                f"v{version.get('number')} (sha256 {version.get('sha256')}), not its frozen "
                f"version v{counted.get('number')} (sha256 {counted.get('sha256')})"
            )


def _check_ladder_match(match: dict, competition: dict, entered_bots: set) -> None:
    label = match_label(match)
    pool = {
        "game": competition["game"],
        "options": registry.get(competition["game"]).resolve_options(competition.get("options")),
        "move_ms": competition.get("move_ms"),
        "bank_ms": competition.get("bank_ms"),
    }
    for key, value in pool.items():
        if value is not None and canonical(match.get(key)) != canonical(value):
            raise Discrepancy(
                f"{label}: {key} {short(match.get(key))}, the competition's is {short(value)}"
            )
    if len(match.get("seats") or []) != competition.get("players"):
        raise Discrepancy(
            f"{label}: {len(match.get('seats') or [])} seats, the competition plays "
            f"{competition.get('players')}"
        )
    for seat in match.get("seats") or []:
        if seat.get("bot_id") not in entered_bots:
            raise Discrepancy(
                f"{label}: seat {seat.get('seat')} is {seat.get('bot')}, not an entry of the "
                "competition"
            )
    table = match.get("table")
    if not isinstance(table, int):
        raise Discrepancy(f"{label}: no table number to derive its deal seed from")
    expected = competition_table_seed(competition["seed"], table)
    if match.get("seed") != expected:
        raise Discrepancy(
            f"{label}: deal seed {match.get('seed')} does not derive from the competition's "
            f"committed seed for table {table} (that deal's seed is {expected})"
        )


def _check_table_rotations(ladder: list[dict]) -> None:
    """A ladder table is a duplicate set: game g (``number``, from 1) seats the table's
    versions rotated by g - 1 (tournaments.formats.common.rotation), all in one cycle and
    division."""
    tables: dict[object, list[dict]] = {}
    for match in ladder:
        tables.setdefault(match.get("table"), []).append(match)
    for table, games in sorted(tables.items(), key=lambda item: str(item[0])):
        games.sort(key=lambda m: m.get("number") or 0)
        numbers = [m.get("number") for m in games]
        if numbers != list(range(1, len(games) + 1)):
            raise Discrepancy(f"ladder table {table}: its games are numbered {numbers}")
        first = tuple(s.get("version_id") for s in games[0]["seats"])
        for match in games:
            seats = tuple(s.get("version_id") for s in match["seats"])
            expected, _ = rotation(first, match["number"] - 1)
            where = (match.get("cycle"), match.get("division"))
            if seats != expected or where != (games[0].get("cycle"), games[0].get("division")):
                raise Discrepancy(
                    f"{match_label(match)}: game {match['number']} of the table does not rotate "
                    "the seats of its first game in the same cycle and division"
                )


def _replay_counted(match: dict, done: Verified, *, stage: str) -> None:
    status = match.get("status")
    if status == "finished":
        done.moves += rerun_match(match)
        if stage == "ladder":
            done.ladder_matches += 1
        else:
            done.final_matches += 1
    elif status == "failed":
        done.failed += 1
    else:
        done.unplayed += 1


def _same(recorded: object, computed: object) -> bool:
    """Equal, numbers as numbers: a database's JSON may keep 1.0 as 1, and a float's last
    digit is no result."""
    if isinstance(recorded, dict) and isinstance(computed, dict):
        return recorded.keys() == computed.keys() and all(
            _same(recorded[k], computed[k]) for k in recorded
        )
    numbers = (int, float)
    if isinstance(recorded, numbers) and isinstance(computed, numbers):
        if isinstance(recorded, bool) or isinstance(computed, bool):
            return recorded is computed
        return abs(recorded - computed) <= 1e-9 * max(1.0, abs(computed))
    return recorded == computed


# -- the final ------------------------------------------------------------------------


def final_event(final: dict, entrants: list[dict]) -> Event:
    """The format's view of the final (``tournaments.format_inputs.tournament_event``)."""
    return Event(
        entrants=len(entrants),
        players_per_match=final["players_per_match"],
        games_per_pairing=final["games_per_pairing"],
        rotate_seats=final["rotate_seats"],
        rounds=final.get("rounds"),
        challengers=tuple(e["seed_number"] for e in entrants if e.get("challenger")),
        advance=final.get("advance", 1),
        third_place=final.get("third_place", False),
        grand_final_reset=final.get("grand_final_reset", True),
    )


def decided(match: dict, entrant_of: dict[int, int]) -> Result:
    """A played (or failed) game as the format sees it (``tournaments.format_inputs
    .decided_result``): a failed one is a draw with no fault."""
    failed = match.get("status") == "failed"
    seats = sorted(match.get("seats") or [], key=lambda s: s.get("seat"))
    results = (match.get("result") or {}).get("seats") or [{} for _ in seats]
    entrants = tuple(entrant_of[s.get("version_id")] for s in seats)
    ranks = tuple(
        1 if failed or r.get("rank") is None else r["rank"] for r in results
    )  # fmt: skip
    faults = tuple(
        entrant for entrant, r in zip(entrants, results) if r.get("fault") and not failed
    )
    pairing = Pairing(
        key=match.get("pairing_key") or "", round=match.get("round") or 1, seats=entrants,
        deal=0, group=0, series=match.get("series") or None,
    )  # fmt: skip
    return Result(pairing=pairing, ranks=ranks, faults=faults)


def _check_final(final: dict, matches: list[dict], done: Verified) -> None:
    entrants = sorted(
        (e for e in final.get("entrants") or [] if e.get("seed_number") is not None),
        key=lambda e: e["seed_number"],
    )
    if [e["seed_number"] for e in entrants] != list(range(len(entrants))):
        raise Discrepancy("the final's seed numbers are not 0, 1, 2, ... in order")
    entrant_of = {(e.get("version") or {}).get("id"): e["seed_number"] for e in entrants}
    names = [e.get("bot") for e in entrants]
    by_key: dict[str, dict] = {}
    for match in matches:
        key = match.get("pairing_key")
        if not key or key in by_key:
            raise Discrepancy(
                f"{match_label(match)}: no pairing key, or one used twice in the final"
            )
        by_key[key] = match
    if final.get("status") == "scheduled" or not entrants:
        if matches:
            raise Discrepancy("the final has not started, yet it has matches")
        return
    try:
        event = final_event(final, entrants)
        answer = formats.next_matches(final["format"], event, [])
    except (KeyError, ValueError) as exc:
        if final.get("status") == "cancelled" and not matches:
            # Too few entrants could play at the start: the tournament cancelled itself.
            done.notes.append(f"the final was cancelled at its start: {final.get('cancel_reason')}")
            return
        raise Discrepancy(f"the final's format cannot be played as recorded: {exc}") from None

    results: list[tuple[tuple, Result]] = []
    seen: set[str] = set()
    pending = False
    while not isinstance(answer, Finished):
        fresh = [p for p in answer if p.key not in seen]
        if not fresh:
            pending = True  # games due whose results are not in: the final did not finish
            break
        for pairing in fresh:
            seen.add(pairing.key)
            match = by_key.get(pairing.key)
            if match is None:
                raise Discrepancy(
                    f"the final's format schedules game {pairing.key} (round {pairing.round}: "
                    f"{_names(pairing.seats, names)}), which is not in the archive"
                )
            _check_final_match(match, pairing, final, entrants, entrant_of)
            _replay_counted(match, done, stage="final")
            if match.get("status") in ("finished", "failed"):
                order = (match.get("round") or 0, match.get("number") or 0, match.get("id") or 0)
                results.append((order, decided(match, entrant_of)))
        results.sort(key=lambda item: item[0])
        answer = formats.next_matches(final["format"], event, [r for _, r in results])
    extra = sorted(set(by_key) - seen)
    if extra:
        raise Discrepancy(
            f"{match_label(by_key[extra[0]])} is in the final, but its format never schedules it"
        )
    if pending or not isinstance(answer, Finished):
        if final.get("status") == "finished":
            raise Discrepancy(
                "the final is recorded as finished, but games it needs have no result"
            )
        if any(e.get("place") is not None for e in entrants):
            raise Discrepancy("the final did not finish, yet places are recorded")
        done.notes.append(f"the final is {final.get('status')}: checked as far as it was played")
        return
    if final.get("status") != "finished":
        raise Discrepancy(
            f"every game of the final has its result, but the final is {final.get('status')}"
        )
    _compare_standings(answer, entrants)
    done.final_finished = True


def _names(seats: Iterable[int], names: list) -> str:
    return " v ".join(str(names[s]) for s in seats)


def _check_final_match(
    match: dict, pairing: Pairing, final: dict, entrants: list[dict], entrant_of: dict
) -> None:
    label = match_label(match)
    names = [e.get("bot") for e in entrants]
    seats = sorted(match.get("seats") or [], key=lambda s: s.get("seat"))
    try:
        found = tuple(entrant_of[s.get("version_id")] for s in seats)
    except KeyError:
        raise Discrepancy(f"{label}: a seat plays a version that is not the final's") from None
    for seat, entrant in zip(seats, found):
        version = entrants[entrant].get("version") or {}
        if seat.get("sha256") != version.get("sha256"):
            raise Discrepancy(
                f"{label}: seat {seat.get('seat')} plays sha256 {seat.get('sha256')}, its "
                f"entrant's version is {version.get('sha256')}"
            )
    if found != pairing.seats:
        raise Discrepancy(
            f"{label}: the format seats {_names(pairing.seats, names)} in game {pairing.key}; "
            f"the archive has {_names(found, names)}"
        )
    if match.get("round") != pairing.round:
        raise Discrepancy(
            f"{label}: the format puts game {pairing.key} in round {pairing.round}, the "
            f"archive in round {match.get('round')}"
        )
    expected = final_match_seed(final["seed"], pairing)
    if match.get("seed") != expected:
        raise Discrepancy(
            f"{label}: deal seed {match.get('seed')} does not derive from the final's "
            f"committed seed (group {pairing.group}, deal {pairing.deal} is dealt {expected})"
        )
    for key in ("game", "options", "move_ms", "bank_ms"):
        if canonical(match.get(key)) != canonical(final.get(key)):
            raise Discrepancy(
                f"{label}: {key} {short(match.get(key))}, the final's is {short(final.get(key))}"
            )


def _compare_standings(finished: Finished, entrants: list[dict]) -> None:
    for standing in finished.standings:
        entrant = entrants[standing.entrant]
        recorded = {
            "place": entrant.get("place"),
            "points": entrant.get("points"),
            "tiebreaks": entrant.get("tiebreaks") or {},
        }
        computed = {
            "place": standing.place,
            "points": standing.points,
            "tiebreaks": dict(standing.tiebreaks),
        }
        for key in ("place", "points", "tiebreaks"):
            if not _same(recorded[key], computed[key]):
                raise Discrepancy(
                    f"the final's table: {entrant.get('bot')} has {key} "
                    f"{short(recorded[key])} in the archive; the format's own table from the "
                    f"recorded results gives {short(computed[key])}"
                )


# -- the ladder's division tables -----------------------------------------------------


def _check_division_tables(archive: dict, ladder: list[dict], done: Verified) -> None:
    """Each cycle's division tables and the overall order, recomputed from the ladder's
    results by the divisions' own table (as tournaments.selectors.competition_standings
    computes them): a division of a past cycle holds the accepted entries who played in it;
    of the cycle in progress, the accepted entries placed in it (their recorded division).
    Who moved up or down between cycles is taken as recorded, not rebuilt."""
    standings = archive.get("standings") or {}
    recorded_cycles = standings.get("cycles")
    if recorded_cycles is None:
        return  # an archive without a ladder table (none was kept)
    competition = archive["competition"]
    current = competition.get("cycle") or 0
    entries = archive["entries"]
    accepted = {e["id"]: e for e in entries if e.get("status") == "accepted"}
    entry_of_bot = {e["bot_id"]: e["id"] for e in entries}
    by_cycle: dict[int, dict[int, list]] = {}
    for match in sorted(ladder, key=lambda m: m.get("id") or 0):
        if match.get("status") != "finished":
            continue
        seats = sorted(match.get("seats") or [], key=lambda s: s.get("seat"))
        ranks = [s.get("rank") for s in match["result"]["seats"]]
        if any(r is None for r in ranks):
            continue
        game = Game(
            seats=tuple(entry_of_bot.get(s.get("bot_id"), -(s.get("bot_id") or 0)) for s in seats),
            ranks=tuple(ranks),
        )
        cycle = match.get("cycle") or 0
        by_cycle.setdefault(cycle, {}).setdefault(match.get("division") or 1, []).append(game)
    if not isinstance(recorded_cycles, list):
        raise Discrepancy("the standings' cycles are not a list")
    for recorded in recorded_cycles:
        cycle = recorded.get("cycle")
        games = by_cycle.get(cycle, {})
        members: dict[int, list[int]] = {}
        if cycle == current:
            for entry in accepted.values():
                if entry.get("division") is not None:
                    members.setdefault(entry["division"], []).append(entry["id"])
        else:
            for division, division_games in games.items():
                ids = {s for g in division_games for s in g.seats if s in accepted}
                if ids:
                    members[division] = sorted(ids)
        computed = [
            {
                "division": division,
                "rows": [
                    {
                        "entry_id": row.entrant,
                        "place": row.place,
                        "points": float(row.points),
                        "games": row.games,
                    }
                    for row in division_table(sorted(members[division]), games.get(division, []))
                ],
            }
            for division in sorted(members)
        ]
        _compare_tables(cycle, recorded.get("tables") or [], computed)
        done.division_tables += len(computed)
    overall = standings.get("overall")
    if overall is not None:
        _compare_overall(overall, recorded_cycles, current, accepted)
        _check_final_seeding(archive.get("final"), overall, accepted)


def _compare_tables(cycle: object, recorded: list, computed: list[dict]) -> None:
    shown = [t.get("division") for t in recorded]
    if shown != [t["division"] for t in computed]:
        raise Discrepancy(
            f"cycle {cycle}: divisions {shown} in the archive; its results give "
            f"{[t['division'] for t in computed]}"
        )
    for old, new in zip(recorded, computed):
        rows = old.get("rows") or []
        where = f"cycle {cycle} division {new['division']}"
        if [r.get("entry_id") for r in rows] != [r["entry_id"] for r in new["rows"]]:
            raise Discrepancy(
                f"{where}: the table's order is entries {[r.get('entry_id') for r in rows]} in "
                f"the archive; the recorded results give {[r['entry_id'] for r in new['rows']]}"
            )
        for row, fresh in zip(rows, new["rows"]):
            for key in ("place", "points", "games"):
                if row.get(key) != fresh[key]:
                    raise Discrepancy(
                        f"{where}: {row.get('bot', row.get('entry_id'))} has {key} "
                        f"{row.get(key)} in the archive; the recorded results give {fresh[key]}"
                    )


def _compare_overall(overall: list, cycles: list, current: int, accepted: dict) -> None:
    """Division first, then place in the cycle in progress; entries not placed yet last."""
    tables = next((c.get("tables") or [] for c in cycles if c.get("cycle") == current), [])
    placed = [r.get("entry_id") for t in tables for r in t.get("rows") or []]
    expected = placed + sorted(set(accepted) - set(placed))
    found = [r.get("entry_id") for r in overall]
    if found != expected:
        raise Discrepancy(
            f"the overall standings list entries {found}; the division tables give {expected}"
        )


def _check_final_seeding(final: dict | None, overall: list, accepted: dict) -> None:
    """The final is seeded in the standings' order: its entrants who are still accepted
    entries have seed numbers in that order."""
    if final is None:
        return
    rank = {accepted[r["entry_id"]]["bot_id"]: i for i, r in enumerate(overall)
            if r.get("entry_id") in accepted}  # fmt: skip
    seeded = sorted(
        (e for e in final.get("entrants") or [] if e.get("seed_number") is not None),
        key=lambda e: e["seed_number"],
    )
    order = [e.get("bot") for e in seeded if e.get("bot_id") in rank]
    expected = [e.get("bot") for e in sorted(
        (e for e in seeded if e.get("bot_id") in rank), key=lambda e: rank[e["bot_id"]]
    )]  # fmt: skip
    if order != expected:
        raise Discrepancy(
            f"the final is seeded {order}; the competition's standings order them {expected}"
        )


def main(argv: list[str] | None = None) -> int:
    """``python -m tournaments.archive.verify ARCHIVE``: what ``manage.py
    verify_competition`` does, without Django."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m tournaments.archive.verify ARCHIVE", file=sys.stderr)
        return 2
    try:
        done = verify_archive(load_archive(args[0]))
    except Unreadable as exc:
        print(exc, file=sys.stderr)
        return 2
    except Discrepancy as exc:
        print(f"discrepancy: {exc}")
        return 1
    for note in done.notes:
        print(f"note: {note}")
    print(done.summary())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
