"""A value as the template engine writes ``{{ value }}``, for table rows written in Python
(a large table through the template engine is most of a cold page's build)."""

from __future__ import annotations

import math
from html import escape

from django.conf import settings
from django.utils.formats import localize
from django.utils.html import conditional_escape


def cell_text(value, *, use_l10n: bool | None = None) -> str:
    """``{{ value }}``'s text (``use_l10n=False``: under ``{% localize off %}``). Plain
    strings, ints and floats, most of a table's values, skip Django's lazy-aware wrappers
    for the same text: ``html.escape`` is what ``escape`` calls, and a float's repr is
    numberformat's text while the separator is "." and no exponent shows."""
    kind = type(value)
    if kind is str:
        return escape(value)
    if kind is int:
        return str(value)
    if kind is float and math.isfinite(value):
        text = repr(value)
        if "e" not in text and settings.DECIMAL_SEPARATOR == ".":
            return text
    return conditional_escape(localize(value, use_l10n=use_l10n))
