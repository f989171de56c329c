"""Request bodies are refused on their declared size, before anything reads them.

Django reads a body lazily, but the first middleware to touch ``request.POST`` (CSRF, for
one) reads all of it, and a multipart file part over FILE_UPLOAD_MAX_MEMORY_SIZE goes to
the temporary directory, so a large anonymous POST to /login/ would land on disk before
its 403. This middleware runs before any that reads the request, and answers from the
headers alone:

- a ``Content-Length`` over the path's cap: 413 (uploads take the upload cap plus the form
  around it; everything else DATA_UPLOAD_MAX_MEMORY_SIZE), so no body ever reaches the
  disk;
- a body without ``Content-Length`` (``Transfer-Encoding: chunked``): 411, since Django
  would see an empty body and answer with a misleading "No file was submitted";
- a ``Content-Length`` that is not a number: 400.

API paths get the one JSON error shape, dashboard paths a short page in the site's layout.
"""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable
from html import escape

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.template import TemplateDoesNotExist
from django.template.loader import render_to_string
from django.urls import Resolver404, resolve

from arena import throttling
from arena.errors import json_error
from bots import validation

log = logging.getLogger(__name__)

# Multipart boundaries and part headers around the file, and the dashboard's small fields.
UPLOAD_FORM_OVERHEAD = 16 << 10
# URL names of the views that take a bot upload.
UPLOAD_VIEWS = frozenset({"api-bot-versions", "bot-upload", "bot-new"})
# After a refusal, this much of the body is read and thrown away (never stored), so that a
# client that sends its whole body before reading the answer gets the answer rather than a
# reset connection. Past either bound the connection is closed, as a proxy would.
DISCARD_BYTES = 32 << 20
DISCARD_SECONDS = 5.0


def body_cap(path: str) -> tuple[int, bool]:
    """The largest request body ``path`` accepts, in bytes, and whether it takes uploads."""
    try:
        view = resolve(path).url_name
    except Resolver404:
        view = None
    if view in UPLOAD_VIEWS:
        return validation.MAX_UPLOAD_BYTES + UPLOAD_FORM_OVERHEAD, True
    # Never above what Django keeps in memory: a body under both caps cannot reach the disk.
    caps = [settings.DATA_UPLOAD_MAX_MEMORY_SIZE, settings.FILE_UPLOAD_MAX_MEMORY_SIZE]
    return min(cap for cap in caps if cap is not None), False


class RequestBodyLimitMiddleware:
    """First in MIDDLEWARE: nothing before it may read the body."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        declared = request.META.get("CONTENT_LENGTH") or ""
        if not declared:
            if request.META.get("HTTP_TRANSFER_ENCODING"):
                detail = (
                    "Send the request body with a Content-Length header; "
                    "chunked bodies are not accepted."
                )
                return _refuse(request, 411, "length_required", detail, discard=DISCARD_BYTES)
            return self.get_response(request)
        if not (declared.isascii() and declared.isdigit()):
            return _refuse(
                request, 400, "invalid_content_length", "The Content-Length header is not a number."
            )
        length = int(declared)
        cap, takes_uploads = body_cap(request.path_info)
        if length <= cap:
            return self.get_response(request)
        if takes_uploads:
            detail = (
                f"The request body is {length} bytes; uploads are limited to "
                f"{validation.MAX_UPLOAD_BYTES} bytes (a .py file or a .zip archive)."
            )
        else:
            detail = f"The request body is {length} bytes; this address accepts at most {cap}."
        return _refuse(request, 413, "request_too_large", detail, discard=length)


def _refuse(
    request: HttpRequest, status: int, code: str, detail: str, *, discard: int = 0
) -> HttpResponse:
    """The refusal in the one JSON error shape under /api/, else a short page; ``discard``
    bytes of the unread body are dropped once the answer is sent."""
    log.warning("refused %s %s: %s", request.method, request.path, detail)
    if request.path_info.startswith("/api/"):
        response = json_error(status, detail, code=code)
    else:
        response = HttpResponse(_refusal_page(request, status, detail), status=status)
    if discard:
        # Django runs these closers when the server has finished sending the response.
        response._resource_closers.append(lambda: _discard_body(request, discard))
    return response


def _refusal_page(request: HttpRequest, status: int, detail: str) -> str:
    """The site's page saying why (the dashboard's ``arena/refused.html``, found by name:
    this module stands without the dashboard), else a bare one. Nothing before this
    middleware has read the session, so the page is drawn for a visitor."""
    try:
        return render_to_string(
            "arena/refused.html", {"status": status, "detail": detail}, request=request
        )
    except TemplateDoesNotExist:
        return (
            f"<!doctype html><meta charset=utf-8><title>{status}</title>"
            f"<h1>The request was refused</h1><p>{escape(detail)}</p>"
            '<p><a href="/">Back to Arena</a></p>'
        )


def _discard_body(request: HttpRequest, length: int) -> None:
    """Read and drop up to DISCARD_BYTES of a refused body within DISCARD_SECONDS."""
    stream = request.META.get("wsgi.input")
    sock = request.META.get("gunicorn.socket")
    if stream is None:
        return
    deadline = time.monotonic() + DISCARD_SECONDS
    left = min(length, DISCARD_BYTES)
    try:
        while left > 0 and (remaining := deadline - time.monotonic()) > 0:
            if isinstance(sock, socket.socket):
                sock.settimeout(remaining)  # a stalled client cannot hold the worker
            chunk = stream.read(min(left, 64 << 10))
            if not chunk:
                break
            left -= len(chunk)
    except Exception:  # noqa: BLE001 - best effort: the answer has been sent already
        pass


class ThrottleGiveBackMiddleware:
    """A request refused for its content (4xx, not the throttle's 429) gives back the place
    it took in a count of what is made (``throttling.MADE_NOT_ASKED``): an API client's
    mistakes never use up its budget of new tournaments."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        response = self.get_response(request)
        if 400 <= response.status_code < 500 and response.status_code != 429:
            throttling.give_back(request)
        return response
