"""Playing against bots in the browser: the form that seats the table, the live table
(drawn by static/arena/play.js from the API's answer), your games, resign and rematch.

Every page here is the signed-in person's own: another person's game is a 404.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from arena.dashboard.forms import option_form_field
from arena.dashboard.frame_layouts import layout_for, layout_json
from bots.models import Bot
from games import registry
from tournaments.selectors import human_games as selectors
from tournaments.services import human_games as services

RANDOM_SEAT = "random"


def _other_seat_choices(game, user, chosen: Bot | None) -> list[tuple[str, str]]:
    """Who may take a seat: the game's built-in bots, then its uploaded bots that may be
    played on demand (their owner's own always), the chosen one first."""
    choices = [(f"policy:{name}", f"{name} (built-in)") for name in sorted(game.policies)]
    bots = (
        Bot.objects.filter(game=game.slug, versions__status="active")
        .filter(~Q(accepts_challenges="nobody") | Q(owner=user))
        .select_related("owner")
        .distinct()
    )
    ordered = sorted(bots, key=lambda b: (chosen is None or b.pk != chosen.pk, b.name))
    choices += [(f"bot:{b.pk}", f"{b.name} (by {b.owner.username})") for b in ordered[:200]]
    return choices


class PlayForm(forms.Form):
    """The table: your seat, who takes each other seat, and the game's options."""

    def __init__(self, *args, game, players: int, user, chosen: Bot | None, **kwargs):
        super().__init__(*args, **kwargs)
        self.game = game
        self.players = players
        seats = [(RANDOM_SEAT, "any seat (drawn at random)")]
        seats += [
            (str(n), f"seat {n + 1}{' (first to act)' if n == 0 else ''}") for n in range(players)
        ]
        self.fields["seat"] = forms.ChoiceField(
            choices=seats, initial=RANDOM_SEAT, label="Your seat"
        )
        choices = _other_seat_choices(game, user, chosen)
        default = f"bot:{chosen.pk}" if chosen is not None else choices[0][0]
        for n in range(1, players):
            self.fields[f"other_{n}"] = forms.ChoiceField(
                choices=choices, initial=default, label=f"Opponent {n}"
            )
        self.option_names = []
        for name, option in game.options.items():
            self.fields[f"option_{name}"] = option_form_field(name, option)
            self.option_names.append(name)

    def seating(self) -> services.Seating:
        data = self.cleaned_data
        bots = []
        for n in range(1, self.players):
            kind, _, value = data[f"other_{n}"].partition(":")
            bots.append(value if kind == "policy" else int(value))
        options = {}
        for name in self.option_names:
            value = data.get(f"option_{name}")
            if value is not None and value != "" and value != self.game.options[name].default:
                options[name] = value
        seat = data["seat"]
        return services.Seating(
            game=self.game.slug, players=self.players, options=options,
            seat=None if seat == RANDOM_SEAT else int(seat), bots=bots,
        )  # fmt: skip


@login_required
def play_new(request):
    """Seat a table: ``?game=`` (or ``?bot=``, whose game it is) and ``?players=``."""
    chosen = None
    bot_id = request.GET.get("bot", "")
    if bot_id.isdigit():
        chosen = Bot.objects.filter(pk=int(bot_id)).first()
    slug = chosen.game if chosen is not None else request.GET.get("game", "pairs")
    try:
        game = registry.get(slug)
    except registry.UnknownGame:
        raise Http404(f"no game {slug!r}") from None
    counts = game.player_counts({})
    asked = request.GET.get("players", "")
    players = int(asked) if asked.isdigit() and int(asked) in counts else counts[0]
    form = PlayForm(
        request.POST or None, game=game, players=players, user=request.user, chosen=chosen
    )
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            human_game = services.create_human_game(user=request.user, seating=form.seating())
        except services.HumanGameRefused as exc:
            form.add_error(None, exc.detail)
            status = exc.status if exc.status in (400, 403, 429) else 400
        else:
            return redirect("play-game", pk=human_game.pk)
    seconds = settings.ARENA_HUMAN_MOVE_SECONDS
    move_minutes = (
        f"{seconds // 60} minute{'s' if seconds >= 120 else ''}" if seconds % 60 == 0
        else f"{seconds} seconds"
    )  # fmt: skip
    context = {
        "game": game, "form": form, "players": players, "counts": counts, "chosen": chosen,
        "move_minutes": move_minutes,
    }  # fmt: skip
    return render(request, "arena/play_new.html", context, status=status)


@login_required
def play_list(request):
    """Your games against bots, newest first: the ones in play to go back to."""
    games = selectors.games_of_user(user=request.user)
    return render(request, "arena/play_list.html", {"games": games})


@login_required
def play_game(request, pk):
    """The live table. Leaving and coming back resumes it: the page reads the game's state."""
    human_game = selectors.game_of_user(user=request.user, pk=pk)
    if human_game is None:
        raise Http404("no such game of yours")
    match = human_game.match
    config = {
        "game": pk,
        "match": match.pk,
        "seat": human_game.seat,
        "gameUrl": reverse("api-human-game", args=[pk]),
        "actUrl": reverse("api-human-game-act", args=[pk]),
        "resignUrl": reverse("api-human-game-resign", args=[pk]),
        "rematchUrl": reverse("api-human-game-rematch", args=[pk]),
        "matchUrl": reverse("match", args=[match.pk]),
        "playUrl": reverse("play-game", args=[0]).replace("/0/", "/{id}/"),
        "layout": layout_json(layout_for(match.game)),
    }
    context = {
        "human_game": human_game, "match": match, "config": config,
        "game": registry.get(match.game),
    }  # fmt: skip
    return render(request, "arena/play_game.html", context)


@login_required
@require_POST
def play_rematch(request, pk):
    """The same table again (the page without scripts posts here)."""
    human_game = selectors.game_of_user(user=request.user, pk=pk)
    if human_game is None:
        raise Http404("no such game of yours")
    try:
        again = services.rematch(user=request.user, human_game=human_game)
    except services.HumanGameRefused as exc:
        messages.error(request, exc.detail)
        return redirect("play-game", pk=pk)
    return redirect("play-game", pk=again.pk)
