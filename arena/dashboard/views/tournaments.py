"""The tournament and ladder pages: lists, a page with the live part it polls, the
organiser's new tournament and cancel, and staff's ladder pause."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render

from arena import throttling
from arena.dashboard import tournament_page
from arena.dashboard.forms import TournamentForm
from arena.dashboard.page_cache import cached_page, for_anonymous
from arena.dashboard.views.accounts import throttled_form
from tournaments import selectors, services
from tournaments.models import Ladder, Tournament
from tournaments.readcache import marks


@cached_page(mark=lambda request: marks.tournament_list_mark())
def tournament_list(request):
    context = {"tournaments": selectors.tournament_list()}
    return render(request, "arena/tournament_list.html", context)


def _tournament_mark(request, pk) -> tuple | None:
    return marks.finished_tournament_mark(pk=pk)


def _tournament_page(request, pk, template: str, **extra):
    tournament = get_object_or_404(
        Tournament.objects.select_related("organiser", "snapshot"), pk=pk
    )  # the standings snapshot comes in the same row
    context = tournament_page.tournament_context(tournament, params=request.GET, user=request.user)
    may_cancel = request.user.id == tournament.organiser_id and tournament_page.is_live(tournament)
    seed_shown = selectors.tournament_seed_shown(tournament=tournament, user=request.user)
    context.update(may_cancel=may_cancel, seed_shown=seed_shown)
    return render(request, template, {**context, **extra})


@cached_page(mark=_tournament_mark)
def tournament_detail(request, pk):
    return _tournament_page(request, pk, "arena/tournament_detail.html")


@cached_page(mark=_tournament_mark)
def tournament_live(request, pk):
    """The part of the tournament page that its polling replaces (progress, standings,
    bracket or rounds, the page of matches asked for)."""
    return _tournament_page(request, pk, "arena/tournament_live.html", fragment=True)


@login_required
def tournament_cancel(request, pk):
    """GET asks to confirm (the page's button works without JavaScript); POST cancels."""
    tournament = get_object_or_404(Tournament, pk=pk)
    if tournament.organiser_id != request.user.id:
        raise PermissionDenied("only the organiser may cancel this tournament")
    if request.method != "POST":
        return render(request, "arena/tournament_cancel.html", {"tournament": tournament})
    try:
        services.cancel_tournament(tournament=tournament)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, "Tournament cancelled: nothing more will be queued.")
    return redirect("tournament", pk=pk)


TOURNAMENT_FORM = "arena/tournament_form.html"
# The form's fields handed to the service as they are (the bots go as their ids).
TOURNAMENT_SETTINGS = (
    "name",
    "game",
    "options",
    "format",
    "seeding",
    "players_per_match",
    "games_per_pairing",
    "rotate_seats",
    "rounds",
    "advance",
    "third_place",
    "grand_final_reset",
    "move_ms",
    "bank_ms",
    "start_at",
    "rated",
    "record_visibility",
)


@login_required
def tournament_new(request):
    form = TournamentForm(request.POST or None, organiser=request.user)
    context = {"title": "New tournament"}
    if refused := throttled_form(
        request, form, context, throttling.TournamentThrottle, template=TOURNAMENT_FORM
    ):
        return refused
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            tournament = services.create_tournament(
                organiser=request.user,
                bot_ids=[bot.pk for bot in data["bots"]],
                challengers=[bot.pk for bot in data["challengers"]],
                **{name: data[name] for name in TOURNAMENT_SETTINGS},
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, "Tournament scheduled.")
            return redirect("tournament", pk=tournament.pk)
    if request.method == "POST":
        throttling.give_back(request)  # refused: only tournaments made count
    return render(request, TOURNAMENT_FORM, {"form": form, **context})


# Stored under every ladder's mark, read before the ladders.
@cached_page(mark=for_anonymous(lambda request: marks.ladders_mark()))
def ladder_list(request):
    # Each ladder with its counters in one query (a join): no second round trip.
    ladders = Ladder.objects.select_related("count")
    ladders = [(ladder, selectors.ladder_progress(ladder=ladder)) for ladder in ladders]
    return render(request, "arena/ladder_list.html", {"ladders": ladders})


def ladder_detail(request, pk):
    if request.method != "POST":
        return _ladder_page(request, pk, "arena/ladder_detail.html")
    ladder = get_object_or_404(Ladder, pk=pk)
    if not request.user.is_staff:
        raise PermissionDenied("only staff may pause or resume a ladder")
    paused = request.POST.get("action") == "pause"
    services.set_ladder_paused(ladder=ladder, paused=paused)
    messages.success(request, "Ladder paused." if paused else "Ladder resumed.")
    return redirect("ladder", pk=pk)


def ladder_live(request, pk):
    """The part of the ladder page that its polling replaces."""
    return _ladder_page(request, pk, "arena/ladder_live.html")


@cached_page(mark=lambda request, pk, template: marks.ladder_mark(pk=pk))
def _ladder_page(request, pk: int, template: str):
    ladder = get_object_or_404(Ladder, pk=pk)
    context = tournament_page.ladder_context(ladder, params=request.GET)
    return render(request, template, context)
