"""The REST API over HTTP, with the standard library only."""

from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit


class ApiError(Exception):
    """The server answered with an error (the API's one shape: detail, code, errors)."""

    def __init__(self, status: int, body: dict | str):
        self.status = status
        self.body = body
        super().__init__(self.describe())

    def describe(self) -> str:
        if isinstance(self.body, dict):
            text = str(self.body.get("detail") or self.body)
            for field, messages in (self.body.get("errors") or {}).items():
                if field != "non_field_errors" or messages != [text]:
                    text += f"\n  {field}: {' '.join(map(str, messages))}"
            return f"{self.status}: {text}"
        return f"{self.status}: {str(self.body)[:500]}"


class Unreachable(Exception):
    """No answer from the server."""


class Api:
    def __init__(self, url: str, token: str | None = None, timeout: float = 30):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def request(
        self,
        method: str,
        path: str,
        *,
        json_body: dict | None = None,
        body: bytes | None = None,
        content_type: str | None = None,
        raw: bool = False,
    ):
        headers = {"Accept": "application/json", "User-Agent": "arena-client/1"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        if json_body is not None:
            body = json.dumps(json_body).encode()
            content_type = "application/json"
        if content_type:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(self.url + path, data=body, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                data = answer.read()
        except urllib.error.HTTPError as exc:
            text = exc.read().decode(errors="replace")
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = text
            raise ApiError(exc.code, parsed) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise Unreachable(f"cannot reach {self.url}: {reason}") from None
        if raw:
            return data
        return json.loads(data) if data else None

    def get(self, path: str, **kwargs):
        return self.request("GET", path, **kwargs)

    def post(self, path: str, json_body: dict | None = None, **kwargs):
        return self.request("POST", path, json_body=json_body, **kwargs)

    def upload(self, path: str, file: Path):
        """A multipart POST of ``file`` as the form field ``file``."""
        boundary = "arena" + secrets.token_hex(12)
        head = (
            f"--{boundary}\r\n"
            f'Content-Disposition: form-data; name="file"; filename="{file.name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        body = head + file.read_bytes() + f"\r\n--{boundary}--\r\n".encode()
        return self.request(
            "POST", path, body=body, content_type=f"multipart/form-data; boundary={boundary}"
        )

    def all_pages(self, path: str) -> list:
        """Every row of a list endpoint, following its ``next`` links."""
        rows = []
        page = self.get(path)
        while True:
            if isinstance(page, list):
                return rows + page
            rows += page.get("results", [])
            following = page.get("next")
            if not following:
                return rows
            parts = urlsplit(following)
            page = self.get(parts.path + (f"?{parts.query}" if parts.query else ""))
