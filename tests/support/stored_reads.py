"""What the stored-read tests share: an answer as a reader gets it, and the same answer
rendered with nothing stored."""

from __future__ import annotations

from django.core.cache import cache
from rest_framework.test import APIClient


def answer(url: str):
    response = APIClient().get(url)
    assert response.status_code == 200, url
    return response.content, response["Content-Type"], response.get("Vary")


def fresh(url: str):
    """The answer with nothing stored: rendered from the database."""
    cache.clear()
    return answer(url)
