"""Checks shared by the browser tests: sideways scrolling, accessibility, screenshots."""

from __future__ import annotations

import os
import re
from pathlib import Path

# Screenshots of every page a test visits, for a person to look at after changing a page:
# taken when ARENA_SCREENSHOTS names a folder. Unset (as in `make test`) none is taken: a
# full-page capture costs the browser a tenth of a second or more and asserts nothing.
SHOTS = Path(os.environ["ARENA_SCREENSHOTS"]) if os.environ.get("ARENA_SCREENSHOTS") else None
AXE = Path(__file__).parents[1] / "browser" / "vendor" / "axe.min.js"
NARROW, WIDE = 390, 1280


def screenshot(page, name: str) -> Path | None:
    """The whole page, as ``<name>-<width>.png`` in SHOTS."""
    width = page.viewport_size["width"]
    return keep_screenshot(page, f"{name}-{width}", full_page=True)


def keep_screenshot(target, name: str, *, full_page: bool = False) -> Path | None:
    """``target`` (a page, or a locator: then it must be visible either way) as
    ``<name>.png`` in SHOTS, if screenshots are asked for."""
    if SHOTS is None:
        if hasattr(target, "wait_for"):  # what the capture would have waited for
            target.wait_for(state="visible")
        return None
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '-', name)}.png"
    options = {"full_page": True} if full_page else {}
    target.screenshot(path=str(path), **options)
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
