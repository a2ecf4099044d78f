"""The score stage on hand-made tiny datasets: both input formats, both profiles, coverage, VSQA pooling, the
eval.json shape, atomic writes and FENSE wiring, through the plug-in's declared scoring."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from avibench.benchmarks.avibench.fense import ENV_BERT, ENV_ECHECKER, ENV_MODE, ENV_SBERT
from avibench.benchmarks.avibench.table import summary_numbers, taxonomy_note
from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.contracts import RunPaths
from avibench.evaluate.cli import eval_command
from avibench.plugin import EvalRequest, Scored, get_benchmark


def _entry(
    task: str, eid: str, answer: Any, *, options: Any = None, text: Any = "question?"
) -> dict[str, Any]:
    question: dict[str, Any] = {"prompt": None, "text": text}
    if options is not None:
        question["options"] = options
    return {
        "id": eid,
        "task": task,
        "subtask": None,
        "input": {"question": question},
        "output": {"question_answer": answer},
    }


def _qa(task: str, options: str, answers: list[str], *, pre: bool = False) -> list[dict[str, Any]]:
    out = [_entry(task, str(k), a, options=options) for k, a in enumerate(answers)]
    if pre:
        out += [_entry(task, f"pre_{k}", "yes", options="options_yes_no") for k in range(len(answers))]
    return out


BOX_GT = {"bbox": {"dog_1": [10, 20, 30, 40]}, "original_wh": [100, 100]}
AVLG_GT = {"bbox": {"frame_0": [10, 10, 20, 20], "frame_1": None}, "original_wh": [100, 100]}

TINY: dict[str, list[dict[str, Any]]] = {
    "ASQA": _qa("ASQA", "options_yes_no", ["yes", "no", "yes"], pre=True),
    "VSQA_I": _qa("VSQA_I", "options_yes_no", ["yes", "no"], pre=True),
    "VSQA_V": _qa("VSQA_V", "options_yes_no", ["no", "no", "yes"], pre=True),
    "AVSQA": [_entry("AVSQA", "0", "cube;sphere", options="avsqa_options_list_object")],
    "AMIC": [_entry("AMIC", "0", {"dog": "2", "man": "1"}, options="amic_cls_list")],
    "VMIC": [_entry("VMIC", "0", {"bird": "3"}, options="vmic_cls_list")],
    "AVL": [_entry("AVL", "0", BOX_GT)],
    "AVM": _qa("AVM", "avm_options_list", ["yes", "no"]),
    "AVR": [_entry("AVR", "0", [1]), _entry("AVR", "1", [0])],
    "VAR": [_entry("VAR", "0", [0, 2]), _entry("VAR", "1", [1])],
    "AVC": [_entry("AVC", "0", ["a dog barks in a park", ""])],  # falsy references are dropped
    "AVH": _qa("AVH", "avh_options_list", ["yes", "no"]),
    "VAH": _qa("VAH", "vah_options_list", ["no", "yes"]),
    "AVQA": _qa("AVQA", "avqa_options_list_is", ["yes", "no", "yes"]),
    "AVLG": [_entry("AVLG", "0", AVLG_GT)],
}


def _normalised(box: list[float], wh: list[float]) -> list[float]:
    x, y, w, h = box
    return [x / wh[0], y / wh[1], (x + w) / wh[0], (y + h) / wh[1]]


def perfect(task: str, entry: dict[str, Any]) -> str:
    """The canonical refined answer that scores full marks (retrieval with an empty truth and AVC excepted)."""
    gt = entry["output"]["question_answer"]
    spec = AVIBENCH.task(task)
    if spec.metric == "mic":
        return json.dumps({k: str(v) for k, v in gt.items()})
    if spec.metric == "retrieval":
        return "[" + ", ".join(str(i) for i in gt) + "]"
    if spec.metric == "avl":
        return json.dumps({k: str(_normalised(v, gt["original_wh"])) for k, v in gt["bbox"].items()})
    if spec.metric == "avlg":
        return repr(
            {k: None if v is None else _normalised(v, gt["original_wh"]) for k, v in gt["bbox"].items()}
        )
    if spec.metric == "caption":
        return gt[0]
    if spec.family == "passthrough":
        return f"{str(gt).capitalize()}, I think."
    return f"**{gt}**"


def write_dataset(root: Path, tasks: dict[str, list[dict[str, Any]]] = TINY) -> Path:
    for name, entries in tasks.items():
        folder = root / AVIBENCH.task(name).stage / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "data.json").write_text(json.dumps(entries))
    return root


def write_predictions(folder: Path, tasks: dict[str, list[dict[str, Any]]] = TINY, **override: Any) -> Path:
    """Reference-format files with perfect answers; ``override[TASK]`` replaces a task's raw file text."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, entries in tasks.items():
        if name in override:
            if override[name] is not None:
                (folder / f"{name}.json").write_text(override[name])
            continue
        records = [
            {"task": name, "subtask": None, "id": e["id"], "predict": perfect(name, e)} for e in entries
        ]
        (folder / f"{name}.json").write_text(json.dumps(records))
    return folder


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return write_dataset(tmp_path / "levels")


def run(
    root: Path,
    answers: Path,
    *,
    fense: bool = False,
    tasks: str | None = None,
    source: str = "predictions",
    profile: str = "reference",
) -> Scored:
    """The plug-in's eval of the prediction files in ``answers`` (or of the run whose folder it is), FENSE from
    the stand-in models or off."""
    plugin = get_benchmark("avibench")
    if source == "predictions":
        paths, predictions = RunPaths(answers, "m", AVIBENCH.name), answers
    else:
        paths, predictions = RunPaths(answers.parent.parent, answers.parent.name, AVIBENCH.name), None
    request = EvalRequest(
        data_root=root,
        tasks=plugin.select(tasks),
        profile=profile,
        paths=paths,
        predictions=predictions,
        options={"fense": "stand-in" if fense else "off"},
        model="m",
    )
    return plugin.evaluate(request)


TOP_KEYS = {"sensation", "perception", "understand", "reasoning", "summary", "coverage", "meta"}
SUMMARY_KEYS = {
    "scale",
    "profile",
    "tasks",
    "headline",
    "stages",
    "overall",
    "taxonomy",
    "taxonomy_note",
    "chance",
    "by_profile",
    "profiles_differ_on",
}
NUMBERS = {"perception", "understanding", "reasoning", "sensation", "overall", "headline"}
TAXONOMY = {"l1_task", "l2_modality", "l3_stage", "l4_domain"}
COVERAGE_KEYS = {"questions", "answered", "failed", "missing", "unparsed", "scored", "status", "reason"}


def assert_shape(doc: dict[str, Any]) -> None:
    assert set(doc) == TOP_KEYS
    assert list(doc)[:4] == ["sensation", "perception", "understand", "reasoning"]
    summary = doc["summary"]
    assert set(summary) - {"intervals", "incomplete"} == SUMMARY_KEYS  # the eval command adds these
    assert summary["scale"] == "0-100"
    assert set(summary["tasks"]) <= set(AVIBENCH.paper_tasks())  # those of the tasks selected
    assert set(summary["by_profile"]) == {"reference", "strict"}
    assert set(summary["chance"]) <= set(AVIBENCH.paper_tasks())
    assert all(0 <= level <= 100 for level in summary["chance"].values())
    for entry in summary["by_profile"].values():
        assert set(entry) == {"tasks", "counts", "chance", "official", *NUMBERS, *TAXONOMY}
        assert set(entry["official"]) == {"sensation", "perception", "understand", "reasoning"}
    for entry in doc["coverage"].values():
        assert set(entry) - {"notes"} == COVERAGE_KEYS
    assert {"fense", "dataset_fingerprint"} <= set(doc["meta"])
    assert set(doc["meta"]["fense"]) == {"status", "sbert_model", "echecker", "note"}
    json.dumps(doc, allow_nan=False)


def test_reference_format_perfect_scores_both_profiles(tiny: Path, tmp_path: Path) -> None:
    result = run(tiny, write_predictions(tmp_path / "preds"), fense=True)
    doc = result.document
    assert_shape(doc)
    assert result.errors == []
    assert set(doc["sensation"]) == {"asqa", "avsqa", "vsqa"}
    assert list(doc["perception"]) == ["amic", "vmic", "avl", "avm"]
    assert set(doc["understand"]["avr"]) == {"Recall@1", "Recall@3", "F1_score", "Average"}
    assert set(doc["understand"]["avc"]) == {"fense", "sbert_sim", "fer", "n_samples", "average"}
    assert doc["understand"]["avc"]["n_samples"] == 1
    for profile in ("reference", "strict"):
        tasks = doc["summary"]["by_profile"][profile]["tasks"]
        for name in (
            "ASQA",
            "VSQA",
            "AVSQA",
            "AMIC",
            "VMIC",
            "AVM",
            "AVR",
            "VAR",
            "AVH",
            "VAH",
            "AVQA",
            "AVLG",
        ):
            assert tasks[name] == pytest.approx(100.0), (profile, name)
        assert tasks["AVL"] == pytest.approx(100.0, abs=0.0011)  # reference: n_gt + 1e-5
        assert tasks["AVC"] == pytest.approx(100.0, abs=0.01)  # candidate identical to a reference
    numbers = summary_numbers(doc["summary"])
    assert (
        numbers["overall"] == pytest.approx(100.0, abs=0.01)
        and doc["summary"]["headline"] == numbers["overall"]
    )
    assert numbers["taxonomy"]["l4_domain"] == pytest.approx(100.0, abs=0.01)
    assert all(c["status"] == "scored" for c in doc["coverage"].values())
    assert doc["meta"]["fense"]["status"] == "stand-in"
    assert "not comparable" in taxonomy_note(doc["summary"], doc["meta"])


def test_reference_layout_tasks_subfolder(tiny: Path, tmp_path: Path) -> None:
    preds = write_predictions(tmp_path / "model_x" / "tasks")
    doc = run(tiny, preds.parent, tasks="ASQA,AVM").document
    assert doc["summary"]["tasks"]["ASQA"] == 100.0
    assert doc["summary"]["tasks"]["AVM"] == 100.0
    assert set(doc["coverage"]) == {"ASQA", "AVM"}


def test_wrong_answers_and_profiles_differ_on_missing(tiny: Path, tmp_path: Path) -> None:
    records = [
        {"task": "AVQA", "id": "0", "predict": "**yes**"},
        None,
        {"task": "AVQA", "id": "2", "predict": "no"},
    ]
    preds = write_predictions(tmp_path / "p", AVQA=json.dumps(records))
    doc = run(tiny, preds, tasks="AVQA").document
    by = doc["summary"]["by_profile"]
    assert by["reference"]["tasks"]["AVQA"] == pytest.approx(
        50.0
    )  # missing entry dropped from the denominator
    assert by["strict"]["tasks"]["AVQA"] == pytest.approx(100 / 3, abs=1e-3)  # missing counts as wrong
    cov = doc["coverage"]["AVQA"]
    assert (cov["answered"], cov["missing"], cov["scored"], cov["status"]) == (2, 1, 2, "partial")
    assert doc["reasoning"]["avqa"] == 0.5


def _journal(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_refine_journal_input_and_counts(tiny: Path, tmp_path: Path) -> None:
    paths = RunPaths(tmp_path / "outputs", "m", AVIBENCH.name)
    base = {"task": "AVQA", "subtask": None, "error": None}
    answers = {0: "yes", 1: "x", 2: "Yes it is"}
    _journal(
        paths.infer_journal("AVQA"),
        [{**base, "key": str(i), "index": i, "id": str(i), "predict": raw} for i, raw in answers.items()],
    )
    refined = [
        (0, "no", "**no**", "rule"),
        (0, "yes", "**yes**", "llm"),  # the latest record of a key wins
        (1, "x", None, "failed"),
        (2, "Yes it is", "Yes it is", "unparsed"),
    ]
    _journal(
        paths.refine_journal("AVQA"),
        [
            *(
                {**base, "key": str(i), "index": i, "id": str(i), "raw": r, "predict": p, "method": m}
                for i, r, p, m in refined
            ),
            {"garbage": True},
        ],
    )
    avm = {**base, "task": "AVM"}
    _journal(
        paths.infer_journal("AVM"),
        [
            {**avm, "key": "0", "index": 0, "id": "0", "predict": "yes"},
            {**avm, "key": "1", "index": 1, "id": "1", "predict": None, "error": "HTTP 500"},
        ],
    )
    _journal(
        paths.refine_journal("AVM"),
        [{**avm, "key": "0", "index": 0, "id": "0", "raw": "yes", "predict": "yes", "method": "passthrough"}],
    )
    doc = run(tiny, paths.root, tasks="AVQA,AVM", source="refine").document
    avqa, avm_cov = doc["coverage"]["AVQA"], doc["coverage"]["AVM"]
    assert (avqa["questions"], avqa["answered"], avqa["unparsed"], avqa["scored"]) == (3, 3, 1, 2)
    assert (avm_cov["answered"], avm_cov["failed"], avm_cov["status"]) == (1, 1, "partial")
    assert doc["summary"]["by_profile"]["reference"]["tasks"]["AVQA"] == 100.0
    assert doc["summary"]["by_profile"]["strict"]["tasks"]["AVQA"] == pytest.approx(200 / 3, abs=1e-3)


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("[{", "invalid JSON at line 1"),
        ('{"a": 1}', "expected a JSON array"),
        ('[{"predict": 3}]', "entry 0 field predict"),
        ('["yes"]', "entry 0: expected an object or null"),
    ],
)
def test_broken_prediction_file(tiny: Path, tmp_path: Path, text: str, expect: str) -> None:
    preds = write_predictions(tmp_path / "p", ASQA=text)
    result = run(tiny, preds, tasks="ASQA,AVM,AVH")
    cov = result.document["coverage"]
    assert "ASQA" not in cov  # not scored: the eval command judges it so
    assert "ASQA.json" in result.errors[0] and expect in result.errors[0]
    assert result.document["summary"]["tasks"]["ASQA"] is None
    assert "asqa" not in result.document["sensation"]
    assert cov["AVM"]["status"] == cov["AVH"]["status"] == "scored"
    assert result.errors and result.errors[0].startswith("ASQA: broken prediction file")


def test_missing_task_and_partial_stage(tiny: Path, tmp_path: Path) -> None:
    preds = write_predictions(tmp_path / "p", AVM=None, AVC=None)
    doc = run(tiny, preds).document
    assert "AVM" not in doc["coverage"] and "avm" not in doc["perception"]
    assert doc["summary"]["tasks"]["AVM"] is None
    numbers = summary_numbers(doc["summary"])
    assert numbers["stages"]["perception"] == pytest.approx(
        sum(doc["summary"]["tasks"][t] for t in ("AMIC", "VMIC", "AVL")) / 3
    )
    assert "missing AVM" in taxonomy_note(doc["summary"], doc["meta"])
    assert numbers["overall"] is not None


def test_dataset_missing_for_task(tmp_path: Path) -> None:
    root = write_dataset(tmp_path / "levels", {"AVM": TINY["AVM"]})
    doc = run(root, write_predictions(tmp_path / "p", {"AVM": TINY["AVM"]}), tasks="AVM,AVH").document
    assert set(doc["coverage"]) == {"AVM"}  # AVH has no data: the eval command judges it so
    numbers = summary_numbers(doc["summary"])
    assert numbers["stages"]["sensation"] is None
    assert numbers["overall"] is None


def test_vsqa_pooled_once(tiny: Path, tmp_path: Path) -> None:
    wrong_v = [{"task": "VSQA_V", "id": e["id"], "predict": "**yes**"} for e in TINY["VSQA_V"]]
    preds = write_predictions(tmp_path / "p", VSQA_V=json.dumps(wrong_v))
    doc = run(tiny, preds, tasks="VSQA").document
    assert set(doc["sensation"]) == {"vsqa"}
    # pooled over 2 + 3 formal entries: VSQA_I all right, VSQA_V right only on its "yes" entry
    assert doc["sensation"]["vsqa"] == pytest.approx(3 / 5)
    assert doc["summary"]["tasks"]["VSQA"] == pytest.approx(60.0)
    assert doc["coverage"]["VSQA_I"]["scored"] == 2 and doc["coverage"]["VSQA_V"]["scored"] == 3
    assert summary_numbers(doc["summary"])["stages"]["sensation"] == pytest.approx(60.0)


def test_vsqa_half_missing_keeps_half(tiny: Path, tmp_path: Path) -> None:
    preds = write_predictions(tmp_path / "p", VSQA_V=None)
    doc = run(tiny, preds, tasks="VSQA").document
    assert set(doc["sensation"]) == {"vsqa_i"}
    assert doc["summary"]["tasks"]["VSQA"] is None
    assert "VSQA_V" not in doc["coverage"]


def test_vsqa_positional_shift_only_in_reference(tiny: Path, tmp_path: Path) -> None:
    short = [{"task": "VSQA_I", "id": e["id"], "predict": perfect("VSQA_I", e)} for e in TINY["VSQA_I"]][:-1]
    preds = write_predictions(tmp_path / "p", VSQA_I=json.dumps(short))
    doc = run(tiny, preds, tasks="VSQA").document
    by = doc["summary"]["by_profile"]
    assert by["strict"]["tasks"]["VSQA"] < 100.0  # the missing VSQA_I pre-answer zeroes its formal entry
    assert by["reference"]["tasks"]["VSQA"] != by["strict"]["tasks"]["VSQA"]
    assert any("shifted" in w for w in doc["coverage"]["VSQA_V"]["notes"])


def test_fense_unavailable_one_message(tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (ENV_SBERT, ENV_ECHECKER, ENV_BERT, ENV_MODE):
        monkeypatch.delenv(name, raising=False)
    preds = write_predictions(tmp_path / "p")
    out = tmp_path / "eval.json"
    args = ["--predictions", str(preds), "--data-root", str(tiny), "--out", str(out), "--tasks", "AVC,AVM"]
    cli = CliRunner().invoke(eval_command, args)
    assert cli.exit_code == 3, cli.output  # a selected task is not scored: the run is incomplete
    assert cli.output.count("FENSE needs local model files") == 1
    doc = json.loads(out.read_text())
    (reason,) = doc["coverage"]["AVC"]["notes"]
    assert doc["coverage"]["AVC"]["status"] == "not_scored"
    for needle in (
        ENV_SBERT,
        ENV_ECHECKER,
        ENV_BERT,
        "paraphrase-TinyBERT-L6-v2",
        "echecker_clotho_audiocaps_base.ckpt",
        "bert-base-uncased",
    ):
        assert needle in reason
    assert doc["meta"]["fense"]["status"] == "unavailable"
    assert doc["meta"]["fense"]["note"] == reason
    assert doc["summary"]["tasks"]["AVC"] is None
    assert "avc" not in doc["understand"]
    assert doc["coverage"]["AVM"]["status"] == "scored"


def test_cli_writes_eval_json_atomically(tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    preds = write_predictions(tmp_path / "p")
    out = tmp_path / "out" / "eval.json"
    args = [
        "--predictions",
        str(preds),
        "--data-root",
        str(tiny),
        "--out",
        str(out),
        "--fense",
        "off",
        "--tasks",
        "ASQA,AVM",
    ]
    result = CliRunner().invoke(eval_command, args)
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert_shape(doc)
    assert doc["meta"]["dataset"]["kind"] == "other"  # the generated sample without its marker: not official
    assert doc["meta"]["label"] == "p"
    # per-sample scores beside eval.json, and intervals computed from them
    samples = [json.loads(line) for line in (out.parent / "samples.jsonl").read_text().splitlines()]
    assert {s["task"] for s in samples} == {"ASQA", "AVM"}
    assert all(set(s["scores"]) == {"reference", "strict"} for s in samples if s["outcome"] != "not_scored")
    assert set(doc["summary"]["intervals"]["tasks"]) == {"ASQA", "AVM"}
    assert "VMIC" in doc["summary"]["incomplete"]["numbers"]["overall"]["unselected"]  # Overall of a subset
    export = write_predictions(
        tmp_path / "outputs" / "run1" / "avibench" / "reference" / "tasks", {"AVM": TINY["AVM"]}
    )
    (tmp_path / "outputs" / "run1" / "avibench" / "infer").mkdir()
    exported = CliRunner().invoke(
        eval_command,
        [
            "--predictions",
            str(export.parent),
            "--data-root",
            str(tiny),
            "--output-dir",
            str(tmp_path / "outputs"),
            "--allow-partial",
        ],
    )
    assert exported.exit_code == 0, exported.output
    assert (
        json.loads((tmp_path / "outputs" / "run1" / "avibench" / "eval.json").read_text())["meta"]["label"]
        == "run1"
    )
    assert "Overall" in result.output and "L4 Domain" in result.output
    before = out.read_bytes()

    def fail(*_: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    broken = CliRunner().invoke(eval_command, [*args, "--profile", "strict"])
    assert broken.exit_code != 0
    assert out.read_bytes() == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["eval.json", "samples.jsonl"]


def test_cli_model_run_and_exit_codes(tiny: Path, tmp_path: Path) -> None:
    outputs = tmp_path / "outputs"
    paths = RunPaths(outputs, "org_m", AVIBENCH.name)
    base = {"task": "AVM", "subtask": None, "error": None}
    answers = {i: perfect("AVM", e) for i, e in enumerate(TINY["AVM"])}
    _journal(
        paths.infer_journal("AVM"),
        [{**base, "key": str(i), "index": i, "id": str(i), "predict": raw} for i, raw in answers.items()],
    )
    _journal(
        paths.refine_journal("AVM"),
        [
            {
                **base,
                "key": str(i),
                "index": i,
                "id": str(i),
                "raw": raw,
                "predict": raw,
                "method": "passthrough",
            }
            for i, raw in answers.items()
        ],
    )
    args = ["--model", "org/m", "--data-root", str(tiny), "--output-dir", str(outputs), "--fense", "off"]
    result = CliRunner().invoke(eval_command, [*args, "--tasks", "AVM,AVH"])
    assert result.exit_code == 3  # AVH was never run
    doc = json.loads(paths.eval_json.read_text())
    assert doc["coverage"]["AVM"]["status"] == "scored"
    assert doc["coverage"]["AVH"]["status"] == "not_run"  # a selected task never run is covered, not left out
    assert doc["meta"]["model"] == "org/m" and doc["meta"]["label"] == "org_m"
    assert CliRunner().invoke(eval_command, [*args, "--tasks", "AVM"]).exit_code == 0
    missing = CliRunner().invoke(
        eval_command, ["--model", "nobody", "--data-root", str(tiny), "--output-dir", str(outputs)]
    )
    assert missing.exit_code != 0
    assert "avibench refine --benchmark avibench --label nobody" in str(missing.exception)
    empty = CliRunner().invoke(eval_command, ["--predictions", str(tmp_path), "--data-root", str(tiny)])
    assert "no prediction files" in str(empty.exception)


def test_sample_dataset_end_to_end(sample_root: Path, tmp_path: Path) -> None:
    """Perfect answers built from the generated sample benchmark's ground truth score full marks."""
    from avibench.benchmarks.avibench.dataset import available_tasks, task_dir
    from avibench.kits.records import read_records

    tasks = {
        s.name: read_records(task_dir(sample_root, s) / "data.json") for s in available_tasks(sample_root)
    }
    assert len(tasks) == 15
    doc = run(sample_root, write_predictions(tmp_path / "p", tasks), fense=True).document
    assert_shape(doc)
    assert all(c["status"] == "scored" for c in doc["coverage"].values()), doc["coverage"]
    for profile in ("reference", "strict"):
        scores = doc["summary"]["by_profile"][profile]["tasks"]
        for name in ("ASQA", "VSQA", "AVSQA", "AMIC", "VMIC", "AVM", "AVH", "VAH", "AVQA", "AVLG"):
            assert scores[name] == pytest.approx(100.0), (profile, name)
        assert scores["AVL"] == pytest.approx(100.0, abs=0.0011)
        assert 0 < scores["AVC"] <= 100 and 0 < scores["AVR"] <= 100 and 0 < scores["VAR"] <= 100
        assert doc["summary"]["by_profile"][profile]["overall"] is not None


def test_a_task_the_reference_leaves_wholly_out_has_no_reference_score(tiny: Path, tmp_path: Path) -> None:
    """Every AMIC prediction is 300+ characters: the reference scorer reads none of them (it would write NaN), so
    AMIC has no reference score; strict reads them."""
    long = [{"task": "AMIC", "id": "0", "predict": json.dumps({"dog": "2", "pad": "x" * 300})}]
    doc = run(tiny, write_predictions(tmp_path / "p", AMIC=json.dumps(long)), tasks="AMIC").document
    assert "amic" not in doc["perception"] and doc["coverage"]["AMIC"]["status"] == "not_scored"
    assert doc["summary"]["by_profile"]["reference"]["tasks"]["AMIC"] is None
    assert doc["summary"]["by_profile"]["strict"]["tasks"]["AMIC"] is not None
    assert any("300 characters" in note for note in doc["coverage"]["AMIC"]["notes"])  # the scorer says why
    json.dumps(doc, allow_nan=False)


def test_chance_levels_of_the_sample_dataset(sample_root: Path) -> None:
    from avibench.benchmarks.avibench.dataset import load_task
    from avibench.benchmarks.avibench.scoring import chance_levels

    levels = chance_levels({spec: load_task(sample_root, spec) for spec in AVIBENCH.tasks})
    assert set(levels) == set(AVIBENCH.task_names)
    # yes / no / not sure: a uniform guess is right one time in three.
    assert levels["AVM"] == levels["AVH"] == pytest.approx(100 / 3, abs=1e-3)
    assert levels["AVC"] == 0.0
    # double-confirm: formal and pre-question must both be right, so sensation chance is far below 1/3.
    assert 0 < levels["ASQA"] < 20
