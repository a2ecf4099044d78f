"""A small, deterministic AIR-Bench in the official layout, with real audio, and the baseline answerers.

Every Foundation subset (25, covering the 19 tasks) and every Chat folder (10, covering the 5 categories) gets
``per_subset`` entries. Questions and options are synthetic; the audio is a short tone whose pitch follows the
entry's number, stored as 16 kHz wav (flac for Audio_Grounding, whose entries still name ``.wav`` files).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from avibench.benchmarks.airbench.layout import CHAT_SECTION, FOUNDATION_SECTION, OPTION_FIELDS, Section
from avibench.items import Item
from avibench.kits import multiple_choice as mc
from avibench.kits.media import tone, write_audio
from avibench.level_metrics.airbench import FOUNDATION_TASKS, LETTERS

CLIP_SECONDS = 0.2

#: Per task: the question asked, and the pool its options are drawn from (a two-word pool makes two-option
#: questions).
QUESTIONS = {
    "Speech_Grounding": "When is the word 'river' spoken?",
    "Spoken_Language_Identification": "Which language is spoken?",
    "Speaker_Gender_Recognition": "What is the gender of the speaker?",
    "Speaker_Emotion_Recontion": "What emotion does the speaker express?",
    "Speaker_Age_Prediction": "How old is the speaker?",
    "Speech_Entity_Reconition": "Which place is mentioned?",
    "Speaker_Intent_Classification": "What does the speaker want?",
    "Speaker_Number_Verification": "How many speakers are there?",
    "Synthesized_Voice_Detection": "Is this voice real or synthesized?",
    "Audio_Grounding": "When does the dog bark?",
    "vocal_sound_classification": "Which vocal sound is heard?",
    "Acoustic_Scene_Classification": "Where was this recorded?",
    "Sound_AQA": "What makes the loudest sound?",
    "Music_Instruments_Classfication": "Which instrument is playing?",
    "Music_Genre_Recognition": "What is the genre of this music?",
    "Music_Midi_Pitch_Analysis": "What is the MIDI pitch of the note?",
    "Music_Midi_Velocity_Analysis": "What is the MIDI velocity of the note?",
    "Music_AQA": "Which instrument starts first?",
    "Music_Mood_Recognition": "What mood does this music convey?",
}
OPTION_POOLS = {
    "Speech_Grounding": ("[0.12, 0.48]", "[0.50, 0.91]", "[1.02, 1.40]", "[1.55, 1.90]", "[2.10, 2.44]"),
    "Spoken_Language_Identification": ("English", "German", "French", "Spanish", "Chinese", "Japanese"),
    "Speaker_Gender_Recognition": ("male", "female"),
    "Speaker_Emotion_Recontion": ("happy", "sad", "angry", "neutral", "surprised"),
    "Speaker_Age_Prediction": (
        "teens to twenties",
        "thirties to forties",
        "fifties to sixties",
        "seventies and above",
    ),
    "Speech_Entity_Reconition": ("Paris", "the kitchen", "the office", "London", "the station"),
    "Speaker_Intent_Classification": (
        "set an alarm",
        "play music",
        "check the weather",
        "order food",
        "call a friend",
    ),
    "Speaker_Number_Verification": ("1", "2", "3", "4", "5"),
    "Synthesized_Voice_Detection": ("real", "fake"),
    "Audio_Grounding": ("[0.0, 1.2]", "[1.5, 2.8]", "[3.1, 4.0]", "[4.2, 5.9]", "[6.3, 7.7]"),
    "vocal_sound_classification": ("cough", "laughter", "sneeze", "sigh", "sniff", "throat clearing"),
    "Acoustic_Scene_Classification": ("a bus", "a park", "a restaurant", "a metro station", "a street"),
    "Sound_AQA": ("a dog", "a car", "rain", "a bell", "a door"),
    "Music_Instruments_Classfication": ("piano", "guitar", "violin", "flute", "drums", "organ"),
    "Music_Genre_Recognition": ("rock", "jazz", "classical", "hip-hop", "pop", "folk"),
    "Music_Midi_Pitch_Analysis": ("48", "55", "60", "64", "67", "72"),
    "Music_Midi_Velocity_Analysis": ("25", "50", "75", "100", "127"),
    "Music_AQA": ("the piano", "the drums", "the bass", "the singer", "the trumpet"),
    "Music_Mood_Recognition": ("calm", "energetic", "sad", "happy", "dark", "romantic"),
}

CHAT_FOLDERS: tuple[tuple[str, str], ...] = (
    ("speech_QA", "common_voice_en"),
    ("speech_QA", "iemocap"),
    ("speech_dialogue_QA", "fisher"),
    ("speech_dialogue_QA", "spokenwoz"),
    ("sound_QA", "clotho"),
    ("sound_generation_QA", "clotho"),
    ("music_QA", "musiccaps"),
    ("music_generation_analysis_QA", "musiccaps"),
    ("speech_and_sound_QA", "audiocaps_cv"),
    ("speech_and_music_QA", "musiccaps_cv"),
)
CHAT_SUBJECTS = ("a dog", "a violin", "a woman", "rain", "a crowd", "a train", "a piano", "a man")
RANDOM_REPLIES = ("I am not sure.", "It sounds pleasant.", "There is some noise.", "Something is moving.")


def _foundation_entry(rng: random.Random, task_name: str, dataset: str, number: int) -> dict[str, Any]:
    question, pool = QUESTIONS[task_name], OPTION_POOLS[task_name]
    k = len(pool) if len(pool) == 2 else rng.choice((2, 3, 4, 4))
    options = rng.sample(pool, k)
    entry: dict[str, Any] = {"path": f"{task_name}_{number:06d}.wav", "question": question}
    entry.update(zip(OPTION_FIELDS, options, strict=False))
    entry.update(
        {"answer_gt": rng.choice(options), "task_name": task_name, "dataset_name": dataset, "uniq_id": number}
    )
    return entry


def foundation_entries(per_subset: int, seed: int = 0) -> list[dict[str, Any]]:
    """The Foundation meta entries: ``per_subset`` for each of the 25 subsets, ids counting from 0."""
    rng = random.Random(seed)
    subsets = [(t.name, d) for t in FOUNDATION_TASKS for d in t.datasets]
    return [
        _foundation_entry(rng, task, dataset, s * per_subset + i)
        for s, (task, dataset) in enumerate(subsets)
        for i in range(per_subset)
    ]


def chat_entries(per_subset: int, seed: int = 0) -> list[dict[str, Any]]:
    """The Chat meta entries: ``per_subset`` for each of the 10 folders, ids counting from 0."""
    rng = random.Random(seed)
    entries = []
    for f, (task_name, dataset) in enumerate(CHAT_FOLDERS):
        for i in range(per_subset):
            number = f * per_subset + i
            subject, other = rng.sample(CHAT_SUBJECTS, 2)
            entries.append(
                {
                    "path": f"{task_name}_{number:06d}.wav",
                    "question": "What can be heard in this recording?",
                    "answer_gt": f"The recording mainly features {subject}.",
                    "task_name": task_name,
                    "dataset_name": dataset,
                    "meta_info": f"A short clip in which {subject} is heard clearly and {other} faintly.",
                    "uniq_id": number,
                }
            )
    return entries


def _write_section(root: Path, section: Section, entries: list[dict[str, Any]]) -> None:
    for number, entry in enumerate(entries):
        audio = section.audio_path(root, entry)
        write_audio(audio, tone(220.0 * 2 ** ((number % 24) / 12), CLIP_SECONDS))
    meta = section.meta_path(root)
    meta.write_text(json.dumps(entries, ensure_ascii=False, indent=1), encoding="utf-8")


def generate(
    root: Path, per_subset: int = 2, seed: int = 0, foundation: bool = True, chat: bool = True
) -> Path:
    """Write the sample under ``root`` (either section can be left out) and return ``root``."""
    root = Path(root)
    if foundation:
        _write_section(root, FOUNDATION_SECTION, foundation_entries(per_subset, seed))
    if chat:
        _write_section(root, CHAT_SECTION, chat_entries(per_subset, seed))
    return root


ORACLE_PHRASES = ("{letter}", "{letter}. {text}", "The answer is {letter}.")
"""How the oracle phrases a Foundation answer: each reads as the gold letter under the official rule (first
character, else the second-to-last) and under the strict extractor alike."""


def oracle_answer(item: Item, rng: random.Random) -> str:
    """The right answer: the gold letter in one of :data:`ORACLE_PHRASES` for Foundation, the reference answer
    for Chat."""
    if item.task == "foundation":
        letter = LETTERS[mc.gold_index(item.options, item.answer)]
        return rng.choice(ORACLE_PHRASES).format(letter=letter, text=item.answer)
    return str(item.answer)


def random_answer(item: Item, rng: random.Random) -> str:
    """A uniform guess among the real option letters for Foundation; a stock sentence for Chat."""
    return mc.random_reply(item.options, rng) if item.task == "foundation" else rng.choice(RANDOM_REPLIES)
