"""The languages the sandbox offers, and how a bot's entry point names one.

A bot's folder holds ``main.py`` (run with the system python3), or an executable ``main``:
an x86-64 ELF binary, or a script whose ``#!`` line names an interpreter of an offered
language (``#!/usr/bin/env node``, ``#!/bin/sh``). The operator chooses the languages with
``ARENA_LANGUAGES`` (comma-separated names from :data:`LANGUAGES`; default: all of them);
a language's Debian packages must be installed on every worker (``make system`` and the
Dockerfile install them). The shell (``/bin/sh``, ``bash``) is always offered: build steps
and wrapper scripts (a Java bot's ``main``) need it.

The sandbox binds the host's ``/usr`` read-only as a whole;
what a language adds are the few host paths outside ``/usr`` its tools need: Debian's
``/etc/alternatives`` links (``java``, ``cc``, ``nodejs``) and OpenJDK's ``/etc/java-*``
configuration, bound read-only only while that language is offered. The setting decides
which uploads are accepted; it is not a security boundary (a native binary may exec any
program under ``/usr``, in the same sandbox).

Standard library only: this module is part of ``bots.sandbox`` and imports no Django.
"""

from __future__ import annotations

import glob
import os
import shlex
from dataclasses import dataclass, field

ELF_MAGIC = b"\x7fELF"
EM_X86_64 = 62


@dataclass(frozen=True)
class Language:
    name: str  # as in ARENA_LANGUAGES
    title: str
    interpreters: tuple[str, ...] = ()  # names a #! line may give (directly or via env)
    tools: tuple[str, ...] = ()  # programs a worker must have for the language to work
    etc: tuple[str, ...] = ()  # host paths (globs) outside /usr bound read-only at the same place
    packages: tuple[str, ...] = ()  # the Debian packages that bring it
    env: dict[str, str] = field(default_factory=dict)  # added to the sandbox's environment


# The JVM sizes its heap, GC and JIT threads from the machine, not from the sandbox: on a
# many-core worker it would start more threads than the sandbox's task limit allows, and its
# default heap is a quarter of the machine's memory. These defaults fit a small bot in the
# default limits (256 MB, 32 tasks); a bot's own flags on its command line come later and win.
JAVA_OPTIONS = (
    "-XX:+UseSerialGC -XX:ActiveProcessorCount=1 -XX:CICompilerCount=2 -Xss512k -Xmx128m "
    "-XX:ReservedCodeCacheSize=32m -XX:MaxMetaspaceSize=64m"
)

LANGUAGES: dict[str, Language] = {
    lang.name: lang
    for lang in (
        Language("python", "Python 3", ("python3", "python3.11", "python"),
                 ("/usr/bin/python3",), (), ("python3",)),
        Language("c", "C (gcc)", (), ("/usr/bin/gcc",), ("/etc/alternatives",),
                 ("gcc", "libc6-dev")),
        Language("cpp", "C++ (g++)", (), ("/usr/bin/g++",), ("/etc/alternatives",), ("g++",)),
        Language("javascript", "JavaScript (Node.js)", ("node", "nodejs"), ("/usr/bin/node",),
                 ("/etc/alternatives",), ("nodejs",), {"NODE_PATH": "/sdk"}),
        Language("java", "Java (OpenJDK)", ("java",), ("/usr/bin/java", "/usr/bin/javac"),
                 ("/etc/alternatives", "/etc/java-*-openjdk"), ("openjdk-17-jdk-headless",),
                 {"JAVA_TOOL_OPTIONS": JAVA_OPTIONS}),
    )
}  # fmt: skip
SHELLS = ("sh", "bash", "dash")
DEFAULT = ",".join(LANGUAGES)


class EntryRefused(ValueError):
    """The entry point cannot run here; the message says why, naming the file."""


def configured(value: str | None = None) -> list[Language]:
    """The offered languages, from ``value`` or ARENA_LANGUAGES (default: all)."""
    text = value if value is not None else os.environ.get("ARENA_LANGUAGES", DEFAULT)
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in LANGUAGES]
    if unknown:
        known = ", ".join(LANGUAGES)
        raise ValueError(f"ARENA_LANGUAGES names unknown languages {unknown}; known: {known}")
    return [LANGUAGES[n] for n in names]


def offered_names() -> list[str]:
    return [lang.name for lang in configured()]


def sandbox_binds() -> list[str]:
    """Extra read-only binds for the offered languages: existing host paths, once each."""
    paths: list[str] = []
    for lang in configured():
        for pattern in lang.etc:
            for path in sorted(glob.glob(pattern)):
                if path not in paths and os.path.isdir(path):
                    paths.append(path)
    return paths


def sandbox_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for lang in configured():
        env.update(lang.env)
    return env


def describe_entry(content: bytes, name: str = "main") -> str:
    """Which language runs ``content`` as an entry point: "native" for an x86-64 ELF, the
    language of a script's interpreter, or "shell". Raises EntryRefused naming ``name``."""
    offered = configured()
    if content.startswith(ELF_MAGIC):
        if (
            len(content) < 20
            or content[4] != 2
            or int.from_bytes(content[18:20], "little") != EM_X86_64
        ):
            raise EntryRefused(f"{name}: an ELF binary for another machine (x86-64 64-bit only)")
        if not any(lang.name in ("c", "cpp") for lang in offered):
            raise EntryRefused(f"{name}: this arena does not run native binaries (no C or C++)")
        return "native"
    if not content.startswith(b"#!"):
        raise EntryRefused(
            f"{name}: neither an ELF binary nor a script starting with #! "
            "(e.g. #!/usr/bin/env node)"
        )
    interpreter = shebang_interpreter(content, name)
    if interpreter in SHELLS:
        return "shell"
    for lang in offered:
        if interpreter in lang.interpreters:
            return lang.name
    choices = sorted({i for lang in offered for i in lang.interpreters} | set(SHELLS))
    raise EntryRefused(
        f"{name}: its #! line names {interpreter!r}, which this arena does not offer "
        f"(offered: {', '.join(choices)})"
    )


def shebang_interpreter(content: bytes, name: str = "main") -> str:
    """The interpreter's name from a ``#!`` line: ``node`` for ``#!/usr/bin/env node`` and for
    ``#!/usr/bin/node``. Only system paths (/usr, /bin) can exist in the sandbox."""
    line = content.split(b"\n", 1)[0][2:].rstrip(b"\r")
    try:
        words = shlex.split(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise EntryRefused(f"{name}: its #! line cannot be read") from None
    if not words:
        raise EntryRefused(f"{name}: its #! line names no interpreter")
    program = words[0]
    if not program.startswith(("/usr/", "/bin/")):
        raise EntryRefused(
            f"{name}: its #! line names {program!r}; only programs under /usr or /bin exist "
            "in the sandbox"
        )
    if os.path.basename(program) == "env":
        rest = [w for w in words[1:] if not w.startswith("-")]
        if len(rest) != len(words) - 1 or not rest:
            raise EntryRefused(f"{name}: use '#!/usr/bin/env <interpreter>' without options")
        return os.path.basename(rest[0])
    return os.path.basename(program)


def is_elf(content: bytes) -> bool:
    return content.startswith(ELF_MAGIC)
