"""The pages kit: an official breakdown shown in both profiles, read from the eval document alone."""

from __future__ import annotations

from avibench.evaluate.document import Heading, Paragraph, Table
from avibench.kits.pages import differ_note, officials, profile_breakdown

DOC = {
    "summary": {
        "by_profile": {
            "reference": {"official": {"modality": {"sound": {"accuracy": 50.0, "n": 2}}}},
            "strict": {
                "official": {
                    "modality": {"sound": {"accuracy": 25.0, "n": 4}, "music": {"accuracy": None, "n": 0}},
                    "by_type": {"x": {"Correct Rate": 0.5, "total": 8}},
                }
            },
        }
    }
}


def test_both_profiles_side_by_side() -> None:
    heading, table = profile_breakdown(DOC, "modality", "modality")
    assert isinstance(heading, Heading) and heading.text == "Accuracy (%) by modality"
    assert isinstance(table, Table) and table.headers == ["Group", "n", "Reference", "Strict"]
    assert table.rows == [["sound", "2", "50.00", "25.00"], ["music", "0", "–", "–"]]


def test_other_cell_shapes_and_absent_breakdowns() -> None:
    (_, table) = profile_breakdown(
        DOC, "by_type", "type", percent=lambda c: 100 * c["Correct Rate"], count=lambda c: c["total"]
    )
    assert table.rows == [["x", "8", "–", "50.00"]]
    assert profile_breakdown(DOC, "nothing", "nothing") == []
    assert officials({}) == ({}, {})


def test_differ_note_fills_the_counts_or_says_nothing() -> None:
    document = {"summary": {"profiles_differ_on": {"answers": 3, "reference_only": 1, "strict_only": 2}}}
    (note,) = differ_note(document, "{answers}: {reference_only} reference, {strict_only} strict")
    assert isinstance(note, Paragraph) and note.text == "3: 1 reference, 2 strict"
    assert differ_note(DOC, "{answers}") == []
