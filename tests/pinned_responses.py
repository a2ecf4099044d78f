"""What the pinned-document tests share: seeded responses of every status, half refined by the rules and half
left to the extractor at scoring time, and a short digest of a JSON value."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable

from avibench.items import Item, Response
from avibench.plugin import Benchmark


def seeded_response(
    plugin: Benchmark, item: Item, rng: random.Random, reply: Callable[[Item, float], str]
) -> Response:
    """A failed (10%), missing (10%) or answered response; ``reply(item, roll)`` writes the answer. The draws
    come in a fixed order, so a seed gives the same responses (and the pinned digests) every time."""
    roll = rng.random()
    if roll < 0.1:
        return Response(item=item, status="failed")
    if roll < 0.2:
        return Response(item=item, status="missing")
    raw = reply(item, roll)
    if rng.random() < 0.5:  # refined by the rules; the rest are extracted at scoring time
        refined = plugin.extract(item, raw)
        method = "unparsed" if refined is None else "rule"
        return Response(item=item, status="answered", raw=raw, refined=refined, method=method)
    return Response(item=item, status="answered", raw=raw)


def digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]
