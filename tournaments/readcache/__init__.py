"""The read cache: answers stored under a mark of what they show.

A read is cached only under a key that moves whenever its answer could: its mark (the
object's own fields that move with every write it shows, read in the request in one narrow
query: ``marks``), never a timeout. Nothing here expires an entry to make it right; an
entry is only ever unreachable once the mark it was stored under has moved, and the
lifetime below just frees the memory.

What a key holds (``key()``):

- the release: a digest of the code and templates that render the answer, so a deploy
  that renders differently never serves an older rendering;
- the request's path and query, its host (absolute links), and the negotiated format;
- the caller's mark parts, e.g. a finished tournament's ``results_version``, status
  and ``finished_at``, or a named token bumped after the commit of every write to what
  the read shows (``bump_after_commit``; the game's ratings and boards).

Named tokens (``Token``, and the ``names`` token every stored read depends on) are not in
the key: an entry holds the tokens it was built under, and a read takes the current tokens
and the entry in one cache round trip (``get_many``), answering from the entry only when
they are equal. Same rule as a key holding them: built under an older token is never served.
The largest answers are also kept in each process (``memory``) with those token values,
under the same rule: a hit then takes only the tokens from the cache.

Only anonymous reads are cached: a logged-in reader may see their own bots' logs or
files, and sees their name in the page's header. Pages are not stored when they set a
cookie (a CSRF token) or when a message was waiting for the reader.

Beside this module's storing of answers: ``marks`` reads the marks pages and APIs are
stored under, ``process_copies`` is a process's own bounded copy of the largest answers,
and ``replay_answers`` keeps finished matches' replay and frames answers whole.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.core.cache import cache
from django.db import transaction
from django.http import HttpResponse

from tournaments.readcache.process_copies import ProcessCopies

# Entries are exact while reachable; a day only bounds what an unread one costs.
CACHE_SECONDS = 24 * 3600
_SOURCES = ("arena", "bots", "tournaments", "games", "docs")
_SUFFIXES = {".py", ".html", ".md", ".json"}
_release: str | None = None


def release() -> str:
    """A digest of the project's code, templates and rules texts, read once a process."""
    global _release  # noqa: PLW0603 - computed once, on first use
    if _release is None:
        digest = hashlib.sha256()
        base = Path(settings.BASE_DIR)
        for top in _SOURCES:
            for path in sorted((base / top).rglob("*")):
                if path.suffix in _SUFFIXES and "__pycache__" not in path.parts:
                    digest.update(str(path.relative_to(base)).encode())
                    digest.update(path.read_bytes())
        _release = digest.hexdigest()[:16]
    return _release


# A named token kept in the cache itself, for reads whose data has no column to mark them:
# a fresh random value after every commit that changes it (see bump_after_commit).
TOKEN_PREFIX = "readver:"


def token_of(name: str) -> str:
    """The current token of ``name``; a missing one (never set, evicted, cleared) starts
    as a new random token, so answers stored under an older one stay unreachable."""
    key_ = TOKEN_PREFIX + name
    token = cache.get(key_)
    if token is None:
        token = _start([key_])[key_]
    return token


def _start(keys: list[str]) -> dict[str, str]:
    """New random tokens for ``keys`` where none is stored yet, and what each holds then
    (another reader's, if it started one first), read back in one round trip."""
    for key_ in keys:
        cache.add(key_, uuid.uuid4().hex, None)
    return cache.get_many(keys)


def bump_after_commit(name: str) -> None:
    """Move ``name`` to a new token once the current transaction commits (at once outside
    one). A reader that stored what it read before the commit stored it under the old
    token, which no later reader asks for."""
    transaction.on_commit(lambda: cache.set(TOKEN_PREFIX + name, uuid.uuid4().hex, None))


def tokens_shared() -> bool:
    """Whether a token bumped by a writer reaches every reader. Rated results are written
    by Celery workers, other processes: a cache in each process's memory (locmem, the
    embedded default) never sees their bumps, so there a token-keyed read is not cached.
    ``ARENA_READ_CACHE_TOKENS`` overrides (tests whose writers run in the reading process)."""
    configured = getattr(settings, "ARENA_READ_CACHE_TOKENS", None)
    if configured is not None:
        return bool(configured)
    return not settings.CACHES["default"]["BACKEND"].endswith(("LocMemCache", "DummyCache"))


@dataclass(frozen=True)
class Token:
    """A named token (``token_of``) in a read's parts: read with the stored answer in
    one round trip, not before it (see the module)."""

    name: str


def board_mark(game: str) -> tuple | None:
    """The mark of everything ratings show in ``game``: boards, histories, head to head
    (``tournaments.read_models.leaderboard_rows.lock_game`` bumps it: every writer of them
    takes it); None, so not cached, when the cache is not shared with the writers."""
    if not tokens_shared():
        return None
    return ("board", game, Token(f"board:{game}"))


def boards_mark(games: Iterable[str]) -> tuple | None:
    """``board_mark`` of several games at once."""
    if not tokens_shared():
        return None
    return ("boards", tuple((game, Token(f"board:{game}")) for game in sorted(games)))


# Every stored read shows bot names and owners' usernames, which have no column to mark them
# and may be changed by an operator (the admin): renaming either moves this token.
NAMES = "names"


def bump_names(sender, instance, created: bool = False, update_fields=None, **_) -> None:
    """A ``post_save`` receiver for bots and users (``tournaments.apps``): a rename moves
    every stored read. Saves that cannot rename (a log-in's ``last_login``) move nothing."""
    field = "username" if hasattr(instance, "USERNAME_FIELD") else "name"
    if not created and (update_fields is None or field in update_fields):
        bump_after_commit(NAMES)


NAMES_TOKEN = Token(NAMES)

# A competition's fields whose change changes who may see its held-back results
# (tournaments.release): its level, the ladder's hiding time, its final, the reveal.
RELEASE_FIELDS = frozenset({"release", "ladder_hidden_from", "final", "revealed_at"})


def forget_after_release_change(sender, instance, update_fields=None, **_) -> None:
    """A ``post_save`` receiver for competitions: a change of who may see results (a
    reveal, a release level set, a final or ``ladder_hidden_from`` set) makes every stored
    read unreachable (answers stored for anonymous readers under the old level). Rare, so
    the whole store goes rather than a mark in every read; other saves move nothing."""
    if update_fields is None or RELEASE_FIELDS & set(update_fields):
        bump_after_commit(NAMES)


def key(request, kind: str, parts: Iterable) -> str:
    """The cache key of ``request``'s answer under the mark ``parts`` (their tokens'
    values are checked against the entry, see ``lookup``)."""
    raw = repr((release(), kind, request.get_host(), request.get_full_path(), tuple(parts)))
    return "read:" + hashlib.sha256(raw.encode()).hexdigest()


def _tokens_in(parts: Iterable) -> list[Token]:
    found = []
    for part in parts:
        if isinstance(part, Token):
            found.append(part)
        elif isinstance(part, tuple):
            found.extend(_tokens_in(part))
    return found


def current(parts: Iterable) -> tuple:
    """``parts`` with each token replaced by its current value: what the stored answer is
    checked against (for comparing marks: tests, and a look at a running site)."""
    return tuple(
        token_of(part.name)
        if isinstance(part, Token)
        else current(part)
        if isinstance(part, tuple)
        else part
        for part in parts
    )


# The largest answers are also kept in each process's memory as the cache holds them (the
# token values they were built under with the answer), and served under the same rule:
# only while the current tokens are those values. A hit then takes the tokens alone from
# the cache, not the large entry.
MEMORY_BYTES = 16 * 1024 * 1024
MEMORY_FROM = 32 * 1024
memory = ProcessCopies(MEMORY_BYTES)


def _body_size(value) -> int:
    """The size of a stored response (content type, body); 0 for anything else."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], bytes):
        return len(value[1])
    return 0


def _keep(cache_key: str, values: tuple, value) -> None:
    size = _body_size(value)
    if size >= MEMORY_FROM and None not in values:  # a cache that keeps nothing: no tokens
        memory.put(cache_key, (values, value), size)


def lookup(cache_key: str, tokens: list[Token]) -> tuple[tuple, object | None]:
    """The current values of ``tokens`` and what is stored under ``cache_key`` for them
    (None when nothing is, or it was stored under other values), in one round trip."""
    names = [TOKEN_PREFIX + token.name for token in tokens]
    kept = memory.get(cache_key)
    if kept is not None:
        found = cache.get_many(names)
        values = tuple(found.get(name) for name in names)
        if kept[0] == values and None not in values:
            return values, kept[1]
        memory.discard(cache_key)  # built under older tokens: never served again
    found = cache.get_many([*names, cache_key])
    values = tuple(found.get(name) for name in names)
    if None in values:  # never set, evicted or cleared: start it (nothing stored matches)
        # Read back together: a read marked by every game's token would otherwise pay
        # three round trips per game.
        found.update(_start([name for name, value in zip(names, values) if value is None]))
        return tuple(found.get(name) for name in names), None
    stored = found.get(cache_key)
    if stored is not None and stored[0] == values:
        _keep(cache_key, values, stored[1])
        return values, stored[1]
    return values, None


def store(cache_key: str, values: tuple, value) -> None:
    """Keep ``value`` under ``cache_key`` as built under the token ``values``."""
    cache.set(cache_key, (values, value), CACHE_SECONDS)
    _keep(cache_key, values, value)


def forget_kept() -> None:
    """Empty this process's copies (tests, and the bench's cold reads)."""
    memory.clear()


def fragment(kind: str, parts: Iterable | None, build: Callable[[], object]):
    """A piece of a page that is the same for every reader (any picklable value), stored
    under ``parts``; built every time when ``parts`` is None."""
    if parts is None:
        return build()
    parts = tuple(parts)
    raw = repr((release(), kind, parts))
    cache_key = "read:fragment:" + hashlib.sha256(raw.encode()).hexdigest()
    values, stored = lookup(cache_key, _tokens_in(parts))
    if stored is not None:
        return stored
    value = build()
    store(cache_key, values, value)
    return value


def anonymous(request) -> bool:
    return not request.user.is_authenticated


def api_response(request, view, parts: Iterable | None, build: Callable[[], object]):
    """A DRF view's answer: ``build()``'s data rendered as usual, stored when ``parts`` is
    not None, the reader anonymous and the format JSON; from the store when it is there."""
    from rest_framework.response import Response

    renderer = getattr(request, "accepted_renderer", None)
    if parts is None or renderer is None or renderer.format != "json" or not anonymous(request):
        return Response(build())
    parts = tuple(parts)
    cache_key = key(request, f"api:{request.accepted_media_type}", parts)
    values, stored = lookup(cache_key, [NAMES_TOKEN, *_tokens_in(parts)])
    if stored is not None:
        content_type, body = stored
        return HttpResponse(body, content_type=content_type)
    response = Response(build())

    def keep(rendered):
        if rendered.status_code == 200:
            store(cache_key, values, (rendered["Content-Type"], rendered.content))

    response.add_post_render_callback(keep)
    return response


def page(request, parts: Iterable | None, build: Callable[[], HttpResponse]) -> HttpResponse:
    """A page's answer, stored under ``parts`` for anonymous readers (see the module)."""
    if parts is not None and request.method == "GET" and len(messages.get_messages(request)):
        return build()  # the page shows the message once: not a shared answer
    return response(request, "page", parts, build)


def response(
    request, kind: str, parts: Iterable | None, build: Callable[[], HttpResponse]
) -> HttpResponse:
    """``build()``'s answer, stored under ``parts`` for anonymous GETs; a stored answer is
    the same bytes with the same content type."""
    if parts is None or request.method != "GET" or not anonymous(request):
        return build()
    parts = tuple(parts)
    cache_key = key(request, kind, parts)
    values, stored = lookup(cache_key, [NAMES_TOKEN, *_tokens_in(parts)])
    if stored is not None:
        content_type, body = stored
        return HttpResponse(body, content_type=content_type)
    fresh = build()
    if _shareable(request, fresh):
        store(cache_key, values, (fresh["Content-Type"], fresh.content))
    return fresh


def _shareable(request, response: HttpResponse) -> bool:
    """Whether every anonymous reader would have been given this very answer: a 200 that
    sets no cookie and holds no CSRF token (which would set one) nor session change."""
    session = getattr(request, "session", None)
    return (
        response.status_code == 200
        and not response.streaming
        and not response.cookies
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
        and not (session is not None and session.modified)
    )
