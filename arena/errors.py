"""Turn domain errors into clear 4xx answers; nothing is stored when one is raised."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from bots.services import UploadRefused
from bots.validation import UploadRejected
from games.protocol import IllegalAction, InvalidOptions
from games.registry import UnknownGame


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
