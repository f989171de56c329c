"""Optional C modules, compiled beside their source on first use.

An engine or adapter that has a C version of a hot loop keeps a pure-Python one that
gives exactly the same results; ``NativeModule(source, name, fallback).load()`` gives
the compiled module, or None where there is no C compiler or the build fails (the
caller then uses its Python code, and the reason is printed once on stderr).

The build is named after the source's digest: a process that loaded an older build
keeps it, a changed source is rebuilt on its next use, and builds of older sources are
removed. It is atomic (compiled in a temporary folder, then renamed into place), so
processes starting together may all build it harmlessly. ``build_all()`` builds every
module listed in ``MODULES`` that has no build yet (``make setup`` runs it; the Docker
image rebuilds them all), so that servers and workers never compile at their first match.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

GAMES = Path(__file__).resolve().parent


class NativeModule:
    """The C module compiled from ``source`` (a ``.c`` file whose module is ``name``, and
    which exports ``SOURCE``, the ``SOURCE_DIGEST`` it was compiled with); ``fallback``
    says what its user does without it; ``switch``, an environment variable that, when
    set, asks for that fallback even where the module is built (``chosen``)."""

    def __init__(self, source: Path, name: str, fallback: str, switch: str | None = None) -> None:
        self.source = source
        self.name = name
        self.fallback = fallback
        self.switch = switch
        self._module: ModuleType | None = None
        self._tried = False

    def digest(self) -> str:
        return hashlib.sha256(self.source.read_bytes()).hexdigest()[:16]

    def target(self) -> Path:
        # The source's digest in the file name: a process that loaded an older build keeps
        # it, and a rebuild never needs to reload a module under a name already loaded.
        # The import system's own suffix, not sysconfig's: reading sysconfig loads its
        # generated data module, and the archive verifier promises the standard library only.
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        return self.source.with_name(f"{self.source.stem}-{self.digest()}{suffix}")

    def build(self) -> Path:
        """Compile the source next to it (atomically: parallel builds are harmless), and
        remove the builds of older sources."""
        # Imported here: every process imports this module (games.rng), few build.
        import shutil
        import subprocess
        import sysconfig
        import tempfile

        compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
        if compiler is None:
            raise RuntimeError("no C compiler (cc or gcc) on PATH")
        target = self.target()
        folder = self.source.parent
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            built = Path(tmp) / target.name
            command = [
                compiler,
                "-O2",
                "-shared",
                "-fPIC",
                f'-DSOURCE_DIGEST="{self.digest()}"',
                f"-I{sysconfig.get_paths()['include']}",
                str(self.source),
                "-o",
                str(built),
                "-lm",
            ]
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"compiling {self.source.name} failed:\n{done.stderr}")
            os.replace(built, target)
        for old in folder.glob(f"{self.source.stem}-*"):
            if old != target:
                old.unlink(missing_ok=True)
        return target

    def load(self) -> ModuleType | None:
        """The C module, built when this source has no build yet; None where it cannot be."""
        if self._tried:
            return self._module
        self._tried = True
        try:
            target = self.target()
            if not target.exists():
                self.build()
            spec = importlib.util.spec_from_file_location(self.name, target)
            loaded = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(loaded)
            self._module = loaded if loaded.SOURCE == self.digest() else None
        except (OSError, RuntimeError, ImportError) as error:
            print(f"{self.name}: using {self.fallback} ({error})", file=sys.stderr)
            self._module = None
        return self._module

    def chosen(self) -> ModuleType | None:
        """``load()``, or None where the environment's ``switch`` asks for the fallback."""
        if self.switch and os.environ.get(self.switch):
            return None
        return self.load()

    def ensure(self, rebuild: bool = False) -> Path | None:
        """The build, made if missing (or anyway); None, with the reason on stderr, where it
        cannot be."""
        try:
            target = self.target()
            return target if target.exists() and not rebuild else self.build()
        except (OSError, RuntimeError) as error:
            print(
                f"{self.name}: not built, {self.fallback} will be used ({error})", file=sys.stderr
            )
            return None


# Every C module in games/, by the module that uses it.
RNG = NativeModule(GAMES / "_rng.c", "games._rng", "the Python generator", "ARENA_PYTHON_RNG")
ENCODE = NativeModule(
    GAMES / "adapters" / "_encode.c", "games.adapters._encode", "the Python encoder"
)
MOVES = NativeModule(
    GAMES / "_moves.c", "games._moves", "the Python move check", "ARENA_PYTHON_MOVES"
)
VENTURE = NativeModule(
    GAMES / "pairs" / "_venture.c",
    "games.pairs._venture",
    "the Python fire",
    "ARENA_PYTHON_VENTURE",
)
MODULES = (RNG, ENCODE, MOVES, VENTURE)


def build_all(rebuild: bool = False) -> None:
    """Build every module of ``MODULES`` that has no build yet (or every one), saying which."""
    for native in MODULES:
        built = native.ensure(rebuild=rebuild)
        if built is not None:
            print(f"{native.name}: {built.name}")
