"""Every built-in plug-in declares its eval options apart from itself: eval learns all their names without
importing any plug-in, the declaration is what the plug-in answers, and a plug-in without one is imported."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from avibench.plugin import OPTIONS_ENTRY_POINT_GROUP, benchmark_names, declared_eval_options, get_benchmark

BUILTIN = {
    "avibench",
    "airbench",
    "audiomarathon",
    "mmar",
    "mmau",
    "starbench",
    "omnibench",
    "voicebench",
    "asr",
    "mmsu",
    "dailyomni",
    "worldsense",
}


def test_every_builtin_plugin_declares_its_options() -> None:
    from importlib.metadata import entry_points

    declared = {ep.name for ep in entry_points(group=OPTIONS_ENTRY_POINT_GROUP)}
    assert BUILTIN <= declared <= set(benchmark_names())


def _described(options: list[Any]) -> list[tuple[Any, ...]]:
    return [(o.name, o.default, o.help, getattr(o.type, "choices", None)) for o in options]


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_a_declaration_is_what_the_plugin_answers(name: str) -> None:
    assert _described(declared_eval_options(name)) == _described(get_benchmark(name).eval_options())


def test_the_asr_normalisers_offered_are_the_metric_s() -> None:
    from avibench.benchmarks.asr.options import NORMALISER_CHOICES
    from avibench.level_metrics.asr import NORMALISERS

    assert NORMALISER_CHOICES == NORMALISERS


def test_option_names_are_known_without_importing_a_plugin() -> None:
    probe = (
        "import json, sys\n"
        "from avibench.plugin import benchmark_names, declared_eval_options\n"
        "names = sorted(o.name for n in benchmark_names() for o in declared_eval_options(n))\n"
        "loaded = sorted(m for m in sys.modules if m.endswith('.plugin') and 'benchmarks' in m)\n"
        "print(json.dumps([names, loaded, [m for m in ('numpy', 'PIL', 'av') if m in sys.modules]]))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    names, plugins, heavy = json.loads(out)
    assert {
        "fense",
        "judge_model",
        "judge_template",
        "judge_concurrency",
        "asr_normaliser",
        "dailyomni_rule",
    } <= set(names)
    assert plugins == [] and heavy == []


def test_a_plugin_declaring_none_is_imported_and_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    class Undeclared:
        def eval_options(self) -> list[str]:
            return ["asked"]

    monkeypatch.setattr("avibench.plugin.get_benchmark", lambda name: Undeclared())
    assert declared_eval_options("not-declared") == ["asked"]
