"""Reading a person mention: which words are kept (titles, kinship words, articles), which are
given names, surnames or initials, and what gender the mention says.

A mention is read word by word with offsets, so that its surrogate is written back in the
mention's own shape: order ("NOM Prénom", "Nom, Prénom", "Mme Nom (Prénom)"), case, initials,
hyphens, punctuation and every kept word stay where they were. Surnames are units: "Martínez
García" is two (Spanish double surname), "Bernard-Martin" two joined by a hyphen, "de la Fontaine"
one (particles belong to the surname that follows them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from deid.surrogates import names
from deid.temporal.lexicon import fold

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*(?:-[^\W\d_]+(?:['’][^\W\d_]+)*)*\.?")
# an English possessive after a name ("Dr Khan's", "Lindsay-Hart's"): no part of the name, or
# "khan's" would be a surname of its own, drawn apart from "Khan"
_POSSESSIVE = re.compile(r"(?<=[^\W\d_]{2})['’]s(?=\.?$)")

KIN: dict[str, str | None] = {
    # fr
    "fils": "male",
    "fille": "female",
    "pere": "male",
    "mere": "female",
    "frere": "male",
    "soeur": "female",
    "sœur": "female",
    "epoux": "male",
    "epouse": "female",
    "mari": "male",
    "femme": "female",
    "conjoint": "male",
    "conjointe": "female",
    "compagnon": "male",
    "compagne": "female",
    "oncle": "male",
    "tante": "female",
    "neveu": "male",
    "niece": "female",
    "grand-pere": "male",
    "grand-mere": "female",
    "petit-fils": "male",
    "petite-fille": "female",
    "cousin": "male",
    "cousine": "female",
    "gendre": "male",
    "belle-fille": "female",
    "beau-fils": "male",
    "belle-mere": "female",
    "beau-pere": "male",
    "beau-frere": "male",
    "belle-soeur": "female",
    "papa": "male",
    "maman": "female",
    "veuve": "female",
    "veuf": "male",
    "ami": "male",
    "amie": "female",
    "voisin": "male",
    "voisine": "female",
    # es
    "hijo": "male",
    "hija": "female",
    "padre": "male",
    "madre": "female",
    "hermano": "male",
    "hermana": "female",
    "esposo": "male",
    "esposa": "female",
    "marido": "male",
    "mujer": "female",
    "tio": "male",
    "tia": "female",
    "sobrino": "male",
    "sobrina": "female",
    "abuelo": "male",
    "abuela": "female",
    "nieto": "male",
    "nieta": "female",
    "primo": "male",
    "prima": "female",
    "suegro": "male",
    "suegra": "female",
    "yerno": "male",
    "nuera": "female",
    "cunado": "male",
    "cunada": "female",
    "pareja": None,
    "novio": "male",
    "novia": "female",
    "amigo": "male",
    "amiga": "female",
    "vecino": "male",
    "vecina": "female",
    # en
    "son": "male",
    "daughter": "female",
    "father": "male",
    "mother": "female",
    "brother": "male",
    "sister": "female",
    "husband": "male",
    "wife": "female",
    "uncle": "male",
    "aunt": "female",
    "nephew": "male",
    "niece_en": "female",
    "grandfather": "male",
    "grandmother": "female",
    "grandson": "male",
    "granddaughter": "female",
    "mom": "female",
    "mum": "female",
    "dad": "male",
    "partner": None,
    "friend": None,
    "boyfriend": "male",
    "girlfriend": "female",
    "widow": "female",
    "neighbour": None,
    "neighbor": None,
    "son-in-law": "male",
    "daughter-in-law": "female",
}
# words kept before a name only when a title or a kinship word is among them ("Le Goff" is a name)
_DETERMINERS = {
    "sa",
    "son",
    "ses",
    "le",
    "la",
    "les",
    "l'",
    "leur",
    "du",
    "de",
    "des",
    "su",
    "sus",
    "el",
    "del",
    "los",
    "las",
    "his",
    "her",
    "their",
    "the",
    "our",
    "my",
    "mon",
    "ma",
    "notre",
    "a",
    "of",
    "y",
    "et",
    "and",
    "chez",
}
# What a French family and ward call a grandparent, before the given name ("Mamie Blanca", "Pépé
# Jean"): kept like a title (French only), and the lone word after it is a given name
_FAMILIAR_TITLES: dict[str, str | None] = {
    "mamie": "female", "mamy": "female", "meme": "female", "papi": "male", "papy": "male", "pepe": "male",
}
_TITLE_GENDER: dict[str, str | None] = {
    "m": "male",
    "m.": "male",
    "mr": "male",
    "mr.": "male",
    "monsieur": "male",
    "mme": "female",
    "mme.": "female",
    "mlle": "female",
    "mlle.": "female",
    "madame": "female",
    "mademoiselle": "female",
    "mrs": "female",
    "mrs.": "female",
    "ms": "female",
    "ms.": "female",
    "miss": "female",
    "sr": "male",
    "sr.": "male",
    "senor": "male",
    "sra": "female",
    "sra.": "female",
    "senora": "female",
    "srta": "female",
    "srta.": "female",
    "senorita": "female",
    "don": "male",
    "d.": "male",
    "dona": "female",
    "dna": "female",  # "Dña" without its period (Spanish only: _TITLE_LANG)
    "dna.": "female",
    "dña.": "female",
    "dra": "female",
    "dra.": "female",
    "doctora": "female",
    "docteure": "female",
    "dr": None,
    "dr.": None,
    "doctor": None,
    "docteur": None,
    "pr": None,
    "pr.": None,
    "prof": None,
    "prof.": None,
    "professeur": None,
    "professeure": "female",
    "profesor": "male",
    "profesora": "female",
    "professor": None,
    "sir": "male",
    "lady": "female",
    "dame": "female",
    "me": None,
    "me.": None,
    "maitre": None,
    "maître": None,
    "nurse": None,
    "infirmier": "male",
    "infirmiere": "female",
    "enfermero": "male",
    "enfermera": "female",
    **{word: gender for word, gender in _FAMILIAR_TITLES.items()},
}
# titles that are initials in the other languages ("M. Huang" in English is Mark Huang)
_TITLE_LANG = {
    "m": "fr",
    "m.": "fr",
    "me": "fr",
    "me.": "fr",
    "d.": "es",
    "don": "es",
    "dona": "es",
    "doña": "es",
    "dna": "es",
    "dna.": "es",
    **dict.fromkeys(_FAMILIAR_TITLES, "fr"),  # "Pepe" is a Spanish given name
}
# Spanish titles of a GIVEN name: "Doña Pilar", "D. Antonio" (a lone word after them is a given name)
_GIVEN_TITLES = {"don", "d.", "dona", "dna", "dna.", "dña."}
# Spanish titles after which two surnames are the usual shape ("Sra. Martínez García")
_PAIR_TITLES = {
    "sr",
    "sr.",
    "sra",
    "sra.",
    "srta",
    "srta.",
    "senor",
    "senora",
    "senorita",
    "dr",
    "dr.",
    "dra",
    "dra.",
    "doctor",
    "doctora",
    "profesor",
    "profesora",
}
_MAIDEN = {"nee", "née", "ne", "ep.", "ep", "epouse", "épouse", "vve", "vve.", "veuve", "born"}
_FEMININE_MAIDEN = {"nee", "née", "ep.", "ep", "epouse", "épouse", "vve", "vve.", "veuve"}
# Degrees and credentials written after a name and a comma.
_DEGREES = frozenset({
    "md", "do", "rn", "np", "pa", "pac", "phd", "mbbs", "mbchb", "frcp", "frcs", "mrcp", "mrcs", "facs",
    "facp", "dnp", "crna", "lpn", "lcsw", "msw", "pharmd", "dpt", "pt", "ot", "slp", "bsn", "msn", "aprn",
    "fnp", "mph", "dds", "dmd", "od", "ma", "cna", "emt", "jr", "sr", "ii", "iii",
})  # fmt: skip
_PARTICLES = {
    "de",
    "del",
    "de la",
    "la",
    "le",
    "du",
    "des",
    "van",
    "von",
    "der",
    "den",
    "da",
    "di",
    "dos",
    "das",
    "mac",
    "st",
    "st.",
    "ben",
    "el",
    "y",
    "i",
    "d'",
    "l'",
}
_ARTICLE_GENDER = {"le": "male", "la": "female", "el": "male", "del": "male", "un": "male", "une": "female"}
# "le Dr", "el Dr.": the masculine article is the title's usual form whoever holds it ("le Dr Nadège
# Bertrand"), so it says a man only where the given name does not say a woman; "la Dr" is chosen
# on purpose and always says a woman.
_UNMARKED_ARTICLE_GENDER = "male"


@dataclass
class Unit:
    """One replaceable piece of a name: a given name, a surname, or an initial of either."""

    start: int  # offsets inside the mention
    end: int
    role: str  # given | surname | given_initial | surname_initial
    value: str  # folded (for an initial: its letter)
    text: str  # as written (case template)


@dataclass
class Mention:
    text: str
    units: list[Unit] = field(default_factory=list)
    title_gender: str | None = None
    kin_gender: str | None = None
    kept: bool = False  # a title or kinship word was kept
    # how sure the roles are: "" (cued by case, comma...), "order" ("Denis Christine": which
    # is the surname was guessed from the name lists), "single" (a lone "Olivier": given name or
    # surname?), "caps" (a lone "MARY", read as a surname because HL7-style capitals usually are
    # one, though it is a given name too), "unknown" (a lone "Karim" that neither name list knows,
    # read as a surname: "Benali (Karim)" after a note that said "Karim Benali" is his given name),
    # "listed" (a lone "Olive" read as a surname because a surname list has it), "titled" (a lone
    # word after a title, "Mme Rose", read as a surname: "mme PIERRE Rose" shows it is her given name).
    # The persons operator settles these by the note's and the history's other mentions.
    ambiguous: str = ""
    title: str = ""  # the folded title word of the mention, in it or just before it ("sra.")

    def swap(self) -> None:
        """The other reading of an "order" mention: given names and surnames trade places."""
        for u in self.units:
            u.role = {"given": "surname", "surname": "given"}.get(u.role, u.role)
        self.ambiguous = ""

    def as_surname(self) -> None:
        """The other reading of a "single" mention: a surname. Also "Sra. Martínez García" read
        as two surnames instead of a given name and a surname."""
        for u in self.units:
            if u.role == "given":
                u.role = "surname"
        self.ambiguous = ""

    def as_given(self) -> None:
        """The other reading of a "caps" or "unknown" mention: a given name."""
        for u in self.units:
            if u.role == "surname":
                u.role = "given"
        self.ambiguous = ""

    def other_reading(self) -> Mention:
        """A copy read the other way (for an ambiguous mention)."""
        other = Mention(
            self.text,
            [Unit(**vars(u)) for u in self.units],
            self.title_gender,
            self.kin_gender,
            self.kept,
            self.ambiguous,
            self.title,
        )
        {"order": other.swap, "single": other.as_surname, "caps": other.as_given,
         "unknown": other.as_given, "listed": other.as_given, "titled": other.as_given}.get(
            self.ambiguous, lambda: None
        )()
        return other

    @property
    def pair_title(self) -> bool:
        """A Spanish title after which two surnames are the usual shape ("Sra. Martínez García")."""
        return self.title in _PAIR_TITLES

    @property
    def givens(self) -> list[str]:
        return [u.value for u in self.units if u.role == "given"]

    @property
    def surnames(self) -> list[str]:
        return [u.value for u in self.units if u.role == "surname"]

    @property
    def given_initial(self) -> str:
        return next((u.value for u in self.units if u.role == "given_initial"), "")

    @property
    def given_initials(self) -> str:
        """Every given-name initial, folded, in order: "J.-L. Martin" -> "jl"."""
        return fold("".join(u.value for u in self.units if u.role == "given_initial"))

    @property
    def said_gender(self) -> str | None:
        return self.title_gender or self.kin_gender


@cache
def _lexicons() -> tuple[frozenset[str], frozenset[str]]:
    given = {fold(n) for lists in names.name_lists().values() for g in ("male", "female") for n in lists[g]}
    last = {fold(n) for lists in names.name_lists().values() for n in lists["last"]}
    return frozenset(given), frozenset(last)


def is_given(word: str) -> bool:
    return fold(word.rstrip(".")) in _lexicons()[0] or any(
        fold(p) in _lexicons()[0] for p in word.split("-")[:1] if "-" in word
    )


def is_surname(word: str) -> bool:
    return fold(word) in _lexicons()[1]


@cache
def _gendered(lang: str) -> dict[str, frozenset[str]]:
    lists = names.name_lists()
    out: dict[str, frozenset[str]] = {}
    for g in ("male", "female"):
        out[g] = frozenset(fold(n) for n in lists.get(lang, {}).get(g, ()))
    return out


def gender_of_given(word: str, lang: str) -> str | None:
    """The gender of a given name in the note's language's lists, then in the others', then in the
    wider lists of names read but never drawn (``names.given_genders``), then by
    the endings most names of the language follow ("María" is in both Spanish lists, as in
    "José María": its ending decides)."""
    f = fold(word.split("-")[0].rstrip("."))
    for la in (lang, *(x for x in ("fr", "es", "en") if x != lang)):
        lists = _gendered(la)
        hits = [g for g in ("male", "female") if f in lists[g]]
        if len(hits) == 1:
            return hits[0]
        if hits:
            break
    else:  # in no surrogate pool: the wider lists of names read, not drawn ("Karim", "Yasmine")
        wider = names.given_genders().get(f)
        if wider is not None:
            return wider
    if lang in ("es", "fr", "en") and len(f) > 2 and f.endswith("a"):
        return "female"
    if lang == "es" and f.endswith("o"):
        return "male"
    if lang == "fr" and f.endswith(("ette", "ine", "elle", "ienne")):
        return "female"
    return None


def _is_initial(tok: str) -> bool:
    core = tok.replace(".", "").replace("-", "")
    return (
        bool(core)
        and core.isalpha()
        and core.isupper()
        and (len(core) == 1 or ("." in tok and len(core) <= 3))
    )


def _key(tok: str) -> str:
    return fold(tok)


_Token = tuple[int, int, str]  # (start, end, word) inside the mention


@dataclass
class _Prefix:
    """The kept words before the name in a mention: titles and kinship words, with the articles and
    possessives that go with them ("sa fille", "la Dra", "Mme"). None are kept without a title or
    a kinship word among them ("Le Goff" is a name)."""

    length: int = 0  # how many of the mention's first words are kept
    has_marker: bool = False  # a title or a kinship word is among them
    title_gender: str | None = None
    kin_gender: str | None = None
    by_article: bool = False  # the title gender is its article's ("le Dr", "la Dr")


def parse(
    text: str,
    lang: str,
    title_before: bool | str = False,
    given_after_comma: bool = False,
    sentence_start: bool = False,
) -> Mention:
    """``title_before``: a title stands just before the mention, outside it ("Mme [Bernard]"), as
    ``title_word`` gives it: a lone word is then a surname, even one that is also a given name,
    except after the Spanish titles of a given name ("Doña [Pilar]") and a given name of the
    title's gender that no surname list has ("Mme [Victoire]"). ``given_after_comma``: the
    mention follows a surname and a comma outside it ("[SMITH], [MARY]"): its words are given
    names, as in "SMITH, MARY". ``sentence_start``: the mention opens a sentence or a line, where
    a kinship word is capitalised ("Daughter Faith").

    Read in phases: the words (``_tokens``); the kept words before the name (``_read_prefix``) and
    the title that says how to read it; the name words, less a degree after them and split at a
    maiden-name marker (``_name_body``); the role of each name word (``_roles``), made into units;
    then how sure those roles are (``_mark_ambiguity``)."""
    m = Mention(text)
    toks = _tokens(text)
    if toks and all(_is_marker(w, lang) for _, _, w in toks):  # "Mr" alone, "su hija": no name in it
        m.kept = True
        return m
    prefix = _read_prefix(toks, lang, sentence_start)
    m.title_gender, m.kin_gender, m.kept = prefix.title_gender, prefix.kin_gender, prefix.has_marker
    titles = [
        _key(w)
        for _, _, w in toks[: prefix.length]
        if _key(w) in _TITLE_GENDER and _TITLE_LANG.get(_key(w), lang) == lang
    ]
    # the title nearest the name says how to read it ("Doña Pilar" vs "Sra. Martínez García")
    m.title = titles[-1] if titles else (title_before if isinstance(title_before, str) else "")
    has_title = bool(title_before) or bool(titles)
    body, maiden = _name_body(m, text, toks[prefix.length :])
    if given_after_comma:
        roles = ["given"] * len(body)
    else:
        roles = _roles(text, body, lang, has_title, prefix.has_marker, m.title)
    for (s, e, w), role in zip(body, roles, strict=True):
        _add(m, s, e, w, role)
    for s, e, w in maiden:
        _add(m, s, e, w, "surname")
    _merge_particles(m, text)
    if prefix.by_article and not article_says(m.title_gender, m, lang):
        m.title_gender = None  # "le Dr Nadège BERTRAND": the article's usual form, she is a woman
    if not given_after_comma and not maiden:  # a comma or a maiden-name marker leaves no doubt
        _mark_ambiguity(m, text, body, lang, prefix.has_marker, title_before)
    return m


def _tokens(text: str) -> list[_Token]:
    """The words of a mention with their offsets. "Khan's": the name is "Khan", the "'s" stays as
    written."""
    toks = [(t.start(), t.end(), t.group()) for t in _WORD.finditer(text)]
    return [
        (s, s + ps.start(), w[: ps.start()]) if (ps := _POSSESSIVE.search(w)) else (s, e, w)
        for s, e, w in toks
    ]


def _is_title(folded: str, lang: str) -> bool:
    """A title of ``lang`` ("M." is one in French only: in English it is an initial)."""
    known = folded in _TITLE_GENDER or folded.rstrip(".") in _TITLE_GENDER
    return known and _TITLE_LANG.get(folded, lang) == lang


def _gender_of_title(folded: str) -> str | None:
    return _TITLE_GENDER.get(folded, _TITLE_GENDER.get(folded.rstrip(".")))


def _is_kin_word(word: str, opens_sentence: bool, after_article: bool) -> bool:
    """A kinship word kept before the name: written small, or capitalised after an article or at
    the start of a sentence ("Daughter Faith"); "Sobrino" in capitals is a surname."""
    f = _key(word)
    if f not in KIN and f.rstrip(".") not in KIN:
        return False
    return (not word.isupper() and (word.islower() or after_article)) or (
        opens_sentence and _capitalised_kin(word, "")
    )


def _read_prefix(toks: list[_Token], lang: str, sentence_start: bool) -> _Prefix:
    """The kept words before the name (never the mention's last word) and the genders they say."""
    p = _Prefix()
    article_gender: str | None = None
    article_seen = False
    for i, (_, _, w) in enumerate(toks[:-1]):
        f = _key(w)
        if _is_title(f, lang):
            p.title_gender = p.title_gender or _gender_of_title(f)
            p.has_marker = True
        elif _is_kin_word(w, i == 0 and sentence_start, article_seen):
            p.kin_gender = KIN.get(f, KIN.get(f.rstrip(".")))  # the closest: "son épouse" (fr "son")
            p.has_marker = True
        elif f in _DETERMINERS:
            article_seen = True
            if p.title_gender is not None and _key(toks[i + 1][2]) not in KIN:
                break  # "Mme Le Goff": the article is the name's
            article_gender = article_gender or _ARTICLE_GENDER.get(f)
        else:
            break
        p.length = i + 1
    if not p.has_marker:
        return _Prefix()
    # "Dr" agrees with its article: "la Dr X", "el Dr. X"
    if (
        p.title_gender is None
        and article_gender
        and any(
            _TITLE_GENDER.get(_key(w)) is None and _key(w) in _TITLE_GENDER for _, _, w in toks[: p.length]
        )
    ):
        p.title_gender = article_gender
        p.by_article = True
    return p


def _name_body(m: Mention, text: str, body: list[_Token]) -> tuple[list[_Token], list[_Token]]:
    """(the name's words, the maiden name's) of the words after the kept ones: a degree after a
    comma is dropped, and a maiden-name marker splits the rest (what follows it is a surname)."""
    # a degree after a comma ("Nicole Landry, M.D.", "Smith, RN") is no part of the name: read
    # as initials it made "Landry, M. D." a surname and its initials
    end = len(text)
    while (comma := text.rfind(",", 0, end)) >= 0:
        credential = re.sub(r"[\s.]", "", text[comma + 1 : end]).casefold()
        if credential not in _DEGREES or not any(t[0] < comma for t in body):
            break
        body = [t for t in body if t[0] < comma]
        m.kept = True
        end = comma
    maiden_at = next((i for i, (_, _, w) in enumerate(body) if _key(w) in _MAIDEN and i > 0), None)
    if maiden_at is None:
        return body, []
    if m.title_gender is None and _key(body[maiden_at][2]) in _FEMININE_MAIDEN:
        m.title_gender = "female"  # "LYON née CHABERT Rose", "épouse", "veuve": the grammar says a woman
    return body[:maiden_at], body[maiden_at + 1 :]


def _mark_ambiguity(
    m: Mention, text: str, body: list[_Token], lang: str, has_marker: bool, title_before: bool | str
) -> None:
    """How sure the roles just read are (``Mention.ambiguous``): two uncued words may be in either
    order, a lone word with no title, kinship word or comma may be a given name or a surname, and
    a lone word after a title may be her given name."""
    words = [w for _, _, w in body]
    # one word, hyphenated parts included ("LAMBERT-HOUDAYER" is as lone as "LAMBERT")
    lone = len(words) == 1 and len({u.role for u in m.units}) == 1 and "," not in text
    if {u.role for u in m.units} == {"given", "surname"} and len(words) == 2 and not _cued(text, body):
        m.ambiguous = "order"
    elif lone and not has_marker and not title_before:
        m.ambiguous = _lone_word_doubt(m.units[0].role, words[0])
    elif lone and m.units[0].role == "surname" and (m.title or title_before):
        _read_after_title(m, words[0], lang)


def _lone_word_doubt(role: str, word: str) -> str:
    """The ``Mention.ambiguous`` of a lone name word read as ``role`` with nothing around it."""
    if role == "given":
        return "single"
    if role != "surname":
        return ""
    if word.isupper() and is_given(word):
        return "caps"
    if not is_given(word) and not is_surname(word):
        return "unknown"
    return "listed"  # "Olive": a surname of the lists, and her given name in the note


def _read_after_title(m: Mention, word: str, lang: str) -> None:
    """"Mme [Victoire]", "M. Constant": a title before a lone word that is a given name of its
    gender and no surname of the lists reads as that given name; any other word after a title is a
    surname ("Mme Martin") unless the note or the history shows it as a given name of the title's
    gender ("mme PIERRE Rose", then "mme Rose")."""
    said = m.title_gender or _gender_of_title(m.title)
    if said and not is_surname(word) and listed_gender(word, lang) == said:
        m.as_given()
        m.ambiguous = "single"
    else:
        m.ambiguous = "titled"


def listed_gender(word: str, lang: str) -> str | None:
    """The gender the name lists give a given name (the surrogate pools of the note's language,
    then the others', then the wider lists read but never drawn), without guessing from its
    ending: None when no list has it, or when a list has it for both genders."""
    f = fold(word.split("-")[0].rstrip("."))
    for la in (lang, *(x for x in ("fr", "es", "en") if x != lang)):
        hits = [g for g in ("male", "female") if f in _gendered(la)[g]]
        if hits:
            return hits[0] if len(hits) == 1 else None
    return names.given_genders().get(f)


def _given_word(word: str) -> bool:
    """A lone word that reads as a given name: one of the surrogate pools', or of the wider lists'
    when no surname list has it ("Mihaela", "Efua")."""
    if is_given(word):
        return True
    head = fold(word.split("-")[0].rstrip("."))
    return not is_surname(word) and names.given_genders().get(head) is not None


def _cued(text: str, body: list[tuple[int, int, str]]) -> bool:
    """Case, a comma or parentheses say which word is the surname."""
    words = [w for _, _, w in body]
    caps = [w.isupper() and len(w.rstrip(".")) > 1 for w in words]
    gap = text[body[0][1] : body[-1][0]]
    return (any(caps) and not all(caps)) or "," in gap or "(" in gap or any(_is_initial(w) for w in words)


def _add(m: Mention, s: int, e: int, w: str, role: str) -> None:
    if role == "keep" or (role == "given" and fold(w) in _PARTICLES):
        return
    if _is_initial(w):
        letters = [(s + i, c) for i, c in enumerate(w) if c.isalpha()]
        for pos, c in letters:
            m.units.append(
                Unit(
                    pos, pos + 1, f"{role}_initial" if role in ("given", "surname") else role, c.casefold(), c
                )
            )
        return
    word = w.rstrip(".") if not w.endswith("..") else w
    pos = s
    for part in word.split("-"):
        if part:
            m.units.append(Unit(pos, pos + len(part), role, fold(part), part))
        pos += len(part) + 1


def _roles(
    text: str, body: list[_Token], lang: str, has_title: bool, has_marker: bool, title: str = ""
) -> list[str]:
    """"given" or "surname" for each word of ``body``: what the writing says first (a comma,
    parentheses, a lone word's surroundings, case, leading initials), then the name lists."""
    n = len(body)
    if n == 0:
        return []
    gaps = [text[body[i - 1][1] : body[i][0]] for i in range(1, n)]
    # "Nom, Prénom": a comma between name words
    comma = next((i for i, gap in enumerate(gaps, 1) if "," in gap), 0)
    if comma:
        return ["surname"] * comma + ["given"] * (n - comma)
    # "NOM (Prénom)": a word in parentheses after the first is a given name, and so is every word
    # after it (more given names: replaced too, never kept)
    paren = next((i for i, gap in enumerate(gaps, 1) if "(" in gap), 0)
    if paren:
        return _roles(text, body[:paren], lang, has_title, has_marker, title) + ["given"] * (n - paren)
    if n == 1:
        return [_lone_word_role(text, body[0], lang, has_title, has_marker, title)]
    words = [w for _, _, w in body]
    caps = [w.isupper() and len(w.rstrip(".")) > 1 for w in words]
    if any(caps) and not all(caps):  # "Jean DUPONT", "DUPONT Jean-Pierre"
        return ["surname" if c else "given" for c in caps]
    if _is_initial(words[0]):  # initials lead: "J. Dupont", "J.-P. Martin"
        return _roles_after_initials(words)
    return _roles_by_lists(words, lang, title)


def _lone_word_role(text: str, tok: _Token, lang: str, has_title: bool, has_marker: bool, title: str) -> str:
    """The role of the one name word of a mention."""
    start, end, w = tok
    if "," in text[end:]:  # "DUPONT," (an HL7 family name alone)
        return "surname"
    if "," in text[:start]:  # ", Jean" (an HL7 given name alone)
        return "given"
    if _is_initial(w):
        return "given"
    if lang == "es" and title in _GIVEN_TITLES and (is_given(w) or not is_surname(w)):
        return "given"  # "Doña Pilar", "D. Antonio": Don/Doña name a given name ("D. Martínez" aside)
    if title in _FAMILIAR_TITLES:
        return "given"  # "Mamie Blanca", "Mémé Blanche": a grandmother is called by her given name
    capitals = w.isupper() and len(w) > 1
    if not has_title and _given_word(w) and not (capitals and is_surname(w)):
        return "given"
    if has_marker and not has_title and not capitals:
        return "given"  # "Grandson Dallas", "su mujer Miren": after a kinship word, a given name
    return "surname"


def _roles_after_initials(words: list[str]) -> list[str]:
    """Leading initials are given names, the words after them surnames; "J.D.": given initial(s)
    then a surname initial."""
    n, k = len(words), 1
    while k < n and _is_initial(words[k]):
        k += 1
    if k == n:
        return ["given"] * (n - 1) + ["surname"]
    return ["given"] * k + ["surname"] * (n - k)


def _roles_by_lists(words: list[str], lang: str, title: str) -> list[str]:
    """Roles of uncued words (one case, no comma, no initial first), by units (a particle joins the
    word after it) and the name lists: given names first, the surnames after them, except a
    surname then a given name ("Dupont Jean"); a Spanish name ends in two surnames."""
    groups = _groups(words)
    ng = len(groups)
    if ng == 1:
        return ["surname"] * len(words)
    if (
        lang == "es"
        and title in _PAIR_TITLES
        and ng == 2
        and all(is_surname(h) for _, h in groups)
        and not is_given(groups[0][1])
    ):  # "Sra. Martínez García": a Spanish title before two surnames, no given name
        return ["surname"] * len(words)
    last_first, n_given_groups = _given_groups(groups, lang)
    out: list[str] = []
    for gi, (count, _) in enumerate(groups):
        given = (gi >= ng - n_given_groups) if last_first else (gi < n_given_groups)
        out += ["given" if given else "surname"] * count
    return out


def _given_groups(groups: list[tuple[int, str]], lang: str) -> tuple[bool, int]:
    """(the given names come last, how many units are given names) of two units or more."""
    ng = len(groups)
    if (
        ng == 2
        and not is_given(groups[0][1])
        and is_given(groups[1][1])
        and (is_surname(groups[0][1]) or not is_surname(groups[1][1]))
    ):
        return True, 1  # "Dupont Jean"
    if (ng >= 3 and all(h.isupper() for _, h in groups) and is_given(groups[-1][1])
            and not any(_given_word(h) for _, h in groups[:-2])):
        # a header's surnames first, in one case and no comma: "CARBALLEIRA OUTEIRO XOSE MANUEL",
        # "DUPONT MARTIN JEAN" (no given name the lists know before the last two units, and the
        # last one is one; every word in capitals, as headers write them: in running text
        # "Siobhan Kelly Thomas" is given names first); a Spanish name has two surnames, others one
        surnames = 2 if lang == "es" else 1
        return True, ng - surnames
    if lang != "es":
        return False, ng - 1
    if ng == 3 and is_given(groups[1][1]) and not is_surname(groups[1][1]):
        return False, 2
    return False, max(1, ng - 2)


def _groups(words: list[str]) -> list[tuple[int, str]]:
    """(number of words, head word) per unit: particles join the word after them."""
    out: list[tuple[int, str]] = []
    pending = 0
    for i, w in enumerate(words):
        if fold(w) in _PARTICLES and i < len(words) - 1 and (i > 0 or w[:1].isupper()):
            pending += 1
            continue
        out.append((pending + 1, w))
        pending = 0
    return out


def _merge_particles(m: Mention, text: str) -> None:
    """A particle word and the surname after it are one unit ("de la Fontaine")."""
    merged: list[Unit] = []
    for u in m.units:
        if (
            merged
            and merged[-1].role == u.role == "surname"
            and fold(merged[-1].text) in _PARTICLES
            and text[merged[-1].end : u.start].strip() == ""
        ) or (
            merged
            and merged[-1].role == "surname"
            and " " in merged[-1].value
            and fold(merged[-1].value.split()[-1]) in _PARTICLES
            and u.role == "surname"
        ):
            p = merged.pop()
            merged.append(Unit(p.start, u.end, "surname", f"{p.value} {u.value}", u.text))
        else:
            merged.append(u)
    m.units = merged


def render(m: Mention, values: dict[int, str]) -> str:
    """The mention with unit ``i`` replaced by ``values[i]`` in the unit's case; everything else
    (kept words, punctuation, spaces, hyphens, periods of initials) as written."""
    out: list[str] = []
    pos = 0
    for i, u in enumerate(m.units):
        out.append(m.text[pos : u.start])
        v = values.get(i, u.text)
        if u.role.endswith("_initial"):
            v = v[:1].upper() if u.text.isupper() else v[:1].lower()
        else:
            v = names.match_case(u.text, v)
        out.append(v)
        pos = u.end
    out.append(m.text[pos:])
    return "".join(out)


def article_says(gender: str | None, m: Mention, lang: str) -> bool:
    """Whether an article's ``gender`` before a neutral title holds for ``m``: the masculine
    article is the title's usual form, overruled by a given name the lists know as a woman's."""
    if gender != _UNMARKED_ARTICLE_GENDER:
        return True
    first = next((u.text for u in m.units if u.role == "given"), "")
    return not first or listed_gender(first, lang) != "female"


def context_gender(
    before: str, lang: str = "", m: Mention | None = None
) -> tuple[str | None, str | None]:
    """(title gender, kinship gender) said by the words just before a mention that does not hold
    them ("Doña [María Boada]", "su hija [Lucía]", "la Dra [López]"); "la fille de [X]" says
    nothing about X, and "le Dr [Nadège BERTRAND]" nothing about her (``article_says``)."""
    tail = before[-40:]
    found = list(_WORD.finditer(tail))
    words = [w.group() for w in found]
    if not words:
        return None, None
    gap = tail[found[-1].end() :]
    last = _key(words[-1])
    if _is_title(last, lang):
        g = _gender_of_title(last)
        # "la Dr [X]": the article right before the title agrees with it; "le 16/05/2023\nDr
        # [X]" is the date's article, not the doctor's
        between = tail[found[-2].end() : found[-1].start()] if len(found) > 1 else ""
        if g is None and re.fullmatch(r"[ \t]+", between):
            g = _ARTICLE_GENDER.get(_key(words[-2]))
            if m is not None and not article_says(g, m, lang):
                g = None
        return g, None
    if "\n" in gap or any(c.isdigit() for c in gap):
        # "Tél fils 06 71 24 88 30.\n[Gwenaëlle] AS jour": the son's phone, not her (a title on its
        # own line, "Madame\n[Dupont]" of an address block, still says hers)
        return None, None
    if last in KIN and (words[-1].islower() or _capitalised_kin(words[-1], tail[: found[-1].start()])):
        return None, KIN[last]  # "COUSIN, [PHILIPPINE]": a surname, not her cousin
    if _AGREEMENT.get(lang, {}).get(last) and words[-1].islower():
        return _AGREEMENT[lang][last], None  # "votre patiente, [NOM Prénom]": the noun agrees
    return None, None


# Nouns for the person that agree in gender, written just before a name ("votre patiente, DUPONT
# Marie", "la paciente ingresada"): French and Spanish grammar says who it is.
_AGREEMENT: dict[str, dict[str, str]] = {
    "fr": {"patiente": "female", "patient": "male", "résidente": "female", "résident": "male",
           "parturiente": "female", "accouchée": "female", "opérée": "female", "opéré": "male"},
    "es": {"enferma": "female", "enfermo": "male", "usuaria": "female", "usuario": "male"},
}


def starts_sentence(before: str) -> bool:
    """The text before a mention ends where a sentence or a line starts."""
    return bool(_SENTENCE_START.search(before))


def title_before(before: str, lang: str) -> bool:
    """A title is the last word before a mention ("Mme [Bernard]", "el Dr. [García]")."""
    return bool(title_word(before, lang))


def title_word(before: str, lang: str) -> str:
    """The folded title that is the last word before a mention ("Mme [Bernard]" -> "mme"), or ""."""
    words = [w.group() for w in _WORD.finditer(before[-40:])]
    if not words or not before[-1:].isspace():
        return ""
    last = _key(words[-1])
    if _is_title(last, lang):
        return last
    return ""


def kin_before(before: str) -> bool:
    """A kinship word is the last word before a mention ("his wife [Mary]", "su pareja [Luis]", "mum
    ([Abena])", "su mujer, [Miren]", "Daughter [Faith]" at the start of a sentence): what follows it
    is a given name, or a full name, never a surname alone."""
    tail = before[-40:]
    found = list(_WORD.finditer(tail))
    if not found or not re.search(r"(?:\s|[(,:]\s*)$", tail) or not re.fullmatch(
        r"\s*[(,:]?\s*", tail[found[-1].end() :]
    ):
        return False
    w = found[-1].group()
    return _key(w) in KIN and (w.islower() or _capitalised_kin(w, tail[: found[-1].start()]))


# what may stand before a sentence's first word: nothing, a line break, the end of a sentence, a
# colon or semicolon, a dash, an opening bracket or quote
_SENTENCE_START = re.compile(r"(?:^|[\n.;:!?(«\"“\-–—•*])\s*$")


def _capitalised_kin(word: str, before: str) -> bool:
    """A capitalised kinship word that is one: at the start of a sentence or a line ("Daughter
    Faith", "Fils (Rachid)"), written like a word (not in capitals: "COUSIN, PHILIPPINE" is a
    surname), and no surname of the lists ("Sobrino")."""
    return word[:1].isupper() and word[1:].islower() and not is_surname(word) and bool(
        _SENTENCE_START.search(before))


@cache
def title_initials(lang: str) -> frozenset[str]:
    """Letters that, as an initial before a surname, read as a title of the language: French "M."
    (Monsieur), Spanish "D." (Don). A surrogate given name drawn for ``lang`` avoids them, so that
    "C. Dupont" never becomes "M. Lebreton"."""
    return frozenset(k[0].upper() for k, la in _TITLE_LANG.items() if la == lang and len(k.rstrip(".")) == 1)


def _is_marker(word: str, lang: str) -> bool:
    f = _key(word)
    if _is_title(f, lang):
        return True
    return (f in KIN and word.islower()) or (f in _DETERMINERS and word.islower())
