"""Benchmarks share code through the kits only: no module under ``benchmarks/<name>/`` imports another benchmark,
and the stages (``infer/``, ``refine/``, ``evaluate/``, ``level_metrics/``) import none."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("infer", "refine", "evaluate", "level_metrics")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names += [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names]
    return names


def _benchmark_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if parts[:2] == ["avibench", "benchmarks"] and len(parts) > 2 else None


@pytest.mark.parametrize(
    "name", sorted(p.name for p in (ROOT / "benchmarks").iterdir() if (p / "plugin.py").is_file())
)
def test_no_benchmark_imports_another(name: str) -> None:
    found = {
        f"{path.relative_to(ROOT)} imports {module}"
        for path in (ROOT / "benchmarks" / name).rglob("*.py")
        for module in _imports(path)
        if _benchmark_of(module) not in (None, name)
    }
    assert not found, sorted(found)


def test_the_stages_import_no_benchmark() -> None:
    found = {
        f"{path.relative_to(ROOT)} imports {module}"
        for stage in STAGES
        for path in (ROOT / stage).rglob("*.py")
        for module in _imports(path)
        if _benchmark_of(module) is not None
    }
    assert not found, sorted(found)


def test_the_check_sees_an_import(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from avibench.benchmarks.mmar import layout\nimport avibench.benchmarks.omnibench.sample\n"
    )
    assert {_benchmark_of(m) for m in _imports(probe)} == {"mmar", "omnibench"}
    assert _benchmark_of("avibench.kits.records") is None
