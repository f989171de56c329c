"""Challenges: an author's bot against chosen bots on duplicate deals, on demand, unrated.

A challenge's games are planned as ``manage.py play --games`` plans them
(``tournaments.bulk.plan.schedule``: ``ceil(games / seats)`` deals, each played once per
rotation of the seats), stored as matches of the challenge and played by the ordinary
lifecycle (claim, play, record, retry). They are never rated (``recording`` skips them).

Priority: a challenge's matches are stored *scheduled* and sent to the matches queue only
while fewer than ``ARENA_CHALLENGE_SLOTS`` challenge matches are queued or running, across
all challenges (``feed_challenges``, after each result and on the beat). A flood of
challenges therefore holds at most that many worker slots, and tournament matches queued
before it are ahead of it in the queue.

Consent: an opponent bot's ``accepts_challenges`` is ``anyone`` (it plays at once),
``nobody`` (refused) or ``ask`` (its owner accepts or declines; unanswered requests expire
after ``ARENA_CHALLENGE_ASK_SECONDS``). A bot's owner may always challenge their own bots.

Quotas (staff exempt): at most ``ARENA_CHALLENGE_GAMES_PER_DAY`` games in challenges
created in any 24 hours, and ``ARENA_CHALLENGES_AT_ONCE`` challenges pending or running.
A refusal says when the quota frees up.

The figures are ``tournaments.bulk.report``'s on the finished games, so they equal those
``play --games`` prints for the same games.
"""

from __future__ import annotations

import logging
import math
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone

from bots import access
from bots.models import Bot, BotVersion
from bots.selectors import current_version
from games import registry
from tournaments.bulk.plan import GameResult, schedule
from tournaments.bulk.report import pairing_figures, report
from tournaments.models import Challenge, ChallengeOpponent, LeaderboardRow, Match, MatchSeat
from tournaments.ratings import pools
from tournaments.services import telling
from tournaments.services.admission import validations_for
from tournaments.services.queueing import queue_match_after_commit

log = logging.getLogger(__name__)
FINAL = (Match.Status.FINISHED, Match.Status.FAILED, Match.Status.CANCELLED)
LIVE_MATCH = (Match.Status.QUEUED, Match.Status.RUNNING)
OPEN = (Challenge.Status.PENDING, Challenge.Status.RUNNING)
# Statuses whose games count against the daily quota (a declined or expired request played
# nothing; a cancelled one may have, so cancelling frees nothing).
COUNTED = (
    Challenge.Status.PENDING,
    Challenge.Status.RUNNING,
    Challenge.Status.FINISHED,
    Challenge.Status.CANCELLED,
)
DAY = timedelta(days=1)
FEED_LOCK = 0x43484C47  # the advisory lock of feed_challenges ("CHLG")


class ChallengeRefused(Exception):
    """A challenge that cannot be made as asked: ``field`` names the input at fault, and
    ``forbidden`` says it is a matter of consent or ownership rather than of the input."""

    def __init__(self, detail: str, *, field: str = "", forbidden: bool = False):
        super().__init__(detail)
        self.detail, self.field, self.forbidden = detail, field, forbidden


class QuotaExceeded(Exception):
    """A challenge over the author's quota; ``retry_after``: seconds until it frees up."""

    def __init__(self, detail: str, *, retry_after: int):
        super().__init__(detail)
        self.detail, self.retry_after = detail, max(1, retry_after)


@dataclass(frozen=True)
class Asked:
    """What a challenge asks for, as the API and the pages give it."""

    bot_id: int
    opponent_ids: list[int]
    games: int
    options: dict
    version_id: int | None = None
    pick_for_me: bool = False
    players: int | None = None


def create_challenge(*, user, asked: Asked, again_of: Challenge | None = None) -> Challenge:
    """Check, store and (when every opponent accepts) start a challenge."""
    bot = Bot.objects.filter(pk=asked.bot_id).first()
    if bot is None:
        raise ChallengeRefused(f"no bot {asked.bot_id}", field="bot")
    if not access.may_manage(user, bot):
        raise ChallengeRefused(
            "you may challenge only with your own bots (or your team's)", forbidden=True
        )
    version = _challenger_version(bot, asked.version_id)
    engine = registry.get(bot.game)
    if not 1 <= asked.games <= settings.ARENA_CHALLENGE_MAX_GAMES:
        raise ChallengeRefused(
            f"games must be between 1 and {settings.ARENA_CHALLENGE_MAX_GAMES}", field="games"
        )
    if asked.pick_for_me and asked.opponent_ids:
        raise ChallengeRefused("pick_for_me takes no opponents", field="opponents")
    players = asked.players or (
        len(asked.opponent_ids) + 1 if asked.opponent_ids else pools.standard_players(engine)
    )
    engine.check_players(players)  # games.protocol.InvalidOptions: a 400
    engine.new_match(players=players, options=asked.options, seed=0)
    options = engine.resolve_options(asked.options)
    if asked.pick_for_me:
        opponents = pick_opponents(bot=bot, version=version, players=players, options=options)
    else:
        opponents = _chosen_opponents(bot, asked.opponent_ids, players)
    answers = [_answer_of(user, opponent) for opponent, _ in opponents]
    if ChallengeOpponent.Answer.DECLINED in answers:
        raise ChallengeRefused("a chosen bot accepts no challenges", forbidden=True)
    with transaction.atomic():
        if not user.is_staff:
            _check_quotas(user, asked.games)
        waiting = ChallengeOpponent.Answer.WAITING in answers
        now = timezone.now()
        challenge = Challenge.objects.create(
            challenger=user,
            bot=bot,
            version=version,
            game=engine.slug,
            players=players,
            options=options,
            games=asked.games,
            seed=again_of.seed if again_of is not None else secrets.randbelow(2**31),
            status=Challenge.Status.PENDING,
            again_of=again_of,
            expires_at=now + timedelta(seconds=settings.ARENA_CHALLENGE_ASK_SECONDS)
            if waiting
            else None,
        )
        ChallengeOpponent.objects.bulk_create(
            ChallengeOpponent(
                challenge=challenge,
                position=position,
                bot=opponent,
                version=opponent_version,
                answer=answer,
                answered_at=None if answer == ChallengeOpponent.Answer.WAITING else now,
            )
            for position, ((opponent, opponent_version), answer) in enumerate(
                zip(opponents, answers), start=1
            )
        )
        # A configuration the versions were not validated under: ask for its validation
        # (as an event would); the challenge does not wait for it.
        validations_for(
            game=engine.slug,
            players=players,
            options=options,
            versions=[version, *(v for _, v in opponents)],
        )
        if not waiting:
            _start(challenge)
        else:
            telling.challenge_received(
                challenge,
                [
                    opponent.owner_id
                    for (opponent, _), answer in zip(opponents, answers)
                    if answer == ChallengeOpponent.Answer.WAITING
                ],
            )
    return challenge


def rechallenge(*, user, challenge: Challenge, version_id: int | None = None) -> Challenge:
    """The same challenge again (same opponents' versions, options, games and deals) with
    the challenger bot's current version, or ``version_id``."""
    if challenge.challenger_id != user.id:
        raise ChallengeRefused("only its challenger may play a challenge again", forbidden=True)
    opponents = list(challenge.opponents.order_by("position"))
    asked = Asked(
        bot_id=challenge.bot_id,
        opponent_ids=[o.bot_id for o in opponents],
        games=challenge.games,
        options=challenge.options,
        version_id=version_id,
        players=challenge.players,
    )
    return create_challenge(user=user, asked=asked, again_of=challenge)


def answer_challenge(*, user, challenge_id: int, accept: bool) -> Challenge:
    """The answer of ``user``'s bots asked in the challenge; the challenge starts when the
    last one accepts, and is declined by the first refusal."""
    with transaction.atomic():
        challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
        mine = challenge.opponents.filter(
            bot__owner_id=user.id, answer=ChallengeOpponent.Answer.WAITING
        )
        if challenge.status != Challenge.Status.PENDING or not mine.exists():
            raise ChallengeRefused("this challenge is not waiting for your answer")
        now = timezone.now()
        answer = ChallengeOpponent.Answer.ACCEPTED if accept else ChallengeOpponent.Answer.DECLINED
        mine.update(answer=answer, answered_at=now)
        telling.challenge_answered(challenge, accept, user.get_username())
        if not accept:
            _end(challenge, Challenge.Status.DECLINED)
        elif not challenge.opponents.exclude(answer=ChallengeOpponent.Answer.ACCEPTED).exists():
            _start(challenge)
    return challenge


def cancel_challenge(*, user, challenge_id: int) -> Challenge:
    """The challenger's cancel: unplayed games are dropped, played ones stay counted."""
    with transaction.atomic():
        challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
        if challenge.challenger_id != user.id:
            raise ChallengeRefused("only its challenger may cancel a challenge", forbidden=True)
        if challenge.status in OPEN:
            _end(challenge, Challenge.Status.CANCELLED)
            feed_challenges()
    return challenge


def _challenger_version(bot: Bot, version_id: int | None) -> BotVersion:
    if version_id is None:
        version = current_version(bot=bot)
        if version is None:
            raise ChallengeRefused("the bot has no active version yet", field="bot")
        return version
    version = BotVersion.objects.filter(pk=version_id, bot=bot).defer("upload").first()
    if version is None or version.status != BotVersion.Status.ACTIVE:
        raise ChallengeRefused("no active version of this bot by that id", field="version")
    return version


def _chosen_opponents(
    bot: Bot, opponent_ids: list[int], players: int
) -> list[tuple[Bot, BotVersion]]:
    if not opponent_ids:
        raise ChallengeRefused("choose an opponent, or pick_for_me", field="opponents")
    if len(set(opponent_ids)) != len(opponent_ids) or bot.pk in opponent_ids:
        raise ChallengeRefused("each opponent once, and not the bot itself", field="opponents")
    if len(opponent_ids) != players - 1:
        raise ChallengeRefused(
            f"a {players}-seat table takes {players - 1} opponent(s)", field="opponents"
        )
    found = {b.pk: b for b in Bot.objects.filter(pk__in=opponent_ids)}
    chosen = []
    for pk in opponent_ids:
        opponent = found.get(pk)
        if opponent is None:
            raise ChallengeRefused(f"no bot {pk}", field="opponents")
        if opponent.game != bot.game:
            raise ChallengeRefused(f"{opponent.name} plays another game", field="opponents")
        version = current_version(bot=opponent)
        if version is None:
            raise ChallengeRefused(f"{opponent.name} has no active version", field="opponents")
        chosen.append((opponent, version))
    return chosen


def pick_opponents(
    *, bot: Bot, version: BotVersion, players: int, options: dict
) -> list[tuple[Bot, BotVersion]]:
    """The bots of the pool that accept anyone's challenges, closest in rating to ``bot``
    (unrated bots after rated ones), other than the challenger's own."""
    pool = pools.pool_key(bot.game, players, options)
    rows = {
        row.bot_id: row.elo
        for row in LeaderboardRow.objects.filter(pool=pool).only("bot_id", "elo", "sort_key")
        if row.sort_key < 1e9
    }
    mine = rows.get(bot.pk, settings.ARENA_ELO_START)
    candidates = Bot.objects.filter(game=bot.game, accepts_challenges="anyone").exclude(
        owner_id=bot.owner_id
    )
    ordered = sorted(
        candidates, key=lambda b: (b.pk not in rows, abs(rows.get(b.pk, mine) - mine), b.pk)
    )
    picked = []
    for candidate in ordered:
        candidate_version = current_version(bot=candidate)
        if candidate_version is not None:
            picked.append((candidate, candidate_version))
        if len(picked) == players - 1:
            return picked
    raise ChallengeRefused("no bots of this pool accept challenges now", field="pick_for_me")


def _answer_of(user, opponent: Bot) -> str:
    if access.may_manage(user, opponent) or opponent.accepts_challenges == "anyone":
        return ChallengeOpponent.Answer.ACCEPTED
    if opponent.accepts_challenges == "ask":
        return ChallengeOpponent.Answer.WAITING
    return ChallengeOpponent.Answer.DECLINED


def _check_quotas(user, games: int) -> None:
    """Refuse over either quota; the user's row is locked, so two requests take turns."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).exists()
    now = timezone.now()
    open_ones = Challenge.objects.filter(challenger=user, status__in=OPEN)
    at_once = settings.ARENA_CHALLENGES_AT_ONCE
    if open_ones.count() >= at_once:
        raise QuotaExceeded(
            f"you have {at_once} challenge(s) pending or running, the most at once;"
            " another may start when one ends",
            retry_after=_seconds_until_one_ends(open_ones, now),
        )
    per_day = settings.ARENA_CHALLENGE_GAMES_PER_DAY
    recent = list(
        Challenge.objects.filter(challenger=user, status__in=COUNTED, created_at__gt=now - DAY)
        .order_by("created_at")
        .values_list("created_at", "games")
    )
    used = sum(g for _, g in recent)
    if used + games > per_day:
        # The quota frees up as the oldest challenges of the last 24 hours leave the window.
        freed, frees_at = used, now
        for created_at, counted in recent:
            freed -= counted
            frees_at = created_at + DAY
            if freed + games <= per_day:
                break
        raise QuotaExceeded(
            f"{used} of your {per_day} challenge games a day are used; {games} more fit"
            f" from {frees_at:%Y-%m-%d %H:%M:%S} UTC",
            retry_after=math.ceil((frees_at - now).total_seconds()),
        )


def _seconds_until_one_ends(open_ones, now) -> int:
    """An estimate: a pending one's expiry, or a running one's games left at the pace of
    its games so far (five seconds a game before any has finished)."""
    estimates = []
    for challenge in open_ones:
        if challenge.status == Challenge.Status.PENDING and challenge.expires_at:
            estimates.append((challenge.expires_at - now).total_seconds())
            continue
        done = challenge.matches.filter(status__in=FINAL).count()
        left = challenge.matches.exclude(status__in=FINAL).count()
        pace = 5.0
        if done and challenge.started_at:
            pace = (now - challenge.started_at).total_seconds() / done
        estimates.append(left * pace)
    return math.ceil(min(estimates, default=60.0))


def _start(challenge: Challenge) -> None:
    """Store every game of the challenge (scheduled) and queue as many as the slots allow."""
    engine = registry.get(challenge.game)
    entrants = [challenge.version_id] + [
        o.version_id for o in challenge.opponents.order_by("position")
    ]
    group = tuple(range(challenge.players))
    for plan in schedule(groups=[group], games=challenge.games, seed=challenge.seed):
        match = Match.objects.create(
            challenge=challenge,
            round=plan.deal + 1,
            number=plan.rotation + 1,
            game=challenge.game,
            engine_version=engine.version,
            options=challenge.options,
            seed=plan.seed,
            move_ms=challenge.move_ms,
            bank_ms=challenge.bank_ms,
            status=Match.Status.SCHEDULED,
        )
        MatchSeat.objects.bulk_create(
            MatchSeat(match=match, seat=seat, version_id=entrants[who])
            for seat, who in enumerate(plan.lineup)
        )
    challenge.status = Challenge.Status.RUNNING
    challenge.started_at = timezone.now()
    challenge.expires_at = None
    challenge.save(update_fields=["status", "started_at", "expires_at"])
    feed_challenges()


def _end(challenge: Challenge, status: str) -> None:
    now = timezone.now()
    challenge.status = status
    challenge.finished_at = now
    challenge.save(update_fields=["status", "finished_at"])
    # A queued game's message finds it cancelled and plays nothing; a running one ends.
    challenge.matches.filter(status__in=[Match.Status.SCHEDULED, Match.Status.QUEUED]).update(
        status=Match.Status.CANCELLED, finished_at=now
    )


def feed_challenges() -> int:
    """Queue scheduled games of running challenges while fewer than ARENA_CHALLENGE_SLOTS
    challenge games are queued or running; how many it queued. Deal by deal across the
    challenges, so a long one does not keep a short one waiting for all its games."""
    with transaction.atomic():
        if connection.vendor == "postgresql":  # SQLite's writers take turns anyway
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [FEED_LOCK])
        busy = Match.objects.filter(challenge__isnull=False, status__in=LIVE_MATCH).count()
        free = settings.ARENA_CHALLENGE_SLOTS - busy
        if free <= 0:
            return 0
        # Rows another transaction holds (a cancel dropping its games) are passed over:
        # waiting for them here, under this lock, could close a cycle with that writer.
        ids = list(
            Match.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(challenge__status=Challenge.Status.RUNNING, status=Match.Status.SCHEDULED)
            .order_by("round", "challenge_id", "number")
            .values_list("pk", flat=True)[:free]
        )
        now = timezone.now()
        for match_id in ids:
            if Match.objects.filter(pk=match_id, status=Match.Status.SCHEDULED).update(
                status=Match.Status.QUEUED, queued_at=now
            ):
                queue_match_after_commit(match_id)
    return len(ids)


def advance_challenge(*, challenge_id: int) -> Challenge:
    """Recount the figures, finish the challenge when no game is left, and feed the slots
    (in the transaction that recorded a result of it, or on the beat)."""
    with transaction.atomic():
        challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
        store_figures(challenge)
        fields = ["wins", "draws", "losses", "elo_diff", "elo_margin", "los"]
        fields += ["pentanomial", "figures", "lines"]
        if (
            challenge.status == Challenge.Status.RUNNING
            and not challenge.matches.exclude(status__in=FINAL).exists()
        ):
            challenge.status = Challenge.Status.FINISHED
            challenge.finished_at = timezone.now()
            fields += ["status", "finished_at"]
        challenge.save(update_fields=fields)
        if "status" in fields:
            telling.challenge_finished(challenge)
        feed_challenges()
    return challenge


def game_results(challenge: Challenge) -> list[GameResult]:
    """The finished games as ``play --games`` keeps them (entrant 0: the challenger)."""
    entrant = {challenge.version_id: 0}
    entrant.update(
        (o.version_id, o.position) for o in challenge.opponents.all().only("version_id", "position")
    )
    finished = (
        challenge.matches.filter(status=Match.Status.FINISHED)
        .only("round", "number", "seed")
        .prefetch_related("seats")
        .order_by("round", "number")
    )
    results = []
    for index, match in enumerate(finished):
        seats = sorted(match.seats.all(), key=lambda s: s.seat)
        results.append(
            GameResult(
                index=index,
                pairing=0,
                deal=match.round - 1,
                seed=match.seed,
                lineup=tuple(entrant[s.version_id] for s in seats),
                ranks=[s.rank for s in seats],
                scores=[s.score for s in seats],
                faults=[s.fault for s in seats],
                moves=0,
                digest="",
            )
        )
    return results


def store_figures(challenge: Challenge) -> None:
    """Set the challenge's figures from its finished games (not saved)."""
    labels = [challenge.version.label] + [
        o.version.label for o in challenge.opponents.select_related("version__bot")
    ]
    group = tuple(range(challenge.players))
    results = game_results(challenge)
    lines, figures = report(results, [group], labels)
    wins = sum(f["wins"] for f in figures)
    draws = sum(f["draws"] for f in figures)
    losses = sum(f["losses"] for f in figures)
    overall = figures[0] if len(figures) == 1 else pairing_figures(wins, draws, losses, [])
    challenge.wins, challenge.draws, challenge.losses = wins, draws, losses
    played = bool(results)
    challenge.elo_diff = _finite(overall["elo"]) if played else None
    challenge.elo_margin = _finite(overall["elo_margin"]) if played else None
    challenge.los = overall["los"] if played else None
    challenge.pentanomial = overall.get("pentanomial", {}).get("counts", [])
    challenge.figures = [_json_safe(f) for f in figures]
    challenge.lines = lines if played else []


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _json_safe(value):
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, float):
        return _finite(value)
    return value


def check_challenges() -> int:
    """The beat's safety net: expire unanswered requests, finish running challenges whose
    games all ended without a result arriving (failed out of attempts), feed the slots."""
    now = timezone.now()
    touched = 0
    expired = Challenge.objects.filter(status=Challenge.Status.PENDING, expires_at__lt=now)
    for challenge_id in expired.values_list("pk", flat=True):
        with transaction.atomic():
            challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
            if challenge.status == Challenge.Status.PENDING:
                _end(challenge, Challenge.Status.EXPIRED)
                touched += 1
    running = Challenge.objects.filter(status=Challenge.Status.RUNNING)
    for challenge_id in running.values_list("pk", flat=True):
        if not Match.objects.filter(challenge_id=challenge_id).exclude(status__in=FINAL).exists():
            advance_challenge(challenge_id=challenge_id)
            touched += 1
    return touched + feed_challenges()


def games_today(*, user) -> int:
    """Games of ``user``'s challenges counted against the daily quota now."""
    since = timezone.now() - DAY
    counted = Challenge.objects.filter(challenger=user, status__in=COUNTED, created_at__gt=since)
    return counted.aggregate(total=Sum("games"))["total"] or 0
