"""What a bot lives under: the bounds of one sandboxed program, and their defaults.

The sandbox (bots/sandbox/jail.py, bots/sandbox/spawn.py) enforces the memory, process,
CPU, file and /tmp bounds; the player (bots/players.py, bots/wire.py) enforces the line,
output and start-up bounds on what the bot says.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

# Defaults a bot lives under; docs/bots.md repeats them.
MEMORY_MB = 256  # resident memory of the whole tree (cgroup) or data segment (RLIMIT_DATA)
PROCESSES = 32  # tasks: processes and threads together
CPU_SECONDS = 60  # CPU time per match, all threads and children
FILE_SIZE_MB = 8  # largest file it may write
TMPFS_MB = 16  # size of /tmp, its only writable place
TMPFS_INODES = 2048  # files, folders and links in /tmp (each costs kernel memory)
LINE_BYTES = 64 * 1024  # longest line it may write on stdout
OUTPUT_MB = 8  # all stdout of one match
OPEN_FILES = 64
START_MS = 5000  # from launch to "ready"


@dataclass(frozen=True)
class Limits:
    memory_mb: int = MEMORY_MB
    processes: int = PROCESSES
    cpu_seconds: int = CPU_SECONDS
    file_size_mb: int = FILE_SIZE_MB
    tmpfs_mb: int = TMPFS_MB
    tmpfs_inodes: int = TMPFS_INODES
    line_bytes: int = LINE_BYTES
    output_mb: int = OUTPUT_MB
    open_files: int = OPEN_FILES
    start_ms: int = START_MS

    def to_dict(self) -> dict:
        return asdict(self)
