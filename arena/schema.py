"""The OpenAPI schema states the error answers each operation can give, in the one shape."""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
BODY_METHODS = {"POST", "PUT", "PATCH"}


class ErrorSerializer(serializers.Serializer):
    """Documents ``arena.errors.error_body``: every 4xx of the API has this shape."""

    detail = serializers.CharField(help_text="a sentence saying what was refused and why")
    code = serializers.CharField(help_text="a stable snake_case code, e.g. invalid, not_found")
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="messages by field (nested fields as a.b.0); empty when no field is at fault",
    )


ERROR_DESCRIPTIONS = {
    "400": "invalid input: a field, query parameter or body the server refuses",
    "401": "no credentials, or a token or session that is not valid",
    "403": "signed in, but not allowed to do this",
    "404": "no such object, or a page past the end",
    "411": "a body sent without Content-Length (chunked); send its length",
    "413": "a body over this operation's size limit, refused before it is read",
    "415": "a body in a media type this operation does not accept",
    "429": "too many requests; Retry-After says when to try again",
}


class ArenaAutoSchema(AutoSchema):
    """drf-spectacular's schema plus the error responses the server really gives."""

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        responses = operation["responses"]
        for code in self.error_codes(operation):
            if code not in responses:
                response = self._get_response_for_code(ErrorSerializer, code)
                response["description"] = ERROR_DESCRIPTIONS[code]
                responses[code] = response
        # A view that declares an error of its own (a description only) gets the shape too.
        for code, response in responses.items():
            if code.startswith("4") and "content" not in response:
                description = response.get("description") or ERROR_DESCRIPTIONS.get(code, "")
                response.update(self._get_response_for_code(ErrorSerializer, code))
                response["description"] = description
        return operation

    def error_codes(self, operation: dict) -> list[str]:
        method = self.method
        queries = [p for p in operation.get("parameters", []) if p.get("in") == "query"]
        path_params = [p for p in operation.get("parameters", []) if p.get("in") == "path"]
        codes = ["401"]  # any request carrying a bad token, on every operation
        if method in BODY_METHODS or queries:
            codes.append("400")
        if method not in SAFE_METHODS:
            codes.append("403")
        if path_params or any(p["name"] == "page" for p in queries):
            codes.append("404")
        if method in BODY_METHODS:
            # 411 and 413 come from arena.middleware, before the view.
            codes.extend(["411", "413", "415"])
        if self._throttled():
            codes.append("429")
        return sorted(codes)

    def _throttled(self) -> bool:
        try:
            return bool(self.view.get_throttles())
        except Exception:  # a view whose throttles depend on a real request
            return bool(getattr(self.view, "throttle_classes", None))
