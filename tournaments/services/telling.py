"""The events tournaments' services emit for people (``bots.hooks.emit``; the integrations
at the top of the layers tell each recipient as they chose). Each is built from rows the
caller has just written, in its transaction, and sent once it commits."""

from __future__ import annotations

from bots import hooks
from tournaments import release
from tournaments.models import (
    Announcement,
    Challenge,
    Competition,
    CompetitionEntry,
    Entry,
    Gate,
    TeamMember,
    Tournament,
)


def _owners(bot_owner_ids) -> tuple[int, ...]:
    return tuple(dict.fromkeys(i for i in bot_owner_ids if i is not None))


def gate_decided(gate: Gate) -> None:
    version = gate.candidate
    passed = gate.status == Gate.Status.PASSED
    text = f"{version.label} {'passed' if passed else 'did not pass'} its gate ({gate.status})" + (
        ": it plays now" if passed else f"; v{gate.parent.number} keeps playing"
    )
    hooks.emit(
        hooks.Event(
            kind="gate.decided",
            user_ids=(version.bot.owner_id,),
            text=text,
            link=f"/bots/{version.bot_id}/gating/",
            data={
                "bot_id": version.bot_id,
                "version_id": version.pk,
                "gate_id": gate.pk,
                "status": gate.status,
                "llr": gate.llr,
            },
        )
    )


def _challenge_data(challenge: Challenge) -> dict:
    return {
        "challenge_id": challenge.pk,
        "bot_id": challenge.bot_id,
        "version_id": challenge.version_id,
        "status": challenge.status,
        "games": challenge.games,
    }


def challenge_received(challenge: Challenge, owner_ids) -> None:
    hooks.emit(
        hooks.Event(
            kind="challenge.received",
            user_ids=_owners(owner_ids),
            text=f"{challenge.challenger.username}'s {challenge.version.label} challenges your "
            f"bot to {challenge.games} games: accept or decline",
            link="/challenges/",
            data=_challenge_data(challenge),
        )
    )


def challenge_answered(challenge: Challenge, accepted: bool, by: str) -> None:
    hooks.emit(
        hooks.Event(
            kind="challenge.accepted" if accepted else "challenge.declined",
            user_ids=(challenge.challenger_id,),
            text=f"{by} {'accepted' if accepted else 'declined'} your challenge "
            f"with {challenge.version.label}",
            link=f"/challenges/{challenge.pk}/",
            data=_challenge_data(challenge),
        )
    )


def challenge_finished(challenge: Challenge) -> None:
    opponents = list(challenge.opponents.select_related("bot"))
    names = ", ".join(o.bot.name for o in opponents)
    score = f"{challenge.wins} wins, {challenge.draws} draws, {challenge.losses} losses"
    if challenge.elo_diff is not None:
        score += f", Elo {challenge.elo_diff:+.0f}"
    data = _challenge_data(challenge)
    data.update(
        wins=challenge.wins,
        draws=challenge.draws,
        losses=challenge.losses,
        elo_diff=challenge.elo_diff,
        elo_margin=challenge.elo_margin,
        opponents=[o.bot_id for o in opponents],
    )
    hooks.emit(
        hooks.Event(
            kind="challenge.finished",
            user_ids=_owners([challenge.challenger_id, *(o.bot.owner_id for o in opponents)]),
            text=f"Challenge {challenge.pk} finished: {challenge.version.label} against {names}: "
            f"{score}",
            link=f"/challenges/{challenge.pk}/",
            data=data,
        )
    )


def _people(tournament: Tournament, entries: list[Entry]) -> tuple[int, ...]:
    return _owners([tournament.organiser_id, *(e.bot.owner_id for e in entries)])


def tournament_started(tournament: Tournament) -> None:
    entries = list(tournament.entries.select_related("bot").filter(withdrawn=False))
    hooks.emit(
        hooks.Event(
            kind="tournament.started",
            user_ids=_people(tournament, entries),
            text=f"Tournament {tournament.name} started with {len(entries)} bots",
            link=f"/tournaments/{tournament.pk}/",
            data={"tournament_id": tournament.pk, "bots": [e.bot_id for e in entries]},
            tournament_id=tournament.pk,
        )
    )


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def tournament_finished(tournament_id: int, *, revealed: bool = False) -> None:
    """One event per person, each told their own bots' places beside the podium; the
    tournament's webhooks get the organiser's alone (every place is in its data).

    A competition's final whose results are not public yet is announced without them
    (who finished is no secret, the places are): its places are told when the organiser
    reveals them (``competition_revealed``)."""
    tournament = Tournament.objects.get(pk=tournament_id)
    entries = list(tournament.entries.select_related("bot").order_by("place", "pk"))
    if not revealed and release.tournament_results_hidden(tournament=tournament, user=None):
        _tournament_finished_held(tournament, entries)
        return
    placed = [e for e in entries if e.place is not None]
    podium = ", ".join(f"{e.place}. {e.bot.name}" for e in placed[:3])
    data = {
        "tournament_id": tournament.pk,
        "places": [
            {"bot_id": e.bot_id, "bot": e.bot.name, "place": e.place, "points": e.points}
            for e in placed
        ],
    }
    for user_id in _people(tournament, entries):
        mine = [e for e in placed if e.bot.owner_id == user_id]
        text = f"Tournament {tournament.name} finished: {podium}"
        if mine:
            text += "; yours: " + ", ".join(
                f"{e.bot.name} {_ordinal(e.place)} of {len(placed)}" for e in mine
            )
        hooks.emit(
            hooks.Event(
                kind="tournament.finished",
                user_ids=(user_id,),
                text=text,
                link=f"/tournaments/{tournament.pk}/",
                data=data,
                tournament_id=tournament.pk if user_id == tournament.organiser_id else None,
            )
        )


def _tournament_finished_held(tournament: Tournament, entries: list[Entry]) -> None:
    hooks.emit(
        hooks.Event(
            kind="tournament.finished",
            user_ids=_people(tournament, entries),
            text=f"Tournament {tournament.name} finished; its results are hidden until the "
            "organiser releases them",
            link=f"/tournaments/{tournament.pk}/",
            data={"tournament_id": tournament.pk, "places": [], "results_hidden": True},
            tournament_id=tournament.pk,
        )
    )


def competition_revealed(competition: Competition) -> None:
    """The announcements that waited for the reveal: the final's places, as its finish
    tells them, when it has finished. Called once the reveal has committed."""
    final = competition.final
    if final is not None and final.status == Tournament.Status.FINISHED:
        tournament_finished(final.pk, revealed=True)


def competition_announced(announcement: Announcement, *, by_organiser: bool) -> None:
    """An announcement reaches everyone in the competition: the owners of the bots entered
    (accepted or waiting), the teams' members, and the organiser unless they wrote it."""
    competition = announcement.competition
    owners = CompetitionEntry.objects.filter(
        competition=competition,
        status__in=(CompetitionEntry.Status.ACCEPTED, CompetitionEntry.Status.PENDING),
    ).values_list("bot__owner_id", flat=True)
    members = TeamMember.objects.filter(competition=competition).values_list("user_id", flat=True)
    people = _owners([competition.organiser_id, *owners, *members])
    if by_organiser:  # the author needs no telling
        people = tuple(i for i in people if i != competition.organiser_id)
    hooks.emit(
        hooks.Event(
            kind="competition.announcement",
            user_ids=people,
            text=f"{competition.name}: {announcement.text}"[:500],
            link=f"/competitions/{competition.pk}/",
            data={"competition_id": competition.pk, "announcement_id": announcement.pk},
        )
    )
