"""Item 14: one switch for an HTTPS deployment; `manage.py check --deploy` is then clean."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION = {
    "SECRET_KEY": "a-production-key-" + "x7Qp2Lm9Rt4Vb8Nc1Zd6Hf3Jk5Wy0Gs" * 2,
    "ALLOWED_HOSTS": "arena.example.org",
    "DEBUG": "0",
    "CACHE_URL": "redis://127.0.0.1:6379/4",  # not contacted by the checks
}


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    # Only what runs Python: the checks judge the environment too (for instance
    # DJANGO_ALLOW_ASYNC_UNSAFE, which the browser tests set in this process).
    full_env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    full_env.update(PRODUCTION, ARENA_VAR_DIR=env.pop("ARENA_VAR_DIR"), **env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_deploy_check_is_clean_with_https_on(tmp_path):
    done = manage(
        "check", "--deploy", "--fail-level", "WARNING", ARENA_HTTPS="1", ARENA_VAR_DIR=str(tmp_path)
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    # The silenced checks are the HSTS preload reminder and axes' middleware, on purpose
    # (see the settings).
    assert "System check identified no issues (2 silenced)." in output, output

    opted_in = manage(
        "check", "--deploy", "--fail-level", "WARNING",
        ARENA_HTTPS="1", SECURE_HSTS_PRELOAD="1", ARENA_VAR_DIR=str(tmp_path),
    )  # fmt: skip
    assert "System check identified no issues (1 silenced)." in opted_in.stdout, opted_in.stderr


def test_deploy_check_warns_when_throttle_counts_are_per_process(tmp_path):
    done = manage(
        "check", "--deploy", "--fail-level", "WARNING",
        ARENA_HTTPS="1", CACHE_URL="", ARENA_VAR_DIR=str(tmp_path),
    )  # fmt: skip
    assert done.returncode != 0 and "arena.W001" in done.stderr, done.stderr


def test_deploy_check_warns_without_https(tmp_path):
    done = manage("check", "--deploy", "--fail-level", "WARNING", ARENA_VAR_DIR=str(tmp_path))
    assert done.returncode != 0
    for check in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert check in done.stderr, done.stderr


def test_https_switch_values(tmp_path):
    script = (
        "from django.conf import settings as s; "
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, "
        "s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_HSTS_PRELOAD, "
        "s.SECURE_PROXY_SSL_HEADER)"
    )
    on = manage("shell", "-c", script, ARENA_HTTPS="1", ARENA_VAR_DIR=str(tmp_path))
    assert on.stdout.strip().splitlines()[-1] == (
        "True True True 31536000 True False ('HTTP_X_FORWARDED_PROTO', 'https')"
    ), on.stderr
    tuned = manage(
        "shell", "-c", script,
        ARENA_HTTPS="1", SECURE_HSTS_SECONDS="600", SECURE_SSL_REDIRECT="0",
        ARENA_PROXY_SSL_HEADER="X-Scheme", ARENA_VAR_DIR=str(tmp_path),
    )  # fmt: skip
    assert tuned.stdout.strip().splitlines()[-1] == (
        "True True False 600 True False ('HTTP_X_SCHEME', 'https')"
    ), tuned.stderr
    off = manage("shell", "-c", script, ARENA_VAR_DIR=str(tmp_path))
    assert off.stdout.strip().splitlines()[-1] == "False False False 0 False False None", off.stderr
