"""Dashboard pages for ratings: the leaderboard per pool, head to head, and gating.

Reads go through ``tournaments.selectors`` (the same rows the API serves), writes
through ``bots.services``.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from arena.api import describe_game
from arena.dashboard import leaderboard_page
from arena.dashboard.page_cache import cached_page
from arena.dashboard.rating_forms import GatingForm, HeadToHeadForm
from arena.dashboard.views.games import game_or_404
from bots import services as bot_services
from bots.models import Bot
from games import registry
from tournaments import readcache, selectors
from tournaments.ratings import pools


def _pool_or_404(slug: str, raw: str | None) -> str:
    try:
        return selectors.resolve_pool(game=slug, pool=raw)
    except pools.InvalidPool as exc:
        raise Http404(str(exc)) from None


def _board_mark(request, slug) -> tuple | None:
    return readcache.board_mark(slug) if slug in registry.slugs() else None


@cached_page(mark=_board_mark)
def leaderboard(request, slug):
    game = game_or_404(slug)
    pool = _pool_or_404(slug, request.GET.get("pool"))
    query = request.GET.get("q", "")[:40].strip()
    page = leaderboard_page.board_page(pool=pool, query=query, cursor=request.GET.get("cursor"))
    return render(
        request,
        "arena/leaderboard.html",
        {
            "game": game,
            "pool": pool,
            "pool_label": pools.label(pool),
            "pools": selectors.pools_of_game(game=slug),
            "fit": selectors.pool_fit_info(pool=pool),
            "query": query,
            "page": page,
            "two_sided": pools.parse(pool).players == 2,
            "info": describe_game(slug),
        },
    )


@cached_page(mark=_board_mark)
def head_to_head(request, slug):
    game = game_or_404(slug)
    choices = selectors.pools_of_game(game=slug)
    form = HeadToHeadForm(request.GET or None, game=slug, pools=choices)
    result = None
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        pool = _pool_or_404(slug, data["pool"] or None)
        result = selectors.head_to_head(pool=pool, first=data["a"], second=data["b"])
    return render(
        request,
        "arena/head_to_head.html",
        {"game": game, "form": form, "result": result},
    )


@login_required
@require_POST
def bot_gating(request, pk):
    """The owner's gating settings for new versions."""
    bot = get_object_or_404(Bot, pk=pk, owner=request.user)
    form = GatingForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return redirect("bot", pk=bot.pk)
    data = form.cleaned_data
    try:
        bot_services.update_gating(
            bot=bot,
            gating=data["gating"],
            elo0=data["elo0"],
            elo1=data["elo1"],
            max_games=data["max_games"],
        )
    except ValidationError as exc:
        for error in exc.messages:
            messages.error(request, error)
        return redirect("bot", pk=bot.pk)
    if bot.gating:
        messages.success(
            request,
            f"New versions must now beat the current one by an SPRT (elo0 {bot.gate_elo0:g}, "
            f"elo1 {bot.gate_elo1:g}, at most {bot.gate_max_games} games).",
        )
    else:
        messages.success(request, "New versions now become current as soon as they validate.")
    return redirect("bot", pk=bot.pk)
