"""The API's page numbers; kept apart from the views because DRF imports it while loading."""

from __future__ import annotations

import re

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination

PAGE_NUMBER = re.compile(r"[0-9]{1,18}", re.ASCII)


class Pagination(PageNumberPagination):
    """Page numbers: a malformed one is a 400 in the error shape, one past the end a 404."""

    def get_page_number(self, request, paginator):
        raw = request.query_params.get(self.page_query_param)
        if raw is None or raw in self.last_page_strings:
            return super().get_page_number(request, paginator)
        if not PAGE_NUMBER.fullmatch(raw) or int(raw) < 1:
            raise ValidationError({self.page_query_param: ["page must be a whole number from 1"]})
        return raw

    def get_schema_operation_parameters(self, view) -> list[dict]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"]["minimum"] = 1
        return parameters
