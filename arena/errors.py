"""Turn domain errors into clear 4xx answers; nothing is stored when one is raised."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import JsonResponse
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from bots.services import UploadRefused
from bots.validation import UploadRejected
from games.protocol import IllegalAction, InvalidOptions
from games.registry import UnknownGame


def error_body(detail: str, *, code: str, errors: dict[str, list[str]] | None = None) -> dict:
    """The one shape of every API error: a sentence, a stable code, and per-field messages.

    ``detail`` is always a readable string; ``errors`` maps a field name (or
    ``non_field_errors``) to its messages and is empty when no field is at fault.
    """
    return {"detail": detail, "code": code, "errors": errors or {}}


def json_error(status_code: int, detail: str, *, code: str, errors=None) -> JsonResponse:
    """An error answered outside DRF (middleware, Django's handlers) in the same shape."""
    return JsonResponse(error_body(detail, code=code, errors=errors), status=status_code)


def _messages(exc: DjangoValidationError):
    if hasattr(exc, "error_dict"):
        return {
            field: [str(m) for e in errors for m in e.messages]
            for field, errors in exc.error_dict.items()
        }
    return {"detail": exc.messages if len(exc.messages) > 1 else exc.messages[0]}


def api_exception_handler(exc, context):
    if isinstance(exc, DjangoValidationError):
        return Response(_messages(exc), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, (UploadRejected, UploadRefused, InvalidOptions, IllegalAction)):
        return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, UnknownGame):
        return Response({"detail": str(exc.args[0])}, status=status.HTTP_400_BAD_REQUEST)
    return exception_handler(exc, context)
