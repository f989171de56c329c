"""The account's pages in Chromium at 1280 and 390 px: the bell and the inbox, where each
kind of event goes, a token shown once, a webhook added (its secret shown once) and its
page with the test button and the delivery log."""

from __future__ import annotations

import pytest

from arena.integrations.models import ApiToken, Notification, Webhook
from tests.support.page_checks import NARROW, WIDE, check_page, follow

PASSWORD = "a long password 1"


@pytest.fixture
def alice(transactional_db, django_user_model, settings):
    settings.ARENA_WEBHOOK_PRIVATE_ADDRESSES = True
    user = django_user_model.objects.create_user(username="alice", password=PASSWORD)
    Notification.objects.create(
        user=user, kind="version.refused", text="mybot@v3 was refused: it crashed at move 3",
        link="/bots/",
    )  # fmt: skip
    Notification.objects.create(
        user=user, kind="challenge.finished",
        text="Challenge 4 finished: mybot@v2 against rival: 14 wins, 2 draws, 4 losses, Elo +178",
    )  # fmt: skip
    return user


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_the_account_pages(page_at, live_server, alice, width):
    page = page_at(width)
    base = live_server.url
    page.goto(f"{base}/login/")
    page.fill("input[name=username]", "alice")
    page.fill("input[name=password]", PASSWORD)
    follow(page, "button[type=submit]")
    assert page.inner_text("#bell .badge") == "2"

    follow(page, "#bell")
    assert "it crashed at move 3" in page.inner_text("#notifications")
    check_page(page, "inbox")
    follow(page, "#mark-read")
    assert page.locator("#bell .badge").count() == 0

    page.goto(f"{base}/account/notifications/settings/")
    page.uncheck("input[name='challenge.finished:webhooks']")
    page.check("input[name='challenge.finished:email']")
    check_page(page, "notification-settings")
    follow(page, "button[type=submit]")
    assert page.is_checked("input[name='challenge.finished:email']")
    assert not page.is_checked("input[name='challenge.finished:webhooks']")

    page.goto(f"{base}/account/tokens/")
    page.fill("input[name=name]", "ci-upload")
    page.check("input[value=upload]")
    page.check("input[value=read]")
    page.fill("input[name=days]", "30")
    follow(page, "form.card button[type=submit]")
    key = page.inner_text("#new-key code")
    assert key.startswith("arena_") and ApiToken.objects.get().prefix in key
    check_page(page, "tokens")
    page.reload()
    assert page.locator("#new-key").count() == 0  # shown once
    assert ApiToken.objects.count() == 1

    page.goto(f"{base}/account/webhooks/")
    page.fill("input[name=url]", "http://127.0.0.1:9/hook")
    page.select_option("select[name=format]", "discord")
    follow(page, "form.card button[type=submit]")
    assert page.inner_text("#new-secret code") == Webhook.objects.get().secret
    check_page(page, "webhooks")
    page.reload()
    assert page.locator("#new-secret").count() == 0
    follow(page, "#webhook-rows a")
    follow(page, "#send-test")
    assert "webhook.test" in page.inner_text("#deliveries")
    check_page(page, "webhook")
