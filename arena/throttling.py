"""Rate limits shared by the API and the dashboard forms.

One machinery for both: DRF's sliding-window ``SimpleRateThrottle``, counting
in the default cache (Redis in production, so every web process shares one
count). The API lists these classes as ``throttle_classes``; a dashboard view
asks :func:`refusal` before it does anything. A scope means the same counter on
both sides: uploads through the form and through the API spend one budget.

Rates come from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (environment
variables, see the README). The client address follows one rule everywhere,
:func:`client_address`.
"""

from __future__ import annotations

import hashlib
import math

from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle


def client_address(request) -> str:
    """REMOTE_ADDR, or with ``ARENA_TRUSTED_PROXIES`` = N > 0 the N-th X-Forwarded-For
    entry from the right (the address the outermost trusted proxy saw)."""
    return BaseThrottle().get_ident(request)


class ArenaThrottle(SimpleRateThrottle):
    """A scope whose rate is read from the settings when used, keyed by address or user."""

    by_user = False
    # The start of the sentence a dashboard form shows when refused.
    refusal_text = "Too many requests"

    def get_rate(self) -> str | None:
        # DRF reads its rates once at import; reading them here lets a changed
        # setting (tests, a reload) apply.
        return api_settings.DEFAULT_THROTTLE_RATES[self.scope]

    def get_ident(self, request) -> str:
        return client_address(request)

    def wait(self) -> float | None:
        """Seconds until the oldest entry that keeps the count at the limit leaves the window."""
        if self.num_requests is None or len(self.history) < self.num_requests:
            return None
        return max(0.0, self.history[self.num_requests - 1] + self.duration - self.now)

    def get_cache_key(self, request, view) -> str | None:
        user = getattr(request, "user", None)
        if self.by_user:
            if user is None or not user.is_authenticated:
                return None  # the view refuses anonymous writes anyway
            ident = str(user.pk)
        else:
            ident = self.get_ident(request)
        # The same key as DRF's ScopedRateThrottle for the same scope and client.
        return self.cache_format % {"scope": self.scope, "ident": ident}


class ScopedThrottle(ArenaThrottle):
    """The API's default throttle (settings): the view's ``throttle_scope`` picks the rate,
    per user when logged in, else per address; views without a scope are not limited.
    DRF's ScopedRateThrottle with arena's rates and address rule, and the same keys."""

    def __init__(self):
        pass  # the scope, hence the rate, is known only with the view

    def allow_request(self, request, view) -> bool:
        self.scope = getattr(view, "throttle_scope", None)
        if not self.scope:
            return True
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        user = getattr(request, "user", None)
        self.by_user = user is not None and user.is_authenticated
        return super().allow_request(request, view)


class SignUpThrottle(ArenaThrottle):
    scope = "register"
    refusal_text = "Too many sign-ups from your address"


class UploadThrottle(ArenaThrottle):
    """New bots and new versions, per user (the API's upload throttle uses this scope too)."""

    scope = "uploads"
    by_user = True
    refusal_text = "Too many uploads"


class TournamentThrottle(ArenaThrottle):
    scope = "tournaments"
    by_user = True
    refusal_text = "Too many new tournaments"


def submitted_username(request) -> str:
    data = getattr(request, "data", None)  # a DRF request
    if data is None:
        data = request.POST
    value = data.get("username", "") if hasattr(data, "get") else ""
    return value if isinstance(value, str) else ""


class LoginFailureThrottle(ArenaThrottle):
    """Failed log-ins in the window. ``allow_request`` only looks, before any password is
    checked (so a refused guess tells nothing, right or wrong); :func:`record_failed_login`
    counts, from Django's ``user_login_failed`` signal."""

    refusal_text = "Too many failed log-ins"

    def ident_for(self, request, username: str) -> str | None:
        raise NotImplementedError

    def key_for(self, request, username: str) -> str | None:
        ident = self.ident_for(request, username)
        return None if ident is None else self.cache_format % {"scope": self.scope, "ident": ident}

    def get_cache_key(self, request, view) -> str | None:
        return self.key_for(request, submitted_username(request))

    def _load(self, key: str) -> None:
        self.key = key
        self.now = self.timer()
        self.history = [t for t in self.cache.get(key, []) if t > self.now - self.duration]

    def allow_request(self, request, view) -> bool:
        key = None if self.rate is None else self.get_cache_key(request, view)
        if key is None:
            return True
        self._load(key)
        return len(self.history) < self.num_requests

    def record_failure(self, request, username: str) -> None:
        key = None if self.rate is None else self.key_for(request, username)
        if key is not None:
            self._load(key)
            self.throttle_success()  # appends now to the history and stores it


class LoginAddressThrottle(LoginFailureThrottle):
    scope = "login_address"

    def ident_for(self, request, username: str) -> str | None:
        return client_address(request)


class LoginUsernameThrottle(LoginFailureThrottle):
    """Per account, from any address. Usernames are hashed: any length, any characters."""

    scope = "login_username"

    def ident_for(self, request, username: str) -> str | None:
        if not username:
            return None
        return hashlib.sha256(username.casefold().encode()).hexdigest()[:32]


LOGIN_THROTTLES = (LoginAddressThrottle, LoginUsernameThrottle)


@receiver(user_login_failed, dispatch_uid="arena.throttling.record_failed_login")
def record_failed_login(sender, credentials: dict, request=None, **kwargs) -> None:
    """Every failed password check made for a request (dashboard, token API, admin)."""
    if request is None:
        return  # authenticate() called outside a request: nobody to slow down
    username = credentials.get("username")
    for throttle_class in LOGIN_THROTTLES:
        throttle_class().record_failure(request, username if isinstance(username, str) else "")


def refusal(request, *throttle_classes: type[ArenaThrottle]) -> str | None:
    """For a dashboard view: None when every throttle lets the request through (and counts
    it), else a sentence saying which limit was reached and when to try again."""
    for throttle_class in throttle_classes:
        throttle = throttle_class()
        if not throttle.allow_request(request, None):
            return f"{throttle.refusal_text}; try again in {describe_wait(throttle.wait())}."
    return None


def describe_wait(seconds: float | None) -> str:
    seconds = max(1, math.ceil(seconds or 1))
    if seconds < 120:
        return "1 second" if seconds == 1 else f"{seconds} seconds"
    return f"{math.ceil(seconds / 60)} minutes"
