"""Thin API views: scoped tokens, the inbox, webhooks."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.integrations import selectors, services
from arena.integrations.events import KINDS
from arena.integrations.models import ApiToken, Notification, Webhook, WebhookDelivery

SCOPED_REFUSAL = OpenApiResponse(description="a scoped token may not manage tokens")


class TokenSerializer(serializers.ModelSerializer):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "scopes", "created_at", "expires_at"]
        fields += ["last_used_at", "revoked_at"]


class NewTokenSerializer(TokenSerializer):
    key = serializers.CharField(help_text="the token itself: shown this once, never again")

    class Meta(TokenSerializer.Meta):
        fields = [*TokenSerializer.Meta.fields, "key"]


class TokenRequestSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=60)
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=ApiToken.Scope.choices), max_length=4
    )
    expires_at = serializers.DateTimeField(
        required=False, allow_null=True, default=None, help_text="null: never expires"
    )


class TokenListCreateApi(APIView):
    """Your scoped API tokens (never their keys), and a new one (its key shown once)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: TokenSerializer(many=True), 403: SCOPED_REFUSAL})
    def get(self, request):
        return Response(TokenSerializer(selectors.tokens(user=request.user), many=True).data)

    @extend_schema(request=TokenRequestSerializer, responses={201: NewTokenSerializer})
    def post(self, request):
        data = TokenRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token, key = services.create_token(user=request.user, **data.validated_data)
        token.key = key
        return Response(NewTokenSerializer(token).data, status=status.HTTP_201_CREATED)


class TokenRevokeApi(APIView):
    """Revoke one of your tokens: it authenticates nothing from now on."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: TokenSerializer})
    def delete(self, request, pk: int):
        token = get_object_or_404(ApiToken, pk=pk, user=request.user)
        return Response(TokenSerializer(services.revoke_token(token=token)).data)


class NotificationSerializer(serializers.ModelSerializer):
    class Meta:
        model = Notification
        fields = ["id", "kind", "text", "link", "data", "created_at", "read_at"]


class InboxSerializer(serializers.Serializer):
    unread = serializers.IntegerField()
    results = NotificationSerializer(many=True)


class ReadSerializer(serializers.Serializer):
    ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        allow_null=True,
        default=None,
        max_length=500,
        help_text="the notifications to mark read; left out: all of them",
    )


class MarkedSerializer(serializers.Serializer):
    marked = serializers.IntegerField()
    unread = serializers.IntegerField()


class NotificationListApi(APIView):
    """Your inbox, newest first (the last 50), and how many are unread."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=InboxSerializer)
    def get(self, request):
        rows = selectors.notifications(user=request.user)
        return Response(
            {
                "unread": selectors.unread_count(user=request.user),
                "results": NotificationSerializer(rows, many=True).data,
            }
        )


class NotificationReadApi(APIView):
    """Mark notifications read."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=ReadSerializer, responses=MarkedSerializer)
    def post(self, request):
        data = ReadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        marked = services.mark_read(user=request.user, ids=data.validated_data["ids"])
        return Response({"marked": marked, "unread": selectors.unread_count(user=request.user)})


class DeliverySerializer(serializers.ModelSerializer):
    class Meta:
        model = WebhookDelivery
        fields = ["id", "kind", "status", "attempts", "status_code", "error", "duration_ms"]
        fields += ["created_at", "attempted_at", "next_attempt_at"]


class WebhookSerializer(serializers.ModelSerializer):
    class Meta:
        model = Webhook
        fields = ["id", "url", "format", "events", "tournament", "active", "failures"]
        fields += ["disabled_reason", "created_at"]


class NewWebhookSerializer(WebhookSerializer):
    secret = serializers.CharField(help_text="signs every delivery: shown this once")

    class Meta(WebhookSerializer.Meta):
        fields = [*WebhookSerializer.Meta.fields, "secret"]


class WebhookDetailSerializer(WebhookSerializer):
    deliveries = DeliverySerializer(many=True, help_text="the last 20, newest first")

    class Meta(WebhookSerializer.Meta):
        fields = [*WebhookSerializer.Meta.fields, "deliveries"]


class WebhookRequestSerializer(serializers.Serializer):
    url = serializers.URLField(max_length=500)
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=sorted(KINDS)),
        required=False,
        default=list,
        max_length=len(KINDS),
        help_text="the kinds of event to send; empty: every kind",
    )
    format = serializers.ChoiceField(
        choices=Webhook.Format.choices,
        required=False,
        default="",
        help_text="left out: by the URL (Discord's and Slack's incoming webhooks), else json",
    )
    tournament = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        help_text="a tournament you organise: every event of it, not your own",
    )


def own_webhook(request, pk: int) -> Webhook:
    return get_object_or_404(Webhook.objects.select_related("user"), pk=pk, user=request.user)


class WebhookListCreateApi(APIView):
    """Your webhooks, and a new one (its secret shown once)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=WebhookSerializer(many=True))
    def get(self, request):
        return Response(WebhookSerializer(selectors.webhooks(user=request.user), many=True).data)

    @extend_schema(request=WebhookRequestSerializer, responses={201: NewWebhookSerializer})
    def post(self, request):
        data = WebhookRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        hook = services.create_webhook(
            user=request.user,
            url=values["url"],
            events=values["events"],
            format=values["format"],
            tournament_id=values["tournament"],
        )
        return Response(NewWebhookSerializer(hook).data, status=status.HTTP_201_CREATED)


class WebhookDetailApi(APIView):
    """One of your webhooks with its delivery log; delete it."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=WebhookDetailSerializer)
    def get(self, request, pk: int):
        hook = own_webhook(request, pk)
        deliveries = selectors.deliveries(webhook=hook)
        return Response(
            {
                **WebhookSerializer(hook).data,
                "deliveries": DeliverySerializer(deliveries, many=True).data,
            }
        )

    @extend_schema(responses={204: None})
    def delete(self, request, pk: int):
        own_webhook(request, pk).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookTestApi(APIView):
    """Send a test event to this webhook now (its delivery shows in the log)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={202: DeliverySerializer})
    def post(self, request, pk: int):
        delivery = services.send_test(webhook=own_webhook(request, pk))
        return Response(DeliverySerializer(delivery).data, status=status.HTTP_202_ACCEPTED)


class WebhookEnableApi(APIView):
    """Turn a webhook that was turned off after failing back on."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=WebhookSerializer)
    def post(self, request, pk: int):
        return Response(WebhookSerializer(services.turn_on(webhook=own_webhook(request, pk))).data)


class ChannelSerializer(serializers.Serializer):
    kind = serializers.CharField(read_only=True)
    label = serializers.CharField(read_only=True)
    inbox = serializers.BooleanField(required=False, help_text="left out: as it is")
    email = serializers.BooleanField(required=False, help_text="left out: as it is")
    webhooks = serializers.BooleanField(required=False, help_text="left out: as it is")


def channel_row(user, kind: str) -> dict:
    return next(r for r in selectors.channel_rows(user=user) if r["kind"] == kind)


class ChannelListApi(APIView):
    """Where each kind of event goes for you: the inbox, email, your webhooks."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=ChannelSerializer(many=True))
    def get(self, request):
        return Response(
            ChannelSerializer(selectors.channel_rows(user=request.user), many=True).data
        )


class ChannelDetailApi(APIView):
    """Change where one kind of event goes; the channels left out stay as they are."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=ChannelSerializer, responses=ChannelSerializer)
    def patch(self, request, kind: str):
        if kind not in KINDS:
            raise NotFound(f"no event kind {kind!r}")
        data = ChannelSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        current = channel_row(request.user, kind)
        services.set_channels(
            user=request.user,
            kind=kind,
            **{c: data.validated_data.get(c, current[c]) for c in ("inbox", "email", "webhooks")},
        )
        return Response(ChannelSerializer(channel_row(request.user, kind)).data)
