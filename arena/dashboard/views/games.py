"""The home page, each game's rules page and the page on bots in other languages."""

from __future__ import annotations

import functools
import re

import markdown
from django.conf import settings
from django.http import Http404
from django.shortcuts import render

from arena.api import rules_text
from arena.dashboard.page_cache import cached_page
from games import registry
from tournaments import selectors
from tournaments.readcache import marks


def game_or_404(slug: str):
    try:
        return registry.get(slug)
    except registry.UnknownGame:
        raise Http404(f"no game {slug!r}") from None


# Stored under the tournament list's mark (the games are the code's).
@cached_page(mark=lambda request: marks.tournament_list_mark())
def home(request):
    games = [registry.get(slug) for slug in registry.slugs()]
    context = {"games": games, "tournaments": selectors.tournament_list()[:10]}
    return render(request, "arena/home.html", context)


@functools.lru_cache(maxsize=64)
def _rules_html(text: str) -> str:
    """A rules page's HTML, by its text: converted once a process while the text stays."""
    return markdown.markdown(text or "No rules page yet.", extensions=["tables"])


# A link to another document of docs/ (``bots.md#limits``) has no page on the site: its
# text stays, the link goes.
DOC_LINK = re.compile(r'<a href="[a-z_/]*\.md(?:#[^"]*)?">(.*?)</a>', re.S)


@functools.lru_cache(maxsize=1)
def _languages_html(text: str) -> str:
    html = DOC_LINK.sub(r"\1", markdown.markdown(text, extensions=["tables"]))
    # A wide table scrolls on a phone: the keyboard reaches it too.
    return html.replace("<table>", '<table tabindex="0">')


def languages(request):
    """docs/languages.md as a page: what to upload for each language, linked by the upload
    forms."""
    text = (settings.BASE_DIR / "docs" / "languages.md").read_text()
    return render(request, "arena/languages.html", {"languages_html": _languages_html(text)})


def rules(request, slug):
    game = game_or_404(slug)
    html = _rules_html(rules_text(slug))
    return render(request, "arena/rules.html", {"game": game, "rules_html": html})
