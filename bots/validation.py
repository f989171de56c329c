"""Checks an uploaded bot before anything is stored or run: a .py file or a .zip archive.

A zip's entry point is ``main.py`` (Python), or an executable ``main`` (an x86-64 ELF binary,
or a script whose ``#!`` names an offered interpreter: bots/sandbox/languages.py), or a
``build.sh`` that must leave ``main`` when it runs at validation (bots/build.py). Messages
name the upload as the uploader named it (``mybot.zip: src/util.py line 3: SyntaxError``).

Every refusal raises :class:`UploadRejected` with a reason a person can act on. The zip is
inspected from its central directory and read entry by entry with hard caps, never
extracted by a library call: absolute paths, ``..``, symlinks, devices, too many entries,
too much unpacked data and zip bombs are refused before a byte reaches the disk.
The caps below are documented in docs/bots.md ("Uploads").
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from bots import compilecheck
from bots.sandbox import languages

MAX_UPLOAD_BYTES = 1 << 20  # the file as uploaded
MAX_ENTRIES = 200  # files and directories in a zip
MAX_UNPACKED_BYTES = 8 << 20  # all files of a zip, unpacked
MAX_RATIO = 100  # unpacked / compressed, per entry (past RATIO_FLOOR bytes)
RATIO_FLOOR = 64 << 10  # small files may compress as well as they like
MAX_PATH_CHARS = 200
MAX_FILENAME_CHARS = 200  # the display name stored with a version
MAX_DEPTH = 8
ENTRY_POINTS = ("main.py", "main", "build.sh")
BUILD_SCRIPT = "build.sh"


class UploadRejected(ValueError):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass
class ValidatedUpload:
    files: dict[str, bytes]  # relative posix path -> content; has main.py, main or build.sh
    sha256: str  # of the upload as sent
    size: int  # bytes as sent
    kind: str  # "py" or "zip"
    executables: frozenset[str] = frozenset()  # files the zip marks executable (and main)
    language: str = "python"  # python, native, javascript, java, shell; "build" until built

    @property
    def needs_build(self) -> bool:
        return BUILD_SCRIPT in self.files and "main.py" not in self.files


def upload_kind(filename: str) -> str:
    """The kind of an upload, "py" or "zip", read off its name once and stored with it."""
    suffix = PurePosixPath(filename.replace("\\", "/")).suffix.lower()
    if suffix in (".py", ".zip"):
        return suffix[1:]
    raise UploadRejected(
        f"{filename!r}: upload a .py file or a .zip archive (with main.py, main or build.sh)"
    )


def display_filename(filename: str) -> str:
    """The name shown for a version: its last path part, shortened to MAX_FILENAME_CHARS
    keeping the extension (the name is only shown; ``kind`` says how to unpack)."""
    name = PurePosixPath(filename.replace("\\", "/")).name or "upload"
    if len(name) <= MAX_FILENAME_CHARS:
        return name
    suffix = PurePosixPath(name).suffix[:MAX_FILENAME_CHARS]
    return name[: MAX_FILENAME_CHARS - len(suffix)] + suffix


def validate_upload(filename: str, data: bytes, *, kind: str | None = None) -> ValidatedUpload:
    """Check an upload and return its files. ``kind`` is the one stored with a version;
    without it (a new upload) the kind is read off ``filename``."""
    if len(data) > MAX_UPLOAD_BYTES:
        raise UploadRejected(
            f"the upload is {len(data)} bytes; the limit is {MAX_UPLOAD_BYTES} bytes"
        )
    if not data:
        raise UploadRejected("the upload is empty")
    kind = kind or upload_kind(filename)
    shown = display_filename(filename)
    executables: frozenset[str] = frozenset()
    if kind == "py":
        files, names = {"main.py": data}, {"main.py": shown}
    elif kind == "zip":
        raw, raw_executables = unzip_tree(data)
        files, prefix = _at_root(raw)
        names = {path: f"{shown}: {prefix}{path}" for path in files}
        executables = frozenset(p[len(prefix) :] for p in raw_executables)
    else:
        raise UploadRejected(f"unknown kind of upload {kind!r}")
    language = entry_language(files, names)
    if language == "python":
        # Compiled under the names the uploader gave them: "mybot.zip: src/util.py line 3".
        sources = {names[p]: c for p, c in files.items() if p.endswith(".py")}
        refusal = compilecheck.first_refusal(sources)
        if refusal:
            raise UploadRejected(refusal)
    digest = hashlib.sha256(data).hexdigest()
    return ValidatedUpload(files, digest, len(data), kind, executables, language)


def entry_language(files: dict[str, bytes], names: dict[str, str] | None = None) -> str:
    """The language of a tree's entry point, refused when this arena does not offer it:
    main.py wins, then main, then build.sh ("build": its main is judged once built)."""
    names = names or {}
    offered = languages.offered_names()
    if "main.py" in files:
        if "python" not in offered:
            raise UploadRejected(
                f"{names.get('main.py', 'main.py')}: this arena does not run Python"
            )
        return "python"
    if "main" in files:
        try:
            return languages.describe_entry(files["main"], names.get("main", "main"))
        except languages.EntryRefused as exc:
            raise UploadRejected(str(exc)) from None
    if BUILD_SCRIPT in files:
        return "build"
    raise UploadRejected("no main.py, main or build.sh at the top of the zip")


def _entry_name(info: zipfile.ZipInfo) -> str:
    if info.flag_bits & 0x800:
        return info.filename  # flagged UTF-8; zipfile already decoded it strictly
    raw = info.filename.encode("cp437")  # zipfile decoded unflagged names as cp437
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UploadRejected(f"a file name in the zip is not UTF-8: {raw!r}") from None


def _check_path(name: str) -> str:
    if "\\" in name:
        raise UploadRejected(f"{name!r}: backslashes are not allowed in zip paths")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise UploadRejected(f"{name!r}: absolute paths are not allowed in a zip")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UploadRejected(f"{name!r}: '..' is not allowed in zip paths")
    if any("\x00" in p or p.startswith("\n") for p in parts):
        raise UploadRejected(f"{name!r}: invalid characters in a zip path")
    if len(name) > MAX_PATH_CHARS or len(parts) > MAX_DEPTH:
        raise UploadRejected(f"{name[:60]!r}...: path too long or too deep")
    return "/".join(parts)


def unzip_tree(
    data: bytes, *, max_entries: int | None = None, max_unpacked: int | None = None
) -> tuple[dict[str, bytes], set[str]]:
    """The files of a zip (path -> content) and the paths it marks executable, every entry
    checked; the caps default to an upload's (a built tree has its own, bots/build.py)."""
    max_entries = max_entries or MAX_ENTRIES
    max_unpacked = max_unpacked or MAX_UNPACKED_BYTES
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise UploadRejected(f"not a valid zip archive ({exc})") from None
    if len(infos) > max_entries:
        raise UploadRejected(f"the zip has {len(infos)} entries; the limit is {max_entries}")
    declared = sum(i.file_size for i in infos)
    if declared > max_unpacked:
        raise UploadRejected(
            f"the zip unpacks to {declared} bytes; the limit is {max_unpacked} bytes"
        )
    files: dict[str, bytes] = {}
    executables: set[str] = set()
    folders: set[str] = set()  # explicit folder entries
    total = 0
    for info in infos:
        name = _entry_name(info)
        if name.startswith("__MACOSX/"):
            continue  # Finder's resource forks: metadata, never code
        path = _check_path(name)
        kind = stat.S_IFMT(info.external_attr >> 16) if info.create_system == 3 else 0
        if kind:  # unix file type present (many tools store permission bits only)
            if kind == stat.S_IFLNK:
                raise UploadRejected(f"{name!r}: symbolic links are not allowed in a zip")
            if kind not in (stat.S_IFREG, stat.S_IFDIR):
                raise UploadRejected(f"{name!r}: devices, pipes and sockets are not allowed")
        if info.is_dir() or not path:
            if path:
                folders.add(path)
            continue
        if info.flag_bits & 0x1:
            raise UploadRejected(f"{name!r}: encrypted entries are not allowed")
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(1, info.compress_size):
            raise UploadRejected(f"{name!r}: compression ratio above {MAX_RATIO}:1 (a zip bomb?)")
        if path in files:
            raise UploadRejected(f"{name!r}: appears twice in the zip")
        try:
            with archive.open(info) as handle:  # read at most what is left of the cap
                content = handle.read(max_unpacked - total + 1)
        except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, EOFError) as exc:
            raise UploadRejected(f"{name!r}: cannot be read ({exc})") from None
        total += len(content)
        if total > max_unpacked or len(content) != info.file_size:
            raise UploadRejected(
                f"the zip unpacks to more than {max_unpacked} bytes or lies about sizes"
            )
        files[path] = content
        if info.create_system == 3 and (info.external_attr >> 16) & 0o100:
            executables.add(path)
    _check_tree(files, folders)
    return files, executables


def _check_tree(files: dict[str, bytes], folders: set[str]) -> None:
    """No path may be a file and a folder at once (``x`` and ``x/y.py``, in either order):
    such a zip cannot be unpacked. Checked before the top folder is stripped, which cannot
    create a clash (every stripped path shared the same top folder)."""
    # Each file's folder and each declared folder, then every folder above them.
    lowest = folders | {path.rsplit("/", 1)[0] for path in files if "/" in path}
    for folder in sorted(lowest):
        parts = folder.split("/")
        for depth in range(1, len(parts) + 1):
            prefix = "/".join(parts[:depth])
            if prefix in files:
                raise UploadRejected(f"{prefix!r} is both a file and a folder in the zip")


def _at_root(files: dict[str, bytes]) -> tuple[dict[str, bytes], str]:
    """The files with the entry point at the root, and the folder prefix stripped ("" or
    "mybot/"): a zip of a folder ("mybot/main.py", ...) loses the one top folder all share."""
    if any(entry in files for entry in ENTRY_POINTS):
        return files, ""
    tops = {p.split("/", 1)[0] for p in files}
    if len(tops) == 1 and all("/" in p for p in files):
        top = tops.pop()
        stripped = {p.split("/", 1)[1]: c for p, c in files.items()}
        if any(entry in stripped for entry in ENTRY_POINTS):
            return stripped, f"{top}/"
        raise UploadRejected(
            f"the zip has no main.py, main or build.sh (not at its root, nor in {top}/)"
        )
    raise UploadRejected("the zip has no main.py, main or build.sh at its root")


def materialize(files: dict[str, bytes], dest: Path, executables: Iterable[str] = ()) -> None:
    """Write validated files under ``dest`` (which must not exist yet); files end read-only,
    ``main``, ``build.sh`` and ``executables`` read-only and executable."""
    runnable = {*executables, "main", BUILD_SCRIPT}
    dest = Path(dest)
    dest.mkdir(mode=0o755)  # raises if it exists: never write into someone else's tree
    for path, content in files.items():
        clean = _check_path(path)
        target = dest / clean
        target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as out:
            out.write(content)
        os.chmod(target, 0o555 if path in runnable else 0o444)
