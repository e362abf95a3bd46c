"""A name the note says someone goes by: 'Goes by "PJ"', 'Known as: Bill', '"Encarni", como la
llaman', 'Emeka, as he prefers to be called', 'surnommée « Lolo »'.

Notes give the name a patient or a relative is called by, often a nickname no name table holds
("Bubba", "Vivi", "Kez", "Sveta"), and then use it alone ("Vivi grimaced w/ dressing change"):
each use left in the output names them (issue 29: 15 such leaks on the realistic corpus's train
notes). The cue is what says it is a name: "goes by", "known as", "aka", "prefers to be called",
"calls herself", "family calls her", "as he signs" (after the name), a capitalised word in
quotes and brackets after a name ('Bobby Ray ("Bubba")'), "dit", "surnommé", "se fait
appeler", "como la llaman", "conocido como", "apodado", "alias". The name is the one word (or two
capitalised words) right after the cue, in quotes or capitalised; in capitals only up to four
letters ("PJ"). Its later uses are found by the name echoes (``deid.detection.echoes``).
"""

from __future__ import annotations

import re

from deid.labels import Label
from deid.rules.names import TITLES_AND_PARTICLES, fold
from deid.rules.registry import register
from deid.spans import Span

_I = re.IGNORECASE
_Q = r"[\"'“”‘’«»]"
# French quotes hold their word between blanks, often non-breaking ones: « Fifi »
_PAD = r"[ \t\u00a0\u202f]?"
# A name: capitalised (or up to four capitals), at most two words; in quotes it may be in lower case.
# Case-sensitive inside the case-blind cues.
_NAME = r"(?-i:[A-ZÀ-Þ][a-zß-ÿ'’\-]{1,20}(?:[ \t][A-ZÀ-Þ][a-zß-ÿ'’\-]{1,20})?|[A-Z]{2,4}(?![\w'’]))"
_QUOTED_NAME = r"[^\W\d_][\w'’\-]{1,20}(?:[ \t][^\W\d_][\w'’\-]{1,20})?"
_BEFORE: dict[str, str] = {
    "en": (r"goes[ \t]by|going[ \t]by|went[ \t]by|known[ \t]as|a\.?k\.?a\.?|nicknamed|nickname|"
           r"prefers[ \t](?:to[ \t]be[ \t])?called|likes[ \t]to[ \t]be[ \t]called|"
           r"calls[ \t](?:him|her|them)sel(?:f|ves)|(?:calls?|called)[ \t](?:him|her|them)"),
    "fr": (r"dite?|surnomm[ée]e?|se[ \t]fait[ \t]appeler|qu['’]on[ \t](?:l['’])?appelle|"
           r"appel[ée]e?[ \t]par[ \t](?:tous|sa[ \t]famille|ses[ \t]proches)"),
    "es": (r"conocid[oa][ \t]como|apodad[oa]|alias|le[ \t]dicen|la[ \t]llaman|le[ \t]llaman|"
           r"prefiere[ \t]que[ \t](?:la|le|lo)[ \t]llamen"),
}
_AFTER: dict[str, str] = {
    "en": (r"as[ \t](?:he|she|they)[ \t](?:prefers|likes)[ \t]to[ \t]be[ \t]called|"
           r"as[ \t](?:he|she|they)[ \t]signs?|as[ \t](?:he|she|they)[ \t](?:is|are)[ \t]known"),
    "fr": r"comme[ \t](?:on[ \t]l['’]appelle|(?:il|elle)[ \t]se[ \t]fait[ \t]appeler)",
    "es": (r"como[ \t](?:la|le|lo)[ \t]llaman|como[ \t](?:la|le|lo)[ \t]conocen|"
           r"(?:as[ií][ \t]|como[ \t])?prefiere[ \t]que[ \t](?:la|le|lo)[ \t]llamen"),
}
# "Known as:" is a field of English forms; elsewhere the cue stands in a sentence.
_CUE_BEFORE = {
    lang: re.compile(rf"\b(?:{cue})[ \t]*+:?[ \t]*+"
                     rf"(?:{_Q}{_PAD}(?P<quoted>{_QUOTED_NAME}){_PAD}{_Q}|(?P<name>{_NAME}))", _I)
    for lang, cue in _BEFORE.items()
}
_CUE_AFTER = {
    lang: re.compile(rf"(?:{_Q}{_PAD}(?P<quoted>{_QUOTED_NAME}){_PAD}{_Q}|(?<![\w'’\-])(?P<name>{_NAME}))"
                     rf"[ \t]?,?[ \t]?\(?(?:{cue})\b", _I)
    for lang, cue in _AFTER.items()
}
# A capitalised word in quotes and brackets, as forms write the name a patient goes by after their
# full name: 'Caudill, Bobby Ray ("Bubba")', 'ASHCROFT, William ("Bill")'.
_BRACKETED = re.compile(rf"\([ \t]?{_Q}(?P<name>{_NAME}){_Q}[ \t]?\)")
# Words a cue may meet that are no name ("known as Type 2", "called her GP", "dit avoir").
_NOT_NAMES = frozenset({
    "the", "a", "an", "her", "his", "him", "me", "my", "gp", "dr", "doctor", "nurse", "mum", "mom",
    "dad", "back", "again", "today", "tomorrow", "yesterday", "type", "and", "or", "but", "that",
    "this", "it", "in", "on", "at", "to", "for", "from", "avoir", "être", "etre", "que", "qu", "ne",
    "pas", "le", "la", "les", "un", "une", "el", "los", "las", "por", "911", "ems", "police",
})  # fmt: skip


# Words a note quotes someone saying, in quotes after "dit" (French "says") or a cue.
_SPEECH = frozenset({
    "oui", "non", "si", "no", "yes", "ok", "okay", "bonjour", "bonsoir", "merci", "hola", "gracias",
    "adieu", "help", "maman", "papa", "mama", "mum", "mom",
})  # fmt: skip


@register("nickname", priority=62)
class NicknameRecognizer:
    name = "nickname"

    def find(self, text: str, language: str) -> list[Span]:
        spans: dict[tuple[int, int], Span] = {}
        patterns = [p for p in (_CUE_BEFORE.get(language), _CUE_AFTER.get(language)) if p is not None]
        for pattern in (*patterns, _BRACKETED):
            for m in pattern.finditer(text):
                group = "quoted" if "quoted" in pattern.groupindex and m.group("quoted") else "name"
                start, end = m.span(group)
                word = text[start:end]
                if group == "name" and not _capitalised(word):
                    continue  # the cue is case-blind, the name is not
                if fold(word) in _NOT_NAMES or fold(word) in TITLES_AND_PARTICLES:
                    continue
                if group == "quoted" and (fold(word) in _SPEECH or (
                        fold(m.group()[:3]) == "dit" and not _capitalised(word))):
                    continue  # 'la patiente dit « non »', 'Il dit « Bonjour »': words said
                spans[(start, end)] = Span(start, end, Label.PERSON, f"rules.{self.name}")
        return sorted(spans.values())


def _capitalised(word: str) -> bool:
    return all(w[0].isupper() for w in word.split())
