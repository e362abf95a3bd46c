"""Parse a DATE / AGE mention into a value with its unit and written form, and render it back.

A parsed mention keeps a *template*: its text with the variable parts replaced by tokens
(``{DD}/{MM}/{YYYY}``, ``il y a {N} {U}``), so that a noisy value is rendered in the same format,
case and language as the original ("26 février 2020" stays a French written date, "il y a 10 ans"
stays relative, "12/02/2020" stays dd/mm/yyyy, "13 janv. 2024" stays abbreviated). The unit is
how the expression is written: an exact date is in days, "février 2020" in months, "2019" in
years, "il y a 3 semaines" in weeks.

Numeric dates are read in the feed's order (``order``: "dmy" for French, Spanish and British
feeds, "mdy" for US feeds, see ``RawNote.locale``/``date_order``) and written back in the same
order; the other order is used only when the feed's order gives no valid date (13/02/2020 in a US
feed). Partial dates ("en mai", "last Tuesday") are kind "partial": a month or a weekday that the
note's date places in time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Literal, cast

from deid.temporal import numbers
from deid.temporal.lexicon import (
    FEMININE_UNITS,
    FUTURE_WORDS,
    MONTH_ABBREVIATIONS,
    MONTH_VARIANTS,
    MONTHS,
    ONE_FEMININE,
    UNIT_WORDS,
    WEEKDAY_ABBREVIATIONS,
    WEEKDAYS,
    date_words,
    fold,
    is_abbreviation,
    month_abbreviation,
    month_index,
    number_value,
    unit_of,
    weekday_of,
)

Unit = Literal["day", "week", "month", "year"]
Kind = Literal["date", "relative", "age", "partial"]
Lang = Literal["fr", "es", "en"]
_UNITS: tuple[Unit, ...] = ("day", "week", "month", "year")


@dataclass(frozen=True, slots=True)
class Temporal:
    kind: Kind
    unit: Unit
    lang: str
    template: str
    when: date | None = None  # kind "date": the date, truncated to its unit (day 1 / January 1)
    amount: int = 0  # "relative"/"age": the magnitude in ``unit``; "partial": month 1-12 or weekday 0-6
    past: bool = True  # kinds "relative" and "partial": before the reference date
    unit_word: tuple[str, str] = ("", "")  # (singular, plural) as written
    # a range's end that borrows its month or year from the other end ("12" of "12-15 mars 2024"):
    # the template written instead when its surrogate leaves the other end's month or year
    full: str = ""

    def canonical(self) -> str:
        """Spelling-independent form: the memo's value and the stored surrogate."""
        if self.kind == "date":
            assert self.when is not None
            return f"date:{self.unit}:{self.when.isoformat()}"
        return f"{self.kind}:{self.unit}:{self.amount}"


def from_canonical(template: Temporal, canonical: str) -> Temporal:
    """``template`` (a parsed mention) carrying the value of a stored canonical surrogate."""
    kind, _unit, value = canonical.split(":", 2)
    if kind == "date":
        return replace(template, when=date.fromisoformat(value))
    return replace(template, amount=int(value))


# ---------------------------------------------------------------------------------------- parse

def _alt(words: list[str]) -> str:
    uniq = sorted({w for w in words} | {fold(w) for w in words}, key=len, reverse=True)
    return "|".join(re.escape(w) for w in uniq)


# full names and their abbreviations ("janv.", "Sept", "dic"): a month the pattern misses is left to
# the year pattern, and its day and month would then be printed unchanged
_MON = {lang: _alt([*names, *(f for forms in MONTH_ABBREVIATIONS[lang] for f in forms),
                    *MONTH_VARIANTS[lang]])
        for lang, names in MONTHS.items()}
# written-out numbers whole ("soixante-huit", "ninety-two", "setenta y cinco"), never only their tail
_NUM = {lang: r"\d{1,3}|" + numbers.pattern(lang) for lang in MONTHS}
_WORD_NUM = {lang: re.compile(r"(?<![\w-])(?P<N>" + numbers.pattern(lang) + r")(?![\w-])", re.IGNORECASE)
             for lang in MONTHS}
# a day of the month in digits or written out ("le trois mars", "el primero de mayo", "March third")
_DAY = {lang: r"\d{1,2}|" + numbers.day_pattern(lang) for lang in MONTHS}
_UNIT = {lang: _alt([w for fams in UNIT_WORDS[lang].values() for f in fams for w in f])
         for lang in UNIT_WORDS}
_B = r"(?<![\w])"
_E = r"(?![\w])"


def _date_patterns(lang: str) -> list[tuple[re.Pattern[str], Unit]]:
    mon, day = _MON[lang], _DAY[lang]
    pats: list[tuple[str, Unit]] = [
        (r"(?P<Y>\d{4})-(?P<M>\d{1,2})-(?P<D>\d{1,2})", "day"),
        # HL7 / compact timestamps: YYYYMMDD, optionally followed by a time of day (written back as
        # zeros: no part of a mention is copied out unread)
        (r"(?P<Y>(?:1[89]|20)\d{2})(?P<M>[01]\d)(?P<D>[0-3]\d)(?P<CLOCK>(?:\d{2}){0,3})", "day"),
        (r"(?P<D>\d{1,2})(?P<s>[/.\-])(?P<M>\d{1,2})(?P=s)(?P<Y>\d{4}|\d{2})", "day"),
    ]
    if lang == "en":
        pats += [
            (rf"(?P<MON>{mon})\.?\s+(?:the\s+)?(?P<D>{day})(?P<th>st|nd|rd|th)?,?\s+(?P<Y>\d{{4}})", "day"),
            (rf"(?:the\s+)?(?P<D>{day})(?P<th>st|nd|rd|th)?\s+(?:of\s+)?(?P<MON>{mon})\.?,?\s+(?P<Y>\d{{4}})",
             "day"),
        ]
    else:
        er = r"(?P<er>er)?" if lang == "fr" else ""
        pats += [(rf"(?P<D>{day}){er}\s+(?:de\s+)?(?P<MON>{mon})\.?\s+(?:(?:de|del)\s+)?(?P<Y>\d{{4}})",
                  "day")]
    pats += [
        (rf"(?P<MON>{mon})\.?\s+(?:(?:de|del|of)\s+)?(?P<Y>\d{{4}})", "month"),
        (r"(?P<M>\d{1,2})(?P<s>[/.\-])(?P<Y>\d{4})", "month"),
        (r"(?P<Y>(?:1[89]|20)\d{2})", "year"),
    ]
    return [(re.compile(_B + p + _E, re.IGNORECASE), u) for p, u in pats]


_DATE_PATS = {lang: _date_patterns(lang) for lang in MONTHS}
_WD = {lang: re.compile(_B + "(?P<WD>" + _alt(list(names)) + ")" + _E, re.IGNORECASE)
       for lang, names in WEEKDAYS.items()}
# beside a date a weekday may be abbreviated ("Jeu, 17 avr. 2025", "Tue Mar 5, 2024")
_WD_ANY = {lang: re.compile(
    _B + "(?P<WD>" + _alt([*names, *(a for forms in WEEKDAY_ABBREVIATIONS[lang] for a in forms)]) + r")\.?"
    + _E, re.IGNORECASE) for lang, names in WEEKDAYS.items()}
_MONTH_ALONE = {lang: re.compile(_B + "(?P<MON>" + _MON[lang] + r")\.?" + _E, re.IGNORECASE)
                for lang in MONTHS}
_SWAP_DM = {"{M}": "{D}", "{MM}": "{DD}", "{D}": "{M}", "{DD}": "{MM}"}


def _weekday_index(lang: str, word: str) -> int | None:
    w = fold(word)
    for i, name in enumerate(WEEKDAYS[lang]):
        if w == fold(name):
            return i
    return None


def _weekday_style(word: str) -> str:
    if word.isupper() and len(word) > 1:
        return "{WD}"
    return "{Wd}" if word[:1].isupper() else "{wd}"


def _weekday_part(m: re.Match[str], lang: str) -> tuple[int, int, str]:
    """The template part of a weekday beside a date: its name, or an abbreviation written back
    abbreviated (with its period)."""
    word, style = m.group("WD"), _weekday_style(m.group("WD"))
    if fold(word) in {fold(n) for n in WEEKDAYS[lang]}:
        return (*m.span("WD"), style)
    dotted = m.string[m.end("WD") : m.end("WD") + 1] == "."
    return (m.start("WD"), m.end("WD") + dotted, style[:-1] + ("_ap}" if dotted else "_a}"))

_REL_PRE = {
    "fr": {"il y a": True, "depuis": True, "dans": False, "pendant": True, "durant": True},
    "es": {"desde hace": True, "hace": True, "dentro de": False, "durante": True, "en": False},
    "en": {"for": True, "in": False, "within": False},
}
_REL_POST = {"en": {"ago": True, "earlier": True, "before": True, "prior": True, "later": False,
                    "after": False}}


def directed(text: str, lang: str) -> bool:
    """Whether a relative expression says its direction or its span in words ("il y a 3 ans",
    "in 2 weeks", "3 days ago", "durante 2 meses"): a bare amount ("93 ans", "2 years") may be
    an age as well as a duration."""
    folded = fold(text).strip()
    return any(folded.startswith(w + " ") for w in _REL_PRE.get(lang, {})) or any(
        folded.endswith(" " + w) for w in _REL_POST.get(lang, {}))


def _month_style(word: str) -> str:
    if word.isupper() and len(word) > 1:
        return "{MON}"
    return "{Mon}" if word[:1].isupper() else "{mon}"


def _month_part(m: re.Match[str], lang: str) -> tuple[int, int, str]:
    """The template part of the month word of ``m``: a name, or an abbreviation written back as an
    abbreviation, its period included ("janv." -> "févr.", but "mars" without one)."""
    word = m.group("MON")
    style = _month_style(word)
    if not is_abbreviation(lang, word):
        return (*m.span("MON"), style)
    end = m.end("MON")
    dotted = m.string[end : end + 1] == "."
    return (m.start("MON"), end + dotted, style[:-1] + ("_ap}" if dotted else "_a}"))


def _pad_token(text: str, name: str) -> str:
    return "{" + name + name + "}" if len(text) == 2 else "{" + name + "}"


def _written_day_token(text: str) -> str:
    """The day of a date with a month name: padded only when written with a leading zero ("Jan 13"
    of a surrogate 1 March reads "Mar 1", "Jan 05" reads "Mar 01")."""
    return "{DD}" if len(text) == 2 and text.startswith("0") else "{D}"


def _two_digit_year(yy: int, ref: date | None) -> int:
    pivot = (ref.year % 100 + 10) if ref else 30  # years up to ten ahead of the reference are "this" century
    century = (ref.year // 100 * 100) if ref else 2000
    return century + yy if yy <= pivot else century - 100 + yy


def _build(text: str, parts: list[tuple[int, int, str]]) -> str:
    out, pos = [], 0
    for s, e, tok in sorted(parts):
        out.append(text[pos:s])
        out.append(tok)
        pos = e
    out.append(text[pos:])
    return "".join(out)


def _parse_date(text: str, lang: str, ref: date | None, order: str = "dmy") -> Temporal | None:
    for pat, unit in _DATE_PATS[lang]:
        m = pat.search(text)
        if not m:
            continue
        g = m.groupdict()
        parts: list[tuple[int, int, str]] = []
        ytxt = g["Y"]
        year = int(ytxt) if len(ytxt) == 4 else _two_digit_year(int(ytxt), ref)
        parts.append((*m.span("Y"), "{YYYY}" if len(ytxt) == 4 else "{YY}"))
        month = 1
        if g.get("MON"):
            idx = month_index(lang, g["MON"])
            if idx is None:
                continue
            month = idx
            parts.append(_month_part(m, lang))
        elif g.get("M"):
            month = int(g["M"])
            parts.append((*m.span("M"), _pad_token(g["M"], "M")))
        day = 1
        if g.get("D"):
            got = _day_part(m, lang)
            if got is None:
                continue
            day, part = got
            parts.append(part)
        if g.get("CLOCK"):
            parts.append((*m.span("CLOCK"), "{CLOCK" + str(len(g["CLOCK"])) + "}"))
        numeric = bool(g.get("M") and g.get("D") and g.get("s"))  # d/m/y written in the feed's order
        if numeric and ((order == "mdy" and day <= 12) or (month > 12 and day <= 12)):
            month, day = day, month  # the first number is the month: read and written month first
            parts = [(s, e, _SWAP_DM.get(t, t)) for s, e, t in parts]
        try:
            when = date(year, month, day)
        except ValueError:
            continue
        parts += _weekday_parts(text, lang, parts)  # "mardi 3 mars"
        return Temporal("date", unit, lang, _build(text, parts), when=when)
    return None


def _weekday_parts(text: str, lang: str, parts: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The template parts of the weekdays written beside a date's other ``parts``: rendered from
    the surrogate day, never copied (the true weekday would narrow the true day down)."""
    return [_weekday_part(wd, lang) for wd in _WD_ANY[lang].finditer(text)
            if not any(s <= wd.start() < e for s, e, _ in parts)
            and weekday_of(lang, wd.group("WD")) is not None]


def _day_part(m: re.Match[str], lang: str) -> tuple[int, tuple[int, int, str]] | None:
    """The day of the month of ``m`` (digits or words) and its template part."""
    g = m.groupdict()
    text = g["D"]
    if not text.isdigit():  # written out: "le trois mars", "March third"
        day = numbers.read_day(lang, text)
        if day is None:
            return None
        return day, (*m.span("D"), "{DWc}" if text[:1].isupper() else "{DW}")
    day = int(text)
    if g.get("er") or (lang == "fr" and g.get("MON")):  # French writes "1er mars"
        return day, (m.start("D"), m.end("er") if g.get("er") else m.end("D"), "{D1}")
    if g.get("th"):
        return day, (m.start("D"), m.end("th"), "{Dth}")
    if g.get("MON"):
        return day, (*m.span("D"), _written_day_token(text))
    return day, (*m.span("D"), _pad_token(text, "D"))


def _day_month_patterns(lang: str) -> list[re.Pattern[str]]:
    mon, day = _MON[lang], _DAY[lang]
    pats = [r"(?P<D>\d{1,2})(?P<s>[/.])(?P<M>\d{1,2})"]  # 12/05: in the feed's order
    if lang == "en":
        pats += [rf"(?P<MON>{mon})\.?\s+(?:the\s+)?(?P<D>{day})(?P<th>st|nd|rd|th)?",
                 rf"(?:the\s+)?(?P<D>{day})(?P<th>st|nd|rd|th)?\s+(?:of\s+)?(?P<MON>{mon})\.?"]
    else:
        er = r"(?P<er>er)?" if lang == "fr" else ""
        pats += [rf"(?P<D>{day}){er}\s+(?:de\s+)?(?P<MON>{mon})\.?"]
    return [re.compile(_B + p + r"(?![\w/.]*\d)", re.IGNORECASE) for p in pats]


_DAY_MONTH = {lang: _day_month_patterns(lang) for lang in MONTHS}


def _parse_day_month(text: str, lang: str, order: str) -> Temporal | None:
    """A day and a month without a year ("le 12 mars", "March 12", "12/05"): kind "partial",
    unit "day", ``when`` in the leap year 2000 (the note's date gives the year)."""
    for pat in _DAY_MONTH[lang]:
        m = pat.search(text)
        if m is None:
            continue
        g = m.groupdict()
        parts: list[tuple[int, int, str]] = []
        if g.get("MON"):
            got = _day_part(m, lang)
            month = month_index(lang, g["MON"])
            if month is None or got is None:
                continue
            day = got[0]
            parts += [_month_part(m, lang), got[1]]
        else:
            day, month = int(g["D"]), int(g["M"])
            if order == "mdy" and day <= 12:
                day, month = month, day
                parts += [(*m.span("D"), _pad_token(g["D"], "M")), (*m.span("M"), _pad_token(g["M"], "D"))]
            else:
                parts += [(*m.span("D"), _pad_token(g["D"], "D")), (*m.span("M"), _pad_token(g["M"], "M"))]
        try:
            when = date(2000, month, day)
        except ValueError:
            continue
        parts += _weekday_parts(text, lang, parts)  # "Fri 11/15"
        future = any(w in fold(text) for w in FUTURE_WORDS)
        return Temporal("partial", "day", lang, _build(text, parts), when=when, past=not future)
    return None


def _parse_partial(text: str, lang: str, order: str = "dmy") -> Temporal | None:
    """A day and month without a year, a weekday ("mardi dernier", "last Tuesday") or a month
    without a year ("en mai")."""
    day_month = _parse_day_month(text, lang, order)
    if day_month is not None or any(c.isdigit() for c in text):
        return day_month
    future = any(w in fold(text) for w in FUTURE_WORDS)
    m = _WD[lang].search(text)
    if m is not None:
        idx = _weekday_index(lang, m.group("WD"))
        if idx is not None:
            tok = (*m.span("WD"), _weekday_style(m.group("WD")))
            return Temporal("partial", "day", lang, _build(text, [tok]), amount=idx, past=not future)
    m = _MONTH_ALONE[lang].search(text)
    if m is not None and len(m.group("MON")) >= 3:
        idx = month_index(lang, m.group("MON"))
        if idx is not None:
            tok = _month_part(m, lang)
            return Temporal("partial", "month", lang, _build(text, [tok]), amount=idx, past=not future)
    return None


def _amount_parts(text: str, lang: str, m: re.Match[str]) -> tuple[int, list[tuple[int, int, str]]] | None:
    ntxt = m.group("N")
    n = number_value(lang, ntxt)
    if n is None:
        return None
    tok = "{N}" if ntxt.isdigit() else "{Wc}" if ntxt[:1].isupper() else "{W}"
    return n, [(*m.span("N"), tok)]


def _unit_part(m: re.Match[str], text: str) -> tuple[int, int, str]:
    u = m.group("U")
    if m.end("U") < len(text) and text[m.end("U")] == "-":  # "40-year-old": invariable adjective
        return (m.start("U"), m.start("U"), "")
    return (*m.span("U"), "{Uc}" if u[:1].isupper() else "{U}")


# an age's decade: "80s", "80's", "80’s" (the "s" of the plural ends the word)
_DECADE_AFTER = re.compile(r"['’]?s(?![^\W\d_])")


def _parse_amount(text: str, lang: str, kind: Kind) -> Temporal | None:
    num, unit_alt = _NUM[lang], _UNIT[lang]
    pat = re.compile(rf"{_B}(?P<N>{num})(?:\s+|-)?(?P<U>{unit_alt}){_E}", re.IGNORECASE)
    m = pat.search(text)
    if m is None:
        if kind != "age":
            return None
        m2 = re.search(r"(?<!\d)(?P<N>\d{1,3})(?!\d)", text)
        if m2 is None:  # an age written out with no unit ("aged ninety-two")
            m2 = _WORD_NUM[lang].search(text)
        if m2 is None or (n := number_value(lang, m2.group("N"))) is None:
            return None
        tok = "{N}" if m2.group("N").isdigit() else "{Wc}" if m2.group("N")[:1].isupper() else "{W}"
        if tok == "{N}" and n % 10 == 0 and _DECADE_AFTER.match(text, m2.end("N")):
            tok = "{N10}"  # "in her 80s": a decade, rendered as one ("70s", never "79s")
        return Temporal("age", "year", lang, _build(text, [(*m2.span("N"), tok)]), amount=n)
    got = _amount_parts(text, lang, m)
    uw = unit_of(lang, m.group("U"))
    if got is None or uw is None:
        return None
    n, parts = got
    unit, family = uw
    parts.append(_unit_part(m, text))
    past = True
    if kind == "relative":
        before = fold(text[: m.start()]).strip()
        after = fold(text[m.end():]).strip()
        for w, is_past in _REL_PRE.get(lang, {}).items():
            if before.endswith(w):
                past = is_past
                break
        for w, is_past in _REL_POST.get(lang, {}).items():
            if after.startswith(w):
                past = is_past
                break
    return Temporal(kind, cast(Unit, unit), lang, _build(text, [p for p in parts if p[2] or p[0] != p[1]]),
                    amount=n, past=past, unit_word=family)


def parse(text: str, lang: str, *, age: bool = False, ref: date | None = None,
          order: str = "dmy") -> Temporal | None:
    """The value of a DATE (``age=False``) or AGE mention, or None when it cannot be read.

    ``ref`` (the document date) only resolves two-digit years; ``order`` is the feed's order of
    numeric dates ("dmy" or "mdy"). Text with braces is not parsed. A mention is read whole or not
    at all: when the text around what was read holds a digit or a date word ("du 12/03 au 15/03",
    "68 ans et 3 mois"), it is not read (see ``parse_range`` for two ends), so that rendering never
    copies a part of the original out unread.
    """
    if lang not in MONTHS or "{" in text or "}" in text:
        return None
    if age:
        t = _parse_amount(text, lang, "age")
    else:
        t = (_parse_date(text, lang, ref, order) or _parse_amount(text, lang, "relative")
             or _parse_partial(text, lang, order))
    return None if t is None or unread(t.template, lang) else t


_TEMPLATE_TOKEN = re.compile(r"\{\w+\}")


def unread(template: str, lang: str) -> bool:
    """Whether the literal text of ``template`` holds a digit or a date word (a month or weekday
    name, a written-out number): a part of the mention the parser did not read."""
    rest = _TEMPLATE_TOKEN.sub(" ", template)
    if any(c.isdigit() for c in rest):
        return True
    return any(fold(w) in date_words(lang) for w in re.findall(r"[^\W\d_]+", rest))


# ---------------------------------------------------------------------------------------- ranges

# what joins the two ends of a range ("du X au Y", "X - Y", "from X to Y", "del X al Y",
# "entre le X et le Y", "between X and Y")
_CONNECT = {
    "fr": r"\s*[-–—]\s*|\s+(?:au|à|a|et|jusqu'au|jusqu’au|jusqu'à|jusqu’à)\s+(?:le\s+)?",
    "es": r"\s*[-–—]\s*|\s+(?:al|a|y|hasta)\s+(?:el\s+)?",
    "en": r"\s*[-–—]\s*|\s+(?:to|through|thru|until|till|and)\s+(?:the\s+)?",
}
_CONNECT_RE = {lang: re.compile(p, re.IGNORECASE) for lang, p in _CONNECT.items()}
_BARE_DAY = {lang: re.compile(rf"(?P<pre>(?:.*?[^\w])?)(?P<D>{_DAY[lang]})(?P<er>er)?(?P<th>st|nd|rd|th)?",
                              re.IGNORECASE | re.DOTALL) for lang in MONTHS}
_DAY_YEAR = re.compile(r"(?P<D>\d{1,2})(?P<th>st|nd|rd|th)?,?\s+(?P<Y>\d{4})", re.IGNORECASE)
_DAY_TOKENS = ("{D}", "{DD}", "{D1}", "{Dth}", "{DW}", "{DWc}")


def _core(template: str) -> str:
    """The tokens of a template and what lies between them, without its leading and trailing words."""
    return template[template.index("{") : template.rindex("}") + 1] if "{" in template else ""


def _day_token_at(template: str) -> tuple[int, int] | None:
    found = [(template.index(t), template.index(t) + len(t)) for t in _DAY_TOKENS if t in template]
    return min(found) if found else None


def _bare_day(text: str, lang: str) -> tuple[int, str] | None:
    """A day number alone ("12", "du 3", "entre le trois", "the 3rd"): its value and template."""
    m = _BARE_DAY[lang].fullmatch(text)
    if m is None:
        return None
    got = _day_part(m, lang)
    if got is None or not 1 <= got[0] <= 31:
        return None
    day, (s, e, tok) = got
    tok = _written_day_token(m.group("D")) if tok in ("{D}", "{DD}") else tok
    return day, _build(text, [(s, e, tok)])


def _on_or_before(year: int, month: int, day: int, limit: date) -> date | None:
    """The day ``day`` of ``month`` in ``year``, a year earlier when that falls after ``limit``."""
    for y in (year, year - 1):
        try:
            d = date(y, month, day)
        except ValueError:
            return None
        if d <= limit:
            return d
    return None


def _ends(left: str, right: str, lang: str, ref: date | None, order: str) -> tuple[Temporal, Temporal] | None:
    """The two ends of "left - right", each with what it borrows from the other (its month, its
    year) and the full template it is written with when its surrogate leaves them."""
    lt, rt = parse(left, lang, ref=ref, order=order), parse(right, lang, ref=ref, order=order)
    bare = _bare_day(left, lang) if lt is None else None
    if rt is not None and rt.kind == "date" and rt.when is not None:
        full = _core(rt.template)
        if lt is not None and lt.kind == "date":
            return lt, rt  # "du 12/03/2024 au 15/03/2024", "2019-2021": two dates of their own
        if bare is not None and rt.unit == "day":  # "12-15 mars 2024"
            when = _on_or_before(rt.when.year, rt.when.month, bare[0], rt.when)
            if when is None:
                return None
            return Temporal("date", "day", lang, bare[1], when=when, full=full), rt
        if lt is not None and lt.kind == "partial" and lt.when is not None and rt.unit == "day":
            # "12 mars - 3 avril 2024"
            when = _on_or_before(rt.when.year, lt.when.month, lt.when.day, rt.when)
            if when is None:
                return None
            return replace(lt, kind="date", when=when, full=full), rt
        if lt is not None and lt.kind == "partial" and lt.unit == "month" and rt.unit == "month":
            when = _on_or_before(rt.when.year, lt.amount, 1, rt.when)  # "mars - avril 2024"
            if when is None:
                return None
            return replace(lt, kind="date", when=when, amount=0, full=full), rt
        return None
    if rt is not None and rt.kind == "partial" and rt.when is not None:
        if lt is not None and lt.kind == "partial" and lt.when is not None:
            return lt, rt  # "3/12-3/15", "from 3/2 to 3/9": two days and months
        if bare is not None:  # "del 3 al 7 de marzo", "entre le 3 et le 7 mars"
            try:
                when = date(2000, rt.when.month, bare[0])
            except ValueError:
                return None
            return replace(rt, template=bare[1], when=when, full=_core(rt.template)), rt
        return None
    if lt is None or lt.kind != "partial" or lt.when is None or lt.unit != "day":
        return None
    # "March 12-15, 2024" and "March 12-15": the right end is a day (and a year) of the left's month
    split = _day_token_at(_core(lt.template))
    if split is None:
        return None
    before = _core(lt.template)[: split[0]]
    m = _DAY_YEAR.fullmatch(right.strip()) if right.strip() == right else None
    if m is not None:
        got = _day_part(m, lang)
        if got is None:
            return None
        s, e, tok = got[1]
        tok = _written_day_token(m.group("D")) if tok in ("{D}", "{DD}") else tok
        right_tpl = _build(right, [(s, e, tok), (*m.span("Y"), "{YYYY}")])
        year, after = int(m.group("Y")), right_tpl[right_tpl.index("}") + 1 :]
        try:
            lw, rw = date(year, lt.when.month, lt.when.day), date(year, lt.when.month, got[0])
        except ValueError:
            return None
        left_end = replace(lt, kind="date", when=lw, full=_core(lt.template) + after)
        return left_end, Temporal("date", "day", lang, right_tpl, when=rw, full=before + right_tpl)
    rbare = _bare_day(right, lang)
    if rbare is None:
        return None
    try:
        rw = date(2000, lt.when.month, rbare[0])
    except ValueError:
        return None
    return lt, replace(lt, template=rbare[1], when=rw, full=before + _core(rbare[1]))


def parse_range(text: str, lang: str, *, ref: date | None = None,
                order: str = "dmy") -> list[tuple[int, int, Temporal]] | None:
    """A range written as one mention ("du 12/03/2024 au 15/03/2024", "12-15 March 2024",
    "March 12-15, 2024", "3/12-3/15", "del 3 al 7 de marzo"): each end with its place in ``text``
    and its value, a point of its own; None when ``text`` is not a range the parser reads whole."""
    if lang not in MONTHS or "{" in text or "}" in text:
        return None
    for c in _CONNECT_RE[lang].finditer(text):
        left, right = text[: c.start()], text[c.end() :]
        if not left.strip() or not right.strip():
            continue
        ends = _ends(left, right, lang, ref, order)
        if ends is None or any(unread(t.template, lang) or unread(t.full, lang) for t in ends):
            continue
        if unread(c.group(), lang):
            continue
        return [(0, c.start(), ends[0]), (c.end(), len(text), ends[1])]
    return None


# --------------------------------------------------------------------------------------- render

def _written(lang: str, n: int, unit_sg: str) -> str:
    feminine = unit_sg in FEMININE_UNITS
    if n == 1 and lang in ONE_FEMININE and feminine:
        return ONE_FEMININE[lang]
    if n == 1 and lang == "es":
        return "un"
    word = numbers.spell(lang, n)
    if lang == "es" and word.endswith("uno"):  # before its noun: "treinta y un años", "veintiún días"
        return word[:-3] + ("una" if feminine else "ún" if word == "veintiuno" else "un")
    if lang == "fr" and feminine and word.endswith(" un"):  # "vingt et une semaines"
        return word + "e"
    return word


def _ordinal_en(d: int) -> str:
    suffix = "th" if 10 <= d % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")
    return f"{d}{suffix}"


_TOKEN = re.compile(r"\{(\w+)\}")


def render(t: Temporal) -> str:
    """The text of ``t`` in its template's format and language."""
    sg, pl = t.unit_word
    singular = t.amount in (0, 1) if t.lang == "fr" else t.amount == 1
    word = sg if singular else pl

    def tok(m: re.Match[str]) -> str:
        name = m.group(1)
        w = t.when
        if name in ("N",):
            return str(t.amount)
        if name == "N10":
            return str(max(10, t.amount // 10 * 10))  # "10s" at the least, never "0s"
        if name in ("W", "Wc"):
            s = _written(t.lang, t.amount, sg)
            return s[:1].upper() + s[1:] if name == "Wc" else s
        if name in ("U", "Uc"):
            return word[:1].upper() + word[1:] if name == "Uc" else word
        assert w is not None
        match name:
            case "D":
                return str(w.day)
            case "DD":
                return f"{w.day:02d}"
            case "D1":
                return "1er" if w.day == 1 else str(w.day)
            case "Dth":
                return _ordinal_en(w.day)
            case "DW" | "DWc":
                s = numbers.spell_day(t.lang, w.day)
                return s[:1].upper() + s[1:] if name == "DWc" else s
            case "CLOCK2" | "CLOCK4" | "CLOCK6":  # a time of day: not on the timeline, never copied
                return "0" * int(name[5:])
            case "M":
                return str(w.month)
            case "MM":
                return f"{w.month:02d}"
            case "YYYY":
                return f"{w.year:04d}"
            case "YY":
                return f"{w.year % 100:02d}"
            case "WD" | "Wd" | "wd" | "WD_a" | "Wd_a" | "wd_a" | "WD_ap" | "Wd_ap" | "wd_ap":
                style, _, abbr = name.partition("_")
                wd = WEEKDAY_ABBREVIATIONS[t.lang][w.weekday()][0] if abbr else WEEKDAYS[t.lang][w.weekday()]
                wd = wd.upper() if style == "WD" else (wd.capitalize() if style == "Wd" else wd.lower())
                return wd + "." if abbr == "ap" else wd
            case "MON" | "Mon" | "mon" | "MON_a" | "Mon_a" | "mon_a" | "MON_ap" | "Mon_ap" | "mon_ap":
                style, _, abbr = name.partition("_")
                mon, short = MONTHS[t.lang][w.month - 1], False
                if abbr:
                    mon, short = month_abbreviation(t.lang, w.month)
                mon = mon.upper() if style == "MON" else (mon.capitalize() if style == "Mon" else mon.lower())
                return mon + "." if abbr == "ap" and short else mon
        raise ValueError("unknown template token")

    return _TOKEN.sub(tok, t.template)


# ------------------------------------------------------------------------------ values in units

def _months(d: date) -> int:
    return d.year * 12 + d.month - 1


def _truncate(t: Temporal, d: date) -> Temporal:
    if t.unit == "month":
        d = d.replace(day=1)
    elif t.unit == "year":
        d = d.replace(month=1, day=1)
    return replace(t, when=d)


def shifted(t: Temporal, days: int) -> Temporal:
    """``t`` moved by ``days`` (a date); durations and ages are left as they are."""
    if t.kind != "date" or t.when is None:
        return t
    try:
        return _truncate(t, t.when + timedelta(days=days))
    except OverflowError:
        return t


# ------------------------------------------------------------------------- timeline points

def _add_months(d: date, months: int) -> date:
    m = _months(d) + months
    y, mo = m // 12, m % 12 + 1
    for day in (d.day, 30, 29, 28):
        try:
            return date(y, mo, min(day, 31))
        except ValueError:
            continue
    return date(y, mo, 28)


def _period_mid(unit: str, d: date) -> date:
    """The day that stands for a period on the timeline: a month's 15th, a year's 2 July."""
    if unit == "month":
        return date(d.year, d.month, 15)
    if unit == "year":
        return date(d.year, 7, 2)
    return d


def _period_point(unit: str, d: date, ref: date | None) -> date:
    """The day that stands for the month or year of ``d``, read in a note of date ``ref``.

    A period before the note's is its middle (``_period_mid``). The note's own period would put its
    middle after the note's date when the note is written in its first half ("en 2024" in a note
    of 20 April 2024 at 2 July): the point would land after the note's date, on the timeline's open
    side, free to fly decades away. So the note's period and every later one are moved back by the
    same number of days, ``mid(note's period) - ref`` (0 in the second half): the note's own period
    stands at the note's date (it then shares the note date's surrogate) and a later one stays
    inside its period. The map depends on the true value and the note's date only, keeps the order
    of periods, and moves a point by at most one unit when its period moves by one (the gaps
    between consecutive periods shrink, never grow), so the unit's sensitivity is unchanged.
    """
    mid = _period_mid(unit, d)
    if ref is None or unit not in ("month", "year"):
        return mid
    ref_mid = _period_mid(unit, ref)
    if mid < ref_mid:
        return mid
    return mid - timedelta(days=max(0, (ref_mid - ref).days))


def point_day(t: Temporal, ref: date | None) -> date | None:
    """The true day that ``t`` stands for on the patient's timeline, or None when it needs the
    note's date and has none (relative and partial expressions) or is an age. A month or a year
    that contains the note's date stands at or before it (``_period_point``)."""
    try:
        if t.kind == "date":
            assert t.when is not None
            return _period_point(t.unit, t.when, ref)
        if ref is None or t.kind == "age":
            return None
        sign = -1 if t.past else 1
        if t.kind == "relative":
            if t.unit in ("day", "week"):
                return ref + timedelta(days=sign * t.amount * (7 if t.unit == "week" else 1))
            months = t.amount * (12 if t.unit == "year" else 1)
            return _period_point(t.unit, _add_months(ref, sign * months), ref)
        if t.unit == "day" and t.when is not None:  # "le 12 mars": the last 12 March (or next)
            return _nearest_day_month(t.when, ref, t.past)
        if t.unit == "day":  # a weekday: the one before (or after) the note's date
            back = (ref.weekday() - t.amount) % 7 or 7
            ahead = (t.amount - ref.weekday()) % 7 or 7
            return ref - timedelta(days=back) if t.past else ref + timedelta(days=ahead)
        if t.past:  # "en mai" in a March note is last May; in a June note, this May
            year = ref.year if t.amount <= ref.month else ref.year - 1
        else:
            year = ref.year if t.amount > ref.month else ref.year + 1
        return _period_point("month", date(year, t.amount, 1), ref)
    except (OverflowError, ValueError):
        return None


def _nearest_day_month(dm: date, ref: date, past: bool) -> date:
    """The ``dm`` day and month nearest to ``ref`` ("revu le 12 mars" in a note of 10 March is
    two days later, in one of 20 February two weeks later), or the next one when the mention
    says so ("next"); 29 February falls back to the 28th in other years."""
    def on(year: int) -> date:
        try:
            return date(year, dm.month, dm.day)
        except ValueError:
            return date(year, dm.month, 28)

    if not past:
        this = on(ref.year)
        return this if this > ref else on(ref.year + 1)
    return min((on(ref.year + k) for k in (-1, 0, 1)), key=lambda d: abs((d - ref).days))


def point_canonical(t: Temporal, day: date) -> str:
    """The memo value form of a point: one spelling for every expression of one period, so
    "il y a 3 ans" and "en 2021" of one note share a surrogate."""
    return f"date:{t.unit}:{_truncate(replace(t, kind='date'), day).when.isoformat()}"  # type: ignore[union-attr]


def render_point(t: Temporal, fake: date, fake_ref: date | None) -> str:
    """``t`` rewritten from surrogate days: a date shows ``fake``; a relative expression the
    distance from the note's surrogate date in its unit (at least 1: order is kept, so it never
    flips past/future); a partial date the month or weekday of ``fake``."""
    if t.kind == "date":
        return render(replace(t, when=fake))
    if t.kind == "partial":
        return render(replace(t, when=fake))
    assert fake_ref is not None
    days = abs((fake_ref - fake).days)
    per = {"day": 1.0, "week": 7.0, "month": 30.4375, "year": 365.25}[t.unit]
    return render(replace(t, amount=max(1, round(days / per))))
