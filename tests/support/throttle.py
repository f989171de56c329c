"""Fixtures for the throttle tests: a clean count before and after, and rates set per test."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.cache import cache
from rest_framework.settings import api_settings


@pytest.fixture(autouse=True)
def clean_throttle_counts():
    """Counts live in the process-wide cache: start from zero, and leave nothing that
    would throttle the next test."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def rates(monkeypatch):
    """Set throttle rates (scope=rate) for one test, in the settings' own dict: the one
    every throttle reads, DRF's own classes included."""

    def set_rates(**scopes: str) -> None:
        for scope, rate in scopes.items():
            monkeypatch.setitem(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], scope, rate)

    return set_rates


@pytest.fixture
def trusted_proxies(monkeypatch):
    """Set how many proxies are trusted (``ARENA_TRUSTED_PROXIES``) for one test."""

    def set_proxies(count: int) -> None:
        monkeypatch.setitem(settings.REST_FRAMEWORK, "NUM_PROXIES", count)
        api_settings.reload()

    yield set_proxies
    monkeypatch.undo()
    api_settings.reload()
