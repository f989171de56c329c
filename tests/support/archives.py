"""Zip archives for upload tests: from a dict of entries, or of a folder as `zip -r` makes it."""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path


def make_zip(entries, *, compression=zipfile.ZIP_DEFLATED) -> bytes:
    """entries: name -> bytes, or name -> (bytes, unix mode)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, content in entries.items():
            mode = None
            if isinstance(content, tuple):
                content, mode = content
            info = zipfile.ZipInfo(name)
            info.compress_type = compression
            if mode is not None:
                info.create_system = 3
                info.external_attr = mode << 16
            archive.writestr(info, content)
    return buffer.getvalue()


def zip_folder(folder: Path) -> bytes:
    """A zip of a folder as `zip -r` makes it: unix permissions kept."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                info = zipfile.ZipInfo(str(path.relative_to(folder)))
                info.create_system = 3
                info.external_attr = (stat.S_IFREG | path.stat().st_mode & 0o777) << 16
                archive.writestr(info, path.read_bytes())
    return buffer.getvalue()
