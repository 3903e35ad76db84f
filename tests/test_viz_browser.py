"""The viewer in a real headless Chromium (Debian's), driven by Playwright: no console errors, no request
leaves 127.0.0.1, and a newcomer's path works: runs list, filter, a run's graph path, an image crop, a diff.
Screenshots go to test-artifacts/viz/."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from playwright.sync_api import Browser, ConsoleMessage, Page, Request, sync_playwright

from judgegraph.backends import free_port
from judgegraph.viz import create_app
from tests.conftest import ROOT
from tests.viz_fixtures import build_store_sync, demo_requests

pytestmark = pytest.mark.browser
SHOTS = ROOT / "test-artifacts" / "viz"


@pytest.fixture(scope="module")
def viz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    path = tmp_path_factory.mktemp("vizb") / "runs.db"
    ids = build_store_sync(path)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(path), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the viewer did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", ids
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is not installed (make test installs it)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser: Browser, viz: tuple[str, dict[str, str]]) -> Iterator[Page]:
    base, _ = viz
    errors: list[str] = []
    outside: list[str] = []
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            errors.append(msg.text)

    def on_request(req: Request) -> None:
        if not req.url.startswith((base + "/", "data:")):
            outside.append(req.url)

    pg.on("console", on_console)
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("request", on_request)
    yield pg
    context.close()
    assert errors == [], f"console errors: {errors}"
    assert outside == [], f"requests that left 127.0.0.1: {outside}"


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_runs_list_filter_and_open_a_run(page: Page, viz: tuple[str, dict[str, str]]) -> None:
    base, ids = viz
    page.goto(base + "/")
    rows = page.locator("tr.run-row")
    assert rows.count() == len(ids) - 1
    assert "runs" in page.locator("#counts").inner_text()
    shot(page, "runs")
    with page.expect_navigation():
        page.select_option("select[name=correct]", "yes")  # filters apply as they change
    assert "correct=yes" in page.url
    assert rows.count() > 0 and all(t == "yes" for t in rows.locator("td:nth-child(7)").all_inner_texts())
    page.fill("input[name=q]", "image-ocr")
    with page.expect_navigation():
        page.click("button[type=submit]")
    assert rows.count() == 1
    with page.expect_navigation():
        page.click("a.run-link")
    assert page.url.endswith(f"/runs/{ids['image-ocr']}")
    (request,) = [r for r in demo_requests() if r.id == "image-ocr"]
    shown = page.locator(".candidate pre.text").all_inner_texts()
    assert shown == [c.content for c in request.candidates]  # every candidate's text, none an empty box
    visited = page.locator("#graph svg g.node.visited")
    taken = page.locator("#graph svg g.edge.taken")
    # the path this run took, highlighted: the evidence decided it, in one node
    assert sorted(visited.evaluate_all("els => els.map(e => e.id)")) == [
        "node-__end__",
        "node-__start__",
        "node-evidence",
    ]
    assert sorted(taken.evaluate_all("els => els.map(e => e.id)")) == [
        "edge-__start__-evidence",
        "edge-evidence-__end__",
    ]
    assert page.locator("#graph svg g.node:not(.visited)").count() >= 1  # and the nodes it did not visit
    assert "×" in (page.locator("#node-evidence").text_content() or "")  # visit counts on the nodes
    assert page.locator("#verdict").inner_text().count("agrees with the label") == 1
    shot(page, "run")


def test_image_crop_and_lazy_raw_event(page: Page, viz: tuple[str, dict[str, str]]) -> None:
    base, ids = viz
    page.goto(f"{base}/runs/{ids['image-ocr']}")
    crop = page.locator(".crop-source").first
    crop.scroll_into_view_if_needed()
    source = crop.locator("img.source-image")
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=source.element_handle())
    box = crop.locator(".crop-box")
    assert box.is_visible() and box.bounding_box()["width"] > 0  # type: ignore[index]
    thumb = page.locator(".event a.thumb").first
    with page.expect_popup() as popup:
        thumb.click()
    opened = popup.value
    opened.wait_for_load_state()
    assert opened.url.startswith(base + "/artifacts/")
    assert opened.evaluate("document.images.length === 1 && document.images[0].naturalWidth > 0")
    opened.close()
    raw = page.locator("details.raw").nth(2)
    raw.locator("summary").click()
    page.wait_for_function(
        "d => !d.querySelector('.raw-body').textContent.startsWith('loading')", arg=raw.element_handle()
    )
    assert '"seq"' in raw.locator(".raw-body").inner_text()
    shot(page, "run-image")


def test_diff_and_judges(page: Page, viz: tuple[str, dict[str, str]]) -> None:
    base, ids = viz
    page.goto(f"{base}/diff")
    page.fill("input[name=a]", ids["original"])
    page.fill("input[name=b]", ids["counterfactual"])
    with page.expect_navigation():
        page.click("button[type=submit]")
    assert "First divergence" in page.locator("#divergence").inner_text()
    marked = page.locator("#first-divergence")
    assert marked.count() == 1 and "counterfactual failure" in marked.inner_text()
    shot(page, "diff")
    page.goto(f"{base}/judges")
    assert page.locator("section.judge").count() >= 6 and page.locator("section.judge svg").count() >= 6
    shot(page, "judges")
