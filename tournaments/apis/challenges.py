"""Challenges: create one, read it as it fills in, answer one, cancel it, play it again."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.models import Bot
from tournaments.models import Challenge
from tournaments.selectors import challenges as selectors
from tournaments.services import challenges as services


class ChallengeRequestSerializer(serializers.Serializer):
    bot = serializers.IntegerField()
    opponents = serializers.ListField(child=serializers.IntegerField(), max_length=16)
    games = serializers.IntegerField(min_value=1)
    options = serializers.DictField(required=False, default=dict)
    version = serializers.IntegerField(required=False, allow_null=True, default=None)
    pick_for_me = serializers.BooleanField(required=False, default=False)
    players = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=2)


class AgainSerializer(serializers.Serializer):
    version = serializers.IntegerField(required=False, allow_null=True, default=None)


class OpponentSerializer(serializers.Serializer):
    bot = serializers.IntegerField()
    name = serializers.CharField()
    version = serializers.IntegerField()
    version_number = serializers.IntegerField()
    owner = serializers.CharField()
    answer = serializers.CharField()


class ChallengeSummarySerializer(serializers.Serializer):
    """A challenge's row in a list (``selectors.challenge_summary``)."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Challenge.Status.choices)
    challenger = serializers.CharField()
    bot = serializers.IntegerField()
    bot_name = serializers.CharField()
    version = serializers.IntegerField()
    version_number = serializers.IntegerField()
    opponents = OpponentSerializer(many=True)
    game = serializers.CharField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    elo_diff = serializers.FloatField(allow_null=True)
    elo_margin = serializers.FloatField(allow_null=True, help_text="null: unbounded")
    los = serializers.FloatField(allow_null=True, help_text="percent, as play --games")
    again_of = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)


class ChallengeListSerializer(serializers.Serializer):
    results = ChallengeSummarySerializer(many=True)


class ChallengeSerializer(ChallengeSummarySerializer):
    """What ``selectors.challenge_answer`` gives (documented for the schema)."""

    players = serializers.IntegerField()
    options = serializers.DictField()
    seed = serializers.IntegerField(
        allow_null=True, help_text="null while a game of the challenge is still to play"
    )
    matches = serializers.ListField(child=serializers.IntegerField())
    played = serializers.IntegerField()
    total = serializers.IntegerField()
    pentanomial = serializers.ListField(child=serializers.IntegerField())
    figures = serializers.ListField(child=serializers.DictField())
    lines = serializers.ListField(child=serializers.CharField())
    table = serializers.ListField(child=serializers.DictField())
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


def _refusal(exc: Exception) -> exceptions.APIException:
    if isinstance(exc, services.QuotaExceeded):
        return exceptions.Throttled(wait=exc.retry_after, detail=exc.detail)
    if exc.forbidden:
        return exceptions.PermissionDenied(exc.detail)
    return exceptions.ValidationError({exc.field or "non_field_errors": [exc.detail]})


REFUSALS = (services.ChallengeRefused, services.QuotaExceeded)


class ChallengeListCreateApi(APIView):
    """The reader's challenges, both directions, newest first (``?inbox=1``: those waiting
    for the reader's answer); POST makes one."""

    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="challenges_list", responses=ChallengeListSerializer)
    def get(self, request):
        inbox = request.query_params.get("inbox") in ("1", "true")
        rows = selectors.challenges_of_user(user=request.user, inbox=inbox)
        return Response({"results": [selectors.challenge_summary(c) for c in rows]})

    @extend_schema(request=ChallengeRequestSerializer, responses={201: ChallengeSerializer})
    def post(self, request):
        data = ChallengeRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        asked = services.Asked(
            bot_id=given["bot"],
            opponent_ids=given["opponents"],
            games=given["games"],
            options=given["options"],
            version_id=given["version"],
            pick_for_me=given["pick_for_me"],
            players=given["players"],
        )
        try:
            challenge = services.create_challenge(user=request.user, asked=asked)
        except REFUSALS as exc:
            raise _refusal(exc) from None
        return Response(selectors.challenge_answer(challenge, user=request.user), status=201)


class BotChallengesApi(APIView):
    """A bot's recent challenges, made with it or against it, newest first (what its page
    lists): to anyone, as the result pages are."""

    @extend_schema(operation_id="bot_challenges_list", responses=ChallengeListSerializer)
    def get(self, request, pk):
        bot = get_object_or_404(Bot, pk=pk)
        rows = selectors.challenges_of_bot(bot_id=bot.pk)
        return Response({"results": [selectors.challenge_summary(c) for c in rows]})


class ChallengeDetailApi(APIView):
    """A challenge as it fills in: progress, the games' table, W-D-L, Elo +- margin, LOS and
    the pentanomial counts, as ``play --games`` gives them."""

    @extend_schema(responses=ChallengeSerializer)
    def get(self, request, pk):
        found = selectors.challenge_with_answer(challenge_id=pk, user=request.user)
        if found is None:
            raise exceptions.NotFound("No such challenge.")
        return Response(found[1])


class _ChallengeAction(APIView):
    permission_classes = [IsAuthenticated]

    def act(self, request, challenge: Challenge) -> Challenge:
        raise NotImplementedError

    @extend_schema(request=None, responses=ChallengeSerializer)
    def post(self, request, pk):
        challenge = get_object_or_404(Challenge, pk=pk)
        try:
            challenge = self.act(request, challenge)
        except REFUSALS as exc:
            raise _refusal(exc) from None
        challenge.refresh_from_db()
        return Response(selectors.challenge_answer(challenge, user=request.user))


class ChallengeAcceptApi(_ChallengeAction):
    """The owner of an "ask me" bot accepts the challenge."""

    def act(self, request, challenge):
        return services.answer_challenge(user=request.user, challenge_id=challenge.pk, accept=True)


class ChallengeDeclineApi(_ChallengeAction):
    """The owner of an "ask me" bot declines the challenge."""

    def act(self, request, challenge):
        return services.answer_challenge(user=request.user, challenge_id=challenge.pk, accept=False)


class ChallengeCancelApi(_ChallengeAction):
    """The challenger cancels; games played stay counted."""

    def act(self, request, challenge):
        return services.cancel_challenge(user=request.user, challenge_id=challenge.pk)


class ChallengeAgainApi(APIView):
    """The same challenge again with the bot's current version (or ``version``): the same
    opponents' versions, options and deals, so the two results compare."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=AgainSerializer, responses={201: ChallengeSerializer})
    def post(self, request, pk):
        challenge = get_object_or_404(Challenge, pk=pk)
        data = AgainSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            again = services.rechallenge(
                user=request.user, challenge=challenge, version_id=data.validated_data["version"]
            )
        except REFUSALS as exc:
            raise _refusal(exc) from None
        return Response(selectors.challenge_answer(again, user=request.user), status=201)
