"""Fuzz the substitution engine (``deid.substitution``) under every profile: placeholder, dp,
random, safe-harbor (``deid.substitution.profiles.PROFILES``).

1. Random spans (any label, overlapping or not, aligned on a value or cutting through words) over
   random text, with a document date anywhere in the window the worker accepts or none: the
   engine never raises, its output is a ``str``, each substituted span lies inside it, and the
   CPU time is bounded linearly in the text's length.
2. Leaks, for the labels ``tests/substitution/test_span_leaks_property.py`` does not cover (every label
   but DATE and AGE): a detected span's own words and digit runs never survive in the output,
   unless the profile's keep table (``deid/lab/eval/keeps.py``) lists that part or the label is kept
   by default (``deid.labels.KEPT_BY_DEFAULT``: the patient's sex). Each value carries a made-up
   word or digit run that no surrogate table holds (so a chance draw of the true value cannot
   happen), among filler words that hold none of them.
"""

from __future__ import annotations

import random
import re
from datetime import date, timedelta

import pytest
from fuzz_testkit import budget, outcome, within
from hypothesis import given
from hypothesis import strategies as st

from deid.events import EARLIEST_DOCUMENT, latest_document
from deid.lab.eval.keeps import kept
from deid.labels import KEPT_BY_DEFAULT, Label
from deid.settings import Settings
from deid.spans import Span
from deid.substitution.profiles import PROFILES, deidentify_text

PROFILES = tuple(PROFILES)
SETTINGS = Settings.model_validate({})
# 100 ms plus 200 µs per character of CPU (measured: ~3 ms a call, ~20 µs per character).
BASE_S, PER_CHAR_S = 0.1, 200e-6
LOCALES = {"fr": (None, "fr-FR"), "es": (None, "es-ES"), "en": (None, "en-US", "en-GB")}
# Values at the edges of what the operators parse: dates near year 1 and 9999, impossible days,
# typo years, ages of 0 and 150, written-out numbers, and values of the wrong kind.
VALUES = ("01/01/0001", "02/01/0001", "31/12/9999", "29/02/1900", "29/02/2023", "12/03/1024", "0000-00-00",
          "12/03/1961", "3/9/2024", "mars 2024", "1er janvier 1900", "2099", "l'an dernier", "il y a 3 ans",
          "0 ans", "150 ans", "-5 years", "ninety-two years old", "setenta y cinco años", "90+",
          "Jean DUPONT", "M. J.-P. Dupont-Legrand", "O'Brien, Margaret", "06 12 34 56 78",
          "+33 6 12 34 56 78",
          "(217) 555-0143", "jean.dupont@example.fr", "https://www.example.fr/a", "10.0.0.1", "::1",
          "FR76 3000 6000 0112 3456 7890 189", "1 85 03 75 123 456 78", "12345678Z", "75013", "Lyon",
          "Saint-Germain-des-Prés", "12 rue des Lilas", "CHU de Lyon", "infirmière", "France", "M", "x",
          "\u202e", "é" * 3, "\U0001f600", "  ", "-", "12", "2024")
TEXT_CHARS = st.characters(exclude_categories=("Cs",))
today = date.today()
document_dates = (st.none() | st.dates(min_value=EARLIEST_DOCUMENT, max_value=latest_document())
                  | st.sampled_from((EARLIEST_DOCUMENT, latest_document(), date(2000, 2, 29), today,
                                     today + timedelta(days=1))))


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """Surrogate tables and gazetteers loaded once, untimed: the bound is on each note's own cost."""
    text = "Vu Jean Dupont le 12/03/2020 à Lyon, 75013, tel 06 12 34 56 78, 45 ans."
    spans = [Span(3, 14, Label.PATIENT), Span(18, 28, Label.DATE), Span(31, 35, Label.CITY),
             Span(37, 42, Label.POSTCODE), Span(48, 62, Label.PHONE), Span(64, 70, Label.AGE)]
    for profile in PROFILES:
        for lang in LOCALES:
            deidentify_text(text, spans, lang, date(2024, 1, 1), profile=profile, rng=random.Random(0),
                            settings=SETTINGS)


@st.composite
def aligned_notes(draw: st.DrawFn) -> tuple[str, list[Span]]:
    """Values of ``VALUES`` and random text glued with separators; some values become a span of
    a random label (the right one or not)."""
    text, spans = "", []
    for _ in range(draw(st.integers(1, 8))):
        text += draw(st.sampled_from((" ", ", ", "\n", " le ", " de ", ": ", "")))
        value = draw(st.sampled_from(VALUES) | st.text(TEXT_CHARS, max_size=12))
        if value and draw(st.booleans()):
            spans.append(Span(len(text), len(text) + len(value), draw(st.sampled_from(list(Label)))))
        text += value
    return text, spans


@st.composite
def random_spans(draw: st.DrawFn, text: str) -> list[Span]:
    """Spans anywhere in ``text``, overlapping or not."""
    if not text:
        return []
    spans = []
    for _ in range(draw(st.integers(0, 6))):
        start = draw(st.integers(0, len(text) - 1))
        end = draw(st.integers(start + 1, len(text)))
        spans.append(Span(start, end, draw(st.sampled_from(list(Label)))))
    return spans


@st.composite
def fuzz_notes(draw: st.DrawFn) -> tuple[str, list[Span]]:
    if draw(st.booleans()):
        return draw(aligned_notes())
    text = draw(st.text(TEXT_CHARS, max_size=200)
                | st.lists(st.sampled_from(VALUES), max_size=10).map(" ".join))
    return text, draw(random_spans(text))


@budget(2.0)
@given(fuzz_notes(), st.sampled_from(tuple(LOCALES)), st.data(), document_dates, st.integers(0, 2**32))
def test_any_spans_over_any_text_substitute_without_error_under_every_profile(
        note: tuple[str, list[Span]], lang: str, data: st.DataObject, doc_date: date | None,
        seed: int) -> None:
    text, spans = note
    locale = data.draw(st.sampled_from(LOCALES[lang]))
    date_order = data.draw(st.sampled_from((None, "dmy", "mdy")))
    for profile in PROFILES:
        out = within(lambda p=profile: deidentify_text(text, spans, lang, doc_date, profile=p,
                                                       rng=random.Random(seed), settings=SETTINGS,
                                                       locale=locale, date_order=date_order),
                     size=len(text), base_s=BASE_S, per_unit_s=PER_CHAR_S)
        assert isinstance(out.text, str)
        for placed in out.spans:
            assert 0 <= placed.start <= placed.end <= len(out.text), (profile, placed)
        assert set(out.kept_labels) <= {s.label.value for s in spans}, (profile, out.kept_labels)
    outcome("spans" if spans else "no spans")


@pytest.mark.parametrize("value", ["½", "¾½", "〇"])
def test_an_identifier_of_numeric_signs_only_is_substituted(value: str) -> None:
    """``identifier`` draws a digit for a digit and a letter for a letter and copies the rest; when
    nothing is drawn the result equals the value and it calls itself again, without end (Python's
    recursion limit: a RecursionError out of the worker's substitution). Strict: when fixed, this
    test passes and says so; then drop the marker and the exclusion in ``TEXT_CHARS``."""
    out = deidentify_text(f"n° {value}", [Span(3, 3 + len(value), Label.ID)], "fr", None, profile="dp",
                          rng=random.Random(0), settings=SETTINGS)
    assert isinstance(out.text, str)


# ----------------------------------------------------------------------------------------- leaks

CONSONANTS = "bcdfghjklmnpqrstvwxz"
FILLER = ("patient", "vu", "ce", "jour", "pour", "douleur", "suivi", "consultation", "contrôle", "et", "avec")
# A made-up word: consonants only but for one vowel, no surrogate table holds it.
made_up = st.text(st.sampled_from(CONSONANTS), min_size=5, max_size=8).map(
    lambda w: "Q" + w[:2] + "y" + w[2:])
digit_run = st.integers(10**7, 10**9 - 1).map(str)


@st.composite
def leak_cases(draw: st.DrawFn) -> tuple[Label, str, list[str], list[str]]:
    """(label, the span's text, its made-up words, its made-up digit runs)."""
    label = draw(st.sampled_from([lab for lab in Label if lab.value not in ("DATE", "AGE", "BIRTH_DATE")]))
    w1, w2 = draw(made_up), draw(made_up)
    digits = draw(digit_run)
    shapes: dict[str, list[tuple[str, list[str], list[str]]]] = {
        "person": [(f"{w1} {w2.upper()}", [w1, w2], []), (f"Dr {w1}", [w1], []),
                   (f"{w1}-{w2}", [w1, w2], [])],
        "place": [(w1, [w1], []), (f"Saint-{w1}", [w1], []), (f"12 rue {w1}", [w1], [])],
        "org": [(f"CHU de {w1}", [w1], []), (f"Clinique {w1}", [w1], []), (f"{w1} {w2}", [w1, w2], [])],
        "email": [(f"{w1}.{w2}@example.org", [w1, w2], []), (f"{w1}@{w2}.fr", [w1, w2], [])],
        "url": [(f"https://www.{w1}.fr/{w2}", [w1, w2], []), (f"www.{w1}.org", [w1], [])],
        # the first digit of a phone number is kept on purpose (mobile, geographic or special)
        "phone": [(" ".join(digits[i:i + 2] for i in range(0, 8, 2)), [], [digits[1:8]]),
                  (f"+33 {digits[0]} {digits[1:5]} {digits[5:9]}", [], [digits[1:9]])],
        "id": [(digits, [], [digits]), (f"AB{digits}", [], [digits]), (f"{w1}{digits}", [w1], [digits])],
        "word": [(w1, [w1], []), (f"{w1} {w2}", [w1, w2], [])],
    }
    kind = {"PATIENT": "person", "STAFF": "person", "RELATIVE": "person", "PERSON": "person",
            "STREET": "place", "CITY": "place", "COUNTRY": "place", "LOCATION": "place", "POSTCODE": "id",
            "HOSPITAL": "org", "ORG": "org", "PHONE": "phone", "FAX": "phone", "EMAIL": "email",
            "URL": "url", "IP": "id"}.get(label.value)
    if kind is None:
        kind = "id" if label.value.startswith(("ID", "IBAN")) else "word"
    text, words, runs = draw(st.sampled_from(shapes[kind]))
    return label, text, words, runs


def _survivors(out: str, words: list[str], runs: list[str]) -> list[str]:
    folded = out.casefold()
    digit_groups = ["".join(ch for ch in m if ch.isdigit()) for m in re.findall(r"\d[\d\s.\-/]*", out)]
    return ([w for w in words if w.casefold() in folded]
            + [r for r in runs if any(r in group for group in digit_groups)])


@pytest.mark.parametrize("profile", [p for p in PROFILES if p != "placeholder"])
@pytest.mark.parametrize("label", [Label.PHONE, Label.FAX])
def test_a_phone_span_without_digits_is_not_published_as_it_came(profile: str, label: Label) -> None:
    value = "Qbbybbb.Qzxyk@example.org"
    out = deidentify_text(f"Appeler {value}.", [Span(8, 8 + len(value), label)], "fr", None, profile=profile,
                          rng=random.Random(0), settings=SETTINGS).text
    assert "Qbbybbb" not in out and "Qzxyk" not in out, out


@budget(2.0)
@given(st.lists(leak_cases(), min_size=1, max_size=4), st.sampled_from(tuple(LOCALES)),
       st.lists(st.sampled_from(FILLER), min_size=1, max_size=4), st.integers(0, 2**32))
def test_no_word_of_a_detected_value_survives_unless_the_profile_keeps_it(
        cases: list[tuple[Label, str, list[str], list[str]]], lang: str, filler: list[str],
        seed: int) -> None:
    text, spans = "", []
    for label, value, _, _ in cases:
        text += " ".join(filler) + " "
        spans.append(Span(len(text), len(text) + len(value), label))
        text += value + " "
    text += "."
    for profile in PROFILES:
        out = deidentify_text(text, spans, lang, date(2024, 6, 10), profile=profile, rng=random.Random(seed),
                              settings=SETTINGS).text

        def kept_whole(label: Label, profile: str = profile) -> bool:
            # the sex of the patient (every profile); a region, state or country
            return label in KEPT_BY_DEFAULT or "state" in kept(profile, label.value)

        on_purpose = {w for label, _, words, _ in cases if kept_whole(label) for w in words}
        for label, value, words, runs in cases:
            if kept_whole(label):
                continue
            if "zip3" in kept(profile, label.value):
                runs = [r[3:] for r in runs]  # the first three digits of a ZIP code may stay
            survived = _survivors(out, [w for w in words if w not in on_purpose], runs)
            assert not survived, (profile, label.value, value, out)
