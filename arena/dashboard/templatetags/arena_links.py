"""Links to an object's page by id, for tables of hundreds of rows.

``{{ pk|id_url:"bot" }}`` writes what ``{% url "bot" pk %}`` writes, at a fraction of the
cost: ``reverse`` (the URLconf and script prefix looked up, the route matched again) is
a large part of a standings page's rendering, one call per link. The route's text is
reversed once per route and script prefix and the id put in; anything but an int id goes
through ``reverse`` as the tag would.
"""

from __future__ import annotations

from functools import lru_cache

from django import template
from django.urls import get_script_prefix, get_urlconf, reverse

register = template.Library()

# An id no table shows, to find where ids go in a route's text.
_MARK = 987654321987


@lru_cache(maxsize=64)
def _around_id(name: str, prefix: str, urlconf: str | None) -> tuple[str, str] | None:
    """The route's text before and after its id, or None when it is not one int argument
    that shows as itself."""
    text = reverse(name, args=[_MARK], urlconf=urlconf)
    parts = text.split(str(_MARK))
    return (parts[0], parts[1]) if len(parts) == 2 else None


@register.filter
def id_url(pk, name: str) -> str:
    """``reverse(name, args=[pk])`` for a route of one int id (``bot``, ``match``...)."""
    if type(pk) is int:
        around = _around_id(name, get_script_prefix(), get_urlconf())
        if around is not None:
            return f"{around[0]}{pk}{around[1]}"
    return reverse(name, args=[pk])
