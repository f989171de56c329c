"""A bot page showing a pending version follows its validation without a reload (htmx), at
1280 and 390 px, for its owner with a long username."""

from __future__ import annotations

import pytest

from bots import services as bot_services
from tests.support.builders import user
from tests.support.page_checks import NARROW, WIDE, check_page
from tests.support.rated_history import FIRST_LEGAL


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_a_pending_version_turns_active_on_the_open_page(
    page_at, live_server, transactional_db, width, quick_live_pages
):
    owner = user(name="msteacher_mathematics_department_stmarys_secondary")
    bot = bot_services.create_bot(
        owner=owner, name="student7_minimax_alphabeta_pruning", game="pairs"
    )
    version = bot_services.upload_version(bot=bot, filename="main.py", data=FIRST_LEGAL)
    page = page_at(width)
    page.goto(f"{live_server.url}/bots/{bot.pk}/")
    assert "pending" in page.locator("#versions").inner_text()
    assert "updates itself" in page.locator("#validating").inner_text()
    assert "none active" in page.locator("#current-version").inner_text()
    check_page(page, "bot-pending")
    bot_services.validate_version(version_id=version.pk)
    page.wait_for_selector("#validated", timeout=15000)
    assert "active" in page.locator("#versions").inner_text()
    assert page.locator("#current-version").inner_text().startswith("Current version: v1")
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1  # no reload
    check_page(page, "bot-validated")
