"""From items and answers to scores: the strict extraction of one answer, scoring records, and rescoring files.

Both profiles come from one list of :class:`~avibench.level_metrics.mmar.Record`: the reference profile reads
the raw answer, the strict one the option the extractor chose.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from avibench.benchmarks.mmar.layout import Layout
from avibench.benchmarks.mmar.predictions import PredictionFile, read_predictions
from avibench.benchmarks.mmar.prompt import DEFAULT_TEMPLATE, shown_letters
from avibench.items import Item, Response
from avibench.level_metrics.mmar import PROFILES, Record, score
from avibench.refine.choice import choose


def chosen_index(text: str | None, options: Sequence[str], template: str) -> int | None:
    """The option a raw answer commits to, reading letters only if the template showed them."""
    if text is None:
        return None
    return choose(text, options, shown_letters(template, len(options)))


def extract(item: Item, text: str) -> str | None:
    """The canonical refined answer: the chosen option's text, or ``None`` when the answer does not say."""
    index = chosen_index(text, item.options, item.template or DEFAULT_TEMPLATE)
    return None if index is None else item.options[index]


def _groups(values: Mapping[str, Any], layout: Layout) -> dict[str, Any]:
    return {b.field: values.get(b.field) for b in layout.breakdowns}


def response_record(response: Response, layout: Layout) -> Record:
    """The scoring record of one response. A refined answer gives the strict choice; an answer refine has not
    seen yet (no method) is extracted here."""
    item = response.item
    raw = response.raw if response.status == "answered" else None
    if response.method is not None:
        chosen = item.options.index(response.refined) if response.refined in item.options else None
    else:
        chosen = chosen_index(raw, item.options, item.template or DEFAULT_TEMPLATE)
    return Record(str(item.answer), tuple(item.options), raw, chosen, _groups(item.meta, layout))


def file_records(
    predictions: PredictionFile, layout: Layout, template: str = DEFAULT_TEMPLATE
) -> list[Record]:
    """The scoring records of an official prediction file; ``template`` says which letters the model was shown
    (the default, the recommended prompt, shows none)."""
    records = []
    for record in predictions.records:
        choices = tuple(record["choices"])
        raw = predictions.prediction(record)
        chosen = chosen_index(raw, choices, template)
        records.append(Record(record["answer"], choices, raw, chosen, _groups(record, layout)))
    return records


def score_both(records: Sequence[Record], layout: Layout) -> dict[str, dict[str, Any]]:
    """The official-shape result of every profile, by profile name."""
    return {name: score(records, layout.breakdowns, profile) for name, profile in PROFILES.items()}


def score_responses(responses: Iterable[Response], layout: Layout) -> dict[str, dict[str, Any]]:
    return score_both([response_record(r, layout) for r in responses], layout)


def rescore_file(
    path: Path, layout: Layout, template: str = DEFAULT_TEMPLATE
) -> tuple[dict[str, dict[str, Any]], PredictionFile]:
    """Both profiles' results for an official prediction file, and the file as read (with its notes)."""
    predictions = read_predictions(path, layout)
    return score_both(file_records(predictions, layout, template), layout), predictions
