"""A bot page whose version waits for validation polls its versions table (htmx) and stops
once the validation has ended; the table's part is readable by anyone, as the page is."""

from __future__ import annotations

import pytest
from django.test import Client

from bots import services as bot_services
from tests.support.builders import user
from tests.support.rated_history import FIRST_LEGAL

# Committed as in production: the stored page moves with the commit of the verdict.
pytestmark = pytest.mark.django_db(transaction=True)


def test_the_versions_table_polls_while_validation_waits_and_then_stops():
    owner = user(name="msteacher_mathematics_department_stmarys_secondary")
    bot = bot_services.create_bot(owner=owner, name="student_minimax_v1", game="pairs")
    version = bot_services.upload_version(bot=bot, filename="main.py", data=FIRST_LEGAL)
    mine = Client()
    mine.force_login(owner)
    page = mine.get(f"/bots/{bot.pk}/").content.decode()
    live = f"/bots/{bot.pk}/versions/live/"
    assert f'hx-get="{live}"' in page and "htmx.min.js" in page
    assert "1 version waiting for its validation match" in page
    for client in (Client(), mine, _signed_in(user(name="another"))):
        part = client.get(live).content.decode()
        assert 'hx-trigger="every 3s"' in part and "pending" in part
    bot_services.validate_version(version_id=version.pk)
    for client in (Client(), mine, _signed_in(user(name="another"))):
        part = client.get(live).content.decode()
        assert "hx-trigger" not in part, client  # polling stops
        assert "Validation finished" in part and '<span class="status active">' in part
        assert 'id="current-version" hx-swap-oob="true">Current version: v1' in part
    page = Client().get(f"/bots/{bot.pk}/").content.decode()
    assert "hx-trigger" not in page and "htmx.min.js" not in page
    assert mine.get("/bots/999999/versions/live/").status_code == 404
    assert mine.post(live).status_code == 405


def _signed_in(someone) -> Client:
    client = Client()
    client.force_login(someone)
    return client
