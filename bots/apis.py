"""Thin API views for bots and versions: parse, call a service or selector, serialise."""

from __future__ import annotations

import django_filters
from django import forms
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.http import content_disposition_header
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import generics, permissions, serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from bots import access, selectors, services
from bots.models import Bot, BotVersion
from games import registry

# The largest id a bigint column holds: a bigger one could only fail in the database.
MAX_ID = 2**63 - 1
GAME_CHOICES = [(slug, slug) for slug in registry.slugs()]


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": MAX_ID, "description": "an id"})
class IdFilter(django_filters.NumberFilter):
    """A whole-number id: ``1.5`` or ``abc`` is refused, not turned into a decimal."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class BotFilter(django_filters.FilterSet):
    """The bot list's filters: an unknown game or a non-integer owner is a 400."""

    game = django_filters.ChoiceFilter(choices=GAME_CHOICES, help_text="a game's slug")
    owner = IdFilter(field_name="owner_id", help_text="the owner's user id")

    class Meta:
        model = Bot
        fields = ["game", "owner"]


class IsOwnerOrReadOnly(permissions.BasePermission):
    message = "only the bot's owner may change it"

    def has_object_permission(self, request, view, obj):
        if request.method in permissions.SAFE_METHODS:
            return True
        owner_id = obj.owner_id if isinstance(obj, Bot) else obj.bot.owner_id
        return owner_id == request.user.id


class VersionSerializer(serializers.ModelSerializer):
    bot = serializers.CharField(source="bot.name", read_only=True)
    reason = serializers.CharField(
        read_only=True,
        help_text="why it is invalid (or disabled, or waiting for its validation), for "
        "everyone to read: what happened, never what the bot wrote",
    )
    reason_detail = serializers.SerializerMethodField(
        help_text="what the bot wrote that made it invalid (the end of its stderr in the "
        "failed test match, or of its build's output); null unless you own the bot"
    )

    def get_reason_detail(self, version) -> str | None:
        request = self.context.get("request")
        user = getattr(request, "user", None)
        if not access.may_manage(user, version.bot):
            return None
        return version.reason_detail

    class Meta:
        model = BotVersion
        fields = [
            "id",
            "bot",
            "number",
            "filename",
            "kind",
            "sha256",
            "size",
            "status",
            "reason",
            "reason_detail",
            "created_at",
            "validated_at",
        ]
        read_only_fields = fields


_TIMESTAMP = serializers.DateTimeField()


class BotSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    current_version = serializers.SerializerMethodField()

    class Meta:
        model = Bot
        fields = [
            "id",
            "name",
            "game",
            "description",
            "accepts_entries",
            "accepts_challenges",
            "owner",
            "created_at",
            "current_version",
        ]
        read_only_fields = ["id", "owner", "created_at", "current_version"]
        extra_kwargs = {
            "accepts_entries": {
                "help_text": "whether other organisers may enter this bot in their "
                "tournaments (the owner's own tournaments always may)"
            },
            "accepts_challenges": {
                "help_text": "who may challenge this bot: anyone, nobody, or ask (each "
                "request waits for the owner's answer; unanswered ones expire)"
            },
        }

    def to_representation(self, bot):
        """A row written out field by field (the generic walk costs most of a page of 50;
        a test holds the two equal). Subclasses take the generic walk."""
        if type(self) is not BotSerializer:
            return super().to_representation(bot)
        created = bot.created_at
        return {
            "id": bot.pk,
            "name": str(bot.name),
            "game": str(bot.game),
            "description": str(bot.description),
            "accepts_entries": bool(bot.accepts_entries),
            "accepts_challenges": str(bot.accepts_challenges),
            "owner": str(bot.owner.username),
            "created_at": None if created is None else _TIMESTAMP.to_representation(created),
            "current_version": self.get_current_version(bot),
        }

    def get_current_version(self, bot) -> int | None:
        known = self.context.get("current_versions")  # a list's, read for its page at once
        version = known.get(bot.pk) if known is not None else selectors.current_version(bot=bot)
        return version.number if version else None


class BotUpdateSerializer(serializers.Serializer):
    """A partial update: the fields given change, the others stay; ``{}`` changes nothing.

    A field that exists but cannot change here (name, game, owner...) or that does
    not exist is refused by name rather than silently dropped.
    """

    description = serializers.CharField(max_length=500, allow_blank=True, required=False)
    accepts_entries = serializers.BooleanField(required=False)
    accepts_challenges = serializers.ChoiceField(
        choices=["anyone", "nobody", "ask"], required=False
    )
    current_version = serializers.IntegerField(
        min_value=1,
        max_value=2**31 - 1,
        required=False,
        help_text="the number of an active version to play from now on (a rollback, or back "
        "to a newer one); a version that becomes active later becomes current in turn",
    )

    def validate(self, attrs: dict) -> dict:
        fixed = sorted(set(self.initial_data) - set(self.fields))
        if fixed:
            raise serializers.ValidationError(
                {name: ["this field cannot be changed here"] for name in fixed}
            )
        return attrs


LIST_FIELDS = (
    "name",
    "game",
    "description",
    "accepts_entries",
    "accepts_challenges",
    "owner__username",
    "created_at",
    "current_id",
)


class BotListCreateApi(generics.ListAPIView):
    """Bots by name, a page at a time (keyset on the name: arena.pagination)."""

    serializer_class = BotSerializer
    filterset_class = BotFilter  # applied and validated by DjangoFilterBackend
    keyset_ordering = ("name",)

    def get_queryset(self):
        # Only the columns a row shows (not the owner's whole user row).
        return selectors.bot_list().only(*LIST_FIELDS)

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        context = self.get_serializer_context()
        # The serializer shows each current version's number only.
        context["current_versions"] = selectors.current_versions_of(bots=page, only=("number",))
        data = BotSerializer(page, many=True, context=context).data
        return self.get_paginated_response(data)

    @extend_schema(request=BotSerializer, responses={201: BotSerializer})
    def post(self, request):
        data = BotSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        bot = services.create_bot(owner=request.user, **data.validated_data)
        return Response(BotSerializer(bot).data, status=status.HTTP_201_CREATED)


class BotDetailApi(generics.RetrieveAPIView):
    serializer_class = BotSerializer
    queryset = Bot.objects.select_related("owner")
    permission_classes = [permissions.IsAuthenticatedOrReadOnly, IsOwnerOrReadOnly]

    @extend_schema(request=BotUpdateSerializer, responses=BotSerializer)
    def patch(self, request, pk):
        bot = self.get_object()
        data = BotUpdateSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        number = fields.pop("current_version", None)
        with transaction.atomic():  # all the fields sent change, or none
            if number is not None:
                services.set_current_version(bot=bot, number=number)
            if fields:
                bot = services.update_bot(bot=bot, **fields)
        return Response(BotSerializer(bot).data)

    @extend_schema(
        responses={
            204: None,
            400: OpenApiResponse(
                description="the bot has played matches, whose results must stay readable "
                "(accepts_entries: false keeps it out of new events)"
            ),
        }
    )
    def delete(self, request, pk):
        services.delete_bot(bot=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


class UploadSerializer(serializers.Serializer):
    file = serializers.FileField(
        help_text="A .py file, or a .zip holding main.py, an executable main (ELF binary or "
        "#! script) or a build.sh that leaves one; an identical re-upload is refused (409)"
    )


class BotVersionsApi(generics.ListAPIView):
    serializer_class = VersionSerializer
    parser_classes = [MultiPartParser]  # the only form encoding that can carry a file
    throttle_scope = "uploads"

    def get_throttles(self):
        return super().get_throttles() if self.request.method == "POST" else []

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation: no bot to look up
            return BotVersion.objects.none()
        bot = get_object_or_404(Bot, pk=self.kwargs["pk"])
        return selectors.version_list(bot=bot).select_related("bot")

    @extend_schema(request=UploadSerializer, responses={201: VersionSerializer})
    def post(self, request, pk):
        bot = get_object_or_404(Bot, pk=pk)
        if not access.may_manage(request.user, bot):
            raise PermissionDenied(
                "only the bot's owner (or its team's members) may upload versions"
            )
        # An oversized body never gets here: arena.middleware refuses it (413) unread.
        data = UploadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        version = services.upload_version_file(bot=bot, upload=data.validated_data["file"])
        data = VersionSerializer(version, context=self.get_serializer_context()).data
        return Response(data, status=status.HTTP_201_CREATED)


class VersionDetailApi(generics.RetrieveAPIView):
    serializer_class = VersionSerializer
    queryset = BotVersion.objects.defer("upload").select_related("bot")


class VersionSourceApi(APIView):
    """The uploaded file itself: its owner only."""

    @extend_schema(
        responses={
            (200, "application/octet-stream"): bytes,
            403: OpenApiResponse(description="signed in, but not the bot's owner"),
        }
    )
    def get(self, request, pk):
        version = get_object_or_404(BotVersion.objects.select_related("bot"), pk=pk)
        if not access.may_manage(request.user, version.bot):
            raise PermissionDenied(
                "only the bot's owner (or its team's members) may read its source"
            )
        response = HttpResponse(bytes(version.upload), content_type="application/octet-stream")
        response["Content-Disposition"] = content_disposition_header(
            as_attachment=True, filename=version.filename
        )
        return response
