"""The API root, games, and accounts."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

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


class ApiRoot(APIView):
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
    def get(self, request):
        return Response([describe_game(slug) for slug in registry.slugs()])


class GameDetailApi(APIView):
    def get(self, request, slug):
        try:
            return Response(describe_game(slug, with_rules=True))
        except registry.UnknownGame as exc:
            return Response({"detail": str(exc.args[0])}, status=status.HTTP_404_NOT_FOUND)


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
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "register"

    @extend_schema(request=RegisterSerializer, responses={201: dict})
    def post(self, request):
        data = RegisterSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = get_user_model().objects.create_user(**data.validated_data)
        token = Token.objects.create(user=user)
        return Response(
            {"username": user.username, "token": token.key}, status=status.HTTP_201_CREATED
        )
