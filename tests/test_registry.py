from __future__ import annotations

import pytest

from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.errors import AvibenchError
from avibench.plugin import get_benchmark


def test_fifteen_folders_fourteen_paper_tasks() -> None:
    assert len(AVIBENCH.tasks) == 15
    assert len(AVIBENCH.paper_tasks()) == 14
    assert AVIBENCH.task("vsqa_v").paper_task == "VSQA"


def test_paper_counts_total_5864() -> None:
    assert sum(t.paper_count for t in AVIBENCH.tasks) == 5864
    by_stage = {
        s.key: sum(t.paper_count for t in AVIBENCH.tasks if t.stage == s.key) for s in AVIBENCH.stages
    }
    assert by_stage == {"perception": 1494, "understand": 808, "reasoning": 1472, "sensation": 2090}


def test_stage_membership_matches_spec() -> None:
    assert AVIBENCH.paper_tasks("perception") == ("AMIC", "VMIC", "AVL", "AVM")
    assert set(AVIBENCH.paper_tasks("understand")) == {"VAR", "AVR", "AVC"}
    assert AVIBENCH.paper_tasks("reasoning") == ("AVH", "VAH", "AVQA", "AVLG")
    assert AVIBENCH.paper_tasks("sensation") == ("ASQA", "VSQA", "AVSQA")
    assert AVIBENCH.stage("understanding").key == "understand"


def test_modality_groups() -> None:
    audio = {t.paper_task for t in AVIBENCH.tasks if t.modality == "audio"}
    visual = {t.paper_task for t in AVIBENCH.tasks if t.modality == "visual"}
    assert audio == {"AMIC", "VAR", "AVH", "ASQA"}
    assert visual == {"VMIC", "AVR", "VAH", "VSQA"}


def test_double_confirm_tasks() -> None:
    assert {t.name for t in AVIBENCH.tasks if t.double_confirm} == {"ASQA", "VSQA_I", "VSQA_V", "AVSQA"}


def test_unknown_benchmark() -> None:
    with pytest.raises(AvibenchError, match=r"installed benchmarks: .*avibench"):
        get_benchmark("nope")


def test_the_plugin_selects_paper_level_names_and_rejects_unknown_ones() -> None:
    plugin = get_benchmark("avibench")
    assert [t.name for t in plugin.select("avl, VSQA")] == ["VSQA_I", "VSQA_V", "AVL"]
    assert [t.name for t in plugin.select(None)] == list(AVIBENCH.task_names)
    with pytest.raises(AvibenchError, match="unknown task 'NOPE' for benchmark avibench"):
        plugin.select("NOPE")
