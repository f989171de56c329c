"""Unprivileged uids for concurrent sandboxes, and staging a bot's files where they can read them.

RLIMIT_NPROC counts processes per real uid and root ignores it, so each concurrently
running bot gets its own uid from a pool (``SLOT_UID_BASE`` ... ``+ SLOT_COUNT``), held
with an ``flock`` on a root-only lock file so that several worker processes on one machine
never hand out the same uid. A worker that is not root runs every bot under its own uid
(the pool needs CAP_SETUID); :func:`describe` says so in the worker's log.
"""

from __future__ import annotations

import fcntl
import os
import random
import shutil
import signal
import stat
import tempfile
import time
from pathlib import Path

SLOT_UID_BASE = int(os.environ.get("ARENA_SLOT_UID_BASE", "61000"))
SLOT_COUNT = int(os.environ.get("ARENA_SLOT_COUNT", "256"))
STATE_DIR = Path(os.environ.get("ARENA_SANDBOX_DIR", "/tmp/arena-sandbox"))


class SlotsExhausted(RuntimeError):
    pass


class BotTooLarge(ValueError):
    """The bot's files exceed MAX_STAGED_BYTES (uploads are capped far below)."""


def private_dir(path: Path, mode: int) -> Path:
    """Create ``path`` (ours, not a symlink) or refuse: a planted symlink must not redirect us."""
    try:
        path.mkdir(mode=mode)
    except FileExistsError:
        pass
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise RuntimeError(f"{path} is not a directory owned by this user; refusing to use it")
    os.chmod(path, mode)
    return path


def can_switch_uid() -> bool:
    return os.geteuid() == 0


class Slot:
    """A uid held for one sandbox; ``release`` after every process of it is gone."""

    def __init__(self, uid: int | None, fd: int | None):
        self.uid = uid
        self._fd = fd

    def release(self) -> None:
        """Only once every process of the uid is gone: the lock file is marked clean."""
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            os.close(self._fd)  # closing drops the flock
            self._fd = None


def acquire() -> Slot:
    if not can_switch_uid():
        return Slot(None, None)
    lock_dir = private_dir(STATE_DIR, 0o711) / "slots"
    private_dir(lock_dir, 0o700)
    start = random.randrange(SLOT_COUNT)
    for i in range(SLOT_COUNT):
        uid = SLOT_UID_BASE + (start + i) % SLOT_COUNT
        fd = os.open(
            lock_dir / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600
        )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        # A lock file still marked "in use" was left by a worker that died hard: its
        # processes may still run (a /proc scan costs ms, so only then).
        if os.pread(fd, 8, 0) == b"in use" and uid_processes(uid):
            kill_uid(uid)
        os.pwrite(fd, b"in use", 0)
        return Slot(uid, fd)
    raise SlotsExhausted(f"all {SLOT_COUNT} sandbox uids are busy")


def reclaim_unheld() -> int:
    """Kill the processes of every sandbox uid whose slot no sandbox holds: a dead worker
    left them (bots/sandbox/orphans.py); how many processes there were. Each slot is locked
    meanwhile, so no launch takes it before they are gone."""
    if not can_switch_uid():
        return 0
    by_uid: dict[int, int] = {}
    for pid in all_slot_processes():
        try:
            uid = os.stat(f"/proc/{pid}").st_uid
        except OSError:
            continue
        by_uid[uid] = by_uid.get(uid, 0) + 1
    if not by_uid:
        return 0
    lock_dir = private_dir(private_dir(STATE_DIR, 0o711) / "slots", 0o700)
    ended = 0
    for uid, count in sorted(by_uid.items()):
        fd = os.open(
            lock_dir / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600
        )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue  # a live sandbox's
        try:
            if uid_processes(uid) and kill_uid(uid):
                os.ftruncate(fd, 0)
                ended += count
        finally:
            os.close(fd)
    return ended


def held(uid: int) -> bool:
    """Whether a sandbox (of any worker process on the machine) holds the slot of ``uid``."""
    try:
        fd = os.open(STATE_DIR / "slots" / str(uid), os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def uid_processes(uid: int | range) -> list[int]:
    """Live (not zombie) pids whose real uid is ``uid`` (or in that range), from /proc."""
    uids = uid if isinstance(uid, range) else range(uid, uid + 1)
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", "rb") as handle:
                for line in handle:
                    if line.startswith(b"State:") and b"Z" in line:
                        break
                    if line.startswith(b"Uid:"):
                        if int(line.split()[1]) in uids:
                            found.append(int(entry))
                        break
        except OSError:
            continue
    return found


def kill_uid(uid: int, timeout: float = 3.0) -> bool:
    """SIGKILL every process of ``uid``: a forked helper takes that uid and calls kill(-1),
    which the kernel applies atomically to every process it may signal (isolate does the same).
    """
    deadline = time.monotonic() + timeout
    while True:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            try:
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
                os.kill(-1, signal.SIGKILL)
            except BaseException:
                pass
            os._exit(0)
        os.waitpid(pid, 0)
        if not uid_processes(uid):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)


# -- staging ------------------------------------------------------------------------------

MAX_STAGED_BYTES = 64 << 20


# A staged folder is "in use" while a descriptor of it holds an flock: its owner's, or a
# forked child's copy of it. A process that dies, however it dies, drops the lock with its
# descriptors. A sweeper removes a folder only when nobody holds it and the process named in
# it (bot-<pid>-...) is gone: the lock covers a pid reused or seen from another pid
# namespace, the pid covers a process that stages without locking (an older release).
_HELD: dict[str, int] = {}  # staged folder -> the descriptor holding its lock


def _hold(path: Path) -> int | None:
    """Lock our fresh folder; None if a sweeper took and removed it before we could."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        same = os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        same = False
    if not same:
        os.close(fd)
        return None
    _HELD[str(path)] = fd
    return fd


def stage(src: Path) -> Path:
    """Copy a bot's regular files into a fresh world-readable, read-only directory.

    The sandbox runs as a slot uid that cannot read the worker's private directories
    (pytest's tmp dirs, the media root). Symlinks and special files are skipped, never
    followed: the source may have been written by someone else. Each call first sweeps
    the folders of processes that died without cleaning up (a pool child killed mid-match).
    """
    if not Path(src).is_dir():
        raise FileNotFoundError(f"bot directory {src} does not exist")
    base = private_dir(STATE_DIR, 0o711) / "stage"
    private_dir(base, 0o711)
    sweep_stages(base)
    for _attempt in range(5):  # a sweeper can only take a folder in the instant before _hold
        dest = Path(tempfile.mkdtemp(prefix=f"bot-{os.getpid()}-", dir=base))
        if _hold(dest) is not None:
            break
    else:
        raise RuntimeError(f"could not keep a staging folder in {base}")
    total = 0
    src = Path(src)
    for root, dirs, files in os.walk(src, followlinks=False):
        rel = Path(root).relative_to(src)
        for name in dirs:
            if not os.path.islink(Path(root) / name):
                (dest / rel / name).mkdir(mode=0o755, exist_ok=True)
        for name in files:
            path = Path(root) / name
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode):
                continue
            total += info.st_size
            if total > MAX_STAGED_BYTES:
                unstage(dest)
                raise BotTooLarge(f"bot directory {src} is larger than {MAX_STAGED_BYTES} bytes")
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as handle, open(dest / rel / name, "wb") as out:
                shutil.copyfileobj(handle, out)
            # Executable stays executable (a native bot's main): nobody may write either way.
            os.chmod(dest / rel / name, 0o555 if info.st_mode & 0o100 else 0o444)
    for root, dirs, _files in os.walk(dest):
        for name in dirs:
            os.chmod(Path(root) / name, 0o555)
    os.chmod(dest, 0o555)
    return dest


_DEAD_OWNER_SEEN = False


def dead_owner_seen() -> bool:
    """Whether a sweep removed a staged folder of a process that died since the last call:
    a worker process died without closing its sandboxes (bots/sandbox/orphans.py)."""
    global _DEAD_OWNER_SEEN
    seen, _DEAD_OWNER_SEEN = _DEAD_OWNER_SEEN, False
    return seen


def sweep_stages(base: Path | None = None) -> list[Path]:
    """Remove staged folders nobody holds any more; the ones removed. Cheap enough to run at
    every staging: a listing, then an open and a failing flock per other live sandbox."""
    global _DEAD_OWNER_SEEN
    base = base or STATE_DIR / "stage"
    removed = []
    try:
        names = [e.name for e in os.scandir(base) if e.name.startswith("bot-")]
    except FileNotFoundError:
        return removed
    for name in names:
        path = os.path.join(base, name)
        if path in _HELD:
            continue
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:  # gone meanwhile, or not a directory we made
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # Its owner is gone, and it is still the folder we locked (another sweeper may
            # have removed it between our listing and our lock)?
            if (
                owner_gone(name)
                and os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
            ):
                _remove_tree(Path(path))
                removed.append(Path(path))
                _DEAD_OWNER_SEEN = True
        except (BlockingIOError, FileNotFoundError):
            pass  # in use, or already gone
        finally:
            os.close(fd)
    return removed


def owner_gone(name: str) -> bool:
    """Whether the process that named ``bot-<pid>-...`` has exited (or is a zombie: its
    descriptors are closed, and the pool that forked it has not reaped it yet)."""
    try:
        pid = int(name.split("-")[1])
    except (IndexError, ValueError):
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except FileNotFoundError:
        return True
    except (OSError, IndexError):
        return False


def unstage(path: Path) -> None:
    """Remove a staged folder (or any read-only tree we wrote) and drop its lock."""
    try:
        _remove_tree(path)
    finally:
        fd = _HELD.pop(str(path), None)
        if fd is not None:
            os.close(fd)


def _remove_tree(path: Path) -> None:
    def writable(func, p, _exc):
        os.chmod(os.path.dirname(p), 0o755)
        func(p)

    for root, dirs, _files in os.walk(path):
        os.chmod(root, 0o755)
        for name in dirs:
            os.chmod(Path(root) / name, 0o755)
    shutil.rmtree(path, onerror=writable)


def all_slot_processes() -> list[int]:
    return uid_processes(range(SLOT_UID_BASE, SLOT_UID_BASE + SLOT_COUNT))


def describe() -> str:
    if can_switch_uid():
        return f"one uid per sandbox from {SLOT_UID_BASE}-{SLOT_UID_BASE + SLOT_COUNT - 1}"
    return f"every sandbox runs as the worker's uid {os.geteuid()} (not root: no uid per sandbox)"
