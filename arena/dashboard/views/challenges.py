"""Challenges' pages: the form from a bot's page, the result that fills in live, the inbox."""

from __future__ import annotations

import json
import math

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from bots import access
from bots import services as bot_services
from bots.models import Bot
from games import registry
from games.protocol import InvalidOptions
from tournaments.bulk.report import fmt_elo, fmt_margin
from tournaments.models import Challenge
from tournaments.ratings import pools
from tournaments.selectors import challenges as selectors
from tournaments.services import challenges as services

TOO_MANY_REQUESTS = 429
POLL_SECONDS = 2
LIVE = (Challenge.Status.PENDING, Challenge.Status.RUNNING)


class ChallengeForm(forms.Form):
    bot = forms.ModelChoiceField(queryset=Bot.objects.none(), label="Your bot", empty_label=None)
    version = forms.IntegerField(
        required=False, min_value=1, help_text="a version number; empty: its current one"
    )
    games = forms.IntegerField(
        min_value=1,
        initial=20,
        help_text="played on duplicate deals, each deal once per rotation of the seats",
    )
    options = forms.CharField(
        required=False,
        initial="{}",
        help_text='the game\'s options as JSON, e.g. {"continuous": true}; {} for defaults',
    )

    def __init__(self, *args, user, game: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["bot"].queryset = Bot.objects.filter(
            access.managed_bots_q(user), game=game
        ).order_by("name")
        self.fields["games"].max_value = settings.ARENA_CHALLENGE_MAX_GAMES

    def clean_options(self) -> dict:
        text = (self.cleaned_data.get("options") or "").strip() or "{}"
        try:
            options = json.loads(text)
        except ValueError:
            raise forms.ValidationError("not JSON: write the options as {...}") from None
        if not isinstance(options, dict):
            raise forms.ValidationError("the options are an object: {...}")
        return options


class TableForm(ChallengeForm):
    """A challenge of a bot whose game seats more than two: more opponents may join it."""

    more = forms.CharField(
        required=False,
        max_length=400,
        label="More opponents",
        help_text="for a table of 3 or more: other bots' names, separated by commas",
    )

    def __init__(self, *args, user, game: str, **kwargs):
        super().__init__(*args, user=user, game=game, **kwargs)
        self.game = game

    def clean_more(self) -> list[int]:
        names = [n.strip() for n in (self.cleaned_data.get("more") or "").split(",")]
        names = [n for n in names if n]
        found = dict(Bot.objects.filter(name__in=names, game=self.game).values_list("name", "pk"))
        missing = [n for n in names if n not in found]
        if missing:
            raise forms.ValidationError(
                f"no {self.game} bot named {', '.join(missing)}: check the names on the leaderboard"
            )
        return [found[n] for n in dict.fromkeys(names)]


class PickForMeForm(ChallengeForm):
    players = forms.IntegerField(
        required=False, min_value=2, help_text="seats at the table; empty: the game's standard"
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, user=user, game="", **kwargs)
        self.fields["bot"].queryset = Bot.objects.filter(access.managed_bots_q(user)).order_by(
            "name"
        )


@login_required
def challenge_pick(request):
    """Challenge the closest-rated bots of the pool that accept anyone's challenges."""
    form = PickForMeForm(
        request.POST or None, user=request.user, initial={"bot": request.GET.get("bot")}
    )
    status = 200
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        asked = services.Asked(
            bot_id=data["bot"].pk,
            opponent_ids=[],
            games=data["games"],
            options=data["options"],
            version_id=_version_id(data["bot"], data["version"]),
            pick_for_me=True,
            players=data["players"],
        )
        challenge, status = _create(request, form, asked)
        if challenge is not None:
            return redirect("challenge", pk=challenge.pk)
    return render(request, "arena/challenge_pick.html", {"form": form}, status=status)


def _version_id(bot: Bot, number: int | None) -> int | None:
    """The id of ``bot``'s version ``number`` (-1 for none such: the service refuses it)."""
    if not number:
        return None
    return bot.versions.filter(number=number).values_list("pk", flat=True).first() or -1


def _create(request, form, asked) -> tuple[Challenge | None, int]:
    """The challenge made, or None with the refusal on the form and its status code."""
    try:
        return services.create_challenge(user=request.user, asked=asked), 200
    except services.QuotaExceeded as exc:
        form.add_error(None, f"{exc.detail}.")
        return None, TOO_MANY_REQUESTS
    except (services.ChallengeRefused, InvalidOptions) as exc:
        form.add_error(None, str(getattr(exc, "detail", exc)))
        return None, 403 if getattr(exc, "forbidden", False) else 400


@login_required
def challenge_new(request, pk):
    """Challenge bot ``pk`` with one of the reader's bots of its game."""
    opponent = get_object_or_404(Bot, pk=pk)
    engine = registry.get(opponent.game)
    kind = TableForm if engine.max_players > 2 else ChallengeForm
    form = kind(
        request.POST or None,
        user=request.user,
        game=opponent.game,
        initial=_initial_from_pool(request.GET.get("pool"), game=opponent.game),
    )
    context = {"opponent": opponent, "form": form}
    status = 200
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        more = [bot for bot in data.get("more", []) if bot != opponent.pk]
        asked = services.Asked(
            bot_id=data["bot"].pk,
            opponent_ids=[opponent.pk, *more],
            games=data["games"],
            options=data["options"],
            version_id=_version_id(data["bot"], data["version"]),
        )
        challenge, status = _create(request, form, asked)
        if challenge is not None:
            return redirect("challenge", pk=challenge.pk)
    return render(request, "arena/challenge_form.html", context, status=status)


def _context(request, pk: int) -> dict:
    found = selectors.challenge_with_answer(challenge_id=pk, user=request.user)
    if found is None:
        raise Http404("No such challenge.")
    challenge, answer = found
    reader = request.user.id if request.user.is_authenticated else None
    return {
        "challenge": challenge,
        "answer": answer,
        "live": challenge.status in LIVE,
        "poll_seconds": POLL_SECONDS,
        "elo": None if answer["elo_diff"] is None else fmt_elo(answer["elo_diff"]),
        "margin": fmt_margin(
            math.inf if answer["elo_margin"] is None else answer["elo_margin"]
        ),
        "bar": _bar(answer),
        "is_challenger": reader == challenge.challenger_id,
        "asks_me": reader is not None
        and any(o["answer"] == "waiting" and o["owner"] == request.user.username
                for o in answer["opponents"]),
    }  # fmt: skip


def _bar(answer: dict) -> dict:
    statuses = [game["status"] for game in answer["table"]]
    total = max(1, len(statuses))
    bar = {
        "done": statuses.count("finished") + statuses.count("failed"),
        "running": statuses.count("running"),
        "queued": statuses.count("queued") + statuses.count("scheduled"),
        "total": len(statuses),
    }
    bar["widths"] = {key: round(100 * bar[key] / total, 2) for key in ("done", "running", "queued")}
    return bar


def challenge_detail(request, pk):
    return render(request, "arena/challenge_detail.html", _context(request, pk))


def challenge_live(request, pk):
    """The part of the result page its polling replaces."""
    return render(request, "arena/challenge_live.html", _context(request, pk))


@login_required
@require_POST
def challenge_answer(request, pk, answer):
    """The owner of an asked bot accepts or declines."""
    try:
        services.answer_challenge(user=request.user, challenge_id=pk, accept=answer == "accept")
    except services.ChallengeRefused as exc:
        messages.error(request, exc.detail)
    else:
        messages.success(
            request, "Accepted: the games are queued." if answer == "accept" else "Declined."
        )
    return redirect(request.POST.get("next") or "challenge-inbox")


@login_required
@require_POST
def challenge_again(request, pk):
    """Play the challenge again with the bot's current version, on the same deals."""
    challenge = get_object_or_404(Challenge, pk=pk)
    try:
        again = services.rechallenge(user=request.user, challenge=challenge)
    except services.QuotaExceeded as exc:
        messages.error(request, f"{exc.detail}.")
        return redirect("challenge", pk=pk)
    except services.ChallengeRefused as exc:
        if exc.forbidden:
            raise PermissionDenied(exc.detail) from None
        messages.error(request, exc.detail)
        return redirect("challenge", pk=pk)
    return redirect("challenge", pk=again.pk)


@login_required
@require_POST
def challenge_cancel(request, pk):
    try:
        services.cancel_challenge(user=request.user, challenge_id=pk)
    except services.ChallengeRefused as exc:
        raise PermissionDenied(exc.detail) from None
    return redirect("challenge", pk=pk)


@login_required
def challenge_inbox(request):
    """Requests waiting for the reader's answer, and the reader's recent challenges."""
    context = {
        "waiting": [
            selectors.challenge_summary(c)
            for c in selectors.challenges_of_user(user=request.user, inbox=True)
        ],
        "recent": [
            selectors.challenge_summary(c) for c in selectors.challenges_of_user(user=request.user)
        ],
    }
    return render(request, "arena/challenge_inbox.html", context)


@login_required
@require_POST
def bot_challenges(request, pk):
    """The owner's setting: who may challenge this bot."""
    bot = get_object_or_404(Bot, pk=pk, owner=request.user)
    choice = request.POST.get("accepts_challenges", "")
    if choice not in ("anyone", "nobody", "ask"):
        messages.error(request, "Choose anyone, nobody or ask me.")
    else:
        bot_services.update_bot(bot=bot, accepts_challenges=choice)
        messages.success(request, "Saved: who may challenge this bot.")
    return redirect("bot", pk=bot.pk)


def _initial_from_pool(key: str | None, *, game: str) -> dict:
    """The form's options as the leaderboard's pool ``key`` plays them (a link from a
    leaderboard row carries its pool); nothing for a missing or foreign key."""
    try:
        pool = pools.parse(key or "")
    except pools.InvalidPool:
        return {}
    if pool.game != game:
        return {}
    return {"options": json.dumps(pool.options, sort_keys=True)}
