"""Compiles uploaded Python in a child process under memory and CPU caps.

``compile()`` runs CPython's parser on whatever an uploader sends, and the parser's
cost is the uploader's to choose: a megabyte of nested comparisons can take seconds of CPU
and hundreds of megabytes in the web process. The child pays that cost instead, under rlimits, and answers
with the first refusal. Nothing is executed: only compiled. Standard library only, so
the child starts in a few milliseconds with ``-I -S``.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

MEMORY_BYTES = 512 << 20  # the child's address space
CPU_SECONDS = 10
WALL_SECONDS = 30  # a child starved of CPU on a busy machine still gets its 10 s
PROJECT_ROOT = Path(__file__).resolve().parent.parent
_CHILD = "import sys; sys.path.insert(0, sys.argv[1]); from bots.compilecheck import serve; serve()"


def first_refusal(sources: dict[str, bytes]) -> str | None:
    """Compile every source (path -> bytes) in one bounded child; the first refusal's
    reason, as a person can read it, or None when all of them compile."""
    if not sources:
        return None
    # latin-1 maps every byte to one character: the bytes cross JSON unchanged.
    payload = json.dumps({path: data.decode("latin-1") for path, data in sources.items()})
    try:
        child = subprocess.run(
            [sys.executable, "-I", "-S", "-c", _CHILD, str(PROJECT_ROOT)],
            input=payload.encode(),
            capture_output=True,
            timeout=WALL_SECONDS,
        )
    except subprocess.TimeoutExpired:
        return f"compiling the upload's Python took more than {WALL_SECONDS} s"
    if child.returncode != 0:  # killed at a cap (SIGXCPU, SIGKILL) or out of memory
        return (
            f"compiling the upload's Python needs more than {CPU_SECONDS} s of CPU "
            f"or {MEMORY_BYTES >> 20} MB"
        )
    answer = json.loads(child.stdout or b"{}")
    return answer.get("refusal")


def compile_refusal(path: str, content: bytes) -> str | None:
    """Why ``content`` cannot be run as Python, or None: "main.py: SyntaxError line 3: ..."."""
    try:
        source = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return f"{path}: not UTF-8 text (byte {exc.start})"
    try:
        compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = f" line {exc.lineno}" if exc.lineno else ""
        return f"{path}: {type(exc).__name__}{where}: {exc.msg}"
    except (RecursionError, MemoryError):
        # A few KB of nested expressions exhaust the compiler's recursion limit, a longer
        # run the parser's stack or the child's memory cap: such a file cannot be run.
        return f"{path}: too deeply nested to compile"
    except Exception as exc:  # noqa: BLE001 - ValueError (NUL bytes), OverflowError, ...
        # compile() is fed anything an uploader likes: whatever it raises is a refusal.
        return f"{path}: cannot be compiled: {exc}"
    return None


def serve() -> None:
    """The child's side: caps first, then compile what stdin holds, answer on stdout."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    sources = json.loads(sys.stdin.buffer.read())
    refusal = None
    for path, text in sources.items():
        refusal = compile_refusal(path, text.encode("latin-1"))
        if refusal:
            break
    sys.stdout.write(json.dumps({"refusal": refusal}))
