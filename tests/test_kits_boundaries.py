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


class _Shape(ast.NodeTransformer):
    """A function body with every name, argument and constant blanked: copies renamed still match."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Name(id="_", ctx=node.ctx), node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg, node.annotation = "_", None
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.copy_location(ast.Constant(value=type(node.value).__name__), node)


PLUGINS = ("airbench", "audiomarathon", "avibench", "mmar", "omnibench", "starbench", "voicebench")
MIN_NODES = 60  # a function this large copied between plug-ins is logic, not an idiom


def _plugin_of(path: Path) -> str | None:
    parts = path.relative_to(ROOT).parts
    if parts[0] == "benchmarks":
        return parts[1]
    return next((p for p in PLUGINS if path.stem.startswith(p)), None)


def _shapes(path: Path) -> list[tuple[str, str]]:
    """``(shape, "line name")`` of every function of at least :data:`MIN_NODES` nodes."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body[1:] if ast.get_docstring(node) else node.body
            shape = ast.Module(
                body=[_Shape().visit(ast.parse(ast.unparse(b))) for b in body], type_ignores=[]
            )
            if sum(1 for _ in ast.walk(shape)) >= MIN_NODES:
                found.append((ast.dump(shape), f"{node.lineno} {node.name}"))
    return found


def test_no_logic_is_copied_among_plugins() -> None:
    where: dict[str, dict[str, str]] = {}
    for folder in ("benchmarks", "level_metrics", "refine"):
        for path in (ROOT / folder).rglob("*.py"):
            plugin = _plugin_of(path)
            if plugin is None:
                continue
            for shape, name in _shapes(path):
                where.setdefault(shape, {}).setdefault(plugin, f"{path.relative_to(ROOT)}:{name}")
    copies = [sorted(found.values()) for found in where.values() if len(found) > 1]
    assert not copies, copies


def test_the_copy_check_sees_a_renamed_copy(tmp_path: Path) -> None:
    body = "    total = 0\n    for k, v in enumerate(items):\n        if v and k % 2:\n            total += v * k - 1\n"
    body += "        elif v is None:\n            total -= len(items) // 3\n    return {'total': total, 'n': len(items)}\n"
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_text("def count(items):\n" + body)
    second.write_text("def tally(rows):\n" + body.replace("items", "rows").replace("total", "acc"))
    (one,), (two,) = (_shapes(path) for path in (first, second))
    assert one[0] == two[0] and (one[1], two[1]) == ("1 count", "1 tally")
