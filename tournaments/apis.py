"""Thin API views for tournaments, matches, replays and ratings."""

from __future__ import annotations

import django_filters
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotAuthenticated, NotFound, PermissionDenied, ValidationError
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.views import APIView

from bots import services as bot_services
from bots.models import Bot
from games import registry
from games.registry import UnknownGame
from tournaments import pools, selectors, services
from tournaments.models import Gate, Ladder, Match, MatchSeat, Tournament


class SeatSerializer(serializers.ModelSerializer):
    bot = serializers.CharField(source="version.bot.name")
    bot_id = serializers.IntegerField(source="version.bot_id")
    version = serializers.IntegerField(source="version.number")

    class Meta:
        model = MatchSeat
        fields = ["seat", "bot", "bot_id", "version", "score", "rank", "fault"]


class ReproduceFileSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    bot = serializers.CharField()
    version = serializers.IntegerField()
    file = serializers.CharField(help_text="the file name the commands use for this seat")
    yours = serializers.BooleanField()
    source = serializers.CharField(allow_null=True, help_text="your upload, to download")


class ReproduceSerializer(serializers.Serializer):
    play = serializers.CharField(help_text="plays the same match again, given every seat's file")
    export = serializers.CharField(help_text="saves this match record to a file")
    replay = serializers.CharField(
        help_text="re-runs the saved record with your files and checks every move"
    )
    files = ReproduceFileSerializer(many=True)


class MatchSerializer(serializers.ModelSerializer):
    seats = SeatSerializer(many=True, read_only=True)
    reproduce = serializers.SerializerMethodField()

    @extend_schema_field(ReproduceSerializer)
    def get_reproduce(self, match) -> dict | None:
        """The commands that play this match again, as the reader can run them."""
        request = self.context.get("request")
        if request is None:
            return None
        return selectors.reproduce(
            match=match,
            user=request.user,
            export_url=request.build_absolute_uri(reverse("api-match", args=[match.pk])),
        )

    class Meta:
        model = Match
        fields = [
            "id",
            "tournament",
            "ladder",
            "round",
            "number",
            "series",
            "game",
            "engine_version",
            "options",
            "seed",
            "status",
            "attempts",
            "started_at",
            "finished_at",
            "seats",
            "result",
            "error",
            "reproduce",
        ]


class DetailSeatSerializer(SeatSerializer):
    log = serializers.SerializerMethodField(
        help_text="what the bot wrote on stderr in this match; null unless you own the bot"
    )

    class Meta(SeatSerializer.Meta):
        fields = SeatSerializer.Meta.fields + ["log"]

    def get_log(self, seat) -> str | None:
        return self.context.get("logs", {}).get(seat.seat)


class MatchDetailSerializer(MatchSerializer):
    """A match record: enough to play it again (``manage.py replay`` reads this JSON)."""

    seats = DetailSeatSerializer(many=True, read_only=True)

    class Meta(MatchSerializer.Meta):
        fields = MatchSerializer.Meta.fields + ["move_ms", "bank_ms", "moves", "record"]


class TournamentSerializer(serializers.ModelSerializer):
    organiser = serializers.CharField(source="organiser.username", read_only=True)
    bots = serializers.ListField(
        child=serializers.IntegerField(), write_only=True, help_text="ids of the entrant bots"
    )
    challengers = serializers.ListField(
        child=serializers.IntegerField(),
        source="challenger_ids",
        required=False,
        help_text="gauntlet: ids of the bots (among the entrants) who play every other entrant",
    )
    entrants = serializers.SerializerMethodField()

    class Meta:
        model = Tournament
        fields = [
            "id",
            "name",
            "organiser",
            "game",
            "options",
            "format",
            "players_per_match",
            "games_per_pairing",
            "rotate_seats",
            "rounds",
            "challengers",
            "advance",
            "third_place",
            "grand_final_reset",
            "seeding",
            "move_ms",
            "bank_ms",
            "rated",
            "seed",
            "seed_salt",
            "seed_commitment",
            "start_at",
            "status",
            "created_at",
            "started_at",
            "finished_at",
            "bots",
            "entrants",
        ]
        read_only_fields = [
            "id",
            "organiser",
            "seed_salt",
            "seed_commitment",
            "status",
            "created_at",
            "started_at",
            "finished_at",
            "entrants",
        ]
        extra_kwargs = {
            "players_per_match": {"required": False},
            "games_per_pairing": {
                "required": False,
                "help_text": "games per pairing or series; with seat rotation a multiple of "
                "players_per_match (the default is one game per rotation)",
            },
            "rounds": {"help_text": "swiss: rounds to play (default: log2 of the field plus one)"},
            "advance": {
                "help_text": "elimination with 3+ seats: how many of each table go through"
            },
            "third_place": {"help_text": "single elimination: play a series for third place"},
            "grand_final_reset": {
                "help_text": "double elimination: a second final when the losers' bracket "
                "champion wins the first"
            },
            "seeding": {
                "help_text": "rating: by current rating, best first; entry: in the order of bots"
            },
            "seed_commitment": {
                "help_text": "SHA-256 of seed_salt, a colon and the seed in decimal; published "
                "at creation, checkable once the seed and salt are revealed at the start"
            },
            "start_at": {"required": False},
            "seed": {
                "required": False,
                "help_text": "every match's deal derives from it; hidden from all but the "
                "organiser until the tournament starts",
            },
            "options": {"required": False},
        }

    def get_entrants(self, tournament) -> list[dict]:
        return [
            {
                "bot_id": e.bot_id,
                "bot": e.bot.name,
                "version": e.version.number if e.version else None,
                "seed_number": e.seed_number,
                "challenger": e.challenger,
            }
            for e in tournament.entries.select_related("bot", "version")
        ]

    def to_representation(self, tournament):
        data = super().to_representation(tournament)
        # Every deal follows from the seed, and entrants' versions are pinned only
        # at the start: until then, a seed anyone could read lets an entrant upload
        # a version that knows every deck. Only the organiser sees it early.
        request = self.context.get("request")
        if tournament.status == Tournament.Status.SCHEDULED and (
            request is None or request.user.id != tournament.organiser_id
        ):
            data["seed"] = None
            data["seed_salt"] = None
        return data

    def validate_options(self, value):
        if not isinstance(value, dict):
            raise ValidationError("options must be an object of option name to value")
        return value


class TournamentDetailSerializer(TournamentSerializer):
    standings = serializers.SerializerMethodField(
        help_text="best first; tiebreaks holds the format's tie-break values by name"
    )
    tiebreaks = serializers.SerializerMethodField(help_text="the format's tie-breaks, in order")
    round_tables = serializers.SerializerMethodField(
        help_text="swiss and gauntlet: each round's tables (bot ids, first seat first) and byes"
    )
    bracket = serializers.SerializerMethodField(
        help_text="elimination: each series with its entrants, winner and where its winner "
        "and loser go next"
    )
    progress = serializers.SerializerMethodField()

    class Meta(TournamentSerializer.Meta):
        fields = TournamentSerializer.Meta.fields + [
            "standings",
            "tiebreaks",
            "round_tables",
            "bracket",
            "progress",
        ]

    def _overview(self, tournament) -> dict:
        cached = getattr(tournament, "_overview", None)
        if cached is None:
            cached = tournament._overview = selectors.overview(tournament=tournament)
        return cached

    def get_standings(self, tournament) -> list[dict]:
        return self._overview(tournament)["standings"]

    def get_tiebreaks(self, tournament) -> list[str]:
        return self._overview(tournament)["tiebreaks"]

    def get_round_tables(self, tournament) -> list[dict]:
        return self._overview(tournament)["rounds"]

    def get_bracket(self, tournament) -> list[dict]:
        return self._overview(tournament)["bracket"]

    def get_progress(self, tournament) -> dict:
        return selectors.progress(tournament=tournament)


class TournamentFilter(django_filters.FilterSet):
    """The tournament list's filters: an unknown game or status is a 400."""

    game = django_filters.ChoiceFilter(
        choices=[(slug, slug) for slug in registry.slugs()], help_text="a game's slug"
    )
    status = django_filters.ChoiceFilter(choices=Tournament.Status.choices)

    class Meta:
        model = Tournament
        fields = ["game", "status"]


class TournamentListCreateApi(generics.ListAPIView):
    serializer_class = TournamentSerializer
    filterset_class = TournamentFilter  # applied and validated by DjangoFilterBackend

    # New tournaments per user; the scope's throttle and rate come from the settings.
    throttle_scope = "tournaments"

    def get_throttles(self):
        return super().get_throttles() if self.request.method == "POST" else []

    def get_queryset(self):
        return selectors.tournament_list()

    @extend_schema(request=TournamentSerializer, responses={201: TournamentDetailSerializer})
    def post(self, request):
        data = TournamentSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        tournament = services.create_tournament(
            organiser=request.user,
            bot_ids=fields.pop("bots"),
            challengers=fields.pop("challenger_ids", None),
            **fields,
        )
        answer = TournamentDetailSerializer(tournament, context={"request": request})
        return Response(answer.data, status=status.HTTP_201_CREATED)


class TournamentDetailApi(generics.RetrieveAPIView):
    serializer_class = TournamentDetailSerializer
    queryset = Tournament.objects.select_related("organiser")


class TournamentCancelApi(APIView):
    @extend_schema(request=None, responses=TournamentDetailSerializer)
    def post(self, request, pk):
        tournament = get_object_or_404(Tournament, pk=pk)
        if tournament.organiser_id != request.user.id:
            raise PermissionDenied("only the organiser may cancel this tournament")
        tournament = services.cancel_tournament(tournament=tournament)
        return Response(TournamentDetailSerializer(tournament, context={"request": request}).data)


class TournamentMatchesApi(generics.ListAPIView):
    serializer_class = MatchSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation: no tournament
            return Match.objects.none()
        tournament = get_object_or_404(Tournament, pk=self.kwargs["pk"])
        return selectors.match_list(tournament=tournament)


class MatchDetailApi(generics.RetrieveAPIView):
    """A match; a seat's ``log`` only for its bot's owner; ``reproduce`` as the reader runs it."""

    serializer_class = MatchDetailSerializer

    def get_queryset(self):
        return Match.objects.select_related("tournament").prefetch_related(selectors.public_seats())

    def retrieve(self, request, *args, **kwargs):
        match = self.get_object()
        context = {
            "request": request,
            "logs": selectors.seat_logs(match=match, user=request.user),
        }
        return Response(MatchDetailSerializer(match, context=context).data)


class SeatLogApi(APIView):
    """What one seat's bot wrote on stderr in the match, as text: its owner only."""

    @extend_schema(
        responses={
            (200, "text/plain"): str,
            403: OpenApiResponse(description="signed in, but not the owner of that seat's bot"),
        }
    )
    def get(self, request, pk, seat):
        match = get_object_or_404(Match, pk=pk)
        seat_row = get_object_or_404(
            MatchSeat.objects.select_related("version__bot"), match=match, seat=seat
        )
        if not request.user.is_authenticated:
            raise NotAuthenticated("sign in as the bot's owner to read its log")
        if seat_row.version.bot.owner_id != request.user.id:
            raise PermissionDenied("only the bot's owner may read its log")
        return HttpResponse(seat_row.log, content_type="text/plain; charset=utf-8")


class ReplaySerializer(serializers.Serializer):
    match = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True, help_text="null: a spectator's view")
    moves = serializers.ListField(
        child=serializers.DictField(), help_text="actions, wall and CPU ms per seat, defaults"
    )
    events = serializers.ListField(child=serializers.DictField(), help_text="as that seat saw them")


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
    ratings = LeaderboardRowSerializer(many=True)


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
    history = RatingPointSerializer(many=True)
    series = RatingSeriesSerializer(many=True)


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


class MatchReplayApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "seat",
                {"type": "integer", "minimum": 0},
                description="whose view, 0 to the number of seats less one; omit for a spectator",
            )
        ],
        responses=ReplaySerializer,
    )
    def get(self, request, pk):
        match = get_object_or_404(Match, pk=pk)
        seat = request.query_params.get("seat")
        if seat is not None:
            players = len(match.result["seats"]) if match.result else 0
            try:
                seat = selectors.parse_seat(seat, players=players)
            except ValueError as exc:
                raise ValidationError({"seat": [str(exc)]}) from exc
        return Response(
            {
                "match": match.pk,
                "seat": seat,
                "moves": match.moves or [],
                "events": selectors.replay_events(match=match, seat=seat),
            }
        )


class LeaderboardApi(APIView):
    @extend_schema(parameters=[POOL_PARAMETER], responses=LeaderboardSerializer)
    def get(self, request, game):
        try:
            registry.get(game)
        except UnknownGame as exc:
            raise NotFound(str(exc.args[0])) from exc
        pool = _pool_or_400(game, request.query_params.get("pool"))
        return Response(
            {
                "game": game,
                "pool": pool,
                "pool_label": pools.label(pool),
                "pools": selectors.pools_of_game(game=game),
                "fit": selectors.pool_fit_info(pool=pool),
                "ratings": selectors.leaderboard(game=game, pool=pool),
            }
        )


class BotRatingsApi(APIView):
    @extend_schema(parameters=[POOL_PARAMETER], responses=RatingHistorySerializer)
    def get(self, request, pk):
        bot = get_object_or_404(Bot, pk=pk)
        played = selectors.rating_pools_of_bot(bot=bot)
        raw = request.query_params.get("pool")
        pool = _pool_or_400(bot.game, raw) if raw else None
        history = selectors.rating_history(bot=bot, pool=pool)
        pool = pool or (played[0] if played else pools.default_pool(bot.game))
        return Response(
            {
                "bot": bot.name,
                "pool": pool,
                "pool_label": pools.label(pool),
                "pools": played,
                "history": history,
                "series": selectors.rating_series(history),
            }
        )


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
        query = HeadToHeadQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        return Response(
            selectors.head_to_head(pool=data["pool"], first=data["first"], second=data["second"])
        )


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
        return self._answer(get_object_or_404(Bot, pk=pk))

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


class LadderSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField(help_text="the ladder's matches by status")

    class Meta:
        model = Ladder
        fields = [
            "id",
            "key",
            "game",
            "players",
            "options",
            "paused",
            "tables",
            "created_at",
            "last_scheduled_at",
            "progress",
        ]

    def get_progress(self, ladder) -> dict:
        return selectors.ladder_progress(ladder=ladder)


class LadderListApi(generics.ListAPIView):
    serializer_class = LadderSerializer
    queryset = Ladder.objects.all()


class LadderDetailApi(generics.RetrieveAPIView):
    serializer_class = LadderSerializer
    queryset = Ladder.objects.all()


class LadderMatchesApi(generics.ListAPIView):
    """The matches the ladder scheduled, newest first."""

    serializer_class = MatchSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Match.objects.none()
        ladder = get_object_or_404(Ladder, pk=self.kwargs["pk"])
        return selectors.match_list(ladder=ladder).order_by("-id")


class LadderPauseApi(APIView):
    """Staff only: a paused ladder queues nothing new; what is queued still plays."""

    permission_classes = [IsAdminUser]
    paused = True

    @extend_schema(request=None, responses=LadderSerializer)
    def post(self, request, pk):
        ladder = get_object_or_404(Ladder, pk=pk)
        ladder = services.set_ladder_paused(ladder=ladder, paused=self.paused)
        return Response(LadderSerializer(ladder).data)


class LadderResumeApi(LadderPauseApi):
    paused = False
