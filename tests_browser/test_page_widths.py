"""Every page fits a 1,366-pixel window (a common laptop's): nothing sticks out to the right, and the wide tables
(the card, the cards, the leaderboard) wrap their cells so that every column is on screen; a screenshot of each
page at that width is kept under outputs/browser/."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SCREENSHOTS

from avibench.cli import main
from avibench.plugin import benchmark_names
from avibench.testing.cdp import Browser

pytestmark = pytest.mark.browser

WIDTH = 1366
#: The page's width, and what reaches past the window's right edge (outside a scroll box that itself fits).
OVERFLOW = """(() => {
  const W = window.innerWidth, out = [];
  const boxed = el => { for (let p = el.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p);
      if ((s.overflowX === 'auto' || s.overflowX === 'scroll') && p.getBoundingClientRect().right <= W + 1) return true; }
    return false; };
  document.querySelectorAll('body *').forEach(e => {
    const r = e.getBoundingClientRect();
    if (r.width && r.right > W + 1 && !boxed(e)) out.push(e.tagName + ' right=' + Math.round(r.right));
  });
  return {page: document.documentElement.scrollWidth, over: out.slice(0, 5)};
})()"""
#: Tables whose scroll box scrolls: columns off screen until the reader scrolls.
SCROLLED = """Array.from(document.querySelectorAll('.table-box')).filter(b => b.scrollWidth > b.clientWidth + 1)
  .map(b => (b.querySelector('th') || {}).textContent)"""


@pytest.fixture(scope="module")
def every_benchmark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The oracle through every installed benchmark on its sample (the judged parts unjudged), its card, the
    cards and the leaderboard."""
    base = tmp_path_factory.mktemp("widths")
    here = Path.cwd()
    os.chdir(base)
    try:
        # partial: AIR-Bench's and VoiceBench's judged parts have no judge here
        with contextlib.suppress(SystemExit):
            main(["run", "--model", "oracle", "--benchmarks", "all", "--sample", "--output-dir", "out"])
        for command in (["cards"], ["leaderboard", "--include-unofficial"]):
            try:
                main([*command, "--output-dir", "out"])
            except SystemExit as exc:
                assert not exc.code, f"avibench {command[0]} exited with {exc.code}"
    finally:
        os.chdir(here)
    yield base / "out"


@pytest.fixture
def narrow(browser: Browser) -> Iterator[Browser]:
    browser.set_width(WIDTH)
    yield browser
    browser.clear_width()


def _fits(browser: Browser, page: Path, shot: str) -> list[str]:
    """Open ``page`` at 1,366 px (screenshot kept); assert nothing reaches past the window; the tables that
    scroll in their box."""
    browser.exceptions.clear()
    browser.open(page.resolve().as_uri())
    browser.screenshot(SCREENSHOTS / f"w{WIDTH}-{shot}.png")
    assert browser.exceptions == []
    assert browser.eval("window.innerWidth") == WIDTH
    found = browser.eval(OVERFLOW)
    assert found["page"] <= WIDTH and found["over"] == [], f"{page}: {found}"
    return browser.eval(SCROLLED)


@pytest.mark.parametrize("page", ["oracle/card.html", "cards.html", "leaderboard.html"])
def test_the_card_cards_and_leaderboard_show_every_column(
    narrow: Browser, every_benchmark: Path, page: str
) -> None:
    assert _fits(narrow, every_benchmark / page, page.replace("/", "-").removesuffix(".html")) == []


def test_every_report_and_viewer_fits(narrow: Browser, every_benchmark: Path) -> None:
    pages = sorted((every_benchmark / "oracle").glob("*/report.html")) + sorted(
        (every_benchmark / "oracle").glob("*/viewer.html")
    )
    assert len(pages) == 2 * len(benchmark_names())  # a report and a viewer per benchmark
    for page in pages:
        _fits(narrow, page, f"{page.parent.name}-{page.stem}")


def test_the_comparison_fits(narrow: Browser, runs: Path) -> None:
    (page,) = runs.glob("compare-*.html")
    _fits(narrow, page, "compare")
