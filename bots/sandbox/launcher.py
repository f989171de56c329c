"""The C launcher (bots/sandbox/launch.c): a sandbox's steps between fork and exec as a
small program, so that a worker starts bubblewrap with vfork instead of a fork of itself.

A fork of a worker (about 100 MiB resident) copies its page tables and write-protects its
memory, and the Python preexec then runs in the child: CPU paid by the worker and its child
for every sandbox, two sandboxes a match (bench/README.md has the figures). Python's subprocess uses vfork when no preexec function and no user or group are
given; the launcher then does those steps after the exec, as a program.

The launcher is compiled on first use with the machine's C compiler (gcc is installed
for the bots' C anyway) into the sandbox state folder, under a name holding a digest of
its source, so a changed source is never run stale and concurrent first uses agree;
without the C library where the compiler can (``FREESTANDING``), else with it. No
compiler, or a build that fails: the Python preexec (``describe`` says which).
``ARENA_SANDBOX_LAUNCHER=python`` keeps the preexec; a path names a launcher built
elsewhere (a read-only image).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from bots.sandbox import slots
from bots.sandbox.spawn import OOM_SCORE, abort, hard_limit

log = logging.getLogger("arena.sandbox")

SOURCE = Path(__file__).resolve().parent / "launch.c"
COMPILERS = ("cc", "gcc", "clang")
FLAGS = ("-O2", "-Wall", "-Wextra", "-Werror")
# No C library (x86-64; see launch.c): its start-up costs more than the launcher's own
# work. No stack protector, no calls the compiler would make to a library (memcpy and
# memset, which launch.c defines, aside). Elsewhere the build fails, or the build does not
# run (checked once), and FLAGS alone serve.
FREESTANDING = ("-DARENA_FREESTANDING", "-ffreestanding", "-nostdlib", "-static", "-fno-pie",
                "-no-pie", "-fno-stack-protector", "-fno-tree-loop-distribute-patterns")  # fmt: skip
_FOUND: dict[str, Path | None] = {}


def path() -> Path | None:
    """The launcher to start sandboxes with; None for the Python preexec. Built once per
    process (and per source version on the machine)."""
    setting = os.environ.get("ARENA_SANDBOX_LAUNCHER", "").strip()
    found = _FOUND.get(setting)
    # Looked for again if it went away: a /tmp cleaner may remove it under a long-lived
    # worker, whose every launch would then fail.
    if setting not in _FOUND or (found is not None and not os.access(found, os.X_OK)):
        _FOUND[setting] = found = _find(setting)
    return found


def describe() -> str:
    where = path()
    if where is None:
        return "launch: fork with a Python preexec (the C launcher is off or not built)"
    return f"launch: vfork and the C launcher ({where})"


def _find(setting: str) -> Path | None:
    if setting.lower() == "python":
        return None
    if setting:
        if not os.access(setting, os.X_OK):
            log.warning(
                "ARENA_SANDBOX_LAUNCHER=%s is not an executable; using the preexec", setting
            )
            return None
        return Path(setting)
    try:
        return _built()
    except (OSError, subprocess.SubprocessError, RuntimeError) as exc:
        log.warning("the sandbox launcher could not be built (%s); using the preexec", exc)
        return None


def _built() -> Path:
    source = SOURCE.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    folder = slots.private_dir(slots.private_dir(slots.STATE_DIR, 0o711) / "launcher", 0o755)
    target = folder / f"arena-launch-{digest}"
    if os.access(target, os.X_OK):
        return target
    compiler = next((found for name in COMPILERS if (found := shutil.which(name))), None)
    if compiler is None:
        raise RuntimeError("no C compiler (cc, gcc or clang) on PATH")
    handle, scratch = tempfile.mkstemp(dir=folder, prefix=".build-")
    os.close(handle)
    try:
        failure = ""
        for extra in (FREESTANDING, ()):  # without the C library where it can be
            command = [compiler, *FLAGS, *extra, "-o", scratch, str(SOURCE)]
            try:
                subprocess.run(command, check=True, capture_output=True, timeout=120)
            except subprocess.CalledProcessError as exc:
                failure = exc.stderr.decode(errors="replace").strip()[:500]
                continue
            if not extra or _runs(scratch):
                break
            failure = "the launcher built without the C library does not run here"
        else:
            raise RuntimeError(failure)
        os.chmod(scratch, 0o755)
        os.rename(scratch, target)  # atomic: a concurrent build of the same source agrees
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)
    return target


def _runs(built: str) -> bool:
    """Whether a fresh build starts a program (``true``) with no step failing."""
    os.chmod(built, 0o755)
    try:
        done = subprocess.run([built, str(os.getpid()), "2", "--", "true"],
                              capture_output=True, timeout=30, env={"PATH": "/usr/bin:/bin"})  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and not done.stderr


def argv(
    launcher: Path,
    report_fd: int,
    attach: list[str],
    rlimits: list[tuple[int, int]],
    uid: int | None,
    parent: int,
    scratch: tuple[bytes, bytes] | None,
) -> list[str]:
    """The launcher's command line, to put before the program's: the steps of
    ``spawn.preexec`` with the same arguments (each rlimit as ``spawn.hard_limit`` sets it)."""
    out = [str(launcher), str(parent), str(report_fd)]
    for procs in attach:
        out += ["cgroup", procs]
    out += ["oom", str(OOM_SCORE)]
    if scratch is not None:
        out += ["scratch", os.fsdecode(scratch[0]), os.fsdecode(scratch[1])]
    for which, value in rlimits:
        out += ["rlimit", str(which), str(value), str(hard_limit(which, value))]
    if uid is not None:
        out += ["uid", str(uid)]
    return [*out, "--"]


def check_report(proc: subprocess.Popen, report: int) -> None:
    """Wait for the launcher's exec of the program (end of file on its report pipe, which
    is close-on-exec there) and raise its failure as the host's: ``SubprocessError``, the
    same as a failing preexec. ``report`` is closed either way."""
    try:
        chunks = []
        while chunk := os.read(report, 4096):
            chunks.append(chunk)
    finally:
        os.close(report)
    if chunks:
        abort(proc)
        message = b"".join(chunks).decode(errors="replace").strip()
        raise subprocess.SubprocessError(f"the sandbox launcher failed: {message}")
