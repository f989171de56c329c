"""The API lists' pages: keyset cursors over each list's order, with a page size the client
picks up to a cap. Kept apart from the views because DRF imports it while loading.

A page names the row it starts after (the values of the list's order fields in that row,
ending with the id so that the order is total), never an offset: rows added or removed
meanwhile neither repeat nor skip a row, and a deep page costs what the first one does (an
index range scan). There is no total count, which would scan the whole list.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from datetime import date, time

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Q
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import BasePagination
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

PAGE_SIZE = re.compile(r"[0-9]{1,4}", re.ASCII)
MAX_PAGE_SIZE = 200
MAX_CURSOR = 1000  # characters


class KeysetPagination(BasePagination):
    """Cursor pages over the view's ``keyset_ordering`` (else the queryset's or the model's
    ordering), the primary key appended when no field of it is unique.

    ``?page_size=`` 1..200 (default ``PAGE_SIZE``); ``?cursor=`` from a page's ``next`` or
    ``previous``. A malformed value of either is a 400 in the API's error shape.
    """

    cursor_query_param = "cursor"
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def __init__(self):
        self.default_page_size = settings.REST_FRAMEWORK.get("PAGE_SIZE") or 50

    # ------------------------------------------------------------------ parsing

    def get_page_size(self, request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.default_page_size
        if not PAGE_SIZE.fullmatch(raw) or not 1 <= int(raw) <= self.max_page_size:
            raise ValidationError(
                {
                    self.page_size_query_param: [
                        f"page_size must be a whole number from 1 to {self.max_page_size}"
                    ]
                }
            )
        return int(raw)

    def _bad_cursor(self):
        return ValidationError({self.cursor_query_param: ["not a cursor this list gave"]})

    def decode_cursor(self, request, fields) -> tuple[list, bool] | None:
        raw = request.query_params.get(self.cursor_query_param)
        if raw is None:
            return None
        try:
            if len(raw) > MAX_CURSOR:
                raise ValueError("too long")
            text = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4))
            values, backwards = json.loads(text)
            if not isinstance(values, list) or len(values) != len(fields):
                raise ValueError("wrong length")
            if backwards not in (0, 1) or isinstance(backwards, float):
                raise ValueError("bad direction")
            parsed = []
            for (field, _), value in zip(fields, values, strict=True):
                if value is None or isinstance(value, list | dict | bool):
                    raise ValueError("bad value")
                parsed.append(field.to_python(value))
        except (ValueError, TypeError, binascii.Error, DjangoValidationError, OverflowError):
            raise self._bad_cursor() from None
        return parsed, bool(backwards)

    def encode_cursor(self, values: list, backwards: bool) -> str:
        plain = [v.isoformat() if isinstance(v, date | time) else v for v in values]
        text = json.dumps([plain, int(backwards)], cls=DjangoJSONEncoder, separators=(",", ":"))
        cursor = base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
        return replace_query_param(self.base_url, self.cursor_query_param, cursor)

    # ------------------------------------------------------------------ ordering

    def get_ordering(self, queryset, view) -> list[tuple]:
        """[(model field, descending), ...]: a total order of plain, non-null columns."""
        names = (
            getattr(view, "keyset_ordering", None)
            or queryset.query.order_by
            or queryset.model._meta.ordering
        )
        meta = queryset.model._meta
        fields = []
        for name in names:
            if not isinstance(name, str) or "__" in name or name.lstrip("-") == "?":
                raise ImproperlyConfigured(f"keyset pages need plain field names, not {name!r}")
            bare = name.lstrip("-")
            field = meta.pk if bare == "pk" else meta.get_field(bare)
            if field.null:
                raise ImproperlyConfigured(f"keyset pages cannot order on nullable {bare}")
            fields.append((field, name.startswith("-")))
        if not any(field.unique or field.primary_key for field, _ in fields):
            fields.append((meta.pk, fields[-1][1] if fields else False))
        return fields

    @staticmethod
    def beyond(fields, values, backwards: bool) -> Q:
        """Rows after ``values`` in the order (before them when ``backwards``): an index
        range on the first field, then the lexicographic comparison."""

        def op(descending: bool, strict: bool) -> str:
            later = "lt" if descending != backwards else "gt"
            return later if strict else later + "e"

        first, first_desc = fields[0]
        condition = Q()
        equal = Q()
        for (field, descending), value in zip(fields, values, strict=True):
            condition |= equal & Q(**{f"{field.attname}__{op(descending, True)}": value})
            equal &= Q(**{field.attname: value})
        return Q(**{f"{first.attname}__{op(first_desc, False)}": values[0]}) & condition

    # ------------------------------------------------------------------ the page

    def paginate_queryset(self, queryset, request, view=None):
        self.page_size = self.get_page_size(request)
        fields = self.get_ordering(queryset, view)
        cursor = self.decode_cursor(request, fields)
        self.base_url = remove_query_param(request.build_absolute_uri(), self.cursor_query_param)
        backwards = bool(cursor and cursor[1])
        order = [("-" if descending != backwards else "") + f.attname for f, descending in fields]
        queryset = queryset.order_by(*order)
        if cursor is not None:
            queryset = queryset.filter(self.beyond(fields, cursor[0], backwards))
        rows = list(queryset[: self.page_size + 1])
        more = len(rows) > self.page_size
        rows = rows[: self.page_size]
        if backwards:
            rows.reverse()
        self.next = self.previous = None
        if rows:
            has_next = True if backwards else more
            has_previous = more if backwards else cursor is not None
            if has_next:
                self.next = self.encode_cursor(self.values(rows[-1], fields), False)
            if has_previous:
                self.previous = self.encode_cursor(self.values(rows[0], fields), True)
        return rows

    @staticmethod
    def values(row, fields) -> list:
        return [getattr(row, field.attname) for field, _ in fields]

    def get_paginated_response(self, data):
        return Response({"next": self.next, "previous": self.previous, "results": data})

    def get_paginated_response_schema(self, schema):
        return {
            "type": "object",
            "required": ["results"],
            "properties": {
                "next": {
                    "type": "string",
                    "nullable": True,
                    "format": "uri",
                    "description": "the next page; null on the last",
                },
                "previous": {
                    "type": "string",
                    "nullable": True,
                    "format": "uri",
                    "description": "the previous page; null on the first",
                },
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view) -> list[dict]:
        return [
            {
                "name": self.cursor_query_param,
                "required": False,
                "in": "query",
                "description": "a page's position, from a page's next or previous link",
                "schema": {"type": "string", "maxLength": MAX_CURSOR},
            },
            {
                "name": self.page_size_query_param,
                "required": False,
                "in": "query",
                "description": f"rows per page, default {self.default_page_size}",
                "schema": {"type": "integer", "minimum": 1, "maximum": self.max_page_size},
            },
        ]
