"""The API root, games, and accounts."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import NotFound, Throttled
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from arena.throttling import LoginThrottle, SignUpThrottle, forget_failures
from games import registry


def rules_text(slug: str) -> str:
    path = settings.BASE_DIR / "docs" / "rules" / f"{slug}.md"
    return path.read_text() if path.exists() else ""


def describe_game(slug: str, with_rules: bool = False) -> dict:
    game = registry.get(slug)
    out = game.describe()
    out["teams_by_players"] = (
        {str(n): game.teams(n) for n in game.player_counts()} if game.team_rule else {}
    )
    if with_rules:
        out["rules"] = rules_text(slug)
    return out


class OptionSerializer(serializers.Serializer):
    default = serializers.JSONField()
    type = serializers.CharField(help_text="the value's type: bool, int or str")
    choices = serializers.ListField(child=serializers.JSONField(), required=False)
    minimum = serializers.IntegerField(required=False)
    maximum = serializers.IntegerField(required=False)
    help = serializers.CharField(required=False)


class GameSerializer(serializers.Serializer):
    """Documents the games endpoints (the answer is built from the engine registry)."""

    slug = serializers.CharField()
    title = serializers.CharField()
    version = serializers.IntegerField(help_text="bumped whenever the engine's rules change")
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    player_counts = serializers.ListField(child=serializers.IntegerField())
    summary = serializers.CharField()
    options = serializers.DictField(child=OptionSerializer())
    policies = serializers.ListField(child=serializers.CharField(), help_text="built-in bots")
    teams_by_players = serializers.DictField(
        child=serializers.ListField(child=serializers.ListField(child=serializers.IntegerField())),
        help_text="seats of each team, by table size (empty: every seat for itself)",
    )


class GameDetailSerializer(GameSerializer):
    rules = serializers.CharField(help_text="the rules page, Markdown")


class ApiRoot(APIView):
    @extend_schema(responses={200: dict})
    def get(self, request):
        return Response(
            {
                name: reverse(name, request=request)
                for name in [
                    "api-games",
                    "api-bots",
                    "api-tournaments",
                    "api-register",
                    "api-token",
                    "api-schema",
                    "api-docs",
                ]
            }
        )


class GameListApi(APIView):
    @extend_schema(responses=GameSerializer(many=True), operation_id="games_list")
    def get(self, request):
        return Response([describe_game(slug) for slug in registry.slugs()])


class GameDetailApi(APIView):
    @extend_schema(responses=GameDetailSerializer)
    def get(self, request, slug):
        try:
            return Response(describe_game(slug, with_rules=True))
        except registry.UnknownGame as exc:
            raise NotFound(str(exc.args[0])) from exc


class RegisterSerializer(serializers.Serializer):
    username = serializers.RegexField(
        r"^[A-Za-z0-9_.-]{3,30}$", help_text="3-30 letters, digits, _ . -"
    )
    password = serializers.CharField(write_only=True, min_length=8, max_length=128)

    def validate_username(self, value):
        if get_user_model().objects.filter(username__iexact=value).exists():
            raise serializers.ValidationError("that username is taken")
        return value

    def validate_password(self, value):
        password_validation.validate_password(value)
        return value


class RegisterApi(APIView):
    """Create an account; the answer holds the API token."""

    permission_classes = [permissions.AllowAny]
    throttle_classes = [SignUpThrottle]

    @extend_schema(request=RegisterSerializer, responses={201: dict})
    def post(self, request):
        data = RegisterSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = get_user_model().objects.create_user(**data.validated_data)
        token = Token.objects.create(user=user)
        return Response(
            {"username": user.username, "token": token.key}, status=status.HTTP_201_CREATED
        )


class TokenApi(ObtainAuthToken):
    """An account's API token for its username and password. Refused (429) before the
    password is checked where the account is locked or slowed down (arena.throttling)."""

    throttle_classes = [LoginThrottle]
    parser_classes = APIView.parser_classes  # the project's, as every other endpoint

    def check_throttles(self, request):
        for throttle in self.get_throttles():
            if not throttle.allow_request(request, self):
                raise Throttled(wait=throttle.wait(), detail=throttle.refusal.text)

    def post(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = serializer.validated_data["user"]
        forget_failures(request, user.get_username())
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})
