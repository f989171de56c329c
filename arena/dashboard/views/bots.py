"""The bot pages: the list, a bot's page, and its owner's uploads and switches."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_POST

from arena import throttling
from arena.dashboard import bot_page
from arena.dashboard.forms import BotUploadForm, VersionUploadForm
from arena.dashboard.page_cache import cached_page, for_anonymous
from arena.dashboard.query import query_text
from arena.dashboard.views.accounts import throttled_form
from bots import access
from bots import selectors as bot_selectors
from bots import services as bot_services
from bots.models import Bot, BotVersion
from bots.validation import UploadRejected
from games import registry
from tournaments.readcache import marks
from tournaments.selectors import challenges as challenge_selectors
from tournaments.selectors import human_games as human_game_selectors


def _bot_list_mark(request, *args) -> tuple:
    # Names and games are what the bot list's mark moves with.
    return marks.bot_list_mark()


@cached_page(mark=_bot_list_mark)
def bot_list(request):
    """A page of bots by name, with a name search and a game filter; pages are keyset
    (``after`` / ``before`` a name), so the last page costs what the first does."""
    query, game = query_text(request, "q"), query_text(request, "game")
    page = bot_selectors.bot_page(
        query=query,
        game=game,
        after=query_text(request, "after"),
        before=query_text(request, "before"),
    )
    context = {**page, "q": query, "game": game, "games": registry.slugs()}
    return render(request, "arena/bot_list.html", context)


BOT_NAME_SUGGESTIONS = 20


def bot_names(request, slug):
    """Up to 20 names of the game's bots that start with ``q`` (then ones that contain
    it), for the datalist of the head-to-head form: a small JSON answer, not every bot."""
    if slug not in registry.slugs():
        raise Http404("no such game")
    return _bot_names(request, slug)


@cached_page(mark=_bot_list_mark, kind="bot-names")
def _bot_names(request, slug):
    query = query_text(request, "q")
    bots = Bot.objects.filter(game=slug).order_by("name")
    names = list(
        bots.filter(name__istartswith=query).values_list("name", flat=True)[:BOT_NAME_SUGGESTIONS]
    )
    if query and len(names) < BOT_NAME_SUGGESTIONS:
        more = bots.filter(name__icontains=query).exclude(name__in=names)
        names += more.values_list("name", flat=True)[: BOT_NAME_SUGGESTIONS - len(names)]
    return JsonResponse({"names": names})


# Anonymous readers share one stored page per mark.
@cached_page(mark=for_anonymous(lambda request, pk: bot_page.page_mark(bot_id=pk)))
def bot_detail(request, pk):
    bot = get_object_or_404(bot_page.with_sections(Bot.objects.select_related("owner")), pk=pk)
    # Each table is read once and handed to every part of the page that needs it.
    versions = list(bot_selectors.version_list(bot=bot))
    context = _versions_context(request, bot, versions)
    with_cancelled = request.GET.get("cancelled") == "1"
    matches, hidden = bot_page.recent_match_rows(
        bot_id=bot.id,
        with_cancelled=with_cancelled,
        user=request.user,
        version_ids=[v.pk for v in versions],
    )
    return render(
        request,
        "arena/bot_detail.html",
        {
            **context,
            "ratings": bot_page.rating_parts(bot=bot, versions=versions),
            "matches": matches,
            "matches_table": mark_safe(bot_page.matches_table(matches)),
            "hidden_cancelled": hidden,
            "with_cancelled": with_cancelled,
            "challenges": [
                challenge_selectors.challenge_summary(c)
                for c in (
                    challenge_selectors.challenges_of_bot(bot_id=bot.pk)
                    if bot.has_challenges
                    else []
                )
            ],
            "challenge_choices": [("anyone", "anyone"), ("ask", "ask me"), ("nobody", "nobody")],
            "people_games": human_game_selectors.games_against_people(bot_id=bot.pk)
            if bot.has_people_games
            else [],
        },
    )


# Seconds between two polls of a bot page whose versions wait for validation.
VERSIONS_POLL_SECONDS = 3
WAITING = (BotVersion.Status.PENDING, BotVersion.Status.VALIDATING)


def _versions_context(request, bot: Bot, versions: list) -> dict:
    """What the versions table and the current version line show; ``validating``: how many
    versions wait for their validation match (the table polls while any does)."""
    return {
        "bot": bot,
        "versions": versions,
        "current": bot_selectors.current_version(bot=bot, versions=versions),
        "is_owner": request.user.is_authenticated and request.user.id == bot.owner_id,
        "may_upload": access.may_manage(request.user, bot),
        "validating": sum(1 for v in versions if v.status in WAITING),
        "poll_seconds": VERSIONS_POLL_SECONDS,
    }


@require_GET
@cached_page(mark=for_anonymous(lambda request, pk: marks.bot_page_mark(pk=pk)))
def bot_versions_live(request, pk):
    """The bot page's versions table and current version, which the page polls (htmx)
    while a version waits for validation: the table stops polling once none does."""
    bot = get_object_or_404(Bot.objects.select_related("owner"), pk=pk)
    versions = list(bot_selectors.version_list(bot=bot))
    context = {**_versions_context(request, bot, versions), "fragment": True}
    return render(request, "arena/_bot_versions.html", context)


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
    bot = get_object_or_404(Bot.objects.filter(access.managed_bots_q(request.user)), pk=pk)
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
