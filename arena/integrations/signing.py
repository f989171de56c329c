"""What a webhook receives: the body for its format and the signature headers.

The signature is the HMAC-SHA256, with the hook's secret, of ``<timestamp>.<raw body>``,
sent as ``X-Arena-Signature: sha256=<hex>`` beside ``X-Arena-Timestamp`` (Unix seconds);
docs/integrations.md shows a receiver checking it."""

from __future__ import annotations

import hashlib
import hmac
import json

TIMESTAMP_HEADER = "X-Arena-Timestamp"
SIGNATURE_HEADER = "X-Arena-Signature"


def signature(secret: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return "sha256=" + digest.hexdigest()


def headers(secret: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "User-Agent": "Arena-Webhooks/1",
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: signature(secret, timestamp, body),
    }


def body(format: str, document: dict) -> str:
    """The text sent for ``document`` (the event) in the hook's ``format``: the document
    itself, or the chat service's documented incoming-webhook body around its sentence."""
    line = document["text"] + (f"\n{document['url']}" if document.get("url") else "")
    if format == "discord":
        # Discord caps a message's content at 2000 characters.
        payload = {"content": line[:2000], "allowed_mentions": {"parse": []}}
    elif format == "slack":
        payload = {"text": line}
    else:
        payload = document
    return json.dumps(payload, separators=(",", ":"), sort_keys=True)


def format_for(url: str) -> str:
    """The format a URL's service expects, by its host: Discord's and Slack's incoming
    webhooks, else the event document."""
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").lower()
    if host in ("discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com"):
        return "discord"
    if host == "hooks.slack.com":
        return "slack"
    return "json"
