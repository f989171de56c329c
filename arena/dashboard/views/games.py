"""The home page, each game's rules page and the page on bots in other languages."""

from __future__ import annotations

import functools
import hashlib
import os
import re

import markdown
from django.conf import settings
from django.http import Http404
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import get_script_prefix, get_urlconf
from django.utils.safestring import SafeString, mark_safe

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
    context = {
        "games_rows": _games_rows(get_script_prefix(), get_urlconf()),
        "tournaments": selectors.tournament_list()[:10],
    }
    return render(request, "arena/home.html", context)


@functools.lru_cache(maxsize=8)
def _games_rows(prefix: str, urlconf: str | None) -> SafeString:
    """The home page's table of games: the code's, so written once a process (per script
    prefix and URLconf, which its links depend on)."""
    games = [registry.get(slug) for slug in registry.slugs()]
    return mark_safe(render_to_string("arena/home_games.html", {"games": games}))  # noqa: S308


@functools.lru_cache(maxsize=64)
def _rules_html(text: str) -> str:
    """A rules page's HTML, by its text: converted once a process while the text stays,
    and kept in a file by the text's digest for the next processes (a conversion takes
    longer than a page's reads)."""
    text = text or "No rules page yet."
    digest = hashlib.sha256(f"{markdown.__version__}\0{text}".encode()).hexdigest()
    path = settings.VAR_DIR / "rules-html" / f"{digest}.html"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        pass
    html = markdown.markdown(text, extensions=["tables"])
    try:  # written whole, then renamed: a reader never sees half a file
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{digest}.{os.getpid()}.tmp")
        partial.write_text(html, encoding="utf-8")
        os.replace(partial, path)
    except OSError:  # a read-only directory: converted in each process, as before
        pass
    return html


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
