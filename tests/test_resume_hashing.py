"""The content hash a journal record carries must stay the same from one version to the next (resumed runs compare
it with the dataset), and must still see an edited media file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from avibench.infer.fingerprint import content_hash
from avibench.items import Item, Part


def _item(root: Path) -> Item:
    return Item(
        benchmark="b",
        task="T",
        item_id="1",
        parts=(
            Part.audio(root / "data/input/a.wav", 1),
            Part.image(root / "data//input/./b.png"),
            Part.video(root / "data/input/missing.mp4"),
            Part.text("What?"),
        ),
        system="sys",
    )


@pytest.fixture
def media(tmp_path: Path) -> Path:
    (tmp_path / "data/input").mkdir(parents=True)
    (tmp_path / "data/input/a.wav").write_bytes(b"abc" * 5000)
    (tmp_path / "data/input/b.png").write_bytes(b"xyz")
    return tmp_path


def test_the_hash_is_the_one_earlier_versions_recorded(media: Path) -> None:
    assert content_hash(_item(media)) == "68d376d524fa24d4"


def test_an_edited_media_file_changes_the_hash(media: Path) -> None:
    before = content_hash(_item(media))
    wav = media / "data/input/a.wav"
    wav.write_bytes(b"abd" * 5000)
    os.utime(wav, ns=(1, 1))  # a new time as well: the fingerprint is kept per size and time
    assert content_hash(_item(media)) != before
