"""A bot's build step: ``build.sh`` run once, in the sandbox, turning an upload into the tree
its matches run.

The build runs under the same sandbox as a match (bubblewrap, seccomp, its own uid, rlimits,
a cgroup where there is one) with limits of its own (:func:`build_limits`, settings
``ARENA_BUILD_*``). Inside, a small driver copies the read-only ``/bot`` to ``/tmp/build``
(the sandbox's only writable place, a bounded tmpfs), runs ``sh build.sh`` there with its
output as the build log, checks that ``main`` exists and sends the whole tree back as a zip
on its stdout. Nothing the build wrote is ever read from the host's disk: its tree crosses a
pipe and is checked like an upload (:func:`bots.validation.unzip_tree`, larger caps).

Where the tree lives afterwards is the caller's choice: the service stores the zip beside the
upload, keyed by the upload's SHA-256 (``bots.models.BuildArtifact``), so every worker runs
the same bytes and no match ever builds. ``manage.py play`` builds a local zip the same way.

Standard library and ``bots.sandbox`` only: no Django.
"""

from __future__ import annotations

import os
import select
import time
from dataclasses import dataclass

from bots import validation
from bots.sandbox import Limits, bot_python, launch
from bots.sandbox.languages import EntryRefused, describe_entry

# Defaults for the build's own limits (settings ARENA_BUILD_*; docs/languages.md).
BUILD_SECONDS = 120  # wall clock, and CPU time of the whole tree
BUILD_MEMORY_MB = 1024  # the whole tree, /tmp included (tmpfs pages are the tree's memory)
BUILD_TMP_MB = 256  # /tmp: the copied sources, the compiler's files, the result
BUILD_PROCESSES = 64  # gcc runs cc1, as, collect2, ld; javac starts a dozen threads
MAX_BUILT_BYTES = 32 << 20  # the built tree, unpacked
MAX_BUILT_ENTRIES = 4000
LOG_TAIL_CHARS = 4000  # kept from the build's output
LOG_KEEP_BYTES = 64 << 10  # read from the build's output (the rest is dropped, not stored)

# Runs inside the sandbox as the program: /bot is read-only, /tmp is the only writable place.
DRIVER = r"""
import os, shutil, stat, subprocess, sys, zipfile
work = "/tmp/build"
shutil.copytree("/bot", work, symlinks=True)
for root, dirs, files in os.walk(work):
    os.chmod(root, 0o755)
    for name in files:
        path = os.path.join(root, name)
        if not os.path.islink(path):
            os.chmod(path, os.stat(path).st_mode | 0o200)
sys.stderr.flush()
code = subprocess.call(["/bin/sh", "build.sh"], cwd=work, stdin=subprocess.DEVNULL,
                       stdout=2, stderr=2)
if code != 0:
    sys.exit(10 + min(code, 100) if code > 0 else 9)
main = os.path.join(work, "main")
if not os.path.isfile(main) or os.path.islink(main):
    sys.exit(8)
with zipfile.ZipFile(sys.stdout.buffer, "w", zipfile.ZIP_DEFLATED) as out:
    for root, dirs, files in os.walk(work):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode):
                continue
            entry = zipfile.ZipInfo(os.path.relpath(path, work), (1980, 1, 1, 0, 0, 0))
            entry.create_system = 3
            entry.external_attr = (stat.S_IFREG | (0o755 if info.st_mode & 0o100 else 0o644)) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            with open(path, "rb") as handle:
                out.writestr(entry, handle.read())
"""
NO_MAIN, BUILD_KILLED = 8, 9


@dataclass
class BuildResult:
    ok: bool
    archive: bytes  # the built tree as a zip ("" unless ok)
    log: str  # the tail of what build.sh wrote (its owner's only)
    reason: str  # why it failed, for anyone to read: never quotes the log ("" if ok)
    seconds: float


def build_limits(
    seconds: int = BUILD_SECONDS, memory_mb: int = BUILD_MEMORY_MB, tmp_mb: int = BUILD_TMP_MB
) -> Limits:
    return Limits(
        memory_mb=memory_mb, processes=BUILD_PROCESSES, cpu_seconds=seconds,
        file_size_mb=tmp_mb, tmpfs_mb=tmp_mb, tmpfs_inodes=32768, open_files=256,
    )  # fmt: skip


def build(
    source_dir: os.PathLike, *, limits: Limits | None = None, seconds: float = 0
) -> BuildResult:
    """Run ``build.sh`` of the tree in ``source_dir`` in the sandbox; the built tree or why not.

    Raises SandboxUnavailable when programs cannot be run safely here (the host's problem,
    not the bot's)."""
    limits = limits or build_limits()
    wall = seconds or limits.cpu_seconds
    began = time.monotonic()
    box = launch(source_dir, limits, [bot_python(), "-I", "-S", "-c", DRIVER])
    try:
        box.proc.stdin.close()
        out, log, timed_out, too_big = _collect(box, began + wall)
        code = box.wait(5) if not timed_out else None
        hit = box.limit_hit() if code not in (0, None) else None
    finally:
        box.close()
    took = time.monotonic() - began
    tail = _tail(log)

    def failed(reason: str) -> BuildResult:
        # The output is the build's log, its owner's only: the reason never quotes it.
        return BuildResult(False, b"", tail, reason, took)

    if timed_out:
        return failed(f"build.sh took more than {wall:g} s")
    if too_big:
        return failed(f"the built tree is larger than {MAX_BUILT_BYTES} bytes")
    if hit == "memory":
        return failed(f"build.sh exceeded the build's memory limit of {limits.memory_mb} MB")
    if hit == "cpu":
        return failed(f"build.sh exceeded the build's CPU limit of {limits.cpu_seconds} s")
    if hit == "processes":
        return failed(f"build.sh hit the build's limit of {limits.processes} processes/threads")
    if code == NO_MAIN:
        return failed("build.sh succeeded but left no file named main")
    if code is not None and code > 10:
        return failed(f"build.sh failed with exit code {code - 10}")
    if code != 0:
        return failed(f"build.sh was stopped (exit status {code})")
    try:
        files, _ = validation.unzip_tree(
            out, max_entries=MAX_BUILT_ENTRIES, max_unpacked=MAX_BUILT_BYTES
        )
        describe_entry(files["main"], "main (left by build.sh)")
    except (validation.UploadRejected, EntryRefused, KeyError) as exc:
        return failed(f"the built tree cannot run: {exc}")
    return BuildResult(True, out, tail, "", took)


def _collect(box, deadline: float) -> tuple[bytes, bytes, bool, bool]:
    """Read stdout (the tree) and stderr (the log) until both close or the deadline passes."""
    streams = {box.proc.stdout.fileno(): bytearray(), box.proc.stderr.fileno(): bytearray()}
    out_fd = box.proc.stdout.fileno()
    open_fds = set(streams)
    timed_out = too_big = False
    while open_fds:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select(list(open_fds), [], [], left)
        for fd in ready:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                open_fds.discard(fd)
                continue
            kept = streams[fd]
            kept += chunk
            if fd == out_fd and len(kept) > MAX_BUILT_BYTES:
                too_big = True
                open_fds.clear()
            elif fd != out_fd and len(kept) > LOG_KEEP_BYTES:
                del kept[: len(kept) - LOG_KEEP_BYTES]
    return bytes(streams[out_fd]), bytes(streams[box.proc.stderr.fileno()]), timed_out, too_big


def _tail(log: bytes) -> str:
    text = log.decode("utf-8", "replace").strip()
    if len(text) <= LOG_TAIL_CHARS:
        return text
    return "..." + text[-LOG_TAIL_CHARS:].split("\n", 1)[-1]
