"""The tournament and ladder pages: lists, a page with the live part it polls, the
organiser's new tournament, its edit before the start and cancel, and staff's ladder
pause."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render

from arena import throttling
from arena.dashboard import tournament_page
from arena.dashboard.forms import TournamentForm, option_field_name
from arena.dashboard.page_cache import cached_page, for_anonymous
from arena.dashboard.query import query_id
from arena.dashboard.views.accounts import throttled_form
from tournaments import selectors, services
from tournaments.models import Ladder, Tournament
from tournaments.readcache import marks
from tournaments.selectors.newest_first import newest_first
from tournaments.services import scheduling


@cached_page(mark=lambda request: marks.tournament_list_mark())
def tournament_list(request):
    """Tournaments by start, latest first, a page at a time."""
    page = newest_first(
        selectors.tournament_list(),
        field="start_at",
        after=query_id(request, "after"),
        before=query_id(request, "before"),
    )
    return render(request, "arena/tournament_list.html", {"page": page})


def _tournament_mark(request, pk) -> tuple | None:
    return marks.finished_tournament_mark(pk=pk)


def _tournament_page(request, pk, template: str, **extra):
    # The standings snapshot and what the seed's and results' visibility need come in
    # the same row.
    tournament = get_object_or_404(selectors.tournament_read(), pk=pk)
    context = tournament_page.tournament_context(tournament, params=request.GET, user=request.user)
    may_cancel = request.user.id == tournament.organiser_id and tournament_page.is_live(tournament)
    may_edit = may_cancel and tournament.status == Tournament.Status.SCHEDULED
    seed_shown = selectors.tournament_seed_shown(
        tournament=tournament, user=request.user, live=tournament._live_matches
    )
    context.update(may_cancel=may_cancel, may_edit=may_edit, seed_shown=seed_shown)
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


def _service_settings(form: TournamentForm) -> dict:
    """The form's settings as the service's arguments (the bots as their ids)."""
    data = form.cleaned_data
    return {
        "bot_ids": [bot.pk for bot in data["bots"]],
        "challengers": [bot.pk for bot in data["challengers"]],
        **{name: data[name] for name in TOURNAMENT_SETTINGS},
    }


# What the service's check takes of a form refused on some inputs: the rest of them, read
# as given (a refused input is left to its own message).
CHECKED = (
    "format",
    "players_per_match",
    "games_per_pairing",
    "rotate_seats",
    "move_ms",
    "bank_ms",
    "rounds",
    "advance",
    "third_place",
    "grand_final_reset",
    "record_visibility",
)
CHECK_DEFAULTS = {"format": "round_robin", "rotate_seats": True, "move_ms": 1000, "bank_ms": 10000}


def _refuse_the_rest(form: TournamentForm, organiser, kept: frozenset[int] = frozenset()) -> None:
    """A form refused on some inputs also shows what the service would refuse of the
    others, so one submission shows every mistake."""
    data = form.cleaned_data
    if not data.get("game"):
        return
    settings = {name: data.get(name) for name in CHECKED}
    for name, default in CHECK_DEFAULTS.items():
        if settings[name] is None or name in form.errors:
            settings[name] = default
    settings["advance"] = settings["advance"] or 1
    settings["record_visibility"] = settings["record_visibility"] or "finished"
    bots = [] if "bots" in form.errors else [bot.pk for bot in data.get("bots") or []]
    found = scheduling.settings_refusals(
        organiser=organiser,
        game=data["game"],
        bot_ids=bots,
        challengers=[bot.pk for bot in data.get("challengers") or []],
        options=data.get("options", {}),
        kept=kept,
        **settings,
    )
    for field, messages_ in found.items():
        name = field
        if field.startswith("options."):
            name = option_field_name(data["game"], field.removeprefix("options."))
        if name in form.errors or name not in form.fields:
            continue
        if name == "bots" and ("bot_list" in form.errors or "bots" in form.errors):
            continue  # the pasted list's own refusal says what is missing
        form.add_error(name, messages_)


@login_required
def tournament_new(request):
    form = TournamentForm(request.POST or None, organiser=request.user)
    context = {"title": "New tournament"}
    if refused := throttled_form(
        request, form, context, throttling.TournamentThrottle, template=TOURNAMENT_FORM
    ):
        return refused
    if request.method == "POST":
        if form.is_valid():
            try:
                tournament = services.create_tournament(
                    organiser=request.user, **_service_settings(form)
                )
            except ValidationError as exc:
                form.add_refusals(exc)
            else:
                messages.success(request, "Tournament scheduled.")
                return redirect("tournament", pk=tournament.pk)
        else:
            _refuse_the_rest(form, request.user)
        throttling.give_back(request)  # refused: only tournaments made count
    return render(request, TOURNAMENT_FORM, {"form": form, **context})


@login_required
def tournament_edit(request, pk):
    """The organiser's form for a scheduled tournament, filled in with its settings."""
    tournament = get_object_or_404(Tournament, pk=pk)
    if tournament.organiser_id != request.user.id:
        raise PermissionDenied("only the organiser may edit this tournament")
    if tournament.status != Tournament.Status.SCHEDULED:
        return _not_editable(request, tournament)
    form = TournamentForm(request.POST or None, organiser=request.user, tournament=tournament)
    context = {"title": f"Edit “{tournament.name}”", "tournament": tournament}
    if request.method == "POST":
        if form.is_valid():
            before = tournament.seed_commitment
            try:
                tournament = services.update_tournament(
                    tournament_id=pk, editor=request.user, **_service_settings(form)
                )
            except ValidationError as exc:
                form.add_refusals(exc)
            except scheduling.TournamentStarted:
                return _not_editable(request, tournament)
            else:
                said = "Tournament changed."
                if tournament.seed_commitment != before:
                    said += (
                        " The games change, so the seed was drawn again: its new commitment "
                        f"is {tournament.seed_commitment}."
                    )
                messages.success(request, said)
                return redirect("tournament", pk=pk)
        else:
            entered = tournament.entries.values_list("bot_id", flat=True)
            _refuse_the_rest(form, request.user, kept=frozenset(entered))
    return render(request, TOURNAMENT_FORM, {"form": form, **context})


def _not_editable(request, tournament: Tournament):
    detail = (
        f"“{tournament.name}” is {tournament.status}: a tournament can be edited only until "
        "it starts. Cancel it and create a new one to change it now."
    )
    return render(request, "arena/refused.html", {"status": 409, "detail": detail}, status=409)


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
