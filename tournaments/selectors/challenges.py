"""Reads of challenges: the result (API and page), a user's list and inbox, a bot's list."""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet

from tournaments import visibility
from tournaments.models import Challenge, ChallengeOpponent, Match, MatchSeat
from tournaments.selectors.moment import one_moment


def _opponents(challenge: Challenge) -> list[dict]:
    rows = challenge.opponents.select_related("bot__owner", "version").order_by("position")
    return [
        {
            "bot": o.bot_id,
            "name": o.bot.name,
            "version": o.version_id,
            "version_number": o.version.number,
            "owner": o.bot.owner.username,
            "answer": o.answer,
        }
        for o in rows
    ]


def challenge_summary(challenge: Challenge) -> dict:
    """A challenge's row in a list: who against whom, its status and score."""
    return {
        "id": challenge.pk,
        "status": challenge.status,
        "challenger": challenge.challenger.username,
        "bot": challenge.bot_id,
        "bot_name": challenge.bot.name,
        "version": challenge.version_id,
        "version_number": challenge.version.number,
        "opponents": _opponents(challenge),
        "game": challenge.game,
        "games": challenge.games,
        "wins": challenge.wins,
        "draws": challenge.draws,
        "losses": challenge.losses,
        "elo_diff": challenge.elo_diff,
        "elo_margin": challenge.elo_margin,
        "los": challenge.los,
        "again_of": challenge.again_of_id,
        "created_at": challenge.created_at,
        "expires_at": challenge.expires_at,
    }


def games_table(challenge: Challenge, *, user) -> list[dict]:
    """Every game of the challenge in deal order: its seats with score, rank and public
    fault, and a link to the seat's log for the seats whose bot ``user`` owns."""
    seats = MatchSeat.objects.select_related("version__bot").only(
        "match_id", "seat", "score", "rank", "fault", "version__number", "version__bot__name",
        "version__bot__owner_id", "version__bot_id",
    )  # fmt: skip
    matches = (
        challenge.matches.only("round", "number", "status", "error")
        .prefetch_related(_prefetch(seats))
        .order_by("round", "number")
    )
    reader = user.id if user is not None and user.is_authenticated else None
    table = []
    for match in matches:
        table.append(
            {
                "match": match.pk,
                "deal": match.round,
                "rotation": match.number,
                "status": match.status,
                "seats": [
                    {
                        "seat": s.seat,
                        "bot": s.version.bot.name,
                        "version_number": s.version.number,
                        "challenger": s.version_id == challenge.version_id,
                        "score": s.score,
                        "rank": s.rank,
                        "fault": s.fault,
                        # A log exists once the game is played (the owner's only).
                        "log": f"/api/matches/{match.pk}/seats/{s.seat}/log/"
                        if reader is not None
                        and s.version.bot.owner_id == reader
                        and match.status == Match.Status.FINISHED
                        else None,
                    }
                    for s in match.seats.all()
                ],
            }
        )
    return table


def _prefetch(seats: QuerySet) -> Prefetch:
    return Prefetch("seats", queryset=seats.order_by("seat"))


def challenge_answer(challenge: Challenge, *, user) -> dict:
    """The challenge's whole answer (the API's and the result page's)."""
    statuses = list(challenge.matches.values_list("pk", "status").order_by("round", "number"))
    played = sum(1 for _, status in statuses if status == Match.Status.FINISHED)
    # The seed deals every game: shown once none is left to play, as a tournament's is
    # (tournaments.visibility), or it would give away the hands of the games still to come.
    live = any(status in visibility.LIVE for _, status in statuses)
    return {
        **challenge_summary(challenge),
        "players": challenge.players,
        "options": challenge.options,
        "seed": None if live or challenge.status == Challenge.Status.PENDING else challenge.seed,
        "matches": [pk for pk, _ in statuses],
        "played": played,
        "total": len(statuses),
        "pentanomial": challenge.pentanomial,
        "figures": challenge.figures,
        "lines": challenge.lines,
        "table": games_table(challenge, user=user),
        "started_at": challenge.started_at,
        "finished_at": challenge.finished_at,
    }


def challenge_with_answer(*, challenge_id: int, user) -> tuple[Challenge, dict] | None:
    """Challenge ``challenge_id`` and its answer, read at one moment (or None if there is no
    such challenge): its W-D-L is the challenge's row, its progress the games' rows, and a
    result recorded between the two reads would show a game played that the score does not
    count yet."""
    with one_moment():
        challenge = (
            Challenge.objects.select_related("challenger", "bot", "version")
            .filter(pk=challenge_id)
            .first()
        )
        if challenge is None:
            return None
        return challenge, challenge_answer(challenge, user=user)


def challenges_of_user(*, user, inbox: bool = False, limit: int = 50) -> list[Challenge]:
    """``user``'s challenges, made or received, newest first; ``inbox``: only requests
    waiting for ``user``'s answer."""
    base = Challenge.objects.select_related("challenger", "bot", "version")
    if inbox:
        waiting = ChallengeOpponent.objects.filter(
            bot__owner=user, answer=ChallengeOpponent.Answer.WAITING
        ).values("challenge_id")
        rows = base.filter(pk__in=waiting, status=Challenge.Status.PENDING)
    else:
        received = ChallengeOpponent.objects.filter(bot__owner=user).values("challenge_id")
        rows = base.filter(Q(challenger=user) | Q(pk__in=received))
    return list(rows.order_by("-id")[:limit])


def bot_has_challenges() -> Q:
    """Whether the outer query's bot has a challenge ``challenges_of_bot`` lists, as a
    condition on Bot (for a page that reads the list only when it has a row)."""
    return Q(Exists(Challenge.objects.filter(bot_id=OuterRef("pk")))) | Q(
        Exists(ChallengeOpponent.objects.filter(bot_id=OuterRef("pk")))
    )


def challenges_of_bot(*, bot_id: int, limit: int = 20) -> list[Challenge]:
    """A bot's recent challenges, both directions, newest first."""
    received = ChallengeOpponent.objects.filter(bot_id=bot_id).values("challenge_id")
    rows = Challenge.objects.select_related("challenger", "bot", "version").filter(
        Q(bot_id=bot_id) | Q(pk__in=received)
    )
    return list(rows.order_by("-id")[:limit])
