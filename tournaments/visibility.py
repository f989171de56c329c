"""Who sees a match's hidden information: each seat's hidden cards and actions, the match's
record and its seed (every card of the deal follows from the seed).

Everyone sees what the rules make public: the spectator's view (``observation(None)``,
``events(None)``), which seats acted on each move and their times, the result. Beyond it:

- a seat's own view (what its bot saw, and its own actions) is its bot's owner's, always;
- the whole record (every seat's view and actions, the record, the seed) waits until the
  match is finished and no other game dealt the same cards (duplicate play: the seats
  rotated over one deal) is still to be played, since that game's hands are this one's.
  Then the tournament's ``record_visibility`` says whose it is: ``finished``, everyone's;
  ``tournament_end``, everyone's once the tournament has finished or been cancelled;
  ``owners``, the match's bots' owners'. Staff see it in every case. Ladder, version
  gate, challenge and competition ladder matches follow ``finished``.

A competition may hold a match's outcome back (``tournaments.release``): its final's
matches and its ladder's from ``ladder_hidden_from`` on, until the organiser releases
them. A reader it is held back from sees none of the match's outcome (result, scores,
ranks, moves, replay, record, seed), only that it exists, who plays and its status.

The tournament's own seed, from which every match's derives, is shown to its organiser
(who may have chosen it) and otherwise only once every match's record may be: when the
tournament has ended with no match left to play, to everyone, or under ``owners`` to staff.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, replace

from django.db import connection
from django.db.models import Exists, OuterRef, Q

from tournaments import release
from tournaments.models import Match, MatchSeat, Tournament

# A game that may still be played: the matches that keep their deal hidden.
LIVE = (Match.Status.SCHEDULED, Match.Status.QUEUED, Match.Status.RUNNING)
ENDED = (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)
Visibility = Tournament.RecordVisibility


@dataclass(frozen=True)
class Exposure:
    """What decides how much of a match anyone may see (``read_exposure``)."""

    status: str
    visibility: str  # the tournament's record_visibility; "finished" outside tournaments
    event_over: bool  # its tournament has finished or been cancelled (true outside one)
    deal_live: bool  # another game of its event dealt the same cards is still to play
    held: bool = False  # a competition holds its outcome back from someone (release)

    @property
    def settled(self) -> bool:
        """Finished, with every game of its deal: its whole record may be shown to someone."""
        return self.status == Match.Status.FINISHED and not self.deal_live

    @property
    def public(self) -> bool:
        """Its whole record is everyone's."""
        if not self.settled or self.held:
            return False
        if self.visibility == Visibility.FINISHED:
            return True
        return self.visibility == Visibility.TOURNAMENT_END and self.event_over

    def reason(self) -> str:
        """Why the whole record is hidden, as a sentence's end: '... hidden {reason}'."""
        if self.status != Match.Status.FINISHED:
            return "while the match is played"
        if self.deal_live:
            return "while another game dealt the same cards is played"
        if self.visibility == Visibility.TOURNAMENT_END and not self.event_over:
            return "until the tournament ends"
        return "from all but the owners of its bots"


@dataclass(frozen=True)
class MatchView:
    """How much of a match one reader may see."""

    full: bool  # the whole record: every seat's view and actions, the record, the seed
    seats: frozenset[int]  # the seats whose own view the reader may take besides
    public: bool  # the whole record is everyone's (the same answer for every reader)
    reason: str  # why the whole record is hidden ("" when it is not)
    # Its outcome is held back from the reader (tournaments.release): no result, scores,
    # ranks, moves, replay or record at all, whatever the other fields say.
    results_hidden: bool = False

    def may_take(self, seat: int | None) -> bool:
        """Whether the reader may see the match as ``seat`` does (None: a spectator)."""
        return seat is None or self.full or seat in self.seats


HELD_VIEW = MatchView(False, frozenset(), False, release.HIDDEN_NOTE, results_hidden=True)


def view_of(
    exposure: Exposure,
    *,
    user,
    owned: Callable[[], Collection[int]],
    held_from_user: Callable[[], bool] | None = None,
) -> MatchView:
    """What ``user`` may see of a match of ``exposure``; ``owned()`` gives the seats whose
    bot ``user`` owns, asked for only when the answer depends on them; ``held_from_user()``
    whether a held outcome is held from ``user`` (asked only when it is held from someone;
    by default from everyone but staff)."""
    if exposure.held:
        if held_from_user is None:
            signed_in = user is not None and user.is_authenticated
            hidden = not (signed_in and user.is_staff)
        else:
            hidden = held_from_user()
        if hidden:
            return HELD_VIEW
        exposure = replace(exposure, held=False)  # the reader sees it as if not held
    if exposure.public:
        return MatchView(True, frozenset(), True, "")
    signed_in = user is not None and user.is_authenticated
    seats = frozenset(owned()) if signed_in else frozenset()
    full = (
        exposure.settled
        and signed_in
        and (user.is_staff or (exposure.visibility == Visibility.OWNERS and bool(seats)))
    )
    return MatchView(full, seats, False, "" if full else exposure.reason())


def owned_seats(*, match_id: int, user) -> set[int]:
    """The seats of a match whose bot ``user`` owns (one query; none when signed out)."""
    if user is None or not user.is_authenticated:
        return set()
    rows = MatchSeat.objects.filter(match_id=match_id).filter(
        Q(version__bot__owner_id=user.id) | Q(user_id=user.id)
    )
    return set(rows.values_list("seat", flat=True))


def _exposure_sql(columns: Iterable[str], where: str = "m.id = %s") -> str:
    matches, tournaments = Match._meta.db_table, Tournament._meta.db_table
    live = ", ".join(["%s"] * len(LIVE))
    extra = "".join(f", m.{column}" for column in columns)
    # Another game of the same event with the same seed and still to play (the index
    # match_live_seed holds exactly those games, by seed).
    sibling = (
        f"SELECT 1 FROM {matches} s WHERE s.seed = m.seed AND s.status IN ({live})"
        " AND s.id <> m.id AND ("
        "(m.tournament_id IS NOT NULL AND s.tournament_id = m.tournament_id)"
        " OR (m.ladder_id IS NOT NULL AND s.ladder_id = m.ladder_id)"
        " OR (m.gate_id IS NOT NULL AND s.gate_id = m.gate_id)"
        " OR (m.challenge_id IS NOT NULL AND s.challenge_id = m.challenge_id)"
        " OR (m.competition_id IS NOT NULL AND s.competition_id = m.competition_id))"
    )
    return (
        f"SELECT m.status, t.status, t.record_visibility, EXISTS ({sibling}),"
        f" ({release.HELD_SQL}){extra}"
        f" FROM {matches} m LEFT JOIN {tournaments} t ON t.id = m.tournament_id WHERE {where}"
    )


def read_exposure(*, pk: int, columns: Iterable[str] = ()) -> tuple[Exposure, tuple] | None:
    """The exposure of match ``pk`` and its ``columns`` (names of the match table's
    columns), in one written-out query (the read caches' marks take it on every hit);
    None when there is no such match."""
    columns = tuple(columns)
    with connection.cursor() as cursor:
        cursor.execute(_exposure_sql(columns), [*LIVE, *release.held_sql_params(), pk])
        row = cursor.fetchone()
    if row is None:
        return None
    status, event_status, visibility, deal_live, held, *rest = row
    exposure = Exposure(
        status=status,
        visibility=visibility or Visibility.FINISHED,
        event_over=event_status is None or event_status in ENDED,
        deal_live=bool(deal_live),
        held=bool(held),
    )
    return exposure, tuple(rest)


def match_view(*, match: Match, user) -> MatchView:
    """What ``user`` may see of ``match`` (two narrow queries at most)."""
    exposure, _ = read_exposure(pk=match.pk)
    return view_of(
        exposure,
        user=user,
        owned=lambda: owned_seats(match_id=match.pk, user=user),
        held_from_user=lambda: release.match_results_hidden(match=match, user=user),
    )


def match_views(*, matches: list[Match], user) -> dict[int, MatchView]:
    """What ``user`` may see of each of ``matches`` (their seats prefetched with the bots'
    owners, as ``selectors.public_seats`` loads them): their events, live deals and holds
    in one written-out query for the lot (``read_exposure``'s, by the matches' ids), and
    the competitions that hold some back only when one does."""
    if not matches:
        return {}
    marks = ", ".join(["%s"] * len(matches))
    with connection.cursor() as cursor:
        cursor.execute(
            _exposure_sql(("id",), where=f"m.id IN ({marks})"),
            [*LIVE, *release.held_sql_params(), *(m.pk for m in matches)],
        )
        found = {row[-1]: row[1:5] for row in cursor.fetchall()}
    hidden: set[int] = set()
    if any(held for *_, held in found.values()):
        hidden = release.held_and_hidden(matches=matches, user=user)[1]
    views = {}
    for match in matches:
        # A match gone since its row was read counts as one whose deal is still played:
        # nothing beyond what everyone sees.
        event_status, visibility, deal_live, held = found.get(match.pk, (None, None, True, True))
        exposure = Exposure(
            status=match.status,
            visibility=visibility or Visibility.FINISHED,
            event_over=event_status is None or event_status in ENDED,
            deal_live=bool(deal_live),
            held=bool(held),
        )
        views[match.pk] = view_of(
            exposure,
            user=user,
            owned=lambda match=match: _owned_in(match, user),
            held_from_user=lambda match=match: match.pk in hidden,
        )
    return views


def _owned_in(match: Match, user) -> set[int]:
    return {s.seat for s in match.seats.all() if s.owned_by(user.id)}


def seen_moves(moves: list | None, seats: Collection[int]) -> list:
    """``moves`` as a reader who may see only ``seats``' own actions sees them: every other
    acting seat's action is null and that seat is listed in ``hidden`` (which seats acted,
    their times and the seats played by default after a fault are public)."""
    shown = []
    for move in moves or []:
        if not isinstance(move, dict):
            continue
        actions = move.get("actions") or {}
        hidden = [seat for seat in actions if not _is_seat(seat, seats)]
        shown.append({**move, "actions": {**actions, **dict.fromkeys(hidden)}, "hidden": hidden})
    return shown


def _is_seat(key: str, seats: Collection[int]) -> bool:
    return key.isdigit() and int(key) in seats


def tournament_seed_shown(*, tournament: Tournament, user, live: bool | None = None) -> bool:
    """Whether ``user`` may see the tournament's seed and salt (see the module); ``live``:
    whether a match of it is still to play, when known (else read, for an ended one)."""
    if user is not None and user.is_authenticated and user.id == tournament.organiser_id:
        return True
    if tournament.status not in ENDED:
        return False
    if tournament.record_visibility == Visibility.OWNERS and not (
        user is not None and user.is_authenticated and user.is_staff
    ):
        return False
    if live is None:
        live = tournament_ids_with_live_matches([tournament.pk]) != set()
    return not live


def has_live_matches() -> Exists:
    """Whether the outer query's tournament has a match still to play: read with a
    tournament as ``_live_matches``, what ``tournament_seed_shown`` would otherwise ask."""
    return Exists(Match.objects.filter(tournament_id=OuterRef("pk"), status__in=LIVE))


def tournament_ids_with_live_matches(ids: Iterable[int]) -> set[int]:
    """Those of the tournaments ``ids`` with a match still to play (one query)."""
    ids = list(ids)
    if not ids:
        return set()
    # No ordering: Meta's would join the DISTINCT (every live match, not every tournament).
    rows = Match.objects.filter(tournament_id__in=ids, status__in=LIVE).order_by()
    return set(rows.values_list("tournament_id", flat=True).distinct())
