"""Outages on demand for the integration tests: a TCP proxy that can cut a service, and a
private redis-server that can be stopped and started. Loopback only; never touches the
shared PostgreSQL or Redis."""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

from tests.support.servers import free_port


class TcpProxy:
    """Forwards 127.0.0.1:<port> to a target; ``cut()`` drops every connection and refuses
    new ones (accepted, then closed at once) until ``restore()``."""

    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.listener.settimeout(0.2)
        self._cut = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self) -> None:
        self._cut.set()
        with self._lock:
            for sock in list(self._open):
                _close(sock)
            self._open.clear()

    def restore(self) -> None:
        self._cut.clear()

    def close(self) -> None:
        self._stop.set()
        self.cut()
        self.listener.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if self._cut.is_set():
                _close(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=2)
            except OSError:
                _close(client)
                continue
            # The timeout was for connecting: left on, a server silent for 2 s (a client
            # between queries) lost its connection outside any cut.
            upstream.settimeout(None)
            with self._lock:
                # cut() may have come while we connected: it closed only what it saw.
                if self._cut.is_set():
                    _close(client)
                    _close(upstream)
                    continue
                self._open.update((client, upstream))
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with self._lock:
                self._open.discard(source)
                self._open.discard(sink)
            _close(source)
            _close(sink)


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


class PrivateRedis:
    """A redis-server of the test's own on a free loopback port, without persistence: a
    restart loses every message, as a crashed broker without a disk would."""

    def __init__(self, folder: Path) -> None:
        self.binary = shutil.which("redis-server")
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the private redis-server did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None
