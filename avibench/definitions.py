"""Loads the prompt and option definitions shipped as data in ``avibench.prompts``."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any


@cache
def definitions() -> dict[str, dict[str, Any]]:
    """Per-task pseudo-key tables (the reference's ``havib_constants``), verbatim."""
    import yaml  # here, not at import: most commands never read a YAML file

    text = resources.files("avibench.prompts").joinpath("definitions.yaml").read_text(encoding="utf-8")
    # libyaml's safe loader reads the same document about ten times faster; every command that loads data needs it
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def constants_for(task: str) -> dict[str, Any]:
    """The pseudo-key table of one task folder; raises KeyError for a task the definitions do not know."""
    table = definitions()
    if task not in table:
        raise KeyError(f"no prompt definitions for task {task!r}")
    return table[task]


def prompt_resource(*parts: str) -> str:
    """Text of a file under ``avibench.prompts`` (for example ``prompt_resource("refine", "qa.txt")``)."""
    node = resources.files("avibench.prompts")
    for part in parts:
        node = node.joinpath(part)
    return node.read_text(encoding="utf-8")


@cache
def template_catalogue(*parts: str) -> dict[str, Any]:
    """A benchmark's prompt templates under ``avibench.prompts``: a YAML file with ``default`` (a template id)
    and ``templates`` (id -> fields)."""
    import yaml

    return yaml.safe_load(prompt_resource(*parts))


def template_ids(catalogue: dict[str, Any]) -> tuple[str, ...]:
    """The catalogue's template ids, the default one first."""
    default = catalogue["default"]
    return (default, *(t for t in catalogue["templates"] if t != default))


def template_fields(catalogue: dict[str, Any], template: str, benchmark: str) -> dict[str, Any]:
    """The fields of one template; KeyError names the benchmark's known templates."""
    templates = catalogue["templates"]
    if template not in templates:
        raise KeyError(f"unknown {benchmark} template {template!r}; known templates: {', '.join(templates)}")
    return templates[template]
