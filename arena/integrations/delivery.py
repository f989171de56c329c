"""Posting a webhook: to an address judged once, and connected to as judged.

The name in a hook's URL is resolved once per attempt; the addresses are checked
(``address_refusal``) and the connection goes to one of those very addresses, with the
name kept for the Host header and TLS. Resolving again to connect would let a name that
answers a public address to the check and a private one a moment later (DNS rebinding)
carry the post into this network.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def judge(url: str, *, resolve: bool = True) -> tuple[str | None, list[Address]]:
    """(why Arena will not post to ``url`` or None, the addresses it may connect to).

    Only http(s), and not to this network's own addresses unless
    ARENA_WEBHOOK_PRIVATE_ADDRESSES allows them (then no address is fixed: []). Without
    ``resolve`` (a web request) only a literal address or localhost is judged."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "an http:// or https:// URL", []
    if settings.ARENA_WEBHOOK_PRIVATE_ADDRESSES:
        return None, []
    host = parts.hostname
    if host == "localhost" or host.endswith(".localhost"):
        return f"{host} is a private or local address", []
    try:
        addresses: list[Address] = [ipaddress.ip_address(host)]
    except ValueError:
        if not resolve:
            return None, []
        try:
            infos = socket.getaddrinfo(host, _port(parts), type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            return f"{host} does not resolve", []
        addresses = [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]
    if not addresses or any(not address.is_global for address in addresses):
        return f"{host} is a private or local address", []
    return None, addresses


def address_refusal(url: str, *, resolve: bool = True) -> str | None:
    """Why Arena will not post to ``url`` (None: it will); see ``judge``."""
    return judge(url, resolve=resolve)[0]


def post(
    url: str, body: bytes, headers: dict[str, str], *, address: Address | None = None
) -> tuple[int | None, str]:
    """(status code, error) of one POST, never following a redirect; status None when no
    answer came. ``address``: connect there instead of resolving the URL's name (the
    caller judged it); None judges the URL here and connects to what was judged."""
    if address is None:
        reason, addresses = judge(url)
        if reason is not None:
            return None, f"not sent: {reason}"
        address = addresses[0] if addresses else None
    parts = urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    timeout = settings.ARENA_WEBHOOK_TIMEOUT_SECONDS
    connection = kind(parts.hostname, _port(parts), timeout=timeout)
    if address is not None:
        # http.client opens its socket through this attribute (HTTPS wraps that socket
        # with the URL's name for SNI and the certificate check).
        connection._create_connection = _to(address)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request("POST", target, body=body, headers=headers)
        status = connection.getresponse().status
    except (OSError, ValueError, http.client.HTTPException) as exc:
        return None, (str(exc) or type(exc).__name__)[:300]
    finally:
        connection.close()
    if 200 <= status < 300:
        return status, ""
    return status, f"answered {status}"


def _port(parts) -> int:
    return parts.port or (443 if parts.scheme == "https" else 80)


def _to(address: Address):
    def create_connection(host_port, timeout=None, source_address=None):
        return socket.create_connection((str(address), host_port[1]), timeout, source_address)

    return create_connection
