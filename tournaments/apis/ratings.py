"""API views of ratings: leaderboards, rating history, head to head and gating."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
)
from rest_framework import serializers
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from bots import services as bot_services
from bots.models import Bot
from games import registry
from games.registry import UnknownGame
from tournaments import readcache, selectors
from tournaments.models import Gate
from tournaments.ratings import pools
from tournaments.readcache import marks


class LeaderboardRowSerializer(serializers.Serializer):
    bot_id = serializers.IntegerField()
    bot = serializers.CharField()
    owner = serializers.CharField()
    version = serializers.IntegerField(help_text="the bot's current version")
    elo = serializers.FloatField(help_text="the shown rating (see estimate)")
    elo_low = serializers.FloatField(help_text="low end of the 95% interval")
    elo_high = serializers.FloatField(help_text="high end of the 95% interval")
    stdev = serializers.FloatField(help_text="standard deviation of the rating")
    estimate = serializers.ChoiceField(
        choices=["fit", "live", "parent", "none"],
        help_text="fit: the pool's Bradley-Terry fit; live: played only since the last fit "
        "(live Elo); parent: no games yet, its parent's rating widened; none: nothing yet",
    )
    live_elo = serializers.FloatField(allow_null=True, help_text="the incremental Elo")
    games = serializers.IntegerField(help_text="rated matches of this version in the pool")
    matches = serializers.IntegerField(help_text="same as games (older name)")
    wins = serializers.IntegerField(allow_null=True, help_text="two sides only")
    draws = serializers.IntegerField(allow_null=True, help_text="two sides only")
    losses = serializers.IntegerField(allow_null=True, help_text="two sides only")
    average_rank = serializers.FloatField(allow_null=True, help_text="more than two sides")
    los_next = serializers.FloatField(
        allow_null=True, help_text="likelihood of superiority over the next row, percent"
    )
    provisional = serializers.BooleanField(help_text="too few games to trust the rating")
    position = serializers.IntegerField()


class PoolSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()
    standard = serializers.BooleanField()


class LeaderboardSerializer(serializers.Serializer):
    game = serializers.CharField()
    pool = serializers.CharField(help_text="the pool shown (game:players[:options])")
    pool_label = serializers.CharField()
    pools = PoolSerializer(many=True)
    fit = serializers.DictField(allow_null=True, help_text="the latest fit of the pool")
    count = serializers.IntegerField(help_text="rows on the board (that match the search)")
    next = serializers.URLField(allow_null=True, help_text="the next page, null on the last")
    previous = serializers.URLField(
        allow_null=True, help_text="the previous page, null on the first"
    )
    ratings = LeaderboardRowSerializer(many=True, help_text="one page of rows, best first")


class LeaderboardQuery(serializers.Serializer):
    pool = serializers.CharField(required=False, help_text="a rating pool's key (see pool)")
    search = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=40,
        help_text="only rows whose bot or owner name holds this (any case); positions stay "
        "the board's",
    )
    cursor = serializers.CharField(
        required=False, max_length=400, help_text="a page's position, from next or previous"
    )
    page_size = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=selectors.LEADERBOARD_MAX_PAGE_SIZE,
        help_text=f"rows per page, default {selectors.LEADERBOARD_PAGE_SIZE}",
    )

    def validate_cursor(self, value: str):
        try:
            return selectors.BoardCursor.decode(value)
        except selectors.InvalidCursor as exc:
            raise ValidationError(str(exc)) from exc


class RatingPointSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="the version's number: one series per version")
    version_id = serializers.IntegerField()
    pool = serializers.CharField()
    match = serializers.IntegerField()
    seq = serializers.IntegerField(help_text="position in the pool's rating ledger")
    before = serializers.FloatField()
    after = serializers.FloatField()
    at = serializers.DateTimeField()


class RatingSeriesSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    points = RatingPointSerializer(many=True)


class RatingHistorySerializer(serializers.Serializer):
    bot = serializers.CharField()
    pool = serializers.CharField()
    pool_label = serializers.CharField()
    pools = serializers.ListField(child=serializers.CharField(), help_text="pools it played in")
    rated_matches = serializers.IntegerField(
        help_text="the bot's rated matches in the pool; history holds the latest `limit`"
    )
    history = RatingPointSerializer(many=True, help_text="the latest points, oldest first")
    series = RatingSeriesSerializer(many=True)


class RatingHistoryQuery(serializers.Serializer):
    pool = serializers.CharField(
        required=False, help_text="a rating pool's key; omit for the bot's most played pool"
    )
    limit = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=selectors.MAX_HISTORY_POINTS,
        help_text=f"the latest points to give, default {selectors.HISTORY_POINTS}",
    )


POOL_PARAMETER = OpenApiParameter(
    "pool",
    str,
    description="a rating pool's key, game:players[:name=value,...]; omit for the game's "
    "standard configuration",
)


def _pool_or_400(game: str, raw: str | None) -> str:
    try:
        return selectors.resolve_pool(game=game, pool=raw)
    except pools.InvalidPool as exc:
        raise ValidationError({"pool": [str(exc)]}) from exc


class LeaderboardApi(APIView):
    """A pool's board, one page at a time (keyset: a cursor names the row a page starts
    after, so rows arriving meanwhile neither repeat nor skip a row)."""

    @extend_schema(parameters=[LeaderboardQuery], responses=LeaderboardSerializer)
    def get(self, request, game):
        # Stored under the game's board mark (moved by every writer of the ratings).
        mark = readcache.board_mark(game) if game in registry.slugs() else None
        return readcache.api_response(request, self, mark, lambda: self._data(request, game))

    def _data(self, request, game) -> dict:
        try:
            registry.get(game)
        except UnknownGame as exc:
            raise NotFound(str(exc.args[0])) from exc
        query = LeaderboardQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        pool = _pool_or_400(game, data.get("pool"))
        page = selectors.leaderboard_page(
            pool=pool,
            search=data.get("search", ""),
            cursor=data.get("cursor"),
            page_size=data.get("page_size", selectors.LEADERBOARD_PAGE_SIZE),
        )

        def link(cursor):
            if cursor is None:
                return None
            url = request.build_absolute_uri()
            return replace_query_param(url, "cursor", cursor.encode())

        return {
            "game": game,
            "pool": pool,
            "pool_label": pools.label(pool),
            "pools": selectors.pools_of_game(game=game),
            "fit": selectors.pool_fit_info(pool=pool),
            "count": page["count"],
            "next": link(page["next"]),
            "previous": link(page["previous"]),
            "ratings": page["rows"],
        }


def _json_time(text: str) -> str:
    """A time's ``isoformat()`` as DRF's JSON encoder writes the datetime (UTC as ``Z``)."""
    return text[:-6] + "Z" if text.endswith("+00:00") else text


class BotRatingsApi(APIView):
    @extend_schema(parameters=[RatingHistoryQuery], responses=RatingHistorySerializer)
    def get(self, request, pk):
        # Stored under the board mark of the bot's game (a rated result moves it).
        game = marks.bot_game(pk=pk)
        mark = readcache.board_mark(game) if game else None
        return readcache.api_response(request, self, mark, lambda: self._data(request, pk))

    def _data(self, request, pk) -> dict:
        bot = get_object_or_404(Bot, pk=pk)
        query = RatingHistoryQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        # One read of the bot's Rating rows gives its pools and each one's rated matches.
        counts = selectors.rated_matches_by_pool(bot=bot)
        played = selectors.rating_pools_of_bot(bot=bot, counts=counts)
        raw = query.validated_data.get("pool")
        pool = _pool_or_400(bot.game, raw) if raw else None
        pool = pool or (played[0] if played else pools.default_pool(bot.game))
        limit = query.validated_data.get("limit", selectors.HISTORY_POINTS)
        # ``selectors.rating_history`` from its plain points, each time written as the JSON
        # encoder writes it, once: the history and the series hold the same points, and
        # the encoder's fallback per datetime was a good part of this answer's build.
        history = [
            selectors.history_entry(point, pool=pool, at=_json_time(point[-1]))
            for point in selectors.rating_points(bot=bot, pool=pool, limit=limit)
        ]
        return {
            "bot": bot.name,
            "pool": pool,
            "pool_label": pools.label(pool),
            "pools": played,
            "rated_matches": counts.get(pool, 0),
            "history": history,
            "series": selectors.rating_series(history),
        }


class HeadToHeadSideSerializer(serializers.Serializer):
    bot_id = serializers.IntegerField()
    bot = serializers.CharField()


class PairedSerializer(serializers.Serializer):
    pairs = serializers.IntegerField(help_text="pairs of matches on one deal, seats swapped")
    counts = serializers.ListField(
        child=serializers.IntegerField(), help_text="pairs scoring 0, 1/2, 1, 3/2, 2 points"
    )
    score = serializers.FloatField(allow_null=True)
    elo = serializers.FloatField(allow_null=True)
    margin = serializers.FloatField(allow_null=True)
    los = serializers.FloatField(allow_null=True)


class HeadToHeadSerializer(serializers.Serializer):
    pool = serializers.CharField()
    pool_label = serializers.CharField()
    first = HeadToHeadSideSerializer()
    second = HeadToHeadSideSerializer()
    games = serializers.IntegerField()
    wins = serializers.IntegerField(help_text="the first ranked above the second")
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    score = serializers.FloatField(allow_null=True, help_text="the first's mean score, 0..1")
    elo = serializers.FloatField(allow_null=True, help_text="the first's Elo difference")
    margin = serializers.FloatField(allow_null=True, help_text="95% margin of the difference")
    los = serializers.FloatField(help_text="likelihood the first is stronger, percent")
    pairs = PairedSerializer()


class HeadToHeadQuery(serializers.Serializer):
    a = serializers.IntegerField(help_text="the first bot's id")
    b = serializers.IntegerField(help_text="the second bot's id")
    pool = serializers.CharField(required=False, help_text=POOL_PARAMETER.description)

    def validate(self, data):
        found = {bot.pk: bot for bot in Bot.objects.filter(pk__in=[data["a"], data["b"]])}
        errors = {}
        for name in ("a", "b"):
            if data[name] not in found:
                errors[name] = [f"no bot with id {data[name]}"]
        if errors:
            raise ValidationError(errors)
        first, second = found[data["a"]], found[data["b"]]
        if first.pk == second.pk:
            raise ValidationError({"b": ["pick two different bots"]})
        if first.game != second.game:
            raise ValidationError({"b": [f"{second.name} plays {second.game}, not {first.game}"]})
        data["first"], data["second"] = first, second
        data["pool"] = _pool_or_400(first.game, data.get("pool"))
        return data


class HeadToHeadApi(APIView):
    @extend_schema(parameters=[HeadToHeadQuery], responses=HeadToHeadSerializer)
    def get(self, request):
        # The two bots may be of any game: stored under every game's board mark.
        mark = readcache.boards_mark(registry.slugs())
        return readcache.api_response(request, self, mark, lambda: self._data(request))

    def _data(self, request) -> dict:
        query = HeadToHeadQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        return selectors.head_to_head(pool=data["pool"], first=data["first"], second=data["second"])


class GateSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    version = serializers.IntegerField(help_text="the candidate version")
    parent = serializers.IntegerField(help_text="the version it must beat")
    pool = serializers.CharField()
    status = serializers.ChoiceField(choices=Gate.Status.choices)
    llr = serializers.FloatField(help_text="log-likelihood ratio of H1 over H0")
    lower = serializers.FloatField(help_text="H0 is accepted at or below")
    upper = serializers.FloatField(help_text="H1 is accepted at or above")
    elo0 = serializers.FloatField()
    elo1 = serializers.FloatField()
    alpha = serializers.FloatField()
    beta = serializers.FloatField()
    max_games = serializers.IntegerField()
    pairs = serializers.IntegerField()
    games = serializers.IntegerField()
    counts = serializers.ListField(child=serializers.IntegerField())
    elo = serializers.FloatField(allow_null=True)
    margin = serializers.FloatField(allow_null=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class GatingSerializer(serializers.Serializer):
    gating = serializers.BooleanField(required=False, help_text="gate new versions")
    elo0 = serializers.FloatField(required=False, source="gate_elo0")
    elo1 = serializers.FloatField(required=False, source="gate_elo1")
    alpha = serializers.FloatField(required=False, source="gate_alpha")
    beta = serializers.FloatField(required=False, source="gate_beta")
    max_games = serializers.IntegerField(required=False, source="gate_max_games")


class BotGatingSerializer(GatingSerializer):
    gates = GateSerializer(many=True, read_only=True)


class BotGatingApi(APIView):
    """A bot's gating settings (the owner changes them) and its gates with their SPRT."""

    def _answer(self, bot: Bot) -> Response:
        data = GatingSerializer(bot).data
        data["gates"] = selectors.gates_of_bot(bot=bot)
        return Response(data)

    @extend_schema(responses=BotGatingSerializer)
    def get(self, request, pk):
        # Stored under the bot's ReadVersion('bot:<id>'): its row and its gates move it.
        mark = marks.bot_api_mark(pk=pk) if readcache.anonymous(request) else None
        return readcache.api_response(
            request, self, mark, lambda: self._answer(get_object_or_404(Bot, pk=pk)).data
        )

    @extend_schema(request=GatingSerializer, responses=BotGatingSerializer)
    def patch(self, request, pk):
        bot = get_object_or_404(Bot, pk=pk)
        if bot.owner_id != request.user.id:
            raise PermissionDenied("only the bot's owner may change its gating")
        data = GatingSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        fields = {key.removeprefix("gate_"): value for key, value in data.validated_data.items()}
        bot_services.update_gating(bot=bot, **fields)
        return self._answer(bot)
