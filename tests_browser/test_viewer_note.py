"""The viewer shows why a question scored as it did where its answer does not say (a double-confirm gate), in its
row and in its detail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SCREENSHOTS

from avibench.testing.cdp import Browser

pytestmark = pytest.mark.browser


def test_a_gated_question_shows_its_pre_question_in_row_and_detail(browser: Browser, runs: Path) -> None:
    run = runs / "oracle" / "avibench"
    rows = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]
    gated = next(r for r in rows if r.get("note"))
    browser.exceptions.clear()
    browser.open(f"{(run / 'viewer.html').resolve().as_uri()}#sample={gated['task']}/{gated['key']}")
    browser.wait_for("document.body.dataset.ready === '1'")
    row_note = browser.eval("document.querySelector('tr.sample.selected .note').textContent")
    detail = browser.eval("document.querySelector('tr.detail').textContent")
    browser.screenshot(SCREENSHOTS / "viewer-gated.png", full_page=False)
    assert browser.exceptions == []
    assert row_note == gated["note"] and gated["note"].startswith("double-confirm pre-question pre_")
    assert f"Why this score{gated['note']}" in detail
