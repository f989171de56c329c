"""Building a competition's archive from the database (a selector: it reads, never writes).

The archive holds everything, whatever the competition's release says: it is the
organiser's and staff's tool (``manage.py export_competition``), and whoever hands it on
decides who sees it. Participants download it once results are public
(``archive_for``). What it holds, field by field: docs/archive.md. It never holds what is
a bot owner's alone: seat logs, fault details, uploads.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from fractions import Fraction

from django.utils import timezone

from bots.models import BotVersion
from games import registry
from tournaments.archive.verify import KIND, VERSION
from tournaments.models import Competition, CompetitionEntry, Entry, Match, MatchSeat, Tournament
from tournaments.release import results_visible
from tournaments.selectors import competition_standings as standings

# The final tournament's settings that shape its games (tournaments.format_inputs.event_of).
FINAL_FIELDS = (
    "format",
    "players_per_match",
    "games_per_pairing",
    "rotate_seats",
    "rounds",
    "advance",
    "third_place",
    "grand_final_reset",
    "seeding",
    "game",
    "options",
    "move_ms",
    "bank_ms",
    "seed",
    "seed_salt",
    "seed_commitment",
    "status",
    "record_visibility",
)
COMPETITION_FIELDS = (
    "id",
    "name",
    "description",
    "game",
    "players",
    "options",
    "move_ms",
    "bank_ms",
    "phase",
    "release",
    "eligibility",
    "division_size",
    "promote",
    "cycle_minutes",
    "cycle",
    "seed",
    "seed_salt",
    "seed_commitment",
    "tables",
)
COMPETITION_DATES = (
    "opens_at",
    "deadline",
    "final_at",
    "ladder_hidden_from",
    "revealed_at",
    "frozen_at",
    "closed_at",
    "cycle_started_at",
)


def competition_archive(*, competition: Competition) -> dict:
    """The whole archive of ``competition`` as one JSON-ready document."""
    competition = Competition.objects.select_related("organiser", "final").get(pk=competition.pk)
    engine = registry.get(competition.game)
    document = {
        "kind": KIND,
        "version": VERSION,
        "exported_at": _date(timezone.now()),
        "engine": {"game": engine.slug, "version": engine.version},
        "competition": {
            **{name: getattr(competition, name) for name in COMPETITION_FIELDS},
            **{name: _date(getattr(competition, name)) for name in COMPETITION_DATES},
            "organiser": competition.organiser.username,
        },
        "entries": _entries(competition),
        "final": _final(competition.final),
        "standings": _standings(competition),
        "matches": _matches(competition),
    }
    return document


def archive_for(*, competition: Competition, user) -> dict | None:
    """The archive as a participant or visitor may download it: once the competition has
    closed and ``user`` sees its results (tournaments.release); None otherwise. A final
    whose whole records its organiser shows to the bots' owners only (record_visibility
    "owners") is downloaded by the organiser and staff alone: the archive holds every
    record."""
    if competition.phase != Competition.Phase.CLOSED:
        return None
    if not results_visible(competition=competition, user=user):
        return None
    final = competition.final
    if final is not None and final.record_visibility == Tournament.RecordVisibility.OWNERS:
        privileged = getattr(user, "is_staff", False) or user.pk == competition.organiser_id
        if not privileged:
            return None
    return competition_archive(competition=competition)


def _date(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _version(version: BotVersion | None) -> dict | None:
    if version is None:
        return None
    return {
        "id": version.pk,
        "number": version.number,
        "sha256": version.sha256,
        "created_at": _date(version.created_at),
    }


def _entries(competition: Competition) -> list[dict]:
    entries = (
        CompetitionEntry.objects.filter(competition=competition)
        .select_related("bot__owner", "team", "frozen_version")
        .defer("frozen_version__upload")
        .order_by("pk")
    )
    return [
        {
            "id": entry.pk,
            "bot_id": entry.bot_id,
            "bot": entry.bot.name,
            "owner": entry.bot.owner.username,
            "team": entry.team.name if entry.team_id else None,
            "status": entry.status,
            "reason": entry.reason,
            "division": entry.division,
            "entered_at": _date(entry.created_at),
            "frozen_version": _version(entry.frozen_version),
        }
        for entry in entries
    ]


def _final(final: Tournament | None) -> dict | None:
    if final is None:
        return None
    entries = (
        Entry.objects.filter(tournament=final)
        .select_related("bot", "version")
        .defer("version__upload")
        .order_by("pk")
    )
    return {
        "id": final.pk,
        "name": final.name,
        **{name: getattr(final, name) for name in FINAL_FIELDS},
        "start_at": _date(final.start_at),
        "started_at": _date(final.started_at),
        "finished_at": _date(final.finished_at),
        "cancel_reason": final.cancel_reason,
        "entrants": [
            {
                "bot_id": entry.bot_id,
                "bot": entry.bot.name,
                "version": _version(entry.version),
                "seed_number": entry.seed_number,
                "challenger": entry.challenger,
                "withdrawn": entry.withdrawn,
                "place": entry.place,
                "points": entry.points,
                "tiebreaks": entry.tiebreaks,
            }
            for entry in entries
        ],
    }


def _standings(competition: Competition) -> dict:
    """The ladder's standings as the competition shows them, whatever the release: each
    cycle's division tables (tournaments.selectors.competition_standings) and the overall
    order that seeded the final. The verifier recomputes them from the matches."""
    return {
        "cycles": [
            {
                "cycle": cycle,
                "tables": _plain(standings.division_tables(competition=competition, cycle=cycle)),
            }
            # Cycles count from 1 once the ladder runs; 0 is before it (no games).
            for cycle in range(min(1, competition.cycle), competition.cycle + 1)
        ],
        "overall": _plain(standings.competition_standings(competition=competition)),
    }


def _plain(value: object) -> object:
    """JSON of what a selector answers: fractions as "n/d" strings (exact), rows and
    dataclasses as objects."""
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, datetime):
        return _date(value)
    if hasattr(value, "__dataclass_fields__"):
        return {name: _plain(getattr(value, name)) for name in value.__dataclass_fields__}
    if hasattr(value, "_asdict"):
        return _plain(value._asdict())
    return value


def _matches(competition: Competition) -> list[dict]:
    """Every match of the competition: its ladder's, in the order they were made, then
    the final's in the order the format reads them (round, number, id)."""
    ladder = Match.objects.filter(competition=competition).order_by("pk")
    final = (
        Match.objects.filter(tournament_id=competition.final_id).order_by("round", "number", "pk")
        if competition.final_id
        else Match.objects.none()
    )
    out = []
    for stage, matches in (("ladder", ladder), ("final", final)):
        rows = list(matches.defer("record"))
        seats = _seats_of(m.pk for m in rows)
        out += [_match(m, stage, seats.get(m.pk, [])) for m in rows]
    return out


def _seats_of(match_ids: Iterable[int]) -> dict[int, list[dict]]:
    seats: dict[int, list[dict]] = {}
    rows = (
        MatchSeat.objects.filter(match_id__in=list(match_ids))
        .select_related("version__bot")
        .defer("version__upload", "log", "fault_detail")
        .order_by("match_id", "seat")
    )
    for seat in rows:
        version = seat.version
        seats.setdefault(seat.match_id, []).append(
            {
                "seat": seat.seat,
                "bot_id": version.bot_id if version else None,
                "bot": version.bot.name if version else seat.player_name,
                "version_id": seat.version_id,
                "version": version.number if version else None,
                "sha256": version.sha256 if version else None,
            }
        )
    return seats


def _match(match: Match, stage: str, seats: list[dict]) -> dict:
    return {
        "id": match.pk,
        "stage": stage,
        # The ladder's table number (its round), whose deal is competition_table_seed(seed,
        # table), and the cycle whose division tables count it.
        "table": match.round if stage == "ladder" else None,
        "cycle": match.cycle,
        "division": match.division,
        "round": match.round,
        "number": match.number,
        "pairing_key": match.pairing_key,
        "series": match.series,
        "status": match.status,
        "game": match.game,
        "engine_version": match.engine_version,
        "options": match.options,
        "seed": match.seed,
        "move_ms": match.move_ms,
        "bank_ms": match.bank_ms,
        "queued_at": _date(match.queued_at),
        "finished_at": _date(match.finished_at),
        "seats": seats,
        "moves": match.moves,
        "result": match.result,
    }
