"""The per-install secret key kept under var/ when ``SECRET_KEY`` is not set.

Made once, atomically: a web process and a worker starting together on a fresh install
must read one key, never an empty or half-written file, and never each their own."""

from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path


def install_key(path: Path) -> str:
    """The key in ``path``, made first if there is none."""
    if not path.exists():
        descriptor, draft = tempfile.mkstemp(dir=path.parent, prefix=".secret_key.")  # 0600
        try:
            with os.fdopen(descriptor, "w") as out:
                out.write(secrets.token_urlsafe(50))
            try:
                os.link(draft, path)  # whole, and only if no other process made it first
            except FileExistsError:
                pass
            except OSError:  # a filesystem without hard links
                if not path.exists():
                    os.replace(draft, path)
        finally:
            if os.path.exists(draft):
                os.unlink(draft)
    return path.read_text().strip()
