"""Given names and the words that look like them, shared by the name rule and the name steps.

The given names are the project's name tables (``deid/data/names.json``, per language, and
``deid/data/given_genders.json``, wider Latin-script lists; both in ``deid/data/SOURCES.md``),
folded (case and accents). Words that are given names and also common words of the notes'
languages ("Will", "Rose", "Ward", "Toma") are listed apart: they count as names only where
something else says so.
"""

from __future__ import annotations

import json
import unicodedata
from functools import lru_cache
from importlib import resources


def fold(s: str) -> str:
    """Case and accents folded: "Élodie" and "ELODIE" are one name."""
    s = unicodedata.normalize("NFKD", s)
    return "".join(c for c in s if not unicodedata.combining(c)).casefold()


@lru_cache(maxsize=1)
def given_names() -> frozenset[str]:
    """Folded given names of every gender and language the project knows."""
    data = resources.files("deid.data")
    names: set[str] = set()
    wide = json.loads(data.joinpath("given_genders.json").read_text(encoding="utf-8"))
    per_lang = json.loads(data.joinpath("names.json").read_text(encoding="utf-8"))
    for table in (wide, *per_lang.values()):
        for key in ("male", "female"):
            names.update(fold(n) for n in table.get(key, []))
    return frozenset(names)


@lru_cache(maxsize=1)
def nicknamer():  # type: ignore[no-untyped-def]
    """The English nickname table (package ``nicknames``: "Deb" of Deborah, "Bob" of Robert)."""
    from nicknames import NickNamer

    return NickNamer()


def is_given_name(word: str) -> bool:
    """A given name a table knows, or an English nickname of one ("Deb", "Sam")."""
    f = fold(word)
    return f in given_names() or bool(nicknamer().canonicals_of(f))


TITLES_AND_PARTICLES = frozenset({
    "dr", "dra", "drs", "mme", "mmes", "mlle", "mr", "mrs", "ms", "miss", "mx", "pr", "prof", "sr",
    "sra", "srta", "dña", "dna", "don", "dona", "madame", "monsieur", "docteur", "doctor", "doctora",
    "professeur", "professor", "señor", "señora", "senor", "senora", "sir", "lady", "md", "phd", "rn",
    "np", "pa", "do", "dds", "jr", "iii", "ii",
    "de", "du", "des", "del", "della", "la", "le", "les", "los", "las", "van", "von", "der", "den",
    "da", "di", "dos", "das", "y", "e", "et", "and", "mc", "st", "ste", "san", "santa", "el", "al",
    "bin", "ben", "ibn", "abu", "ter", "ten", "op",
})  # fmt: skip

# Given names and nicknames that are also common words of English, French or Spanish notes.
COMMON_WORDS = frozenset({
    "will", "bill", "art", "pat", "sue", "don", "ray", "dick", "rob", "jack", "mark", "may", "rich",
    "ramadan", "christmas", "noel", "easter", "pascua",
    "frank", "grant", "hope", "joy", "faith", "rose", "grace", "patience", "summer", "april", "june",
    "august", "eve", "gene", "sandy", "rusty", "bud", "chip", "chuck", "cliff", "dawn", "sky", "ivy",
    "holly", "lily", "daisy", "olive", "pearl", "ruby", "amber", "crystal", "destiny", "honey",
    "hunter", "carter", "mason", "walker", "cook", "baker", "nick", "val", "penny", "ginger",
    "sunny", "norm", "max", "sol", "win", "wade", "lance", "drew", "rock", "sonny", "trinity",
    "major", "earl", "king", "duke", "prince", "young", "white", "black", "brown", "green", "gray",
    "ward", "cord", "come", "canal", "job", "toma", "paz", "luz", "rosa", "blanca", "mercedes",
    "pilar", "dolores", "amparo", "consuelo", "soledad", "constant", "victoire", "pascal", "pierre",
    "france", "florence", "lourdes", "paris", "austin", "georgia", "dakota", "savannah", "sydney",
    "nancy", "lorraine", "chase", "christian", "angel", "angela", "marina", "sierra", "star", "page",
    "una", "ante", "durante", "segundo", "salud", "genesis", "felicidad", "humphrey", "elisa",
})  # fmt: skip
