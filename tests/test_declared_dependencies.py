"""pyproject.toml declares what the product imports and nothing more: each runtime dependency is imported by the
product's sources, and each third-party module they import belongs to a declared dependency.

The product's sources are the folders of ``[tool.setuptools] package-dir``; imports are read with ``ast`` (those in
functions too), and distributions are tied to import names by ``importlib.metadata.packages_distributions``. An
import guarded by ``except ImportError`` uses a declared dependency when there is one, and otherwise is optional
(an extra installed by hand, e.g. PEDANT's ``qa_metrics``) and needs no declaration.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _name(requirement: str) -> str:
    """A requirement's distribution name, normalised (PEP 503)."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement.strip())
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group(0)).lower()


def _guarded(tree: ast.AST) -> set[ast.AST]:
    """Import statements inside a ``try`` whose handlers catch ImportError (or ModuleNotFoundError)."""
    guarded: set[ast.AST] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        caught = {ast.unparse(h.type) for h in node.handlers if h.type is not None}
        if not any(name in text for text in caught for name in ("ImportError", "ModuleNotFoundError")):
            continue
        for statement in node.body:
            guarded.update(n for n in ast.walk(statement) if isinstance(n, ast.Import | ast.ImportFrom))
    return guarded


def _resource_package(node: ast.AST) -> str | None:
    """The package of ``files("pkg")`` (importlib.resources): a dependency used for the data files it ships."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name | ast.Attribute)
        and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) == "files"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None


def product_imports(*, guarded: bool) -> dict[str, list[str]]:
    """Third-party top-level modules the product imports -> the files that import them; ``guarded`` takes in the
    imports under ``except ImportError`` too (a declared dependency imported so that its absence is explained)."""
    folders = sorted(set(PYPROJECT["tool"]["setuptools"]["package-dir"].values()))
    found: dict[str, list[str]] = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            optional = set() if guarded else _guarded(tree)
            for node in ast.walk(tree):
                if node in optional:
                    continue
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                elif _resource_package(node):
                    names = [_resource_package(node)]  # type: ignore[list-item]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top != "avibench":
                        found.setdefault(top, []).append(str(path.relative_to(ROOT)))
    return found


def distributions_of(modules: dict[str, list[str]]) -> dict[str, str]:
    """Installed distribution (normalised) -> a module of it the product imports."""
    owners = importlib.metadata.packages_distributions()
    return {_name(dist): module for module in modules for dist in owners.get(module, [])}


#: Declared for a dependency that imports them without declaring them: distribution -> (that dependency's import
#: name, the module of it that imports this one). The test checks the import is still there.
FOR_A_DEPENDENCY = {"requests": ("aac_metrics", "aac_metrics.functional.fer")}


def test_every_declared_dependency_is_imported_by_the_product() -> None:
    declared = {_name(r) for r in PYPROJECT["project"]["dependencies"]}
    imported = distributions_of(product_imports(guarded=True))
    unused = declared - set(imported) - set(FOR_A_DEPENDENCY)
    assert not unused, f"declared in pyproject.toml but imported by no product source: {sorted(unused)}"


def test_a_dependency_declared_for_another_is_still_imported_by_it() -> None:
    declared = {_name(r) for r in PYPROJECT["project"]["dependencies"]}
    for dist, (user, module) in FOR_A_DEPENDENCY.items():
        assert dist in declared and user in product_imports(guarded=True)
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin is not None, module
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {
            n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
        }
        assert dist in names, f"{module} no longer imports {dist}: drop it from pyproject.toml"


def test_every_third_party_import_of_the_product_is_declared() -> None:
    declared = {_name(r) for r in PYPROJECT["project"]["dependencies"]}
    owners = importlib.metadata.packages_distributions()
    undeclared = {
        module: files[0]
        for module, files in product_imports(guarded=False).items()
        if not {_name(d) for d in owners.get(module, [])} & declared
    }
    assert not undeclared, f"imported but not declared in pyproject.toml (module: first file): {undeclared}"


def test_the_scan_sees_imports_in_functions_and_skips_guarded_ones() -> None:
    """The two checks above can fail: a function-level import is found, an ImportError-guarded one is not."""
    tree = ast.parse(
        "def f():\n    import joblib\ntry:\n    import qa_metrics\nexcept ImportError:\n    pass\n"
    )
    guarded = _guarded(tree)
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.Import)]
    assert [n.names[0].name for n in imports if n not in guarded] == ["joblib"]
    assert "openai" in product_imports(guarded=False) and "qa_metrics" not in product_imports(guarded=False)
    assert "langdetect" in product_imports(guarded=True)
    assert distributions_of({"yaml": []}) == {"pyyaml": "yaml"}


def test_the_makefile_installs_the_chinese_normaliser_the_asr_metric_reads():
    """lmms-eval is installed without its dependencies (only its standard-library ``cn_tn.py`` is read, by path),
    so it cannot be a pyproject dependency: the Makefile pins it, and that pin must be the one the metric names."""
    from avibench.level_metrics.asr import CN_TN

    distribution, version, _ = CN_TN
    assert f"CN_TN_DIST := {distribution}=={version}\n" in (ROOT / "Makefile").read_text()
    assert importlib.metadata.version(distribution) == version
