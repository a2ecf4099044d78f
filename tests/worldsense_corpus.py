"""A WorldSense corpus of our own with adversarial predictions: worldsense_qa.json and VLMEvalKit's inference
output for it (the TSV's columns plus ``prediction``), as .xlsx and .tsv.

The numbers the tests pin for it were computed beside the official code, outside this project: VLMEvalKit's
``WorldSense.evaluate`` (open-compass/VLMEvalKit e8e78f05, vlmeval/dataset/worldsense.py with
utils/worldsense.py, utils/multiple_choice.py and utils/matching_util.py; pandas 2 reading the file) was run on
this corpus with ``model='exact_matching'``, and again with a stand-in judge object whose ``generate`` answers
by the prediction in the prompt (:data:`STAND_IN`, "Z" otherwise) and records every prompt.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

DURATIONS = ("<1min", "1-2min", "2-4min", "4-6min", "6-8min", ">8min")
DOMAINS = (
    ("Music", "Covers"),
    ("Sports", "Basketball"),
    ("Daily Life", "Cooking"),
    ("Film & TV", "Short Films"),
)
TASKS = (("Recognition", "Audio Recognition"), ("Understanding", "Event Sorting"),
         ("Reasoning", "Causal Reasoning"), ("Recognition", "Object Counting"))  # fmt: skip
AUDIO = (["Speech"], ["Music", "Event"], ["Event"], ["Speech", "Music", "Event"])
#: (gold letter, prediction cell; None: an empty cell)
ROWS = (
    ("A", "A"), ("B", "The answer is B"), ("C", "ANSWER: C"), ("C", "Answer: C"), ("D", "Best option: D"),
    ("C", "The best option is C"), ("C", "A man sings, so C"), ("A", None), ("B", "N/A"), ("C", "None"),
    ("D", "null"), ("A", "Failed to obtain answer via API."), ("B", "I cannot determine the answer"),
    ("A", "the red car"), ("B", "(b)"), ("D", "The correct answer is **D**."), ("B", "The answer: B"),
    ("A", "It is definitely the second one, the one with the man on the left of it"),
    ("C", "C"), ("B", "the drum"), ("C", "I think it's a string instrument"), ("D", "NA"),
    ("B", "Answer: Bass guitar"), ("C", "Cannot determine"), ("B", "b"), ("A", "Z"),
)  # fmt: skip
#: The stand-in judge's replies by prediction ("Z" to any other).
STAND_IN = {
    "I cannot determine the answer": "Z",
    "the red car": "A",
    "nan": "Failed to obtain answer via API",
    "I think it's a string instrument": "C",
    "(b)": "The answer is B",
}
HEADER = ["index", "video", "video_path", "duration", "domain", "candidates", "sub_category", "audio_class",
          "task_domain", "task_type", "subtitle_path", "audio_path", "video_caption", "question", "answer",
          "prediction"]  # fmt: skip


def dataset() -> dict:
    data: dict = {}
    for n, (gold, _) in enumerate(ROWS):
        video = f"vid{n // 5:02d}"
        domain, sub = DOMAINS[(n // 5) % 4]
        record = data.setdefault(video, {
            "video_id": video, "video_duration": 30.0 + 60 * (n // 5), "duration": DURATIONS[(n // 5) % 6],
            "domain": domain, "sub_category": sub, "audio_class": AUDIO[(n // 5) % 4],
            "video_caption": f"caption of {video}",
        })  # fmt: skip
        task_domain, task_type = TASKS[n % 4]
        letters = "ABC" if n == 18 else "ABCD"
        question = f"What happens in clip {n}?"
        if n in (19, 20):  # options inside the question field: the only case VLMEvalKit's fallback can read
            question = "Which instrument plays first?\nA. piano\nB. drum\nC. violin\nD. flute"
        record[f"task{n % 5}"] = {"task_domain": task_domain, "task_type": task_type, "question": question,
                                  "answer": gold, "candidates": [f"{x}. choice {x} {n}" for x in letters]}  # fmt: skip
    return data


def _rows() -> list[list]:
    out = []
    index = 0
    for video, record in dataset().items():
        for key in [k for k in record if "task" in k]:
            task = record[key]
            out.append([index, video, f"./videos/{video}.mp4", record["duration"], record["domain"],
                        repr(task["candidates"]), record["sub_category"], repr(record["audio_class"]),
                        task["task_domain"], task["task_type"], f"./subtitles/{video}.srt",
                        f"./audios/{video}.wav", record["video_caption"], task["question"], task["answer"],
                        ROWS[index][1]])  # fmt: skip
            index += 1
    return out


def write(root: Path) -> tuple[Path, Path]:
    """worldsense_qa.json under ``root``, and the predictions as .xlsx and .tsv (returned)."""
    from openpyxl import Workbook

    root.mkdir(parents=True, exist_ok=True)
    (root / "worldsense_qa.json").write_text(json.dumps(dataset(), indent=1), encoding="utf-8")
    book = Workbook()
    sheet = book.active
    sheet.append(HEADER)
    for row in _rows():
        sheet.append(row)
    xlsx = root / "M_WorldSense_8frame.xlsx"
    book.save(xlsx)
    tsv = root / "M_WorldSense_8frame.tsv"
    with open(tsv, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", quoting=csv.QUOTE_ALL, lineterminator="\n")
        writer.writerow(HEADER)
        writer.writerows([["" if v is None else v for v in row] for row in _rows()])
    return xlsx, tsv
