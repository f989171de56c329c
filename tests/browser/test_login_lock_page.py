"""The log-in pages once an account is locked at an address (item 10), in Chromium at 1280
and 390 px: the reason in the site's layout, and the admin's list of failed log-ins."""

from __future__ import annotations

import pytest

from tests.support.page_checks import NARROW, WIDE, check_page, follow, screenshot

PASSWORD = "a long password 1"
LOCKED = "Too many failed log-ins for this account from your address; try again in 60 minutes."


@pytest.fixture
def author(transactional_db, django_user_model, settings):
    settings.AXES_FAILURE_LIMIT = 3
    user = django_user_model.objects.create_user(username="author", password=PASSWORD)
    user.is_staff = user.is_superuser = True
    user.save()
    return user


def try_password(page, base: str, path: str, password: str) -> None:
    page.goto(f"{base}{path}")
    page.fill("input[name=username]", "author")
    page.fill("input[name=password]", password)
    follow(page, "[type=submit]")


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_a_locked_log_in_says_why_in_the_site_s_layout(page_at, live_server, author, width):
    page = page_at(width)
    for n in range(3):
        try_password(page, live_server.url, "/login/", f"guess {n}")
    try_password(page, live_server.url, "/login/", PASSWORD)
    assert LOCKED in page.locator("main").inner_text()
    check_page(page, "page-login-locked")

    try_password(page, live_server.url, "/admin/login/", PASSWORD)
    assert "Too many failed log-ins for this account from your address" in page.content()
    screenshot(page, "admin-login-locked")

    # An administrator elsewhere sees the failures in the admin.
    from django.contrib.auth import get_user_model

    root = get_user_model().objects.create_user(username="root", password=PASSWORD)
    root.is_staff = root.is_superuser = True
    root.save()
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("input[name=username]", "root")
    page.fill("input[name=password]", PASSWORD)
    follow(page, "[type=submit]")
    page.goto(f"{live_server.url}/admin/axes/accessattempt/")
    assert "author" in page.locator("#result_list").inner_text()
    screenshot(page, "admin-failed-log-ins")
