"""The patient's sex (``Label.SEX``, MEDDOCAN ``SEXO_SUJETO_ASISTENCIA``): a quasi-identifier the
product reports and, by default, keeps (``deid.labels.KEPT_BY_DEFAULT``).

MEDDOCAN's guideline annotates the word that gives the patient's sex, nothing else: the value of
a "Sexo:" field ("Sexo: H.", "Sexo: Mujer") and the noun that opens the case ("Varón de 42
años", "Paciente mujer, 44 años", "Se trata de un niño que ingresa"). Words of the same kind
about someone else are not annotated ("su mujer", "hermano varón", "producto varón", "feto
varón de 1.800 g"): the patterns want a field name, an age right after the word, or a
case-opening phrase. Evidence, rules alone on MEDDOCAN train (500 documents, 1,115 SEXO spans,
``tests/rules/test_sex.py`` and ``docs/benchmarks/ner.md``): see the benchmarks page.

French and English get the same shapes ("Sexe : F", "femme de 45 ans", "Sex: M", "67 y/o
male", "a 45-year-old woman"); no French or English corpus here annotates sex, so those are
written from the guideline's definition, not tuned.
"""

from __future__ import annotations

import re
from typing import ClassVar

from deid.labels import Label
from deid.rules.base import Patterns, RegexRecognizer
from deid.rules.lexicon import number_phrase
from deid.rules.registry import register

_I = re.IGNORECASE
_N = {lang: number_phrase(lang) for lang in ("fr", "es", "en")}

_ES_WORD = r"var[oó]n|mujer|hombre|niñ[oa]|reci[eé]n\s+nacid[oa]"
_ES_AGE = rf"(?:\s*,)?\s+(?:(?:de|con)\s+)?{_N['es']}\s*(?:años|año|meses|mes|semanas|días|dias)(?![\w])"
_FR_WORD = r"homme|femme"
_FR_AGE = rf"(?:\s*,)?\s+(?:(?:âgée?\s+)?(?:de|d['’])\s*)?{_N['fr']}\s*(?:ans|an|mois)\b"
_EN_WORD = r"male|female|man|woman|boy|girl|gentleman|lady"
_EN_AGE = r"\d{1,3}\s*(?:y/?o\b|yo\b|y\.o\.|-?\s?years?[- ]old|-?\s?yr[- ]old|years?\s+of\s+age)"


@register("sex", priority=62)
class SexRecognizer(RegexRecognizer):
    name = "sex"
    label = Label.SEX
    patterns: ClassVar[Patterns] = {
        "es": (
            # Sexo: H. / Sexo: Mujer / sexo femenino
            re.compile(r"\bsexo\s*:\s*(?P<phi>[HMFV]|var[oó]n|mujer|hombre|masculino|femenin[oa])\b", _I),
            re.compile(r"(?<!amigos de )\bsexo\s+(?P<phi>masculino|femenin[oa])\b", _I),
            # the child the case is about: "el niño fue intervenido", "la niña estaba asintomática"
            re.compile(r"\b(?:el|la|una?)\s+(?P<phi>niñ[oa])\b", _I),
            # a newborn's sex: "Recién nacida hembra"
            re.compile(r"\bnacid[oa]\s+(?P<phi>hembra|var[oó]n)\b", _I),
            # Varón de 42 años; Paciente mujer, 44 años; Niña de dos años; Recién nacido de 29 días
            re.compile(rf"(?<![\w-])(?<!hermano )(?<!hermana )(?<!su )(?<!la )"
                       rf"(?P<phi>{_ES_WORD})(?={_ES_AGE})", _I),
            # Se trata de un niño que ingresa; el caso de una mujer
            re.compile(rf"\b(?:se\s+trata(?:ba)?\s+de|caso\s+de|paciente:?)\s+(?:una?\s+)?"
                       rf"(?P<phi>{_ES_WORD}|masculino|femenin[oa])\b", _I),
            # a case that opens on the word, at the start of a line or after a section's colon
            re.compile(r"(?:^|:)[ \t]*(?P<phi>var[oó]n|mujer|hombre|niñ[oa])\b", _I | re.MULTILINE),
        ),
        "fr": (
            re.compile(r"\bsexe\s*:\s*(?P<phi>[MF]|masculin|féminin|homme|femme)\b", _I),
            re.compile(r"\bde\s+sexe\s+(?P<phi>masculin|féminin)\b", _I),
            re.compile(rf"(?<![\w-])(?<!sa )(?<!la )(?<!une )(?P<phi>{_FR_WORD})(?={_FR_AGE})", _I),
        ),
        "en": (
            re.compile(r"\b(?:sex|gender)\s*:\s*(?P<phi>[MF]|male|female|man|woman)\b", _I),
            # 67 y/o male, 45-year-old woman, 80 yo F
            re.compile(rf"\b{_EN_AGE}\s+(?P<phi>{_EN_WORD}|M|F)\b", _I),
            # male, 67 y/o / woman aged 45
            re.compile(rf"(?<![\w-])(?P<phi>{_EN_WORD})(?=,?\s+(?:aged\s+)?{_EN_AGE})", _I),
        ),
    }
