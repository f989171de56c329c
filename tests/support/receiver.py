"""A real HTTP server in a thread that records what is posted to it: webhook deliveries'
receiver in the tests. It answers each request with the next status of ``statuses``
(the last one repeated)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float


@dataclass
class Receiver:
    statuses: list[int] = field(default_factory=lambda: [204])
    requests: list[Received] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/hook"

    def wait_for(self, count: int, timeout: float = 60) -> list[Received]:
        deadline = time.monotonic() + timeout
        while len(self.requests) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(self.requests)} requests, not {count}, in {timeout}s")
            time.sleep(0.05)
        return self.requests


def start_receiver(statuses: list[int] | None = None) -> Receiver:
    receiver = Receiver(statuses=statuses or [204])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            index = min(len(receiver.requests), len(receiver.statuses) - 1)
            receiver.requests.append(
                Received(self.path, dict(self.headers.items()), body, time.monotonic())
            )
            self.send_response(receiver.statuses[index])
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    receiver.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=receiver.server.serve_forever, daemon=True).start()
    return receiver
