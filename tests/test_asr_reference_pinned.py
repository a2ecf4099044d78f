"""The ASR reference scoring pinned to Qwen2-Audio's ``eval_audio/evaluate_asr.py`` (@595360e).

The numbers below were computed by running that script's own ``remove_sp`` and ``compute_wer`` (with the
``whisper_normalizer`` and ``cn_tn`` modules it ships, sacrebleu 1.5.1's ``none`` tokenizer and ``editdistance``)
on these corpora outside this project: for each corpus, ``compute_wer([remove_sp(r, lan) ...], [remove_sp(h, lan)
...], lan)`` gave the rate, and the same steps per utterance gave the errors and reference lengths listed. The
script's own ``whisper_normalizer`` folder was imported (not the PyPI package of that name, whose English normaliser
reads ``kinda`` and ``'cause`` differently: the last English pair pins that).
"""

from __future__ import annotations

import sys

import pytest

from avibench.level_metrics.asr import corpus_rate, tokens, utterance_errors

ENGLISH = [  # (reference, hypothesis, official (errors, reference words))
    ("Mr. Smith paid $20 for 3.5 kg of colour paint.",
     "mister smith paid twenty dollars for three point five kilograms of color paint", (1, 11)),
    ("HE HOPED THERE WOULD BE STEW FOR DINNER TURNIPS AND CARROTS",
     "<|en|>He hoped there would be stew for dinner, turnips and carrots.<|endoftext|>", (0, 11)),
    ("THE ORGANISATION WAS CENTRED ON THE THEATRE", "The organization was centered on the theater.", (0, 7)),
    ("I'M GOING TO THE MEETING AT TEN THIRTY",
     'Sure! The transcription is: "I\'m going to the meeting at 10:30."', (6, 8)),
    ("STUFF IT INTO YOU HIS BELLY COUNSELLED HIM", "", (8, 8)),
    ("IT WAS NINETEEN NINETY FIVE", "It was 1995.", (0, 3)),
    ("WE'LL SEE YOU IN TWENTY TWENTY FOUR", "   ", (6, 6)),
    ("SHE SAID HMM WELL OKAY", "She said, uh, well... OK.", (1, 4)),
    ("THE QUICK BROWN FOX", "I'm sorry, I cannot hear any speech in this audio.", (11, 4)),
    ("THE FIRST AND SECOND PRIZES WENT TO TWENTY PERCENT", "The 1st and 2nd prizes went to 20%.", (0, 8)),
    ("I KIND OF DO NOT KNOW BECAUSE IT IS LATE", "I kinda dunno, 'cause it's late.", (6, 10)),
]  # fmt: skip
ENGLISH_RATE = 0.4875  # compute_wer(..., "en"): 39 / 80

FRENCH = [  # another Latin-script language: the basic normaliser alone
    ("Bonjour, le café est très bon !", "<|fr|>bonjour le cafe est très bon", (1, 6)),
    ("Il a mangé (vite) une pomme.", "Il a mangé une pomme, vite.", (1, 5)),
    ("Nous irons à Paris en 2024.", "", (6, 6)),
]
FRENCH_RATE = 0.47058823529411764  # compute_wer(..., "fr"): 8 / 17

CHINESE = [
    ("今天是2024年3月5日。", "今天是二零二四年三月五日", (0, 12)),
    ("价格是12.5元，增长了50%！", "价格是十二点五元增长了百分之五十", (0, 16)),
    ("还有3/4的人", "还有四分之三的人。", (0, 8)),
    ("甚至 出现 交易 几乎 停滞 的 情况", "甚至出现交易几乎停止的情况", (1, 13)),
    ("我们 共有 25个 学生", "<|zh|>我们共有二十五个学生<|endoftext|>", (0, 10)),
    ("好的 我 明白 了", "", (6, 6)),
    ("这是一个测试", "好的，以下是转录内容：“这是一个测试。”", (9, 6)),
    ("他用iPhone打电话", "他用iphone打电话", (0, 11)),
    ("北京欢迎你", "北京欢迎您", (1, 5)),
]
CHINESE_RATE = 0.19540229885057472  # compute_wer(..., "zh"): 17 / 87


@pytest.mark.parametrize(
    ("corpus", "language", "rate"),
    [(ENGLISH, "en", ENGLISH_RATE), (FRENCH, "fr", FRENCH_RATE), (CHINESE, "zh", CHINESE_RATE)],
    ids=["english", "french", "chinese"],
)
def test_corpus_rate_and_counts_equal_the_official_script(corpus, language, rate):
    counts = [utterance_errors(ref, hyp, language) for ref, hyp, _ in corpus]
    assert counts == [official for _, _, official in corpus]
    assert corpus_rate(counts) == pytest.approx(100 * rate, rel=1e-12)


def test_corpus_rate_pools_errors_not_utterance_rates():
    counts = [utterance_errors(ref, hyp, "en") for ref, hyp, _ in ENGLISH]
    mean_of_utterances = 100 * sum(e / n for e, n in counts) / len(counts)
    assert corpus_rate(counts) != pytest.approx(mean_of_utterances)


CN_TN_READINGS = [  # (reference, the official script's reading of it, official (errors, length))
    ("请拨打电话13812345678", "请拨打电话一三八一二三四五六七八", (0, 16)),  # phone number
    ("房间编号2024", "房间编号二零二四", (0, 8)),  # four digits that are no year
    ("第218届", "第两百一十八届", (0, 7)),  # 两 before 百, 千, 万
    ("价格51289.07元", "价格五万一千两百八十九点零七元", (0, 15)),
    ("有200多人", "有两百多人", (0, 5)),
    ("公元前221年", "公元前两百二十一年", (0, 9)),  # a year of three digits
    ("温度是-5度", "温度是五度", (0, 5)),  # cn_tn drops a minus sign
    ("增长率为-2.5%", "增长率为百分之二点五", (0, 10)),
    ("3-5天", "三五天", (0, 3)),  # a range
    ("时间是08:05", "时间是零八零五", (0, 7)),  # a clock time
    ("圆周率3.14159", "圆周率三一四一五九", (0, 9)),  # a decimal of five places
    ("人口达到1,234,567人", "人口达到一两百三十四五百六十七人", (0, 16)),  # thousands separators
]  # fmt: skip


@pytest.mark.parametrize(("reference", "reading", "official"), CN_TN_READINGS)
def test_chinese_number_readings_equal_the_official_script(reference, reading, official):
    """``cn_tn``'s hardest readings (phone numbers, ids, 两, years, minus signs, ranges, clock times, long decimals,
    thousands separators), measured on the official script (its ``remove_sp``, ``cn_tn.TextNorm`` and tokenizer,
    then ``editdistance``): the hypothesis is the script's own reading of the reference, scored with no error."""
    assert utterance_errors(reference, reading, "zh") == official


def test_the_chinese_normaliser_is_loaded_without_importing_its_framework():
    """``cn_tn.py`` is read from lmms-eval's copy by its path; importing ``lmms_eval`` would pull in its whole
    framework (and the dependencies it was installed without)."""
    assert utterance_errors("北京2008年奥运会", "北京二零零八年奥运会", "zh") == (0, 10)
    assert "lmms_eval" not in sys.modules


def test_open_asr_leaderboard_normaliser_keeps_symbols_the_basic_one_splits():
    text = "He paid $20.50 for 3.5 kg, about 20% more."
    assert tokens(text, "en") == ["he", "paid", "20", "50", "for", "3", "5", "kg", "about", "20", "more"]
    assert tokens(text, "en", "whisper-english") == [
        "he",
        "paid",
        "$20.50",
        "for",
        "3.5",
        "kg",
        "about",
        "20%",
        "more",
    ]
