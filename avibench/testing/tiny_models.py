"""Tiny random-initialised checkpoints of the supported model families, built entirely in code.

Each one is a real checkpoint folder (config, safetensors weights, tokenizer, processor, chat template) that
loads through exactly the path a user's checkpoint takes; only the sizes are tiny and the weights random, so
the answers are noise. The tokenizer is a byte-level BPE over the 256 byte symbols with no merges plus the
family's special tokens; the feature extractors and processors are constructed from their classes.

Run: python -m avibench.testing.tiny_models --family NAME --out DIR
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import transformers
from tokenizers import Tokenizer, decoders, models, pre_tokenizers

_END = "<|im_end|>"
_PAD = "<|endoftext|>"
_CHAT = ["<|im_start|>", _END, _PAD]
_QWEN_AUDIO = {
    "audio_token": "<|AUDIO|>",
    "audio_bos_token": "<|audio_bos|>",
    "audio_eos_token": "<|audio_eos|>",
}
_QWEN_VISION = {
    "image_token": "<|IMAGE|>",
    "video_token": "<|VIDEO|>",
    "vision_bos_token": "<|vision_bos|>",
    "vision_eos_token": "<|vision_eos|>",
}

# A ChatML template written for the tiny models: typed parts become the family's placeholder tokens.
_CHATML = (
    "{%- for message in messages -%}"
    "{%- if loop.first and message.role != 'system' -%}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
    "{%- endif -%}"
    "<|im_start|>{{ message.role }}\n"
    "{%- if message.content is string -%}{{ message.content }}"
    "{%- else -%}{%- for part in message.content -%}"
    "{%- if part.type == 'audio' -%}{{ AUDIO }}"
    "{%- elif part.type == 'image' -%}<|vision_bos|><|IMAGE|><|vision_eos|>"
    "{%- elif part.type == 'video' -%}<|vision_bos|><|VIDEO|><|vision_eos|>"
    "{%- elif part.type == 'text' -%}{{ part.text }}"
    "{%- endif -%}{%- endfor -%}{%- endif -%}"
    "<|im_end|>\n"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|im_start|>assistant\n{%- endif -%}"
)


def chat_template(audio_placeholder: str) -> str:
    return _CHATML.replace("{{ AUDIO }}", audio_placeholder)


def tiny_tokenizer(named: dict[str, str], extra: tuple[str, ...] = ()) -> Any:
    """A Qwen2 tokenizer over single bytes with the chat tokens, ``named`` special tokens and ``extra`` ones."""
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    backend = Tokenizer(models.BPE(vocab={symbol: i for i, symbol in enumerate(alphabet)}, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    backend.add_special_tokens([*_CHAT, *named.values(), *extra])
    return transformers.Qwen2Tokenizer(
        tokenizer_object=backend, eos_token=_END, pad_token=_PAD, unk_token=_PAD, extra_special_tokens=named
    )


def _text_config(vocab: int, **extra: Any) -> dict[str, Any]:
    return {
        "vocab_size": vocab,
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "max_position_embeddings": 4096,
        **extra,
    }


_WHISPER_ENCODER = {
    "num_mel_bins": 128,
    "encoder_layers": 1,
    "encoder_attention_heads": 2,
    "encoder_ffn_dim": 32,
    "d_model": 16,
}


def _ids(tokenizer: Any, **names: str) -> dict[str, int]:
    return {key: tokenizer.convert_tokens_to_ids(token) for key, token in names.items()}


def qwen2_audio() -> tuple[Any, Any]:
    tokenizer = tiny_tokenizer(_QWEN_AUDIO)
    processor = transformers.Qwen2AudioProcessor(
        feature_extractor=transformers.WhisperFeatureExtractor(feature_size=128),
        tokenizer=tokenizer,
        chat_template=chat_template("Audio: <|audio_bos|><|AUDIO|><|audio_eos|>\n"),
    )
    config = transformers.Qwen2AudioConfig(
        audio_config=_WHISPER_ENCODER,
        text_config={"model_type": "qwen2", **_text_config(len(tokenizer))},
        audio_token_index=tokenizer.audio_token_id,
    )
    return transformers.Qwen2AudioForConditionalGeneration(config), processor


def audioflamingo3() -> tuple[Any, Any]:
    tokenizer = tiny_tokenizer({}, extra=("<sound>",))
    processor = transformers.AudioFlamingo3Processor(
        feature_extractor=transformers.WhisperFeatureExtractor(feature_size=128),
        tokenizer=tokenizer,
        chat_template=chat_template("<sound>"),
    )
    encoder = {
        "num_mel_bins": 128,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "intermediate_size": 32,
        "hidden_size": 16,
    }
    config = transformers.AudioFlamingo3Config(
        audio_config=encoder,
        text_config={"model_type": "qwen2", **_text_config(len(tokenizer))},
        audio_token_id=tokenizer.convert_tokens_to_ids("<sound>"),
    )
    return transformers.AudioFlamingo3ForConditionalGeneration(config), processor


def qwen2_5_omni_thinker() -> tuple[Any, Any]:
    """The Qwen2.5-Omni thinker (its processor needs torchvision, as transformers builds it)."""
    tokenizer = tiny_tokenizer({**_QWEN_AUDIO, **_QWEN_VISION})
    processor = transformers.Qwen2_5OmniProcessor(
        image_processor=transformers.Qwen2VLImageProcessor(min_pixels=28 * 28 * 4, max_pixels=28 * 28 * 16),
        video_processor=transformers.Qwen2VLVideoProcessor(min_pixels=28 * 28 * 4, max_pixels=28 * 28 * 16),
        feature_extractor=transformers.WhisperFeatureExtractor(feature_size=128),
        tokenizer=tokenizer,
        chat_template=chat_template("<|audio_bos|><|AUDIO|><|audio_eos|>"),
    )
    # the rope index reads the multimodal token ids even for text-only input: they must be the tokenizer's
    token_ids = _ids(
        tokenizer,
        audio_token_index="<|AUDIO|>",
        image_token_index="<|IMAGE|>",
        video_token_index="<|VIDEO|>",
        audio_start_token_id="<|audio_bos|>",
        audio_end_token_id="<|audio_eos|>",
        vision_start_token_id="<|vision_bos|>",
        vision_end_token_id="<|vision_eos|>",
    )
    config = transformers.Qwen2_5OmniThinkerConfig(
        audio_config={**_WHISPER_ENCODER, "output_dim": 32, "n_window": 50},
        vision_config={
            "depth": 1,
            "hidden_size": 16,
            "intermediate_size": 32,
            "num_heads": 2,
            "out_hidden_size": 32,
            "fullatt_block_indexes": [0],
        },
        text_config=_text_config(
            len(tokenizer),
            rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]},
        ),
        user_token_id=tokenizer.convert_tokens_to_ids("<|im_start|>"),
        **token_ids,
    )
    return transformers.Qwen2_5OmniThinkerForConditionalGeneration(config), processor


FAMILIES: dict[str, Callable[[], tuple[Any, Any]]] = {
    "qwen2-audio": qwen2_audio,
    "audioflamingo3": audioflamingo3,
    "qwen2.5-omni-thinker": qwen2_5_omni_thinker,
}


def build(family: str, out: Path, seed: int = 0) -> Path:
    """Write a tiny checkpoint of ``family`` to ``out`` and return the folder."""
    if family not in FAMILIES:
        raise ValueError(f"unknown tiny family {family!r}; choose from {', '.join(FAMILIES)}")
    torch.manual_seed(seed)
    model, processor = FAMILIES[family]()
    tokenizer = processor.tokenizer
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", required=True, choices=sorted(FAMILIES), help="model family to build")
    parser.add_argument("--out", required=True, type=Path, help="folder to write the checkpoint to")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random weights")
    options = parser.parse_args(argv)
    print(build(options.family, options.out, options.seed))


if __name__ == "__main__":
    main()
