"""Person-name surrogates from locale name lists (Faker, MIT; see deid/data/SOURCES.md).

A mention is split into an optional title, given names and a surname; the surrogate keeps the
gender of a known first name, the case style of each part (DUPONT -> MARTIN, Dupont -> Martin)
and initials ("J. Dupont" -> "P. Martin"). Reading a mention into titles, kinship words, given
names and surnames is ``deid.surrogates.identity``'s job; one identity per person (surname,
given-name and person entries of the patient's memo) is ``deid.substitution.persons``'. A name
drawn for a note is never one of that note's own names ("PETIT" -> "DUPONT" in a note about
Mr Dupont would put a real name back); a surrogate remembered from an earlier note of the
patient is reused as it is, and the "neighbour" strategy replaces words by embedding neighbours
without this check.
"""

from __future__ import annotations

import json
import random
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from deid.temporal.lexicon import fold

TITLES = {"m", "m.", "mr", "mr.", "mme", "mme.", "mlle", "mrs", "mrs.", "ms", "ms.", "dr", "dr.", "pr", "pr.",
          "prof", "prof.", "sr", "sr.", "sra", "sra.", "dra", "dra.", "don", "doña", "d.", "dña.", "miss",
          "monsieur", "madame", "docteur", "professeur", "señor", "señora", "doctor", "doctora"}


@dataclass(frozen=True, slots=True)
class NameParts:
    title: str
    first: str  # may be "" or an initial such as "J."
    last: str  # may be ""
    last_first: bool = False  # "DUPONT Jean"


@cache
def name_lists() -> dict[str, dict[str, list[str]]]:
    data: dict[str, dict[str, list[str]]] = json.loads(
        resources.files("deid.data").joinpath("names.json").read_text(encoding="utf-8"))
    return data


@cache
def given_genders() -> dict[str, str]:
    """Folded first name -> gender, over more Latin-script locales than the surrogate pools
    (``deid/data/given_genders.json``, built by ``deid.data.build_tables``; names given to both
    genders left out). Read to know an original name's gender, never drawn from."""
    data: dict[str, list[str]] = json.loads(
        resources.files("deid.data").joinpath("given_genders.json").read_text(encoding="utf-8"))
    return {n: g for g in ("male", "female") for n in data[g]}


@cache
def _first_gender() -> dict[str, str]:
    out: dict[str, str] = {}
    for lists in name_lists().values():
        for g in ("male", "female"):
            for n in lists[g]:
                out.setdefault(fold(n), g)
    return out


def split_name(text: str) -> NameParts:
    toks = text.split()
    title = ""
    while toks and fold(toks[0]) in TITLES:
        title = f"{title} {toks.pop(0)}".strip()
    if not toks:
        return NameParts(title, "", "")
    if len(toks) == 1:
        tok = toks[0]
        if fold(tok) in _first_gender() and not tok.isupper() and not title:
            return NameParts(title, tok, "")
        return NameParts(title, "", tok)
    upper = [t for t in toks if t.isupper() and len(t.rstrip(".")) > 1]
    if upper and len(upper) < len(toks):  # "Jean DUPONT" / "DUPONT Jean"
        last = " ".join(upper)
        first = " ".join(t for t in toks if t not in upper)
        return NameParts(title, first, last, toks[0] in upper)
    return NameParts(title, " ".join(toks[:-1]), toks[-1])


def gender_of(first: str) -> str | None:
    if not first or first.endswith("."):
        return None
    return _first_gender().get(fold(first.split()[0].split("-")[0]))


_FEMALE_TITLES = {"mme", "mme.", "mlle", "madame", "mrs", "mrs.", "ms", "ms.", "miss", "sra", "sra.",
                  "señora",
                  "dra", "dra.", "doctora", "doña", "dña."}
_MALE_TITLES = {"m", "m.", "monsieur", "mr", "mr.", "sr", "sr.", "señor", "don"}


def gender_of_title(title: str) -> str | None:
    """Gender said by a title ("Mme", "Sr."), for a first name the lists do not know."""
    words = {fold(w) for w in title.split()}
    if words & _FEMALE_TITLES:
        return "female"
    if words & _MALE_TITLES:
        return "male"
    return None


def name_words(mentions: Iterable[str]) -> frozenset[str]:
    """The folded words of ``mentions`` (and of their hyphenated parts): what no surrogate drawn
    for them may be, lest a real name of the note come back as another one's surrogate."""
    words = {fold(w) for m in mentions for t in m.split() for w in (t, *t.split("-"))}
    return frozenset(w for w in words if w)


def _draw(rng: random.Random, pool: Sequence[str], avoid: Collection[str], exclude: str = "") -> str:
    """A name of ``pool`` other than ``exclude`` (folded) and outside ``avoid``; when a note names
    most of the pool (a roster), avoiding them all is no longer possible and only ``exclude``, the
    mention's own name, stays barred."""
    def allowed(n: str) -> bool:
        return fold(n) not in avoid and not any(fold(part) in avoid for part in n.split("-"))

    for _ in range(64):  # the pools hold hundreds of names, a note a few dozen
        n = rng.choice(pool)
        if fold(n) != exclude and allowed(n):
            return n
    others = [n for n in pool if fold(n) != exclude]
    return rng.choice([n for n in others if allowed(n)] or others)


def draw_first(
    rng: random.Random, lang: str, gender: str | None, avoid: Collection[str] = (), initials_not: str = ""
) -> str:
    """``initials_not``: letters the name may not start with (French "M" reads as Monsieur when the
    name is written as an initial)."""
    g = gender or rng.choice(("male", "female"))
    return _draw(rng, _first_pool(lang, g, initials_not), avoid)


@cache
def _first_pool(lang: str, gender: str, initials_not: str) -> Sequence[str]:
    """The given names of a gender, less those starting with ``initials_not`` (computed once)."""
    names = name_lists()[lang][gender]
    kept = [n for n in names if n[:1].upper() not in initials_not] if initials_not else names
    return kept or names


def draw_last(rng: random.Random, lang: str, exclude: str = "", avoid: Collection[str] = ()) -> str:
    return _draw(rng, name_lists()[lang]["last"], avoid, fold(exclude))


def match_case(template: str, value: str) -> str:
    """``value`` in the case style of ``template`` (upper, lower, or as drawn)."""
    letters = [c for c in template if c.isalpha()]
    if letters and all(c.isupper() for c in letters) and len(letters) > 1:
        return value.upper()
    if letters and all(c.islower() for c in letters):
        return value.lower()
    return value


def render_name(original: NameParts, first: str, last: str) -> str:
    """The surrogate in the shape of the original mention (title kept, initials kept)."""
    given: list[str] = []
    if original.first:
        if len(original.first.rstrip(".")) == 1:
            given.append(first[:1].upper() + ("." if original.first.endswith(".") else ""))
        else:
            given.append(match_case(original.first, first))
    family = [match_case(original.last, last)] if original.last else []
    body = family + given if original.last_first else given + family
    return " ".join(([original.title] if original.title else []) + body)
