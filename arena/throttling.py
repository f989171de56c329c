"""Rate limits shared by the API and the dashboard forms, and the log-in locks.

One machinery for both: a count per scope and client in the default cache (Redis in
production, so every web process shares one count). Each request takes its place in the
count with one atomic increment, so a burst of concurrent requests cannot pass a limit
between a read and a write; a client's window opens with its first request and lasts the
rate's period. The API lists these classes as ``throttle_classes``; a dashboard view asks
:func:`refusal` before it does anything. A scope means the same counter on both sides:
uploads through the form and through the API spend one budget.

Log-ins (the token API, the dashboard and the admin) are refused before any password is
checked, so a refused guess tells nothing, right or wrong (:func:`login_refusal`):

- an account is locked at one address after ``AXES_FAILURE_LIMIT`` failures for it from
  there (django-axes keeps those in the database and the admin lists them); the same
  account from an address where it has not failed is not locked;
- an address that failed for many accounts is refused for any (``login_address``);
- an account that failed many times from anywhere (``login_username``) is slowed down,
  not locked: from the addresses where it failed, one password check every
  ``ARENA_LOGIN_SLOW_SECONDS`` between them all.

Rates come from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (environment
variables, see the README). The client address follows one rule everywhere,
:func:`client_address`.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import time
from dataclasses import dataclass
from datetime import timedelta

from axes.backends import AxesStandaloneBackend
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.core.cache import cache
from django.db.models import Max
from django.dispatch import receiver
from django.utils import timezone
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from bots import metrics


def client_address(request) -> str:
    """REMOTE_ADDR, or with ``ARENA_TRUSTED_PROXIES`` = N > 0 the N-th X-Forwarded-For
    entry from the right (the address the outermost trusted proxy saw); REMOTE_ADDR when
    that entry is no IP address; "" when neither is."""
    for candidate in (BaseThrottle().get_ident(request), request.META.get("REMOTE_ADDR")):
        try:
            return str(ipaddress.ip_address((candidate or "").strip()))
        except ValueError:
            continue
    return ""


def count_request(key: str, duration: float) -> int:
    """This request's place in the window counted under ``key``: one atomic increment
    (Redis INCR; a lock in process memory). The first request opens the window, which
    closes ``duration`` seconds later; its start is kept beside it for :func:`window_end`."""
    timeout = max(1, math.ceil(duration))
    for _ in range(3):
        try:
            place = cache.incr(key)
        except ValueError:  # no window open (or it closed just now): open one
            if not cache.add(key, 1, timeout):
                continue  # another request opened it first: count in it
            place = 1
        else:
            if place != 1:
                return place
            # Django's Redis incr checks the key exists, then increments: a window that
            # closed in between was opened again by the increment, without an expiry.
            cache.touch(key, timeout)
        cache.set(f"{key}:start", time.time(), timeout)
        return place
    raise RuntimeError(f"the cache keeps losing {key!r}")  # only a cache evicting at once


def window_end(key: str, duration: float) -> float:
    """When the window counted under ``key`` closes (now if it has)."""
    now = time.time()
    return cache.get(f"{key}:start", now) + duration


# Scopes that limit what is made, not what is asked: a request refused for its content (a
# 4xx other than the throttle's own 429) gives its place back (:func:`give_back`), so
# mistakes on a form never lock its author out. Staff are not counted in them at all.
MADE_NOT_ASKED = frozenset({"tournaments"})


def give_back(request) -> None:
    """Return the places ``request`` took in the counts of :data:`MADE_NOT_ASKED` scopes
    (the request was refused for its content); nothing for any other request."""
    request = getattr(request, "_request", request)  # DRF's Request wraps Django's
    for key in getattr(request, "arena_places", ()):
        try:
            cache.decr(key)
        except ValueError:
            pass  # the window closed meanwhile: the place went with it
    request.arena_places = []


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

    def allow_request(self, request, view) -> bool:
        self.key = None if self.rate is None else self.get_cache_key(request, view)
        if self.key is None:
            return True
        allowed = count_request(self.key, self.duration) <= self.num_requests
        if not allowed:
            metrics.throttle_refused(scope=self.scope)
        if allowed and self.scope in MADE_NOT_ASKED:
            django_request = getattr(request, "_request", request)
            django_request.arena_places = [*getattr(django_request, "arena_places", ()), self.key]
        return allowed

    def wait(self) -> float | None:
        """Seconds until the client's window closes and its count starts again."""
        return max(0.0, window_end(self.key, self.duration) - time.time())

    def get_cache_key(self, request, view) -> str | None:
        user = getattr(request, "user", None)
        if self.scope in MADE_NOT_ASKED and getattr(user, "is_staff", False):
            return None
        if self.by_user:
            if user is None or not user.is_authenticated:
                return None  # the view refuses anonymous writes anyway
            # A scoped API token has its own count (arena.integrations.tokens).
            ident = getattr(getattr(request, "auth", None), "throttle_ident", None) or str(user.pk)
        else:
            ident = self.get_ident(request)
        # The same key as DRF's ScopedRateThrottle for the same scope and client.
        return self.cache_format % {"scope": self.scope, "ident": ident}


class ScopedThrottle(ArenaThrottle):
    """The API's default throttle (settings): the view's ``throttle_scope`` picks the rate,
    per user when logged in, else per address; views without a scope are not limited.
    DRF's ScopedRateThrottle with arena's rates, address rule and atomic counts."""

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


class TokenThrottle(ArenaThrottle):
    """Every request made with a scoped API token, counted per token (``token`` rate);
    requests made otherwise are not counted here."""

    scope = "token"

    def get_cache_key(self, request, view) -> str | None:
        ident = getattr(getattr(request, "auth", None), "throttle_ident", None)
        return None if ident is None else self.cache_format % {"scope": self.scope, "ident": ident}


class SignUpThrottle(ArenaThrottle):
    scope = "register"
    refusal_text = "Too many sign-ups from your address"


class PasswordResetThrottle(ArenaThrottle):
    """Password reset requests per address: each may send an email."""

    scope = "password_reset"
    refusal_text = "Too many password reset requests from your address"


class UploadThrottle(ArenaThrottle):
    """New bots and new versions, per user (the API's upload throttle uses this scope too)."""

    scope = "uploads"
    by_user = True
    refusal_text = "Too many uploads"


class TournamentThrottle(ArenaThrottle):
    scope = "tournaments"
    by_user = True
    refusal_text = "Too many new tournaments"


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


# Log-ins.

# Django's longest username: a longer one names no account, and it would not fit axes' column.
USERNAME_LENGTH = 150


def normal_username(value) -> str:
    """A submitted username as the log-in forms and the token API pass it on (stripped),
    cut to what any account can have; NUL, which no account has, dropped."""
    if not isinstance(value, str):
        return ""
    return value.replace("\x00", "").strip()[:USERNAME_LENGTH]


def submitted_username(request) -> str:
    data = getattr(request, "data", None)  # a DRF request
    if data is None:
        data = request.POST
    return normal_username(data.get("username", "") if hasattr(data, "get") else "")


def login_address(request) -> str | None:
    """The address axes locks with (``AXES_CLIENT_IP_CALLABLE``)."""
    return client_address(request) or None


def login_username(request, credentials: dict | None) -> str:
    """The username axes records and locks with (``AXES_USERNAME_CALLABLE``)."""
    if credentials:
        return normal_username(credentials.get("username"))
    return submitted_username(request)


class LoginLockBackend(AxesStandaloneBackend):
    """First of ``AUTHENTICATION_BACKENDS``: no password is accepted for an account at an
    address where it is locked, whichever view asks. A check without a request (a
    script, a shell) has no address to lock and goes on to the next backend."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


@dataclass(frozen=True)
class FailedLogins:
    """Failed log-ins per address or per account in a window, in the cache: counted by
    :func:`record_failed_login`, looked at by :func:`login_refusal`."""

    scope: str

    def limit(self) -> tuple[int, float] | tuple[None, None]:
        return ScopedThrottle().parse_rate(api_settings.DEFAULT_THROTTLE_RATES.get(self.scope))

    def key(self, ident: str) -> str:
        return SimpleRateThrottle.cache_format % {"scope": self.scope, "ident": ident}

    def record(self, ident: str) -> None:
        _, duration = self.limit()
        if duration is not None and ident:
            count_request(self.key(ident), duration)

    def reached(self, ident: str) -> float | None:
        """Seconds until the count starts again when it is at the limit, else None."""
        count, duration = self.limit()
        if count is None or not ident or (cache.get(self.key(ident)) or 0) < count:
            return None
        return max(1.0, window_end(self.key(ident), duration) - time.time())


FAILURES_BY_ADDRESS = FailedLogins("login_address")
FAILURES_BY_USERNAME = FailedLogins("login_username")


def username_ident(username: str) -> str:
    """Usernames are hashed into keys: any length, any characters."""
    return hashlib.sha256(username.casefold().encode()).hexdigest()[:32] if username else ""


@dataclass(frozen=True)
class LoginRefusal:
    text: str  # a sentence, without the time to wait
    wait: float  # seconds


def lock_lifts_in(request, username: str) -> float:
    """Seconds until the account's lock at this address lifts: its last failure there
    leaves the window (axes' ``AXES_COOLOFF_TIME``)."""
    cool_off = get_cool_off(request) or timedelta(0)
    last = AccessAttempt.objects.filter(
        username=username, ip_address=request.axes_ip_address
    ).aggregate(last=Max("attempt_time"))["last"]
    if last is None:
        return 1.0
    return max(1.0, (last + cool_off - timezone.now()).total_seconds())


def login_refusal(request, username: str) -> LoginRefusal | None:
    """Whether a log-in as ``username`` from this request's address is refused before its
    password is checked, and why; None lets the password be checked."""
    refused = _login_refusal(request, username)
    if refused is not None:
        metrics.throttle_refused(scope="login")
    return refused


def _login_refusal(request, username: str) -> LoginRefusal | None:
    credentials = {"username": username}
    failures_here = AxesProxyHandler.get_failures(request, credentials)
    if failures_here >= settings.AXES_FAILURE_LIMIT:
        return LoginRefusal(
            "Too many failed log-ins for this account from your address.",
            lock_lifts_in(request, username),
        )
    address = client_address(request)
    # A class behind one school address shares it: an account that has logged in from
    # this browser before is not held back by the others' mistakes (its own failures at
    # this address still lock it, above).
    known = username_ident(username) in known_logins(request)
    if not known and (wait := FAILURES_BY_ADDRESS.reached(address)) is not None:
        return LoginRefusal("Too many failed log-ins from your address.", wait)
    if failures_here and FAILURES_BY_USERNAME.reached(username_ident(username)) is not None:
        # The account is being guessed from several addresses, this one among them: one
        # password check at a time between them all. Addresses where it never failed (its
        # owner's, most likely) are not slowed down.
        pause = settings.ARENA_LOGIN_SLOW_SECONDS
        slot = f"login_slow_{username_ident(username)}"
        if pause > 0 and not cache.add(slot, time.time() + pause, math.ceil(pause)):
            wait = (cache.get(slot) or time.time()) - time.time()
            return LoginRefusal(
                "Many log-ins for this account have failed, some from your address, so from "
                "there it is checked only every few seconds.",
                max(1.0, wait),
            )
    return None


# A signed cookie naming the accounts (hashed) that logged in from this browser.
KNOWN_LOGINS_COOKIE = "arena_known"
KNOWN_LOGINS_SALT = "arena.throttling.known_logins"
KNOWN_LOGINS_KEPT = 8
KNOWN_LOGINS_SECONDS = 365 * 24 * 3600


def known_logins(request) -> list[str]:
    """The hashed usernames of the accounts that logged in from this browser (a signed
    cookie: a forged or stale one reads as none)."""
    value = request.get_signed_cookie(
        KNOWN_LOGINS_COOKIE, default="", salt=KNOWN_LOGINS_SALT, max_age=KNOWN_LOGINS_SECONDS
    )
    return [ident for ident in value.split(".") if ident][:KNOWN_LOGINS_KEPT]


def remember_login(request, response, username: str) -> None:
    """After a log-in that succeeded: this browser knows the account from now on."""
    ident = username_ident(normal_username(username))
    idents = [ident] + [other for other in known_logins(request) if other != ident]
    response.set_signed_cookie(
        KNOWN_LOGINS_COOKIE,
        ".".join(idents[:KNOWN_LOGINS_KEPT]),
        salt=KNOWN_LOGINS_SALT,
        max_age=KNOWN_LOGINS_SECONDS,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure(),
    )


def login_refusal_text(refusal: LoginRefusal) -> str:
    """The sentence a log-in page shows."""
    return f"{refusal.text[:-1]}; try again in {describe_wait(refusal.wait)}."


def forget_failures(request, username: str) -> None:
    """After a log-in that succeeded: its account's failures at its address are forgotten.
    (Views that call ``login()`` have axes do this, ``AXES_RESET_ON_SUCCESS``.)"""
    AxesProxyHandler.update_request(request)
    AxesProxyHandler.get_implementation().reset_user_attempts(request, {"username": username})


class LoginThrottle(BaseThrottle):
    """The token API's check before the password (see :func:`login_refusal`); the view
    answers ``refusal.text`` in the one error shape, with ``Retry-After``."""

    refusal: LoginRefusal | None = None

    def allow_request(self, request, view) -> bool:
        self.refusal = login_refusal(request, submitted_username(request))
        return self.refusal is None

    def wait(self) -> float | None:
        return None if self.refusal is None else self.refusal.wait


@receiver(user_login_failed, dispatch_uid="arena.throttling.record_failed_login")
def record_failed_login(sender, credentials: dict, request=None, **kwargs) -> None:
    """Every failed password check made for a request (dashboard, token API, admin) counts
    for its address and its account; axes counts the pair itself (its own receiver)."""
    if request is None:
        return  # authenticate() called outside a request: nobody to slow down
    FAILURES_BY_ADDRESS.record(client_address(request))
    FAILURES_BY_USERNAME.record(username_ident(normal_username(credentials.get("username"))))
