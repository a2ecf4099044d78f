"""The toy yes/no benchmark with an ``eval`` option of its own that its reading consults (``--strictness``).

``lenient`` (the default) reads the answer as the toy does; ``exact`` reads only a bare ``yes``/``no`` reply, so
a reply with more words is unread. It shows that a declared plug-in sees its option's value in ``read``."""

from __future__ import annotations

from typing import Any, ClassVar

import click
from toy_benchmark import ToyBench

from avibench.items import Response


class StrictToyBench(ToyBench):
    name: ClassVar[str] = "strict-toy"
    title: ClassVar[str] = "Toy yes/no audio QA, read strictly on request"

    def eval_options(self) -> list[Any]:
        choice = click.Choice(["lenient", "exact"])
        return [
            click.Option(["--strictness"], type=choice, default="lenient", help="exact: a bare yes or no")
        ]

    def read(self, response: Response, profile: str) -> Any:
        answer = super().read(response, profile)
        if self.options["strictness"] == "exact" and (response.raw or "").strip(" .").lower() != answer:
            return None
        return answer
