"""The README's quickstart upload commands, run as written (a bash script cut from the README)
against a real gunicorn: the bot id comes from the API's answer, the port from PORT, and the
bot is the one the README's first step writes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.core.cache import cache

from bots.models import Bot, BotVersion
from tests.support.servers import ROOT, start_gunicorn, stop_process_group

README = ROOT / "README.md"


def quickstart_blocks() -> tuple[str, str]:
    """The bot of step 1 (the first python block) and the upload commands of step 3 (the
    shell block that uploads), with the README's list indentation removed."""
    text = README.read_text()
    section = text.split("## Bot author quickstart", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"\n( *)```(\w+)\n(.*?)\n\1```", section, re.S)
    python = next((pad, body) for pad, lang, body in blocks if lang == "python")
    upload = next((pad, body) for pad, lang, body in blocks if lang == "sh" and "versions/" in body)
    return _dedent(*python), _dedent(*upload)


def _dedent(pad: str, body: str) -> str:
    return "\n".join(line.removeprefix(pad) for line in body.splitlines())


@pytest.mark.skipif(shutil.which("curl") is None, reason="the README's commands use curl")
def test_the_readme_upload_commands_run_as_written(transactional_db, tmp_path: Path):
    cache.clear()  # the register throttle counts in the process-wide cache
    bot_source, commands = quickstart_blocks()
    assert "bots/1/" not in commands and "$PORT" in commands
    folder = tmp_path / "author"
    folder.mkdir()
    (folder / "mybot.py").write_text(bot_source + "\n")
    server = start_gunicorn(tmp_path, env={})
    try:
        # Someone else's bot first: bot 1 is not ours, as with the demo loaded.
        other = Bot.objects.create(owner=_someone(), name="demo-bot", game="pairs")
        # The README's way back to a token for an existing account, after its commands.
        again = re.search(r"`(curl [^`]*auth/token/[^`]*)`", README.read_text()).group(1)
        script = f'{commands}\necho\necho "$TOKEN"\n{again}'
        done = subprocess.run(
            ["bash", "-e", "-c", script], cwd=folder, capture_output=True, text=True,
            env={"PATH": "/usr/bin:/bin", "PORT": str(server.port)}, timeout=120,
        )  # fmt: skip
    finally:
        stop_process_group(server)
    assert done.returncode == 0, done.stderr
    *_, upload_answer, token, token_again = done.stdout.strip().splitlines()
    assert token == token_again and len(token) == 40
    answer = json.loads(upload_answer)
    assert answer["status"] == "pending" and answer["filename"] == "mybot.py", answer
    version = BotVersion.objects.select_related("bot__owner").get(pk=answer["id"])
    assert version.bot.name == "mybot" and version.bot.owner.username == "ada"
    assert version.bot.accepts_entries  # the documented default
    assert version.bot.pk != other.pk
    assert bytes(version.upload).decode() == bot_source + "\n"


def _someone():
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username="demo", password="a long password 7")
