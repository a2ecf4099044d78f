"""Why a media file does not decode, in words: an empty stream, a missing stream, or the decoder's own reason
(without the path again, which the message already starts with)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile

from avibench.infer.media_verdicts import decode_problem
from avibench.kits.media import tone, write_wav


def test_a_decodable_file_has_no_problem(tmp_path: Path) -> None:
    path = tmp_path / "tone.wav"
    write_wav(path, tone(440, 0.2))
    assert decode_problem(path, "audio") is None


def test_each_failure_is_said_in_words(tmp_path: Path) -> None:
    empty = tmp_path / "empty.wav"
    soundfile.write(empty, np.zeros(0), 16000)
    assert (
        decode_problem(empty, "audio") == f"{empty} does not decode as audio (its audio stream holds nothing)"
    )
    assert decode_problem(empty, "video") == f"{empty} does not decode as video (it holds no video stream)"
    junk = tmp_path / "junk.wav"
    junk.write_bytes(b"these bytes are no audio")
    why = decode_problem(junk, "audio")
    assert why is not None and why.startswith(f"{junk} does not decode as audio (InvalidDataError: ")
    assert why.count(str(junk)) == 1
