"""The bots' read APIs stored for anonymous readers (``tournaments.readcache``). The views
are ``bots.apis``'s; they are served from here because ``bots`` sits below the read cache
and its marks (``tournaments.readcache.marks``), which only this layer may read."""

from __future__ import annotations

from bots import apis as bot_apis
from tournaments import readcache
from tournaments.readcache import marks


def _bot_api_mark(request, pk: int) -> tuple | None:
    # A signed-in reader is never answered from the store: no mark to read for them.
    return marks.bot_api_mark(pk=pk) if readcache.anonymous(request) else None


class BotListCreateApi(bot_apis.BotListCreateApi):
    """The bot list, stored under ``ReadVersion('bots:api')`` (any filter, page and size:
    the key holds the query)."""

    def list(self, request, *args, **kwargs):
        parent = super().list
        mark = marks.bot_list_api_mark() if readcache.anonymous(request) else None
        return readcache.api_response(
            request, self, mark, lambda: parent(request, *args, **kwargs).data
        )


class BotDetailApi(bot_apis.BotDetailApi):
    """A bot, stored under its ``ReadVersion('bot:<id>')`` (its row and versions, which
    decide the current version; its owner's name moves every stored read)."""

    def get(self, request, *args, **kwargs):
        mark = _bot_api_mark(request, kwargs["pk"])
        return readcache.api_response(
            request, self, mark, lambda: self.retrieve(request, *args, **kwargs).data
        )


class BotVersionsApi(bot_apis.BotVersionsApi):
    """A bot's versions, stored under its ``ReadVersion('bot:<id>')``."""

    def get(self, request, *args, **kwargs):
        mark = _bot_api_mark(request, kwargs["pk"])
        return readcache.api_response(
            request, self, mark, lambda: self.list(request, *args, **kwargs).data
        )


class VersionDetailApi(bot_apis.VersionDetailApi):
    """A version, stored under its bot's ``ReadVersion('bot:<id>')``."""

    def get(self, request, *args, **kwargs):
        anonymous = readcache.anonymous(request)
        mark = marks.bot_version_api_mark(pk=kwargs["pk"]) if anonymous else None
        return readcache.api_response(
            request, self, mark, lambda: self.retrieve(request, *args, **kwargs).data
        )
