"""Server-rendered dashboard pages. Reads go through selectors, writes through services."""

from __future__ import annotations

import functools

import markdown
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from arena import botpage, replay, throttling, tournament_page
from arena.account_views import throttled_form
from arena.api import rules_text
from arena.forms import BotUploadForm, TournamentForm, VersionUploadForm
from bots import selectors as bot_selectors
from bots import services as bot_services
from bots.models import Bot
from bots.validation import UploadRejected
from games import registry
from tournaments import readcache, selectors, services
from tournaments.models import Ladder, Match, Tournament
from tournaments.readcache import marks


def home(request):
    # Stored under the tournament list's version (the games are the code's).
    version = marks.tournament_list_mark()

    def build():
        games = [registry.get(slug) for slug in registry.slugs()]
        context = {"games": games, "tournaments": selectors.tournament_list()[:10]}
        return render(request, "arena/home.html", context)

    return readcache.page(request, version, build)


def _game_or_404(slug: str):
    try:
        return registry.get(slug)
    except registry.UnknownGame:
        raise Http404(f"no game {slug!r}") from None


@functools.lru_cache(maxsize=64)
def _rules_html(text: str) -> str:
    """A rules page's HTML, by its text: converted once a process while the text stays."""
    return markdown.markdown(text or "No rules page yet.", extensions=["tables"])


def rules(request, slug):
    game = _game_or_404(slug)
    html = _rules_html(rules_text(slug))
    return render(request, "arena/rules.html", {"game": game, "rules_html": html})


def _text(request, name: str) -> str:
    """A short query parameter, without NUL characters PostgreSQL refuses."""
    return request.GET.get(name, "").replace("\x00", "").strip()[:40]


def bot_list(request):
    """A page of bots by name, with a name search and a game filter; pages are keyset
    (``after`` / ``before`` a name), so the last page costs what the first does."""
    version = marks.bot_list_mark()  # read before the rows

    def build():
        query, game = _text(request, "q"), _text(request, "game")
        page = bot_selectors.bot_page(
            query=query, game=game, after=_text(request, "after"), before=_text(request, "before")
        )
        context = {**page, "q": query, "game": game, "games": registry.slugs()}
        return render(request, "arena/bot_list.html", context)

    return readcache.page(request, version, build)


BOT_NAME_SUGGESTIONS = 20


def bot_names(request, slug):
    """Up to 20 names of the game's bots that start with ``q`` (then ones that contain
    it), for the datalist of the head-to-head form: a small JSON answer, not every bot."""
    if slug not in registry.slugs():
        raise Http404("no such game")
    # Names and games are what the bot list's version moves with (read before the rows).
    version = marks.bot_list_mark()

    def build():
        query = _text(request, "q")
        bots = Bot.objects.filter(game=slug).order_by("name")
        names = list(
            bots.filter(name__istartswith=query).values_list("name", flat=True)[
                :BOT_NAME_SUGGESTIONS
            ]
        )
        if query and len(names) < BOT_NAME_SUGGESTIONS:
            more = bots.filter(name__icontains=query).exclude(name__in=names)
            names += more.values_list("name", flat=True)[: BOT_NAME_SUGGESTIONS - len(names)]
        return JsonResponse({"names": names})

    return readcache.response(request, "bot-names", version, build)


def bot_detail(request, pk):
    # Anonymous readers share one stored page per version (read before any row).
    version = botpage.page_version(bot_id=pk) if readcache.anonymous(request) else None

    def build():
        bot = get_object_or_404(Bot.objects.select_related("owner"), pk=pk)
        # Each table is read once and handed to every part of the page that needs it.
        versions = list(bot_selectors.version_list(bot=bot))
        with_cancelled = request.GET.get("cancelled") == "1"
        matches, hidden = botpage.recent_match_rows(bot_id=bot.id, with_cancelled=with_cancelled)
        return render(
            request,
            "arena/bot_detail.html",
            {
                "bot": bot,
                "versions": versions,
                "current": bot_selectors.current_version(bot=bot, versions=versions),
                "ratings": botpage.rating_parts(bot=bot, versions=versions),
                "matches": matches,
                "hidden_cancelled": hidden,
                "with_cancelled": with_cancelled,
                "is_owner": request.user.is_authenticated and request.user.id == bot.owner_id,
            },
        )

    return readcache.page(request, version, build)


def _upload(request, bot, upload) -> bool:
    try:
        version = bot_services.upload_version_file(bot=bot, upload=upload)
    except (UploadRejected, bot_services.UploadRefused) as exc:
        messages.error(request, f"Upload refused: {exc}")
        return False
    messages.success(request, f"Version {version.number} uploaded; its validation match is queued.")
    return True


@login_required
def bot_new(request):
    form = BotUploadForm(request.POST or None, request.FILES or None)
    context = {"title": "New bot", "multipart": True}
    if refused := throttled_form(request, form, context, throttling.UploadThrottle):
        return refused
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            bot = bot_services.create_bot(
                owner=request.user,
                name=data["name"],
                game=data["game"],
                description=data["description"],
                accepts_entries=data["accepts_entries"],
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            if not _upload(request, bot, data["file"]):
                bot.delete()  # nothing is kept from a refused first upload
                return render(request, "arena/form.html", {"form": form, "title": "New bot"})
            return redirect("bot", pk=bot.pk)
    return render(request, "arena/form.html", {"form": form, **context})


@login_required
def bot_upload(request, pk):
    bot = get_object_or_404(Bot, pk=pk, owner=request.user)
    form = VersionUploadForm(request.POST or None, request.FILES or None)
    context = {"title": f"Upload a new version of {bot.name}", "multipart": True}
    if refused := throttled_form(request, form, context, throttling.UploadThrottle):
        return refused
    if request.method == "POST" and form.is_valid():
        if _upload(request, bot, form.cleaned_data["file"]):
            return redirect("bot", pk=bot.pk)
    return render(request, "arena/form.html", {"form": form, **context})


@login_required
@require_POST
def bot_entries(request, pk):
    """The owner's switch: whether other organisers may enter this bot."""
    bot = get_object_or_404(Bot, pk=pk, owner=request.user)
    accepts = request.POST.get("accepts_entries") == "on"
    bot_services.update_bot(bot=bot, accepts_entries=accepts)
    if accepts:
        messages.success(request, "Other organisers may now enter this bot in tournaments.")
    else:
        messages.success(request, "Only you may enter this bot in tournaments from now on.")
    return redirect("bot", pk=bot.pk)


def ladder_list(request):
    # Stored under every ladder's version (read before the ladders, as _ladder_page's).
    version = marks.ladders_mark() if readcache.anonymous(request) else None

    def build():
        # Each ladder with its counters in one query (a join): no second round trip.
        ladders = Ladder.objects.select_related("count")
        ladders = [(ladder, selectors.ladder_progress(ladder=ladder)) for ladder in ladders]
        return render(request, "arena/ladder_list.html", {"ladders": ladders})

    return readcache.page(request, version, build)


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


def _ladder_page(request, pk: int, template: str):
    # Stored under the ladder's version, read before the ladder and its rows: a write
    # between the two leaves newer rows under the older version, never the reverse.
    version = marks.ladder_mark(pk=pk)

    def build():
        ladder = get_object_or_404(Ladder, pk=pk)
        context = tournament_page.ladder_context(ladder, params=request.GET)
        return render(request, template, context)

    return readcache.page(request, version, build)


@login_required
@require_POST
def bot_current(request, pk):
    """The owner's choice of the version that plays: a rollback, or forward again."""
    bot = get_object_or_404(Bot, pk=pk, owner=request.user)
    try:
        number = int(request.POST.get("number", ""))
        version = bot_services.set_current_version(bot=bot, number=number)
    except ValueError:
        messages.error(request, "Choose a version to play.")
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, f"v{version.number} plays from now on.")
    return redirect("bot", pk=bot.pk)


def tournament_list(request):
    version = marks.tournament_list_mark()  # read before the rows

    def build():
        context = {"tournaments": selectors.tournament_list()}
        return render(request, "arena/tournament_list.html", context)

    return readcache.page(request, version, build)


def _may_cancel(request, tournament: Tournament) -> bool:
    return request.user.id == tournament.organiser_id and tournament_page.is_live(tournament)


def tournament_detail(request, pk):
    version = marks.finished_tournament_mark(pk=pk)
    return readcache.page(request, version, lambda: _tournament_detail(request, pk))


def _tournament_detail(request, pk):
    tournament = get_object_or_404(
        Tournament.objects.select_related("organiser", "snapshot"), pk=pk
    )  # the standings snapshot comes in the same row
    context = tournament_page.tournament_context(tournament, params=request.GET)
    context["may_cancel"] = _may_cancel(request, tournament)
    return render(request, "arena/tournament_detail.html", context)


def tournament_live(request, pk):
    """The part of the tournament page that its polling replaces (progress, standings,
    bracket or rounds, the page of matches asked for)."""
    version = marks.finished_tournament_mark(pk=pk)
    return readcache.page(request, version, lambda: _tournament_live(request, pk))


def _tournament_live(request, pk):
    tournament = get_object_or_404(
        Tournament.objects.select_related("organiser", "snapshot"), pk=pk
    )  # the standings snapshot comes in the same row
    context = tournament_page.tournament_context(tournament, params=request.GET)
    context["may_cancel"] = _may_cancel(request, tournament)
    context["fragment"] = True
    return render(request, "arena/tournament_live.html", context)


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
                name=data["name"],
                game=data["game"],
                bot_ids=[bot.pk for bot in data["bots"]],
                options=data["options"],
                format=data["format"],
                seeding=data["seeding"],
                players_per_match=data["players_per_match"],
                games_per_pairing=data["games_per_pairing"],
                rotate_seats=data["rotate_seats"],
                rounds=data["rounds"],
                challengers=[bot.pk for bot in data["challengers"]],
                advance=data["advance"],
                third_place=data["third_place"],
                grand_final_reset=data["grand_final_reset"],
                move_ms=data["move_ms"],
                bank_ms=data["bank_ms"],
                start_at=data["start_at"],
                rated=data["rated"],
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, "Tournament scheduled.")
            return redirect("tournament", pk=tournament.pk)
    return render(request, TOURNAMENT_FORM, {"form": form, **context})


def match_detail(request, pk):
    version = marks.finished_match_mark(pk=pk)
    return readcache.page(request, version, lambda: _match_detail(request, pk))


def _match_detail(request, pk):
    try:
        match = selectors.match_detail(pk=pk)
    except Match.DoesNotExist:
        raise Http404(f"no match {pk}") from None
    seats = list(match.seats.all())
    players = max(len(seats), replay.seat_count(match))
    try:
        seat = selectors.parse_seat(request.GET.get("seat", ""), players=players)
    except ValueError:
        seat = None  # a seat the match does not have: show the spectator's view
    viewer = {
        "match": match.pk,
        "seat": seat,
        "framesUrl": reverse("api-match-frames", args=[match.pk]),
        "replayUrl": reverse("api-match-replay", args=[match.pk]),
        "seats": [
            {
                "seat": s.seat,
                "bot": s.version.bot.name,
                "version": s.version.number,
                "score": s.score,
                "rank": s.rank,
                "fault": s.fault,
            }
            for s in seats
        ],
    }
    return render(
        request,
        "arena/match_detail.html",
        {
            "match": match,
            "seats": seats,
            "seat": seat,
            "seat_choices": [(s.seat, s.version.bot.name) for s in seats],
            "viewer": viewer,
            # Lazy: a finished match's text log is cached and stored (arena.replay.text_log).
            "text_log": functools.cache(lambda: replay.text_log(match=match, seat=seat)),
            # The reader's own bots' logs only (selectors.seat_logs).
            "logs": sorted(selectors.seat_logs(match=match, user=request.user).items()),
            "reproduce": selectors.reproduce(
                match=match,
                user=request.user,
                export_url=request.build_absolute_uri(reverse("api-match", args=[match.pk])),
            ),
        },
    )
