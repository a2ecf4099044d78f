"""A plug-in's own eval options as a setting of the scores: a number scored with an option other than its default
is marked on the leaderboard and the cards, and runs scored with different option values are not compared
unless forced (and then said so), as runs on other data or made with other settings are."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from avibench.errors import AvibenchError

#: Options that change how a judge is reached, not what it says: never a difference between scores.
NOT_SCORING = frozenset({"judge_base_url", "judge_concurrency"})


def option_defaults(benchmark_name: str) -> tuple[dict[str, Any], frozenset[str]]:
    """The defaults of the installed plug-in's eval options by name, and the options whose effect it states
    itself (:attr:`~avibench.plugin.Benchmark.stated_options`); none when it is not installed."""
    import click

    from avibench.plugin import get_benchmark

    try:
        benchmark = get_benchmark(benchmark_name)
    except AvibenchError:
        return {}, frozenset()
    defaults = {o.name: o.default for o in benchmark.eval_options() if isinstance(o, click.Option) and o.name}
    return defaults, frozenset(benchmark.stated_options)


def scoring_options(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The eval options an eval.json was scored with that are not their defaults (``meta.options``)."""
    recorded = meta.get("options")
    if not isinstance(recorded, Mapping):
        return {}
    defaults, _ = option_defaults(str(meta.get("benchmark") or ""))
    return {
        str(name): value
        for name, value in sorted(recorded.items())
        if name not in NOT_SCORING and value is not None and value != defaults.get(name)
    }


def marked_options(meta: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`scoring_options` less those the plug-in's own pages already state (AVI-Bench's FENSE models)."""
    _, stated = option_defaults(str(meta.get("benchmark") or ""))
    return {name: value for name, value in scoring_options(meta).items() if name not in stated}


def describe(options: Mapping[str, Any]) -> str:
    """``--strictness exact, --fense stand-in``, or ``defaults``."""
    shown = [f"--{name.replace('_', '-')} {value}" for name, value in options.items()]
    return ", ".join(shown) or "defaults"


def options_mark(meta: Mapping[str, Any]) -> str:
    """The short mark of a number scored with non-default eval options (``""`` otherwise)."""
    options = marked_options(meta)
    return f" [eval options: {describe(options)}]" if options else ""


def options_differ(runs: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """Why runs ``(label, meta)`` scored with different eval option values are not comparable, against the first."""
    (base, base_meta), others = runs[0], runs[1:]
    mine = scoring_options(base_meta)
    reasons = []
    for label, meta in others:
        theirs = scoring_options(meta)
        if theirs != mine:
            reasons.append(
                f"{base} and {label} were scored with different eval options ({base}: {describe(mine)}; "
                f"{label}: {describe(theirs)})"
            )
    return reasons
