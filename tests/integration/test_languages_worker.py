"""A C, a C++, a JavaScript and a Java bot, uploaded as their authors would zip them, each
validate on a real worker (the build step runs there once, in the sandbox) and play a
tournament; matches run the stored build on a cold cache and never build again. A bot whose
build fails is invalid with the compiler's own words, under the name it was uploaded as."""

from __future__ import annotations

import shutil

import pytest
from django.conf import settings
from django.db import connection

from bots.models import BuildArtifact
from tests.support.archives import zip_folder
from tests.support.servers import ROOT, wait_for
from tests.support.user_journey import register, upload, version_status

EXAMPLES = ROOT / "examples" / "bots"

pytestmark = [pytest.mark.integration]

EXAMPLE_BOTS = {"c-bot": "c_pairs", "cpp-bot": "cpp_pairs", "js-bot": "js_pairs",
                "java-bot": "java_pairs"}  # fmt: skip


@pytest.fixture(autouse=True)
def production_shape():
    if not settings.CELERY_BROKER_URL.startswith("redis://") or connection.vendor != "postgresql":
        pytest.skip("needs Redis and PostgreSQL (make test sets them)")
    missing = [tool for tool in ("gcc", "g++", "node", "javac") if not shutil.which(tool)]
    if missing:
        pytest.skip(f"missing {missing} (make system installs them)")


def test_bots_in_four_languages_validate_and_play_a_tournament(celery_worker_process, tmp_path):
    worker = celery_worker_process
    author = register("polyglot")
    bots, versions = {}, {}
    for name, folder in EXAMPLE_BOTS.items():
        bots[name], versions[name] = upload(
            author, name, f"{folder}.zip", zip_folder(EXAMPLES / folder)
        )
    broken = tmp_path / "broken"
    shutil.copytree(EXAMPLES / "c_pairs", broken)
    (broken / "main.c").write_text("int main(void) { return missing; }\n")
    _, broken_version = upload(author, "broken-c", "my-bot.zip", zip_folder(broken))

    for name, version in versions.items():
        verdict = wait_for(
            lambda v=version: version_status(author, v), 240, f"{name} to validate", worker
        )
        assert verdict["status"] == "active", (name, verdict["reason"])
    verdict = wait_for(lambda: version_status(author, broken_version), 240, "broken-c", worker)
    assert verdict["status"] == "invalid"
    assert verdict["reason"] == "my-bot.zip: build.sh failed with exit code 1", verdict
    # The compiler's output is the owner's to read (the author asks here).
    output = verdict["reason_detail"]
    assert "main.c:1:25: error:" in output and "undeclared" in output, verdict
    # C, C++ and Java were built once each; the JavaScript bot has no build step.
    assert BuildArtifact.objects.count() == 3

    # A cold cache: the matches must unpack the stored builds, not build again.
    shutil.rmtree(tmp_path / "bot-cache")
    response = author.post(
        "/api/tournaments/",
        {"name": "polyglot cup", "game": "pairs", "bots": list(bots.values()),
         "players_per_match": 2, "games_per_pairing": 1, "rotate_seats": False,
         "move_ms": 2000, "bank_ms": 20000},
        format="json",
    )  # fmt: skip
    assert response.status_code == 201, response.content
    tournament_id = response.json()["id"]

    def finished():
        body = author.get(f"/api/tournaments/{tournament_id}/").json()
        return body if body["status"] == "finished" else None

    body = wait_for(finished, 400, "the tournament to finish", worker, interval=0.25)
    assert body["progress"]["total"] == 6 and body["progress"]["finished"] == 6
    standings = {row["bot"]: row for row in body["standings"]}
    assert set(standings) == set(EXAMPLE_BOTS)
    assert all(row["played"] == 3 and row["faults"] == 0 for row in standings.values()), standings
    assert BuildArtifact.objects.count() == 3
