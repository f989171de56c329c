"""Who sees a competition's results before the organiser releases them.

A competition holds back the results of its final tournament always, and those of its own
ladder's matches finished from ``ladder_hidden_from`` on, and of those still to finish
once that time has come (None: the ladder is always public), as its ``release`` says: ``hidden`` (the organiser and staff only),
``participants`` (also the owners of entered bots and the members of entered teams) or
``public`` (everyone; revealing sets it). "Results" are everything a match's or a
tournament's outcome follows from: results, scores, ranks, moves, replays, records,
frames, standings, places, winners. That matches exist and who plays whom is not held back.

Readers ask here and show a held-back outcome as hidden (``HIDDEN_NOTE``), never as an
error. The organiser and staff always see everything.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Exists, F, OuterRef, Q, Subquery
from django.utils import timezone

from tournaments.models import Match, Tournament
from tournaments.models.competitions import Competition, CompetitionEntry, TeamMember

Release = Competition.Release

# The release levels that hold results back from someone.
HELD = (Release.HIDDEN, Release.PARTICIPANTS)
# Entries whose owners and team members count as participants: those that were let in.
PARTICIPATING = (CompetitionEntry.Status.ACCEPTED, CompetitionEntry.Status.DISQUALIFIED)

HIDDEN_NOTE = "results hidden until the organiser releases them"


def _signed_in(user) -> bool:
    return user is not None and user.is_authenticated


def participant_ids(*, competition: Competition) -> set[int]:
    """The participants of ``competition``: the owners of its entered bots and the members
    of the teams of its entries (two queries)."""
    entries = CompetitionEntry.objects.filter(competition=competition, status__in=PARTICIPATING)
    owners = set(entries.values_list("bot__owner_id", flat=True))
    members = TeamMember.objects.filter(
        competition=competition,
        team__entries__competition=competition,
        team__entries__status__in=PARTICIPATING,
    )
    return owners | set(members.values_list("user_id", flat=True))


def is_participant(*, competition: Competition, user) -> bool:
    """Whether ``user`` owns an entered bot of ``competition`` or is in an entered team."""
    if not _signed_in(user):
        return False
    return _entries_of(user.id).filter(competition=competition).exists()


def _entries_of(user_id: int):
    """The participating entries ``user_id`` takes part in: their bot's or their team's."""
    return CompetitionEntry.objects.filter(status__in=PARTICIPATING).filter(
        Q(bot__owner_id=user_id) | Q(team__members__user_id=user_id)
    )


def results_visible(*, competition: Competition, user) -> bool:
    """Whether ``user`` may see the results ``competition`` holds back."""
    if competition.release == Release.PUBLIC:
        return True
    if not _signed_in(user):
        return False
    if user.is_staff or user.id == competition.organiser_id:
        return True
    return competition.release == Release.PARTICIPANTS and is_participant(
        competition=competition, user=user
    )


def _ladder_match_held(match: Match, competition: Competition) -> bool:
    """Whether ``match`` of ``competition``'s ladder is one whose result is held back."""
    hidden_from = competition.ladder_hidden_from
    if hidden_from is None:
        return False
    if match.finished_at is None:  # still to finish: held once the hidden time has come
        return hidden_from <= timezone.now()
    return match.finished_at >= hidden_from


def match_results_hidden(*, match: Match, user) -> bool:
    """Whether ``match``'s outcome (result, scores, ranks, moves, replay, record) is hidden
    from ``user``."""
    if match.competition_id is not None:
        competition = match.competition
        if competition.release == Release.PUBLIC or not _ladder_match_held(match, competition):
            return False
        return not results_visible(competition=competition, user=user)
    if match.tournament_id is None:
        return False
    competition = Competition.objects.filter(final_id=match.tournament_id).first()
    return competition is not None and not results_visible(competition=competition, user=user)


def final_release() -> Subquery:
    """The release level of the competition whose final the outer query's tournament is
    (null for none): read with a tournament as ``final_release``, it spares
    ``tournament_held`` its query when nothing holds the results back."""
    finals = Competition.objects.filter(final_id=OuterRef("pk")).order_by()
    return Subquery(finals.values("release")[:1])


def tournament_held(*, tournament: Tournament, user) -> tuple[bool, bool]:
    """Whether ``tournament``'s results are held back from anyone (it is a competition's
    final not yet public), and whether from ``user`` (one query, none when the tournament
    was read with its ``final_release`` and that holds nothing back)."""
    if getattr(tournament, "final_release", Release.HIDDEN) in (None, Release.PUBLIC):
        return False, False
    competition = Competition.objects.filter(final_id=tournament.pk).first()
    if competition is None or competition.release == Release.PUBLIC:
        return False, False
    return True, not results_visible(competition=competition, user=user)


def tournament_results_hidden(*, tournament: Tournament, user) -> bool:
    """Whether the outcome of ``tournament`` (standings, places, bracket winners, its
    matches' results, exports) is hidden from ``user``: it is a competition's final and the
    competition does not show its results to ``user``."""
    return tournament_held(tournament=tournament, user=user)[1]


def hidden_results_q(*, user) -> Q:
    """The matches whose results are hidden from ``user``, as a condition on Match: exclude
    them from lists that show outcomes, or blank their outcomes."""
    held_final = Q(tournament__competition__release__in=HELD)
    held_ladder = Q(
        competition__release__in=HELD, competition__ladder_hidden_from__isnull=False
    ) & (
        Q(finished_at__isnull=True, competition__ladder_hidden_from__lte=timezone.now())
        | Q(finished_at__gte=F("competition__ladder_hidden_from"))
    )
    if not _signed_in(user):
        return held_final | held_ladder
    if user.is_staff:
        return Q(pk__in=[])
    entries = _entries_of(user.id)
    sees_final = Q(tournament__competition__organiser_id=user.id) | (
        Q(tournament__competition__release=Release.PARTICIPANTS)
        & Q(Exists(entries.filter(competition__final_id=OuterRef("tournament_id"))))
    )
    sees_ladder = Q(competition__organiser_id=user.id) | (
        Q(competition__release=Release.PARTICIPANTS)
        & Q(Exists(entries.filter(competition_id=OuterRef("competition_id"))))
    )
    return (held_final & ~sees_final) | (held_ladder & ~sees_ladder)


def _held_competitions(matches: list[Match]) -> list[Competition]:
    """The competitions holding back some of ``matches``' outcomes from someone (one query
    at most: none when no match is of a competition's ladder or of a tournament)."""
    tournament_ids = {m.tournament_id for m in matches if m.tournament_id is not None}
    competition_ids = {m.competition_id for m in matches if m.competition_id is not None}
    if not competition_ids and not tournament_ids:
        return []
    return list(
        Competition.objects.filter(
            Q(pk__in=competition_ids) | Q(final_id__in=tournament_ids), release__in=HELD
        )
    )


def may_be_held(match: str = "") -> Exists:
    """Whether a competition could hold back the outcome of the outer query's match
    (``match``: the path to it, e.g. ``"match__"`` from a seat): what ``_held_competitions``
    reads for it, so a list none of whose matches may be held needs no ``held_and_hidden``."""
    return Exists(
        Competition.objects.filter(
            Q(pk=OuterRef(f"{match}competition_id"))
            | Q(final_id=OuterRef(f"{match}tournament_id")),
            release__in=HELD,
        )
    )


def _held_by(matches: list[Match], competitions: list[Competition]) -> dict[int, Competition]:
    """Each of ``matches`` whose outcome one of ``competitions`` holds back, with it."""
    by_id = {c.pk: c for c in competitions}
    by_final = {c.final_id: c for c in competitions if c.final_id is not None}
    held = {}
    for match in matches:
        ladder_of = by_id.get(match.competition_id)
        if ladder_of is not None and _ladder_match_held(match, ladder_of):
            held[match.pk] = ladder_of
        elif match.tournament_id in by_final:
            held[match.pk] = by_final[match.tournament_id]
    return held


def held_and_hidden(*, matches: Iterable[Match], user) -> tuple[set[int], set[int]]:
    """Those of ``matches`` whose outcome is held back from someone, and those of them it is
    held back from ``user`` (one query at most, and one per competition for a participant)."""
    matches = list(matches)
    held = _held_by(matches, _held_competitions(matches)) if matches else {}
    if not held:
        return set(), set()
    visible = {}
    for competition in {c.pk: c for c in held.values()}.values():
        visible[competition.pk] = results_visible(competition=competition, user=user)
    return set(held), {pk for pk, c in held.items() if not visible[c.pk]}


def hidden_match_ids(*, matches: Iterable[Match], user) -> set[int]:
    """Those of ``matches`` whose outcome is hidden from ``user``."""
    return held_and_hidden(matches=matches, user=user)[1]


def hidden_tournament_ids(*, tournament_ids: Iterable[int], user) -> set[int]:
    """Those of ``tournament_ids`` that are competitions' finals with results hidden from
    ``user`` (one query at most)."""
    ids = set(tournament_ids)
    if not ids or (_signed_in(user) and user.is_staff):
        return set()
    finals = Competition.objects.filter(final_id__in=ids, release__in=HELD)
    return {c.final_id for c in finals if not results_visible(competition=c, user=user)}


_competitions = Competition._meta.db_table
# Whether the match ``m`` (a written-out query's alias) has its outcome held back from
# someone, as SQL (with ``held_sql_params()``): tournaments.visibility reads it with the
# exposure.
HELD_SQL = (
    f"EXISTS (SELECT 1 FROM {_competitions} c WHERE c.id = m.competition_id"
    " AND c.release <> %s AND c.ladder_hidden_from IS NOT NULL"
    " AND ((m.finished_at IS NULL AND c.ladder_hidden_from <= %s)"
    " OR m.finished_at >= c.ladder_hidden_from))"
    f" OR EXISTS (SELECT 1 FROM {_competitions} c WHERE c.final_id = m.tournament_id"
    " AND c.release <> %s)"
)


def held_sql_params() -> tuple:
    """The parameters of ``HELD_SQL``, now."""
    return (Release.PUBLIC.value, timezone.now(), Release.PUBLIC.value)
