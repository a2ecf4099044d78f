"""The transcript in a speech recognition reply, by rules (the strict ASR profile's reading).

Three kinds of reply:

* a refusal or a claim that there is nothing to hear ("I cannot hear any speech", "抱歉，我无法识别") has no
  transcript: :func:`is_refusal`; it is scored as an empty transcript and counted unparsed;
* chatter around a transcript ("Sure! The transcription is: \"...\"", "以下是转录内容：“...”"): a lead-in that
  names the transcription and ends in a colon is cut, and quotes around what follows are taken off;
  a closing remark after a quoted transcript goes with them;
* anything else is the transcript as it stands.

A reply that speaks of a transcription but has no colon after the lead-in, or whose transcript is not set off
(``Transcription of the audio follows I went home``), is left to the LLM fallback (:func:`transcript` returns
``None``).
"""

from __future__ import annotations

import re

_REFUSAL = re.compile(
    r"\b(?:i\s*(?:can ?not|can't|am unable to|'m unable to|am not able to|'m not able to)\s+"
    r"(?:hear|transcribe|detect|recogni[sz]e|process|understand|identify|make out|access|listen)"
    r"|no (?:audible |clear |recogni[sz]able )?(?:speech|audio|voice|words?)\b[^.]*\b(?:detected|found|present|"
    r"provided|heard)|there (?:is|was) no (?:audible |clear )?(?:speech|audio|voice)"
    r"|unable to (?:transcribe|hear|detect|recogni[sz]e)"
    r"|\bi\s*(?:can ?not|can't|am unable to|'m unable to) (?:help|assist) with (?:that|this)"
    r"|(?:do not|don't) have (?:the )?(?:ability|capability|capacity) to (?:listen|hear|process|transcribe)"
    r"|\bthe (?:audio|recording|clip) (?:is|seems|appears to be|sounds) (?:completely |entirely )?(?:silent|empty|blank)"
    r"|\bthe (?:audio|recording|clip) (?:contains|has) no (?:audible |clear )?(?:speech|voice|words))",
    re.IGNORECASE,
)
_REFUSAL_ZH = re.compile(
    r"无法(?:识别|转录|转写|听清|听到|辨认|处理(?:音频|语音|录音))|听不(?:到|清)(?:任何)?(?:语音|声音|内容)"
    r"|(?:抱歉|对不起|不好意思)[，,。！!\s]*我?(?:听不(?:到|清)|无法)|没有检测到(?:任何)?(?:语音|声音|人声)"
    r"|(?:音频|录音)(?:中|里)?没有(?:任何)?(?:语音|声音|人声|说话)"
)
_MENTIONS = re.compile(
    r"transcri(?:pt|ption|bed|be)|recogni[sz]ed text|the audio says|speaker says|转录|转写|识别结果|识别内容|文本内容|语音内容|音频内容",
    re.IGNORECASE,
)
_LEAD_IN = re.compile(
    r"^(?:(?:sure|okay|ok|certainly|of course|here you go|好的|当然)[!,.！，。]?\s*)?"
    r"[^:：\n\"“”「」]{0,80}?(?:transcri(?:pt|ption|bed|be)|recogni[sz]ed text|the audio says|speaker says|"
    r"转录|转写|识别结果|识别内容|文本内容|语音内容|音频内容)[^:：\n\"“”「」]{0,40}[:：]\s*",
    re.IGNORECASE,
)
_QUOTED = re.compile(
    r'^(?:"(?P<a>[^"]+)"|“(?P<b>[^”]+)”|「(?P<c>[^」]+)」|『(?P<d>[^』]+)』)\s*(?:[.!。！]\s*)?(?P<rest>.*)$',
    re.DOTALL,
)


def is_refusal(reply: str) -> bool:
    """Whether a reply says it has nothing to transcribe (or will not) instead of giving a transcript."""
    return bool(_REFUSAL.search(reply) or _REFUSAL_ZH.search(reply))


def _unquote(text: str) -> str | None:
    """The text inside quotes at the start, with a short closing remark after them dropped; ``text`` itself when
    it does not start with a quote; ``None`` when what follows the quotes is long enough to be more speech."""
    found = _QUOTED.match(text)
    if found is None:
        return text
    rest = found["rest"].strip()
    if rest and _MENTIONS.search(rest) is None and len(rest) > 60:
        return None
    return next(t for t in found.group("a", "b", "c", "d") if t is not None).strip()


def transcript(reply: str) -> str | None:
    """The transcript in a reply, or ``None`` when the rules cannot tell it from the chatter (or it is a
    refusal: check :func:`is_refusal` to tell the two apart)."""
    text = reply.strip()
    if not text:
        return ""
    if is_refusal(text):
        return None
    lead = _LEAD_IN.match(text)
    if lead is not None:
        return _unquote(text[lead.end() :].strip())
    if _MENTIONS.search(text):
        return None
    return _unquote(text)
