"""Scoped API tokens: how a request presents one, and what each scope lets through.

A token is sent as the account's own key is, ``Authorization: Token <key>`` (or
``Bearer <key>``). Its key starts with ``arena_``; the account's own key (from
``/api/auth/token/``) keeps every right. A scoped token may read with ``read`` and write only
where one of its scopes covers the endpoint (:data:`WRITE_SCOPES`); tokens themselves are
managed only with a session or the account's own key, so a leaked scoped token cannot
make itself a bigger one."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.urls import Resolver404, resolve
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication, get_authorization_header

from arena.integrations.models import ApiToken

KEY_START = "arena_"
Scope = ApiToken.Scope

# The scope an unsafe method needs, by the route's name. A write on a route not listed
# needs every scope.
WRITE_SCOPES = {
    "api-bots": Scope.UPLOAD,
    "api-bot": Scope.UPLOAD,
    "api-bot-versions": Scope.UPLOAD,
    "api-bot-gating": Scope.UPLOAD,
    "api-challenges": Scope.CHALLENGE,
    "api-challenge-accept": Scope.CHALLENGE,
    "api-challenge-decline": Scope.CHALLENGE,
    "api-challenge-cancel": Scope.CHALLENGE,
    "api-challenge-again": Scope.CHALLENGE,
    "api-human-games": Scope.CHALLENGE,
    "api-human-game-act": Scope.CHALLENGE,
    "api-human-game-resign": Scope.CHALLENGE,
    "api-human-game-rematch": Scope.CHALLENGE,
    "api-tournaments": Scope.ORGANISE,
    "api-tournament": Scope.ORGANISE,
    "api-tournament-cancel": Scope.ORGANISE,
    "api-ladder-pause": Scope.ORGANISE,
    "api-ladder-resume": Scope.ORGANISE,
    "api-competitions": Scope.ORGANISE,
    "api-competition": Scope.ORGANISE,
    "api-competition-entry-decide": Scope.ORGANISE,
    "api-competition-entry-disqualify": Scope.ORGANISE,
    "api-competition-pause": Scope.ORGANISE,
    "api-competition-resume": Scope.ORGANISE,
    "api-competition-release": Scope.ORGANISE,
    "api-competition-reveal": Scope.ORGANISE,
    "api-competition-announcements": Scope.ORGANISE,
    # Entering and teams manage one's bots, as uploads do.
    "api-competition-entries": Scope.UPLOAD,
    "api-competition-teams": Scope.UPLOAD,
    "api-competition-team-members": Scope.UPLOAD,
    "api-competition-team-member": Scope.UPLOAD,
    "api-competition-team-bots": Scope.UPLOAD,
    # The inbox and webhooks send and change only what the account may read.
    "api-notifications-read": Scope.READ,
    "api-channel": Scope.READ,
    "api-webhooks": Scope.READ,
    "api-webhook": Scope.READ,
    "api-webhook-test": Scope.READ,
    "api-webhook-enable": Scope.READ,
}
# Routes no scoped token may use, whatever its scopes.
TOKEN_ROUTES = frozenset({"api-tokens", "api-token-detail"})
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
# last_used_at is written at most this often per token: not a write per request.
LAST_USED_STEP = timedelta(minutes=1)


def new_key() -> str:
    return KEY_START + secrets.token_urlsafe(32)


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def required_scope(request) -> str | None:
    """The scope ``request`` needs (None: no scoped token may make it)."""
    try:
        name = resolve(request.path_info).url_name
    except Resolver404:
        name = None
    if name in TOKEN_ROUTES:
        return None
    if request.method in SAFE_METHODS:
        return Scope.READ
    return WRITE_SCOPES.get(name, "*")


def refusal(token: ApiToken, request) -> str | None:
    """Why ``token`` may not make ``request`` (None: it may)."""
    needed = required_scope(request)
    if needed is None:
        return "a scoped token cannot manage tokens: use the dashboard or your account's key"
    if needed == "*":
        if set(token.scopes) >= set(Scope.values):
            return None
        return "this endpoint needs a token with every scope"
    if needed not in token.scopes:
        return (
            f"this token's scopes ({', '.join(token.scopes) or 'none'}) do not include '{needed}'"
        )
    return None


class ScopedTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, plus scoped tokens (``arena_...`` keys). Checked here
    rather than by each view's permissions, so no view can forget the scopes."""

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() not in (b"token", b"bearer"):
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(
                "invalid token header: 'Token <key>' with no spaces in the key"
            )
        try:
            key = parts[1].decode()
        except UnicodeError as exc:
            raise exceptions.AuthenticationFailed("invalid token header") from exc
        if key.startswith(KEY_START):
            return self.scoped(request, key)
        return self.authenticate_credentials(key)

    def authenticate_header(self, request):
        return "Token"

    def scoped(self, request, key: str):
        token = ApiToken.objects.select_related("user").filter(key_hash=key_hash(key)).first()
        now = timezone.now()
        if token is None or token.revoked_at is not None:
            raise exceptions.AuthenticationFailed("invalid or revoked token")
        if token.expires_at is not None and token.expires_at <= now:
            raise exceptions.AuthenticationFailed("this token has expired")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("user inactive or deleted")
        reason = refusal(token, request)
        if reason is not None:
            raise exceptions.PermissionDenied(reason)
        if token.last_used_at is None or now - token.last_used_at >= LAST_USED_STEP:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token


def request_token(request) -> ApiToken | None:
    """The scoped token ``request`` was authenticated with, if any (throttles count per token)."""
    auth = getattr(request, "auth", None)
    return auth if isinstance(auth, ApiToken) else None
