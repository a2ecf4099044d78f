"""The pages people read, opened in headless chromium: they render without console errors, their charts hold the
expected series at a readable size, and the viewer's filters and links select the right rows at full size."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SCREENSHOTS

from avibench.testing.cdp import Browser

pytestmark = pytest.mark.browser

MIN_FONT_PX = 11


def _open(browser: Browser, path: Path | str, shot: str) -> None:
    browser.console.clear()
    browser.exceptions.clear()
    browser.open(path if isinstance(path, str) else path.resolve().as_uri())
    browser.screenshot(SCREENSHOTS / f"{shot}.png")
    assert browser.exceptions == [] and browser.console == []
    assert browser.eval("document.documentElement.getAttribute('data-errors')") is None


def _chart_series(browser: Browser) -> list[str]:
    return browser.eval("Array.from(document.querySelectorAll('svg.chart')).map(s => s.dataset.series)")


def _smallest_font(browser: Browser) -> float:
    """The smallest chart text as rendered (font size times the chart's on-screen scale), in CSS pixels."""
    return browser.eval(
        """Math.min(...Array.from(document.querySelectorAll('svg.chart')).flatMap(svg => {
            const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return Array.from(svg.querySelectorAll('text')).map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
        }))"""
    )


def test_report_charts_are_readable_and_hold_the_run_beside_published_models(
    browser: Browser, runs: Path
) -> None:
    _open(browser, runs / "random" / "avibench" / "report.html", "report-random")
    assert _chart_series(browser) == ["random,Gemini-2.5-Pro,Gemini-2.5-Flash,Gemini-2.0-Flash", "random"]
    assert _smallest_font(browser) >= MIN_FONT_PX
    # one title per chart (its caption), a chance line per task that has one, no bar for an unscored task (AVC:
    # FENSE off) and never a bar at 0 standing in for it
    assert browser.eval("document.querySelectorAll('figure figcaption').length") == 2
    assert browser.eval("document.querySelectorAll('svg.chart > title').length") == 0
    assert browser.eval("document.querySelectorAll('line.chance').length") == 13  # AVC has no chance level
    missing = browser.eval(
        "Array.from(document.querySelectorAll('.bar.missing')).map(b => b.dataset.category)"
    )
    assert missing == ["AVC"]
    assert browser.eval("document.querySelectorAll('rect.bar[data-category=\"AVC\"]').length") == 0
    assert browser.eval("document.querySelectorAll('path.ci').length") > 10
    text = browser.eval("document.body.innerText")
    assert "Est. cost (USD)" in text and "Requests sent" in text and "double-confirm" in text


def test_leaderboard_filters_runs(browser: Browser, runs: Path) -> None:
    _open(browser, runs / "leaderboard.html", "leaderboard")
    assert _chart_series(browser) == ["Perception,Understanding,Reasoning,Sensation (PriSe),Overall"]
    assert _smallest_font(browser) >= MIN_FONT_PX
    visible = """Array.from(document.querySelectorAll('table.filterable')[0].tBodies[0].rows)
        .filter(r => r.style.display !== 'none').map(r => r.cells[1].textContent)"""
    everyone = browser.eval(visible)
    assert "random" in everyone and "oracle" in everyone and "Gemini-2.5-Pro" in everyone
    browser.eval(
        "{const b = document.getElementById('filter-text'); b.value = 'gemini'; b.dispatchEvent(new Event('input'))}"
    )
    assert browser.eval(visible) and all("Gemini" in name for name in browser.eval(visible))
    browser.eval(
        "{const b = document.getElementById('filter-text'); b.value = ''; b.dispatchEvent(new Event('input'))}"
    )
    browser.eval("document.querySelector('.filter-toggle[value=published]').click()")
    assert sorted(browser.eval(visible)) == ["oracle", "random"]
    wrapped = browser.eval(
        "Array.from(document.querySelectorAll('table.filterable td')).filter(td => td.getClientRects().length > 1).length"
    )
    assert wrapped == 0


def _rows(browser: Browser) -> list[dict]:
    return browser.eval(
        """Array.from(document.querySelectorAll('#rows tr.sample')).map(r =>
            ({id: r.dataset.id, outcome: r.dataset.outcome, task: r.cells[0].textContent, score: r.cells[3].textContent}))"""
    )


def _select(browser: Browser, element: str, value: str) -> None:
    browser.eval(
        f"{{const s = document.getElementById('{element}'); s.value = '{value}'; s.dispatchEvent(new Event('change'))}}"
    )


def test_viewer_filters_and_links_on_the_full_size_sample(
    browser: Browser, full_size: tuple[Path, list]
) -> None:
    page, rows = full_size
    assert len(rows) == 5864
    _open(browser, page, "viewer-full")
    browser.wait_for("document.body.dataset.ready === '1'")
    assert float(browser.eval("document.body.dataset.readyMs")) < 5000
    assert int(browser.eval("document.body.dataset.matches")) == 5864 and len(_rows(browser)) == 100

    _select(browser, "f-task", "AVQA")
    _select(browser, "f-outcome", "incorrect")
    expected = [r for r in rows if r["task"] == "AVQA" and r["outcome"] == "incorrect"]
    assert int(browser.eval("document.body.dataset.matches")) == len(expected)
    shown = _rows(browser)
    assert [r["id"] for r in shown] == [f"AVQA/{r['key']}" for r in expected][:100]
    assert "task=AVQA" in browser.eval("location.hash") and "outcome=incorrect" in browser.eval(
        "location.hash"
    )

    _select(browser, "f-task", "")
    _select(browser, "f-outcome", "failed")
    _select(browser, "f-method", "failed")
    failed = [r for r in rows if r["outcome"] == "failed"]
    assert int(browser.eval("document.body.dataset.matches")) == len(failed) > 0

    _select(browser, "f-outcome", "")
    _select(browser, "f-method", "")
    browser.eval(
        "{const q = document.getElementById('f-q'); q.value = 'answer 1234'; q.dispatchEvent(new Event('input'))}"
    )
    hits = [r for r in rows if "answer 1234" in (r["raw"] or "")]
    browser.wait_for(f"document.body.dataset.matches === '{len(hits)}'")

    # a fragment link selects its sample on whichever page it falls, with its details open
    target = next(r for r in rows if r["task"] == "AVL" and r["media"])
    browser.open("about:blank")
    browser.open(f"{page.resolve().as_uri()}#sample=AVL/{target['key']}")
    browser.wait_for("document.body.dataset.ready === '1'")
    selected = browser.eval("document.querySelector('tr.sample.selected').dataset.id")
    assert selected == f"AVL/{target['key']}"
    sources = browser.eval(
        "Array.from(document.querySelectorAll('tr.detail img, tr.detail audio, tr.detail video')).map(m => m.getAttribute('src'))"
    )
    assert len(sources) == len(target["media"]) and all(
        s.endswith(m["path"]) for s, m in zip(sources, target["media"], strict=True)
    )
    browser.screenshot(SCREENSHOTS / "viewer-sample.png", full_page=False)

    _select(browser, "f-sort", "score-desc")
    assert _rows(browser)[0]["score"] == "100.0"


def test_comparison_links_into_the_viewer(browser: Browser, runs: Path) -> None:
    _open(browser, runs / "compare-avibench-random-vs-oracle.html", "compare")
    assert _chart_series(browser) == ["random,oracle"]
    assert browser.eval("document.body.innerText").count("*") > 5
    link = browser.eval("document.querySelector('table.flips a').href")
    browser.open(link)
    browser.wait_for("document.body.dataset.ready === '1'")
    sample = link.split("#sample=", 1)[1]
    assert browser.eval("document.querySelector('tr.sample.selected').dataset.id") == sample
    assert browser.exceptions == []
