"""Turn every API refusal into one JSON shape; nothing is stored when one is raised.

DRF's own exceptions, Django's ``Http404``/``PermissionDenied``/``ValidationError``
and the domain errors all end up as ``error_body``. Django's page handlers answer in
the same shape under ``/api/`` and keep their HTML pages everywhere else.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import exceptions, status
from rest_framework.fields import get_error_detail
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler

from bots.services import DuplicateUpload, UploadRefused
from bots.validation import UploadRejected
from games.protocol import IllegalAction, InvalidOptions
from games.registry import UnknownGame
from tournaments.services.scheduling import TournamentStarted

API_PREFIX = "/api/"


def error_body(detail: str, *, code: str, errors: dict[str, list[str]] | None = None) -> dict:
    """The one shape of every API error: a sentence, a stable code, and per-field messages.

    ``detail`` is always a readable string; ``errors`` maps a field name (or
    ``non_field_errors``) to its messages and is empty when no field is at fault.
    """
    return {"detail": detail, "code": code, "errors": errors or {}}


def json_error(status_code: int, detail: str, *, code: str, errors=None) -> JsonResponse:
    """An error answered outside DRF (middleware, Django's handlers) in the same shape."""
    return JsonResponse(error_body(detail, code=code, errors=errors), status=status_code)


def field_errors(detail, field: str = "") -> dict[str, list[str]]:
    """Flatten DRF's nested error detail into ``{"field.sub.0": [messages]}``.

    Top-level messages that name no field go under ``non_field_errors``.
    """
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for key, value in detail.items():
            name = str(key) if not field else f"{field}.{key}"
            if str(key) == api_settings.NON_FIELD_ERRORS_KEY and field:
                name = field
            for sub, messages in field_errors(value, name).items():
                out.setdefault(sub, []).extend(messages)
        return out
    if isinstance(detail, (list, tuple)):
        if all(not isinstance(item, (dict, list, tuple)) for item in detail):
            return {field or api_settings.NON_FIELD_ERRORS_KEY: [str(m) for m in detail]}
        out = {}
        for index, item in enumerate(detail):
            for sub, messages in field_errors(item, f"{field}.{index}" if field else str(index)):
                out.setdefault(sub, []).extend(messages)
        return out
    return {field or api_settings.NON_FIELD_ERRORS_KEY: [str(detail)]}


def summary(errors: dict[str, list[str]]) -> str:
    """One sentence naming each field at fault and its first message."""
    parts = [
        messages[0] if field == api_settings.NON_FIELD_ERRORS_KEY else f"{field}: {messages[0]}"
        for field, messages in errors.items()
        if messages
    ]
    return "; ".join(parts) or "The request is invalid."


def _as_api_exception(exc: Exception) -> tuple[Exception, str | None]:
    """The DRF exception a Django or domain error stands for, and its code if it has its own."""
    if isinstance(exc, DjangoValidationError):
        return exceptions.ValidationError(get_error_detail(exc)), None
    if isinstance(exc, UnknownGame):
        return exceptions.ValidationError({"game": [str(exc.args[0])]}), "unknown_game"
    if isinstance(exc, InvalidOptions):
        return exceptions.ValidationError({"options": [str(exc)]}), "invalid_options"
    for kind, code in (
        (DuplicateUpload, "duplicate_upload"),  # a conflict with what is stored, not bad input
        (TournamentStarted, "tournament_started"),  # a conflict with the event's state
    ):
        if isinstance(exc, kind):
            error = exceptions.APIException(str(exc), code=code)
            error.status_code = status.HTTP_409_CONFLICT
            return error, code
    for kind, code in (
        (UploadRejected, "upload_rejected"),
        (UploadRefused, "upload_refused"),
        (IllegalAction, "illegal_action"),
    ):
        if isinstance(exc, kind):
            error = exceptions.APIException(str(exc), code=code)
            error.status_code = status.HTTP_400_BAD_REQUEST
            return error, code
    if isinstance(exc, Http404):
        return exceptions.NotFound(*exc.args), None
    if isinstance(exc, DjangoPermissionDenied):
        return exceptions.PermissionDenied(*exc.args), None
    return exc, None


def _code(exc: exceptions.APIException) -> str:
    """A stable snake_case code: ``invalid`` for field errors, else the exception's own."""
    if isinstance(exc, exceptions.ValidationError):
        return "invalid"
    codes = exc.get_codes()
    return codes if isinstance(codes, str) else exc.default_code


def api_exception_handler(exc: Exception, context: dict) -> Response | None:
    """DRF's handler (headers, rollback) with every answer rewritten to ``error_body``."""
    exc, code = _as_api_exception(exc)
    response = exception_handler(exc, context)
    if response is None:
        return None  # a real server error: Django's handler500 answers it
    if isinstance(exc.detail, (dict, list)):
        errors = field_errors(exc.detail)
        sentence = summary(errors)
        if not isinstance(exc, exceptions.ValidationError):
            errors = {}
    else:
        errors, sentence = {}, str(exc.detail)
    response.data = error_body(sentence, code=code or _code(exc), errors=errors)
    return response


# Django's own handlers (arena/urls.py): JSON under /api/, the HTML pages elsewhere.


def _is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith(API_PREFIX)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return json_error(400, "The request could not be understood.", code="bad_request")
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return json_error(403, "You may not do this.", code="permission_denied")
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return json_error(404, "There is no API endpoint at this address.", code="not_found")
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        return json_error(500, "The server failed to answer this request.", code="server_error")
    return defaults.server_error(request)
