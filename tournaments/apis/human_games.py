"""Games a person plays against bots: start one, read your view of it, move, resign,
play again. Only the person who plays a game reads or moves in it; to anyone else it does
not exist (404). Its match is an ordinary one (``/api/matches/<match>/``)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.selectors import human_games as selectors
from tournaments.services import human_games as services


class HumanGameRequestSerializer(serializers.Serializer):
    game = serializers.CharField(help_text="the game's slug")
    players = serializers.IntegerField(
        required=False, allow_null=True, default=None,
        help_text="seats at the table; default: one more than the bots listed",
    )  # fmt: skip
    options = serializers.DictField(required=False, default=dict)
    seat = serializers.JSONField(
        required=False, default=None,
        help_text='your seat, 0 to players less one; "random" or omitted: any',
    )  # fmt: skip
    bots = serializers.ListField(
        child=serializers.JSONField(), max_length=16,
        help_text='who takes each other seat, in seat order: a bot id (its current version) '
        'or a built-in bot\'s name such as "random"',
    )  # fmt: skip


# Actions and seats are any JSON (serializers.JSONField): the service checks them.
class ActSerializer(serializers.Serializer):
    action = serializers.JSONField(help_text="one of legal, exactly as listed")
    turn = serializers.IntegerField(
        required=False, allow_null=True, default=None,
        help_text="the turn the action answers (from the game's turn): a stale one is refused",
    )  # fmt: skip


class SeatNameSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=["bot", "builtin", "human"])
    bot_id = serializers.IntegerField(allow_null=True)


class HumanGameSerializer(serializers.Serializer):
    """What ``selectors.human_game_answer`` gives (documented for the schema)."""

    id = serializers.IntegerField()
    match = serializers.IntegerField(help_text="the game's match (/api/matches/<match>/)")
    game = serializers.CharField()
    players = serializers.IntegerField()
    options = serializers.DictField()
    seat = serializers.IntegerField(help_text="your seat")
    seats = SeatNameSerializer(many=True)
    status = serializers.ChoiceField(
        choices=["starting", "waiting", "your_turn", "finished", "ended"],
        help_text="waiting: the bots move; ended: the server stopped it (see message)",
    )
    message = serializers.CharField()
    move = serializers.IntegerField(allow_null=True, help_text="the move being played")
    turn = serializers.IntegerField(allow_null=True, help_text="your turn's move, to act")
    to_act = serializers.ListField(child=serializers.IntegerField())
    observation = serializers.DictField(
        allow_null=True, help_text="the engine's observation for your seat, exactly"
    )
    legal = serializers.ListField(
        child=serializers.JSONField(), help_text="your legal actions on your turn, else empty"
    )
    deadline = serializers.DateTimeField(allow_null=True)
    seconds_left = serializers.IntegerField(allow_null=True)
    move_seconds = serializers.IntegerField(help_text="your time for each move")
    events = serializers.ListField(
        child=serializers.DictField(),
        help_text="what happened since your last move, as your seat saw it",
    )
    events_from = serializers.IntegerField(
        help_text="the index of the first of events in your seat's whole log (the replay's)"
    )
    resigned = serializers.BooleanField()
    result = serializers.DictField(allow_null=True)
    rematch_of = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()


class HumanGameListSerializer(serializers.Serializer):
    results = HumanGameSerializer(many=True)


def _refusal(exc: services.HumanGameRefused) -> exceptions.APIException:
    if exc.status == 429:
        return exceptions.Throttled(wait=exc.retry_after, detail=exc.detail)
    if exc.status == 404:
        return exceptions.NotFound(exc.detail)
    if exc.status == 403:
        return exceptions.PermissionDenied(exc.detail)
    if exc.status == 409:
        error = exceptions.APIException(exc.detail, code="conflict")
        error.status_code = 409
        return error
    return exceptions.ValidationError({exc.field or "non_field_errors": [exc.detail]})


def _own(request, pk: int):
    found = selectors.game_of_user(user=request.user, pk=pk)
    if found is None:
        raise exceptions.NotFound("no such game of yours")
    return found


class HumanGameApiView(APIView):
    """The person's own games: signed in, and a refusal of the service answered in the one
    error shape with its status."""

    permission_classes = [IsAuthenticated]

    def handle_exception(self, exc):
        if isinstance(exc, services.HumanGameRefused):
            exc = _refusal(exc)
        return super().handle_exception(exc)


ERRORS = {
    400: OpenApiResponse(description="a bad request, on its field"),
    401: OpenApiResponse(description="not signed in"),
    404: OpenApiResponse(description="no such game of yours"),
}


class HumanGameListCreateApi(HumanGameApiView):
    """Your games against bots, newest first; POST starts one (your seat, the bots in the
    others)."""

    @extend_schema(operation_id="human_games_list", responses=HumanGameListSerializer)
    def get(self, request):
        rows = selectors.games_of_user(user=request.user, limit=20)
        answers = [selectors.human_game_answer(human_game=g, match=g.match) for g in rows]
        return Response({"results": answers})

    @extend_schema(
        request=HumanGameRequestSerializer,
        responses={
            201: HumanGameSerializer,
            403: OpenApiResponse(description="a bot whose owner does not allow it"),
            429: OpenApiResponse(description="too many games in play (yours or the server's)"),
            **ERRORS,
        },
    )
    def post(self, request):
        data = HumanGameRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        seating = services.Seating(**data.validated_data)
        human_game = services.create_human_game(user=request.user, seating=seating)
        return Response(selectors.human_game_answer(human_game=human_game), status=201)


class HumanGameDetailApi(HumanGameApiView):
    """Your view of the game: the table as your seat sees it, your legal actions on your
    turn, the clock, and the result once it is over."""

    @extend_schema(responses={200: HumanGameSerializer, **ERRORS})
    def get(self, request, pk):
        human_game = _own(request, pk)
        return Response(selectors.human_game_answer(human_game=human_game, match=human_game.match))


class HumanGameActApi(HumanGameApiView):
    """Make your move: one of ``legal``. Not your turn, or a stale ``turn``: 409; an action
    not in ``legal``: 400. Either changes nothing."""

    @extend_schema(
        request=ActSerializer,
        responses={
            200: HumanGameSerializer,
            409: OpenApiResponse(description="not your turn, a stale turn, or the game is over"),
            **ERRORS,
        },
    )
    def post(self, request, pk):
        data = ActSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        human_game = services.submit_action(
            user=request.user,
            human_game_id=_own(request, pk).pk,
            action=data.validated_data["action"],
            turn=data.validated_data["turn"],
        )
        return Response(selectors.human_game_answer(human_game=human_game))


class HumanGameResignApi(HumanGameApiView):
    """Resign: your seat ranks last and is played by default to the end."""

    @extend_schema(
        request=None,
        responses={
            200: HumanGameSerializer,
            409: OpenApiResponse(description="the game is over"),
            **ERRORS,
        },
    )
    def post(self, request, pk):
        human_game = services.resign(user=request.user, human_game_id=_own(request, pk).pk)
        return Response(selectors.human_game_answer(human_game=human_game))


class HumanGameRematchApi(HumanGameApiView):
    """The same game again: same seats, each bot's current version, a new deal."""

    @extend_schema(
        request=None,
        responses={
            201: HumanGameSerializer,
            409: OpenApiResponse(description="the game is still being played"),
            429: OpenApiResponse(description="too many games in play"),
            403: OpenApiResponse(description="a bot whose owner no longer allows it"),
            **ERRORS,
        },
    )
    def post(self, request, pk):
        human_game = services.rematch(user=request.user, human_game=_own(request, pk))
        return Response(selectors.human_game_answer(human_game=human_game), status=201)
