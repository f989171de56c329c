from __future__ import annotations

import os
import shutil
import threading

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def live_server_requests() -> list[threading.Thread]:
    """The live server's threads still answering a request (socketserver starts one per
    connection, named after its target). A page's polling request can outlive the page:
    the database's flush after the test must wait for it, or the request's transaction
    and the flush's TRUNCATE can deadlock."""
    return [t for t in threading.enumerate() if "process_request_thread" in t.name]


@pytest.fixture(autouse=True)
def live_server_idle_at_teardown(request):
    """Torn down after the test's pages close (``page_at``, set up after it) and before
    the live server's database is flushed (``transactional_db``, set up before it)."""
    serving = "live_server" in request.fixturenames
    if serving:
        request.getfixturevalue("transactional_db")
    yield
    if serving:
        for thread in live_server_requests():
            thread.join(30)
            assert not thread.is_alive(), "the live server still answers a request 30 s on"


# How often the live pages poll in the tests that watch one change (``quick_live_pages``):
# each change would wait for the product's next poll, 2-6 s. Not for every test: a poll
# replacing the live part while the accessibility check reads the page can show it a
# table between its swap and its marking (arena/dashboard/static/arena/site.js). The
# operations page, which prints its interval, is set by its own test.
TEST_POLL_SECONDS = 0.25


@pytest.fixture
def quick_live_pages(monkeypatch):
    """The tournament, ladder, competition, challenge and bot pages poll every
    TEST_POLL_SECONDS."""
    from arena.dashboard import tournament_page
    from arena.dashboard.views import bots, challenges

    monkeypatch.setattr(tournament_page, "POLL_SECONDS", TEST_POLL_SECONDS)
    monkeypatch.setattr(challenges, "POLL_SECONDS", TEST_POLL_SECONDS)
    monkeypatch.setattr(bots, "VERSIONS_POLL_SECONDS", TEST_POLL_SECONDS)


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail("Chromium is missing: `make test` installs it (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop; Django's async-safety check
    # would refuse ORM calls made from the test body beside it.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def page_at(browser):
    """A page of the given width; it fails the test on any script error the page logs."""
    contexts = []

    def make(width: int, height: int = 900):
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        page = context.new_page()
        page.script_errors = []
        page.on("pageerror", lambda error: page.script_errors.append(str(error)))
        return page

    yield make
    for context in contexts:
        context.close()
