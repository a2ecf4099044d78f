"""The model card written by ``avibench run``, opened in headless chromium: a row per benchmark with its marks,
and links that open the benchmark's report and viewer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SCREENSHOTS

from avibench.cli import main
from avibench.testing.cdp import Browser

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def card(runs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The oracle through AVI-Bench (on the sample the other pages' runs use; AVC not scored) and MMAR's
    sample, in an output dir of its own."""
    base = tmp_path_factory.mktemp("card")
    mmar, out = base / "mmar", base / "out"
    args = ["run", "--model", "oracle", "--label", "card", "--benchmarks", "avibench,mmar"]
    args += ["--data-root", f"avibench={runs.parent / 'data'}", "--data-root", f"mmar={mmar}"]
    args += ["--output-dir", str(out), "--fense", "off", "--mode", "rules", "--allow-partial"]
    main(["sample-data", "--benchmark", "mmar", "--out", str(mmar)])
    try:
        main(args)
    except SystemExit as exc:
        assert not exc.code, f"avibench run exited with {exc.code}"
    return out / "card" / "card.html"


def test_card_shows_every_benchmark_and_opens_its_report_and_viewer(browser: Browser, card: Path) -> None:
    browser.console.clear()
    browser.exceptions.clear()
    browser.open(card.resolve().as_uri())
    browser.screenshot(SCREENSHOTS / "card.png")
    assert browser.exceptions == [] and browser.console == []
    rows = browser.eval(
        "Array.from(document.querySelector('table').tBodies[0].rows).map(r => Array.from(r.cells).map(c => c.textContent))"
    )  # the card's own table, the first on the page (the throughput table follows it)
    headers = browser.eval(
        "Array.from(document.querySelector('table').tHead.rows[0].cells).map(c => c.textContent)"
    )
    data = json.loads(card.with_name("card.json").read_text())
    assert [r[0] for r in rows] == [b["title"] for b in data["benchmarks"]] == ["AVI-Bench", "MMAR"]
    avi, mmar = (dict(zip(headers, r, strict=True)) for r in rows)
    assert avi["Status"].startswith("partial") and "incomplete" in avi["Headline (reference)"]
    assert mmar["Status"] == "complete" and mmar["Headline (strict)"] == "100.00"
    assert (
        "not comparable" in mmar["Data"] and mmar["Media"] == "audio n/a"
    )  # the probe: a baseline reads no media
    # the badge explains itself on hover
    hint = browser.eval("document.querySelector('tbody tr .badge').title")
    assert "AVC" in hint
    for name, title in (("report", "report"), ("viewer", "samples")):
        browser.open(card.resolve().as_uri())
        href = browser.eval(
            f"Array.from(document.querySelectorAll('a')).find(a => a.textContent === '{name}').href"
        )
        browser.open(href)
        assert browser.exceptions == []
        assert title in browser.eval("document.title").lower()


def test_cards_set_the_models_side_by_side_with_their_marks(browser: Browser, card: Path) -> None:
    out = card.parent.parent
    main(["cards", "--output-dir", str(out)])
    browser.console.clear()
    browser.exceptions.clear()
    browser.open((out / "cards.html").resolve().as_uri())
    browser.screenshot(SCREENSHOTS / "cards.png")
    assert browser.exceptions == [] and browser.console == []
    headers = browser.eval("Array.from(document.querySelectorAll('thead th')).map(c => c.textContent)")
    assert headers == ["Model", "Status", "AVI-Bench", "MMAR"]
    badges = browser.eval("Array.from(document.querySelectorAll('tbody td .badge')).map(b => b.textContent)")
    assert badges == ["incomplete; sample data, not comparable", "sample data, not comparable"]
    browser.open(browser.eval("document.querySelector('tbody a').href"))
    assert browser.exceptions == [] and "report" in browser.eval("document.title").lower()
