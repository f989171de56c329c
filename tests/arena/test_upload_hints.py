"""The upload forms name every kind of upload the server takes and link the page that says
how to make each; that page is the languages document, readable by anyone."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.support.builders import bot_with_version, user

pytestmark = pytest.mark.django_db


def test_both_upload_forms_name_every_kind_and_link_the_languages_page():
    bot, _ = bot_with_version(name="student_minimax")
    client = Client()
    client.force_login(bot.owner)
    for path in ("/bots/new/", f"/bots/{bot.pk}/upload/"):
        html = client.get(path).content.decode()
        field = html.split('name="file"')[1]
        text = re.sub(r"<[^>]+>", "", field[: field.index("</p>")])  # the file field's hint
        for kind in (".py", ".zip", "main.py", "main (C, C++", "build.sh"):
            assert kind in text, (path, kind)
        assert '<a href="/languages/">How to upload each kind</a>' in html


def test_the_languages_page_shows_the_document_without_dead_links():
    for client in (Client(), _signed_in()):
        answer = client.get("/languages/")
        assert answer.status_code == 200
        html = answer.content.decode()
        assert "Bots in other languages" in html and "<table" in html and "build.sh" in html
        assert not re.search(r'href="[^"]*\.md', html)  # other documents have no page here


def _signed_in() -> Client:
    client = Client()
    client.force_login(user(name="someone"))
    return client
