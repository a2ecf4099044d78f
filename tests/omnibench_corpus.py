"""An adversarial corpus of OmniBench questions and replies, for pinning the reference profile to the official
scorer.

Six option sets in the forms the real data has (long sentences, sentences starting "A ...", one-word options,
options inside each other, a letter inside an option, numbers) are each asked with every reply style below: the
ways models write a choice, hedge, refuse, reason, format in markdown or LaTeX, answer in Chinese, or mention
letters in passing. A reply style is a template over the gold letter ``{l}`` and text ``{t}`` and a distractor's
letter ``{o}`` and text ``{u}``.

The tests pin what the official ``answer_parsing.py`` / ``calculate_metrics.py`` gave on this corpus (run outside
the project on :func:`dataset_lines` and :func:`inference_rows`).
"""

from __future__ import annotations

import json
import random
from typing import Any

LETTERS = "ABCD"

OPTION_SETS: tuple[tuple[str, ...], ...] = (
    (
        "The man in jeans is taking notes from the newspaper.",
        "The man in purple is reading the newspaper.",
        "The man in jeans is playing a crossword puzzle.",
        "The man on the table is doing a crossword puzzle.",
    ),
    (
        "A woman is explaining to a man",
        "A redhead lady is asking question",
        "A man is answering some questions",
        "A man in blue shirt explaining current situation to woman",
    ),
    ("Piano", "Guitar", "Violin", "Drums"),
    (
        "The dog barks",
        "The dog barks at the mailman",
        "The cat hisses at the dog",
        "Nobody makes a sound in the house",
    ),
    (
        "She lacks vitamin B and feels tired",
        "She moved to Washington D.C. for work",
        "She is waiting for the bus outside",
        "She is singing in the school choir",
    ),
    ("two", "three", "four", "five"),
)

#: Which option is the gold answer in each set (so every position occurs).
GOLD: tuple[int, ...] = (2, 2, 1, 0, 3, 1)

REPLY_STYLES: tuple[str, ...] = (
    "{l}",
    "{l}.",
    "({l})",
    "{l})",
    "**{l}**",
    "**({l})**",
    "{lower}",
    "The answer is {l}.",
    "The answer is {lower}.",
    "Answer: {l}",
    "**Answer:** {l}",
    "The correct answer is ({l}) {t}",
    "I choose option {l}.",
    "{l}. {t}",
    "{t}",
    "{t_lower}",
    "Based on the image and the audio, the correct option is **{l}. {t}**",
    "It could be {l} or {o}.",
    "Either {o} or {l}, I am not sure.",
    "{l}, {o}",
    "{o} and {l}",
    "{l}{o}",
    "I cannot see the image or hear the audio, so I can't answer this question.",
    "Sorry, I am unable to process audio input.",
    "Not {o}. The answer is {l}.",
    "The answer is {l}, not {o}.",
    "<think>Option {o} says {u}, which does not fit. Option {l} fits.</think>\nThe answer is {l}.",
    "Let me think. The picture shows a scene and the audio matches {u}. Final answer: {l}",
    "\\boxed{{{l}}}",
    "$\\boxed{{{l}}}$",
    "答案是{l}",
    "选{l}。",
    '{{"answer": "{l}"}}',
    "### Final Answer\n**{l}. {t}**",
    "After listening to the audio and looking at the image, I believe the answer is {t}",
    "The audio suggests {u}, but the image clearly shows that {t}",
    "A careful look at the picture shows the answer is {l}.",
    "I think the best option here is {l} because it matches both the picture and the sound.",
    "",
    "None of the options fit.",
)


def reply(style: str, options: tuple[str, ...], gold: int) -> str:
    """One reply style filled in for a question (the distractor is the option after the gold one)."""
    other = (gold + 1) % len(options)
    return style.format(
        l=LETTERS[gold],
        lower=LETTERS[gold].lower(),
        t=options[gold],
        t_lower=options[gold].lower(),
        o=LETTERS[other],
        u=options[other],
    )


def cases() -> list[tuple[int, int, str]]:
    """Every (option set, reply style, reply) of the corpus, set by set."""
    return [
        (s, k, reply(style, OPTION_SETS[s], GOLD[s]))
        for s in range(len(OPTION_SETS))
        for k, style in enumerate(REPLY_STYLES)
    ]


AUDIO_TYPES = ("music", "speech", "sound event", "Sound Event ", "Speech")
TASK_TYPES = ("Action and Activity", "Count and Quantity", "Plot Inference", "Text and Symbols")


def dataset_records() -> list[dict[str, Any]]:
    """One question per case, in the official key order (the media are never opened by the scorer)."""
    records = []
    for index, (s, _k, _reply) in enumerate(cases()):
        options = list(OPTION_SETS[s])
        records.append(
            {
                "task type": TASK_TYPES[index % len(TASK_TYPES)],
                "audio type": AUDIO_TYPES[index % len(AUDIO_TYPES)],
                "question": "What is happening?",
                "audio content": "",
                "image content": "",
                "audio_path": f"{index}.wav",
                "image_path": f"{index}.png",
                "index": index,
                "answer": options[GOLD[s]],
                "options": options,
            }
        )
    return records


def dataset_lines() -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in dataset_records())


#: Questions without a row (the demo writes none when a request fails) and the one row left with an empty question.
MISSING_EVERY = 17
EMPTY_QUESTION = 5


def inference_rows(seed: int = 7) -> list[dict[str, Any]]:
    """The demo's output for the corpus: a row per answered question, in shuffled order (as a worker pool writes
    them), every 17th question without a row and question 5's row with an empty question."""
    rows = []
    for index, (s, _k, text) in enumerate(cases()):
        if index % MISSING_EVERY == MISSING_EVERY - 1:
            continue
        rows.append(
            {
                "index": index,
                "audio_type": AUDIO_TYPES[index % len(AUDIO_TYPES)],
                "question": "" if index == EMPTY_QUESTION else "What is happening?",
                "options": "\n".join(f"{c}. {o}" for c, o in zip(LETTERS, OPTION_SETS[s], strict=True)),
                "response": text,
            }
        )
    random.Random(seed).shuffle(rows)
    return rows


def official_list(rows: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """The rows as the list ``calculate_metrics.py`` reads: row k for question k, an empty question where there is
    no row."""
    by_index = {r["index"]: r for r in rows}
    return [by_index.get(k, {"index": k, "question": "", "response": ""}) for k in range(count)]


def sample_corpus(seed: int = 11) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A second corpus: the generated sample at the release's size (1,142 questions, seed 3) with a reply per
    question in a style drawn at random naming an option drawn at random (the gold one or not), and every 50th
    question without a row. Returns the records and the inference rows, in index order."""
    from avibench.benchmarks.omnibench import sample

    records = [q.record for q in sample.questions(1142, seed=3, unit=sample.FULL_UNIT, wh=sample.FULL_WH)]
    rng = random.Random(seed)
    rows = []
    for index, record in enumerate(records):
        style, named = rng.choice(REPLY_STYLES), rng.randrange(4)
        if index % 50 == 49:
            continue
        text = reply(style, tuple(record["options"]), named)
        rows.append({"index": index, "question": record["question"], "response": text})
    return records, rows


def official_lines(result: dict[str, Any], inference_file: str) -> list[str]:
    """The lines the official ``calculate_metrics.py`` prints for an eval document's official ``result`` (every
    audio type must have questions: the script divides by each type's count)."""
    stats = result["stats_by_audio_type"]
    lines = [
        "=" * 40,
        f"Total number of questions: {result['total']}",
        f"Correct response: {result['n_correct_response']}; Invalid response: {result['n_invalid_response']}, "
        f"Wrong response: {result['n_wrong_response']}",
        inference_file,
        "Accuracy, Invalid Rate",
        f"{result['Accuracy']:.4f}, {result['Invalid Rate']:.4f}",
        "Stats by audio type:",
    ]
    for audio_type in ("music", "speech", "sound event"):
        one = stats[audio_type]
        lines += [
            f"{audio_type} total: {one['total']}",
            "Correct, Invalid, Wrong Response Rate:",
            f"{audio_type}: {one['Correct Rate']:.4f}, {one['Invalid Rate']:.4f}, {one['Wrong Rate']:.4f}",
        ]
    return lines
