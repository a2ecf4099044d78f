"""A Daily-Omni corpus of our own with adversarial replies: qa.json and the records main_tester.py would hand to
print_statistics (answered, API failures, a missing video, a worker error, one question asked twice).

The numbers the tests pin for it were computed beside the official code, outside this project: the records were
passed to ``print_statistics`` of Lliar-liar/Daily-Omni ``test_model_api/test_utils.py`` (``is_correct`` from its
``evaluate_answer``), and the answered replies to the reading and counting of ``test_model/Qwen2.5-Omni/
testmodel.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

TYPES = ("Event Sequence", "AV Event Alignment", "Reasoning", "Comparative")
CATEGORIES = ("Education", "Sports", "Music")
#: (video_id, type, category, duration, gold, reply; NOT_FOUND and WORKER_ERROR are the tester's skip records)
ROWS = (
    ("v01", 0, 0, "30s", "B", "B"),
    ("v01", 1, 0, "30s", "B", "Based on the video, A"),
    ("v02", 1, 1, "30s", "B", "(B)"),
    ("v02", 2, 1, "30s", "C", "  c "),
    ("v03", 2, 2, "60s", "D", "**D**"),
    ("v03", 3, 2, "60s", "C", "Answer: C"),
    ("v04", 3, 0, "60s", "A", "Answer: C"),
    ("v04", 0, 1, "60s", "B", "B or C"),
    ("v05", 0, 1, "30s", "C", "BC"),
    ("v05", 1, 2, "30s", "A", ""),
    ("v06", 2, 0, "60s", "D", "error_max_retries"),
    ("v06", 3, 1, "30s", "A", "error_empty_response"),
    ("v07", 0, 2, "60s", "B", "NOT_FOUND"),
    ("v07", 1, 0, "30s", "C", "WORKER_ERROR"),
    ("v08", 2, 1, "60s", "A", "a. The drummer"),
    ("v08", 2, 1, "60s", "A", "D"),  # the same question asked twice for one video
    ("v09", 3, 2, "30s", "D", "D"),
    ("v09", 0, 0, "30s", "A", "assistant\nA"),
)


def _correct(reply: str, gold: str) -> bool:
    return bool(reply) and reply.strip().upper().startswith(gold)


def write(root: Path) -> Path:
    """qa.json under ``root`` and the records file (returned); records come in reverse order, as a parallel
    run's completion order would shuffle them."""
    questions, records = [], []
    for n, (video, t, c, duration, gold, reply) in enumerate(ROWS):
        question = "Question 14 about v08?" if n == 15 else f"Question {n} about {video}?"
        questions.append({
            "Question": question, "Choice": [f"{x}. option {x.lower()} of {n}" for x in "ABCD"], "Answer": gold,
            "video_id": video, "Type": TYPES[t], "video_category": CATEGORIES[c], "video_duration": duration,
        })  # fmt: skip
        common = {"qa_type": TYPES[t], "video_category": CATEGORIES[c], "video_duration": duration}
        if reply == "NOT_FOUND":
            records.append({"skipped": True, "item_id": video, "reason": "Video file not found",
                            "question": question, "api_answer": "error_video_not_found", "correct_answer": gold,
                            "is_correct": False, "api_call_failed": True, **common})  # fmt: skip
        elif reply == "WORKER_ERROR":
            records.append({"skipped": True, "reason": "Worker error: boom", "api_call_failed": True})
        else:
            failed = reply.startswith("error_")
            records.append({"skipped": False, "question": question, "api_answer": reply, "correct_answer": gold,
                            "is_correct": not failed and _correct(reply, gold), "api_call_failed": failed,
                            **common})  # fmt: skip
    root.mkdir(parents=True, exist_ok=True)
    (root / "qa.json").write_text(json.dumps(questions, indent=1), encoding="utf-8")
    path = root / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in reversed(records)), encoding="utf-8")
    return path
