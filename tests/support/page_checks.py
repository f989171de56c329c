"""Checks shared by the browser tests: sideways scrolling, accessibility, screenshots."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

# Screenshots of every page a test visits, kept for a person to look at (the standards ask
# for it): ARENA_SCREENSHOTS names the folder, else one temporary folder per test run.
SHOTS = Path(os.environ.get("ARENA_SCREENSHOTS") or tempfile.mkdtemp(prefix="arena-shots-"))
AXE = Path(__file__).parents[1] / "browser" / "vendor" / "axe.min.js"
NARROW, WIDE = 390, 1280


def screenshot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    width = page.viewport_size["width"]
    path = SHOTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '-', name)}-{width}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def follow(page, selector: str) -> None:
    """Click a link or submit button and wait until the page it leads to has loaded.

    A bare click returns once the request has started; reading the page then can see the old
    page or, mid-navigation, an empty document. Waiting for "a navigation" is not enough
    either: the replay viewer rewrites the old page's URL with history.replaceState, a
    same-document navigation that can land between the click and the new page's commit. So
    the old document is marked, and the wait is for a document without the mark that has
    finished loading.
    """
    page.evaluate("() => { window.__arenaLeaving = true; }")
    page.click(selector)
    page.wait_for_function("() => window.__arenaLeaving !== true")
    page.wait_for_load_state("load")


def assert_no_sideways_scroll(page) -> None:
    scroll, client = page.evaluate(
        "[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]"
    )
    assert scroll <= client, f"{page.url} scrolls sideways: {scroll} px wide in {client} px"


def serious_accessibility_violations(page) -> list[str]:
    """axe-core's serious and critical findings on the page as it is now."""
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def check_page(page, name: str) -> None:
    """Screenshot, no sideways scroll at 390 px, no serious accessibility finding, no
    script error."""
    screenshot(page, name)
    if page.viewport_size["width"] <= NARROW:
        assert_no_sideways_scroll(page)
    violations = serious_accessibility_violations(page)
    assert not violations, f"{page.url}: {violations}"
    errors = getattr(page, "script_errors", [])
    assert not errors, f"{page.url}: {errors}"
