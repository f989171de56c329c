"""Runs setuid-root programs hoping to gain root; contained (no_new_privs, user namespace)."""

import os
import subprocess

import arena_sdk


def attack():
    candidates = []
    for folder in ("/usr/bin", "/usr/sbin", "/usr/lib"):
        for name in os.listdir(folder):
            path = os.path.join(folder, name)
            try:
                if os.stat(path).st_mode & 0o4000 and os.path.isfile(path):
                    candidates.append(path)
            except OSError:
                pass
    for path in candidates[:10]:
        try:
            out = subprocess.run([path, "--help"], capture_output=True, timeout=2)
        except (OSError, subprocess.SubprocessError):
            continue
        del out
    probe = subprocess.run(
        ["/usr/bin/python3", "-c", "import os; print(os.geteuid())"],
        capture_output=True,
        text=True,
        timeout=5,
    )
    if probe.stdout.strip() == "0":
        raise SystemExit("ESCAPED: euid 0")


def act(observation, legal):
    if not hasattr(act, "done"):
        act.done = True
        attack()
    return legal[0]


arena_sdk.run(act)
