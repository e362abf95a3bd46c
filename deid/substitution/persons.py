"""Persons: one surrogate identity per person, rendered in every mention's own shape.

A person's surrogate identity is made of memo entries of the patient (keys from ``ctx.key``,
values are surrogate strings, never PHI):

- one entry per **surname** (``\\x1fsurname\\x1fmartinez`` -> "Jaume"): relatives who share a
  surname share its surrogate; a Spanish "Martínez García" is two entries, so a child's first
  surname is its father's first and its second its mother's first, as in the original;
- one entry per **given name and gender** (``\\x1fgiven\\x1ffemale\\x1flucia`` -> "Carmen"), drawn
  from the names of that gender: "Mary", "Mary Smith" and "SMITH Mary" render one first name;
- one **person record** per (first surname, first given name) holding the gender the person was
  drawn with, so that a later note that says nothing about the gender keeps it;
- one entry per (surname, initial) for "J. Dupont" in a later note, and one per (surname,
  initials) for a compound or double given name ("J.-L. Martin", "J. L. Martin"): its given names'
  surrogates in order, so that each initial is its own part's ("F.-B." for Frédéric-Bernard).

Gender comes from the mention's title (Mme, Sra., Doña, Mrs, "la Dr"), its kinship word (sa
fille, su hijo, his wife), the person record, then the given-name lexicon. Titles, kinship words
and articles are never replaced: only the name words are (``deid.surrogates.identity``).
Mentions are linked the way a reader links them: a surname alone, an initial or a given name alone
goes with the one person of the note that has it and a compatible gender; when two people could
match, the mention keeps to its own words (its surname or given name entry) and is not merged.
A name drawn for a note is never one of that note's own name words, and two different surnames
(or given names) of a note never get the same surrogate, and a given name never starts with a
letter that, as an initial, reads as a title of the language (French "M.", Spanish "D.").
"SURNAME, GIVEN" cut into two spans is one person; a word after a kinship word, or a given name
elsewhere in the note, stays a given name. A lone word no name list knows ("Karim") reads as a
surname unless the note or the patient's history shows it as a given name ("Karim Benali", then
"Benali (Karim)": one given name in both notes). An e-mail address written right after a mention
is that person's: its initial and surname ("sa fille Carmelita, cgras@...") render her given name,
whoever else in the note has a name with that letter (``initial_surrogate``).

A note's person mentions go through four phases, in this order:

1. **parse the mention** (``PersonOperator.plan``: ``_parse_mentions``): its words read as given
   names, surnames, initials and kept words (``identity.parse``), with the words just before it
   (a title, a kinship word, a form's field label, "SURNAME," before a given name), then the
   readings the note leaves open settled by its other mentions (``_settle_in_note``);
2. **link it to a person** (``_people_and_links``): the note's persons and the one each mention
   names, and the memo entries each mention may read (``_set_lookup_keys``);
3. **choose the identity** (``PersonOperator.draw``, ``_NoteDraw``): readings settled by the
   patient's history, the gender of each person and mention, then the surnames and given names,
   the person records and the initials that have no entry yet, drawn in that fixed order so that
   one seed draws the same surrogates;
4. **render the shape** (``PersonOperator.render``): each unit's surrogate written in the
   mention's own shape (``identity.render``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from deid.labels import Category, Label
from deid.store.base import Release
from deid.substitution.items import Item, NoteContext
from deid.substitution.operators import Operator, claims, labels_of, register
from deid.surrogates import identity, names
from deid.temporal.lexicon import fold

GENDERS = ("female", "male")
# lone words read as surnames that the note or the history may show to be given names: "MARY" in
# capitals, and "Karim", which neither name list knows (deid.surrogates.identity.Mention)
READ_AS_SURNAME = ("caps", "unknown", "listed")
# A form's field label right before a lone name word says which it is ("Prénom : [CONSTANT]",
# "Surname: [MENON]    Forename: [ARJUN]"), whatever the name lists say.
_GIVEN_FIELD = re.compile(
    r"(?i)\b(?:pr[ée]noms?|forenames?|first\s+names?|given\s+names?|christian\s+names?|nombre|"
    r"nombres)\s*(?:d['’]usage\s*)?[:=]?[ \t]*$"
)
_SURNAME_FIELD = re.compile(
    r"(?i)\b(?:(?<!et )(?<!and )nom(?:\s+(?:de\s+naissance|d['’]usage|marital|de\s+jeune\s+fille|"
    r"patronymique))?|surnames?|last\s+names?|family\s+names?|maiden\s+names?|apellidos?|"
    r"(?:primer|segundo)\s+apellido)\s*[:=]?[ \t]*$"
)

# a given name's initials just before a span: "Dr S. [LAMBERT-HOUDAYER]", "J.-L. [Martin]"
_INITIAL_BEFORE = re.compile(r"(?:^|[\s(])[A-Z]\.(?:-?[A-Z]\.)*[ \t]+$")


@dataclass
class Person:
    surname: str
    given: str
    said: list[str] = field(default_factory=list)  # genders said by titles and kinship words
    lexicon: str | None = None
    surnames: tuple[str, ...] = ()  # all of them, from the mention that names the most
    givens: tuple[str, ...] = ()  # all of them ("Jean-Luc": jean, luc), from the mention that names the most

    @property
    def said_gender(self) -> str | None:
        """The gender the note's titles and kinship words say; where they disagree ("Mme Roux",
        then "M. Roux Nadège" by a slip), the one her given name has, else the first said."""
        if len(set(self.said)) > 1 and self.lexicon in self.said:
            return self.lexicon
        return self.said[0] if self.said else None


@dataclass
class PersonMention:
    mention: identity.Mention
    person: tuple[str, str] | None  # the note person it belongs to (first surname, first given)
    # "[SMITH], [MARY]": the surname and the given name of one person cut into two spans; both
    # mentions carry (surname, given) and the person is made of the pair
    pair: tuple[str, str] | None = None


def _k(ctx: NoteContext, *parts: str) -> str:
    return ctx.key(Label.PERSON, "\x1f" + "\x1f".join(parts))


def _initials_key(ctx: NoteContext, surname: str, givens: Sequence[str]) -> str:
    """The entry of a person's several given names as initials: "J.-L. Martin" and "Jean-Luc
    Martin" both read (martin, "jl")."""
    return _k(ctx, "given_initials", surname, fold("".join(g[:1] for g in givens)))


def name_word_keys(ctx: NoteContext, word: str) -> list[str]:
    """The memo entries a name word written outside a name mention may have (a word of an
    e-mail's local part, "claire.rousseau"): its surname entry, then its given-name entries."""
    w = fold(word)
    return [_k(ctx, "surname", w), *(_k(ctx, "given", g, w) for g in GENDERS)]


def name_word_surrogate(ctx: NoteContext, word: str, memo: Mapping[str, str]) -> str | None:
    """The surrogate the note or the patient's history gave ``word`` as a name, or None."""
    return next((v for k in name_word_keys(ctx, word) if (v := memo.get(k))), None)


def new_name_word(ctx: NoteContext, word: str, avoid: set[str]) -> tuple[str, str]:
    """(memo key, surrogate) for a name word first met outside a name mention (an e-mail's
    "solano" before any note names Florinda Solano): a given name of the lists (and no surname)
    becomes a given-name entry of its gender, anything else a surname entry, as a lone word
    reads. A later mention of the name renders the same surrogate. ``avoid`` (folded surrogates
    already drawn for this note) grows with the draw."""
    lang, rng, w = ctx.language, ctx.rng, fold(word)
    avoid_all = avoid | ctx.name_words | {w}  # never the word itself
    if identity.is_given(word) and not identity.is_surname(word):
        g = identity.gender_of_given(word, lang) or rng.choice(GENDERS)
        letters = "".join(identity.title_initials(lang))
        key, value = _k(ctx, "given", g, w), names.draw_first(rng, lang, g, avoid_all, initials_not=letters)
    else:
        key = _k(ctx, "surname", w)
        for _ in range(32):  # not a given name too, as the persons' draw
            value = names.draw_last(rng, lang, word, avoid_all)
            if not identity.is_given(value):
                break
    avoid.add(fold(value))
    return key, value


def new_initial(ctx: NoteContext, letter: str, surname: str, avoid: set[str]) -> tuple[str, str]:
    """(memo key, surrogate given name) for an initial first met outside a name mention ("h" of
    "hledoux@..."): a drawn given name of either gender whose initial does not read as a title
    (French "M."); the person named in full later keeps its initial."""
    lang, rng = ctx.language, ctx.rng
    value = names.draw_first(rng, lang, None, avoid | ctx.name_words,
                             initials_not="".join(identity.title_initials(lang)))
    avoid.add(fold(value))
    return initial_keys(ctx, letter, surname)[0], value


def initial_keys(ctx: NoteContext, letter: str, surname: str) -> list[str]:
    """The memo entry of the person with this given-name initial and surname ("J. Whitaker")."""
    return [_k(ctx, "initial", fold(surname), fold(letter))]


def initial_surrogate(ctx: NoteContext, letter: str, surname: str, memo: Mapping[str, str]) -> str | None:
    """The surrogate given name of the person an e-mail's initial and surname stand for: the
    person named right before the address ("sa fille Carmelita, cgras@..."); else the person with
    this initial and surname; else the one given name of the note with that letter, leaving out
    those of people the note gives another surname ("sa fille Océane, opayet@..."); else None."""
    owners: dict[tuple[str, str], str] = ctx.shared.get("persons.email_owners", {})
    owner = owners.get((fold(letter), fold(surname)))
    got = memo.get(owner) if owner else None
    if got is None:
        got = next((v for k in initial_keys(ctx, letter, surname) if (v := memo.get(k))), None)
    if got is None:
        firsts: dict[str, tuple[str, frozenset[str]]] = ctx.shared.get("persons.first_givens", {})
        mail = _mail_word(surname)  # "nguyenvan" is Nguyen-Van's, "legoff" Le Goff's
        keys = {k for g, (k, named) in firsts.items()
                if g.startswith(fold(letter)) and (not named or any(x in mail for x in named))}  # fmt: skip
        got = memo.get(keys.pop()) if len(keys) == 1 else None
    return got


def _given_gender(m: identity.Mention, lang: str) -> str | None:
    """The gender of the first given name of the mention that has one ("LAN THI": Thi)."""
    return next(
        (g for u in m.units if u.role == "given" and (g := identity.gender_of_given(u.text, lang))), None
    )


def _compatible(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == b


def _persons(ctx: NoteContext) -> dict[tuple[str, str], Person]:
    got: dict[tuple[str, str], Person] = ctx.shared.setdefault("persons.people", {})
    return got


def _genders(ctx: NoteContext) -> dict[int, str]:  # id(item) -> gender drawn with
    got: dict[int, str] = ctx.shared.setdefault("persons.gender", {})
    return got


@register("persons")
class PersonOperator(Operator):
    name = "persons"
    handles = claims(labels_of(Category.PER), {"random"})

    # ------------------------------------------------------------------------------- plan

    def plan(self, ctx: NoteContext, items: Sequence[Item]) -> None:
        """Read the note's person mentions (phases 1 and 2 of the module docstring)."""
        parsed, pairs = self._parse_mentions(ctx.note.text, items, ctx.language)
        self._settle_in_note(parsed)
        for it, m in zip(items, parsed, strict=True):
            it.data = PersonMention(m, None)
        for g, s in pairs.items():
            gm, sm = parsed[g], parsed[s]
            if gm.givens and sm.surnames:
                items[g].data.pair = items[s].data.pair = (sm.surnames[0], gm.givens[0])
        self._people_and_links(ctx, items)
        self._set_lookup_keys(ctx, items)

    def _parse_mentions(
        self, text: str, items: Sequence[Item], lang: str
    ) -> tuple[list[identity.Mention], dict[int, int]]:
        """Each item's mention read with the words just before it, in the note's order (a given
        name after "SURNAME," is read with the surname mention before it); and the pairs (given
        name item -> the surname item before its comma)."""
        by_start = sorted(range(len(items)), key=lambda i: items[i].span.start)
        found: dict[int, identity.Mention] = {}
        pairs: dict[int, int] = {}  # given-name mention -> the surname mention before its comma
        for n, i in enumerate(by_start):
            it = items[i]
            before = text[max(0, it.span.start - 40) : it.span.start]
            prev = by_start[n - 1] if n else None
            after_comma = prev is not None and self._after_surname_comma(
                text, items[prev], found[prev], it, lang
            )
            m = found[i] = identity.parse(it.text, lang, identity.title_word(before, lang), after_comma,
                                          identity.starts_sentence(before))
            if after_comma and prev is not None:
                pairs[i] = prev
                found[prev].as_surname()  # "JAMES, MARY", "CUESTA VEGA, CHITA": surnames before the comma
            self._field_label(m, before)
            self._words_before(m, before, lang)
            self._initial_before(m, before, lang)
        return [found[i] for i in range(len(items))], pairs

    @staticmethod
    def _words_before(m: identity.Mention, before: str, lang: str) -> None:
        """A title or kinship word just before a mention that holds none says its gender; after a
        kinship word a lone word is a given name ("his wife [Mary]")."""
        if m.kept or not re.search(r"(?:\s|[(,:]\s*)$", before):
            return
        m.title_gender, m.kin_gender = identity.context_gender(before, lang, m)
        if identity.kin_before(before) and m.ambiguous in ("single", *READ_AS_SURNAME):
            if m.ambiguous in READ_AS_SURNAME:
                m.as_given()
            m.ambiguous = ""

    @staticmethod
    def _initial_before(m: identity.Mention, before: str, lang: str) -> None:
        """A lone word right after a given name's initial outside the span ("Dr S.
        [LAMBERT-HOUDAYER]") is its surname, whatever the lists say of its first part; an
        initial that reads as a title ("M. [Constant]") is no such initial."""
        words = re.findall(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", m.text)
        if m.kept or len(words) != 1 or {u.role for u in m.units} - {"given", "surname"}:
            return
        if _INITIAL_BEFORE.search(before) and not identity.title_word(before, lang):
            m.as_surname()

    @staticmethod
    def _set_lookup_keys(ctx: NoteContext, items: Sequence[Item]) -> None:
        """The memo entries each mention may read (``Item.key``, ``Item.extra_keys``): its own
        words' under both readings when it is ambiguous (the history may settle it), and those of
        every person of the note, which it may link to."""
        # the note's person entries, keyed once (a 200k-character note has hundreds of persons and
        # a thousand mentions: keying them per mention was quadratic in HMACs)
        note_person_keys = _note_person_keys(ctx)
        for it in items:
            m: identity.Mention = it.data.mention
            readings = [m, m.other_reading()] if m.ambiguous else [m]
            keys = [k for r in readings for k in _reading_keys(ctx, r)] + note_person_keys
            if not m.givens and not m.surnames and m.units:
                keys.append(_k(ctx, "initials", "".join(u.value for u in m.units)))
            keys = list(dict.fromkeys(keys))
            it.key = keys[0] if keys else ""
            it.extra_keys = tuple(keys[1:])

    @staticmethod
    def _field_label(m: identity.Mention, before: str) -> None:
        """A lone name word after a form's field label is what the label says."""
        if len(m.units) != 1 or m.units[0].role not in ("given", "surname") or m.kept:
            return
        line = before[before.rfind("\n") + 1 :]
        if _GIVEN_FIELD.search(line):
            m.as_given()
        elif _SURNAME_FIELD.search(line):
            m.as_surname()
        else:
            return
        m.ambiguous = ""

    @staticmethod
    def _after_surname_comma(text: str, prev: Item, pm: identity.Mention, it: Item, lang: str) -> bool:
        """``it`` follows "SURNAME," ("[SMITH], [MARY]", "[SMITH,] [MARY]", "[CUESTA VEGA], [CHITA]"):
        only a comma (in either span or between them) stands between them, ``it`` is one word, a
        given name of the lists or written in capitals like the surname (HL7 "FAMILY, GIVEN"), and
        ``prev`` reads as surnames: read so, or uncued ("order") and either in capitals or, in
        Spanish, two surnames of the lists the first of which is no given name. A list of people
        ("Jean Dupont, Marie Martin", "Dupont, Durand", "Jean Dupont, Marie") is no such pair."""
        if not pm.units or prev.span.end > it.span.start:
            return False
        gap = text[prev.span.start + pm.units[-1].end : it.span.start]
        words = re.findall(r"[^\W\d_]+(?:-[^\W\d_]+)*", it.text)  # "JEAN-PIERRE" is one
        if re.fullmatch(r"\s*,\s*", gap) is None or len(words) != 1:
            return False
        caps = all(u.text.isupper() for u in pm.units) and words[0].isupper()
        if not (caps or identity.is_given(words[0])):
            return False
        if all(u.role == "surname" for u in pm.units):
            return True
        heads = [u.text for u in pm.units]
        return pm.ambiguous == "order" and (
            caps
            or (
                lang == "es"
                and all(identity.is_surname(w) for w in heads)
                and not identity.is_given(heads[0])
            )
        )

    @staticmethod
    def _settle_in_note(parsed: Sequence[identity.Mention]) -> None:
        """ "Denis Christine" next to "Christine DENIS" is Christine Denis; a lone "Olivier" next to
        "Nathalie OLIVIER" is her surname, a lone "MARY" next to "his wife Mary" her given name;
        "Sra. Martínez Boada" next to "Lucía Martínez Boada" her two surnames. Mentions whose
        reading the case, a comma, a title or a kinship word settled decide; then the lone words
        go with how the note's other mentions read them."""
        sure = _SureReadings.of(parsed)
        for m in parsed:
            if m.ambiguous == "order":
                _settle_order(m, sure)
            elif m.ambiguous == "single":
                _settle_single(m, sure)
        _settle_lone_words(parsed)

    def _people_and_links(self, ctx: NoteContext, items: Sequence[Item]) -> None:
        lang = ctx.language
        people = _persons(ctx)
        people.clear()
        for it in items:
            m = it.data.mention
            pair = it.data.pair
            if (m.surnames and m.givens) or pair:
                key = (m.surnames[0], m.givens[0]) if m.surnames and m.givens else pair
                p = people.setdefault(key, Person(*key))
                if m.said_gender:
                    p.said.append(m.said_gender)
                if m.givens:
                    p.lexicon = p.lexicon or _given_gender(m, lang)
                if m.surnames and m.surnames[0] == p.surname and len(m.surnames) > len(p.surnames):
                    p.surnames = tuple(m.surnames)
                if m.givens and m.givens[0] == p.given and len(m.givens) > len(p.givens):
                    p.givens = tuple(m.givens)
        for it in items:
            it.data.person = it.data.pair or self._link(it.data.mention, people)
            m = it.data.mention
            if m.said_gender and it.data.person in people and not (m.surnames and m.givens):
                people[it.data.person].said.append(m.said_gender)  # "Mr. [Ashby]" says Ashby Collins is a man

    @staticmethod
    def _link(m: identity.Mention, people: Mapping[tuple[str, str], Person]) -> tuple[str, str] | None:
        def gender(p: Person) -> str | None:
            return p.said_gender or p.lexicon

        if m.surnames and m.givens:
            return (m.surnames[0], m.givens[0])
        said = m.said_gender
        if m.surnames:  # "Mme Dupont", "J. Dupont", "DUPONT"
            cands = [
                k
                for k, p in people.items()
                if p.surname == m.surnames[0]
                and _compatible(gender(p), said)
                and (not m.given_initial or p.given.startswith(m.given_initial))
            ]
            if len(m.surnames) > 1:  # "Sra. Martínez García": the one with both, if the note has her
                both = [k for k in cands if people[k].surnames[:2] == tuple(m.surnames[:2])]
                cands = both or cands
        elif m.givens:  # "Mary", "sa fille Marie"; "Will" of "Hargrove, William T. "Will""
            cands = [k for k, p in people.items() if p.given == m.givens[0] and _compatible(gender(p), said)]
            if not cands:
                cands = [
                    k
                    for k, p in people.items()
                    if set(m.givens) <= set(p.givens) and _compatible(gender(p), said)
                ]
        else:  # "J.D."
            letters = [u.value for u in m.units]
            cands = [
                k
                for k, p in people.items()
                if len(letters) == 2 and p.given.startswith(letters[0]) and p.surname.startswith(letters[1])
            ]
        return cands[0] if len(cands) == 1 else None

    # ------------------------------------------------------------------------------- draw

    def draw(
        self,
        ctx: NoteContext,
        items: Sequence[Item],
        memo: Mapping[str, str],
        eps: Mapping[str, float],
        cost: Mapping[str, int],
    ) -> list[Release]:
        """The note's new person entries (phases 3 and 4 of the module docstring), drawn in a fixed
        order: the draws of one seed are the same surrogates."""
        draws = _NoteDraw(ctx, memo)
        if draws.settle_by_history(items):
            self._people_and_links(ctx, items)
        draws.exclude_note_names(items)
        person_gender = draws.person_genders(_persons(ctx))
        genders = _genders(ctx)
        genders.update(draws.mention_genders(items, person_gender))
        # the entry of each first given name of the note, for an e-mail's initial ("sa fille
        # Océane, opayet@...": the one given name of the note with that letter)
        ctx.shared["persons.first_givens"] = _first_givens(ctx, items, genders)
        owners = ctx.shared["persons.email_owners"] = _email_owners(ctx, items, genders)
        draws.names(items, genders)
        draws.person_records(person_gender, _persons(ctx))
        draws.initials_of_unnamed(items, genders)
        draws.email_initials(owners)
        return [Release(k, v, 0) for k, v in draws.out.items()]

    # ----------------------------------------------------------------------------- render

    def render(self, ctx: NoteContext, item: Item, memo: Mapping[str, str]) -> tuple[str, str] | None:
        pm: PersonMention = item.data
        m = pm.mention
        g = _genders(ctx).get(id(item)) or self._gender_from_memo(ctx, item, memo)
        values: dict[int, str] = {}
        person = pm.person
        for i, u in enumerate(m.units):
            v: str | None = None
            if u.role == "surname":
                v = memo.get(_k(ctx, "surname", u.value))
            elif u.role == "given":
                v = memo.get(_k(ctx, "given", g, u.value)) or next(
                    (memo[k] for x in GENDERS if (k := _k(ctx, "given", x, u.value)) in memo), None
                )
            elif u.role == "given_initial":
                if m.surnames and len(m.given_initials) > 1:  # "J.-L.": each its own part's
                    parts = memo.get(_initials_key(ctx, m.surnames[0], m.given_initials), "").split(" ")
                    pos = [j for j, w in enumerate(m.units) if w.role == "given_initial"].index(i)
                    v = parts[pos] if pos < len(parts) and parts[pos] else None
                # the patient's "J. Marks" is one person in every note: the first J. Marks of the
                # history, even when the note also names a Jeanette Marks in full
                if v is None and m.surnames:
                    v = memo.get(_k(ctx, "initial", m.surnames[0], u.value))
                if v is None and person is not None:
                    rec = memo.get(_k(ctx, "person", *person), "")
                    v = rec.split("|")[1] if rec.count("|") == 2 else None
                if v is None:
                    v = self._initials(ctx, m, memo, i)
            elif u.role == "surname_initial":
                if person is not None:
                    v = memo.get(_k(ctx, "surname", person[0]))
                if v is None:
                    v = self._initials(ctx, m, memo, i)
            if v is None:
                return None
            values[i] = v
        return identity.render(m, values), "random"

    @staticmethod
    def _initials(ctx: NoteContext, m: identity.Mention, memo: Mapping[str, str], i: int) -> str | None:
        letters = memo.get(_k(ctx, "initials", "".join(u.value for u in m.units)))
        if letters is None:
            return None
        pos = [j for j, u in enumerate(m.units) if u.role.endswith("_initial")].index(i)
        return letters[pos] if pos < len(letters) else letters[-1:]

    @staticmethod
    def _gender_from_memo(ctx: NoteContext, item: Item, memo: Mapping[str, str]) -> str:
        m = item.data.mention
        if m.said_gender:
            return str(m.said_gender)
        person = item.data.person
        rec = memo.get(_k(ctx, "person", *person), "") if person else ""
        return rec.split("|", 1)[0] if rec else "female"


# ------------------------------------------------------------------------ plan: the keys looked up


def _reading_keys(ctx: NoteContext, r: identity.Mention) -> list[str]:
    """The memo entries of one reading of a mention: its surnames', its given names' (of either
    gender), its person record and initial, and its initials' with its surname."""
    keys: list[str] = []
    for u in r.units:
        if u.role == "surname":
            keys.append(_k(ctx, "surname", u.value))
        elif u.role == "given":
            keys += [_k(ctx, "given", g, u.value) for g in GENDERS]
    if r.surnames and r.givens:
        keys.append(_k(ctx, "person", r.surnames[0], r.givens[0]))
        # "J. Dupont" in an earlier note: the initial this person's given name keeps
        keys.append(_k(ctx, "initial", r.surnames[0], r.givens[0][:1]))
    if r.given_initial and r.surnames:
        keys.append(_k(ctx, "initial", r.surnames[0], r.given_initial))
    if len(r.given_initials) > 1 and r.surnames:
        keys.append(_initials_key(ctx, r.surnames[0], r.given_initials))
    return keys


def _note_person_keys(ctx: NoteContext) -> list[str]:
    """The memo entries of every person of the note: record, initials, given name, surname."""
    keys: list[str] = []
    for person, p in _persons(ctx).items():
        keys.append(_k(ctx, "person", *person))
        if len(p.givens) > 1:
            keys.append(_initials_key(ctx, person[0], p.givens))
        keys += [_k(ctx, "given", g, person[1]) for g in GENDERS]
        keys.append(_k(ctx, "surname", person[0]))
    return keys


# --------------------------------------------------------- plan: readings settled by the note


@dataclass(frozen=True)
class _SureReadings:
    """What the note's mentions that leave no doubt say (initials: those of every mention)."""

    persons: set[tuple[str, str]]  # (first surname, first given name)
    surnames: set[str]
    givens: set[str]
    initials: set[tuple[str, str]]  # (first surname, given-name initial)
    doubles: set[tuple[str, ...]]  # two first surnames ("Martínez Boada")
    given_runs: set[tuple[str, ...]]  # the given names of a sure mention, in order ("José", "Luis")

    @classmethod
    def of(cls, parsed: Sequence[identity.Mention]) -> _SureReadings:
        return cls(
            persons={
                (m.surnames[0], m.givens[0]) for m in parsed if not m.ambiguous and m.surnames and m.givens
            },
            surnames={s for m in parsed if not m.ambiguous for s in m.surnames},
            givens={g for m in parsed if not m.ambiguous for g in m.givens},
            initials={(m.surnames[0], m.given_initial) for m in parsed if m.given_initial and m.surnames},
            doubles={tuple(m.surnames[:2]) for m in parsed if not m.ambiguous and len(m.surnames) >= 2},
            given_runs={tuple(m.givens) for m in parsed if not m.ambiguous and len(m.givens) >= 2},
        )


def _settle_order(m: identity.Mention, sure: _SureReadings) -> None:
    """Two words in either order ("Denis Christine"), read as the note's sure mentions read them,
    else as the gender said of the person reads them."""
    if [u.role for u in m.units] == ["given", "surname"] and (*m.givens, *m.surnames) in sure.doubles:
        m.as_surname()  # "Sra. Martínez Boada": the two surnames of a person of the note
        return
    here, swapped = (m.surnames[0], m.givens[0]), (m.givens[0], m.surnames[0])
    said = m.said_gender
    first_given = next(u.text for u in m.units if u.role == "given")
    first_surname = next(u.text for u in m.units if u.role == "surname")
    if here in sure.persons:
        m.ambiguous = ""
    elif swapped not in sure.persons and _given_run(m, sure):
        m.as_given()  # "José Luis" beside "José Luis Cuenca Martínez": his two given names
    elif (
        swapped in sure.persons
        or (swapped[0], swapped[1][:1]) in sure.initials
        or (here[1] in sure.surnames and here[0] in sure.givens)
        # "KIM SOO-JIN ... surname Kim": the note says which word is the surname
        or (here[1] in sure.surnames - sure.givens and here[0] not in sure.surnames)
    ):
        m.swap()
    elif (
        said
        and identity.gender_of_given(first_given, "") not in (None, said)
        and identity.gender_of_given(first_surname, "") == said
    ):
        m.swap()  # "Mme Denis Christine": Denis is a man's name, Christine a woman's


def _given_run(m: identity.Mention, sure: _SureReadings) -> bool:
    """The mention's words, in their order, are given names one sure mention of the note runs
    together, and none of them is a surname there."""
    words = tuple(u.value for u in m.units if u.role in ("given", "surname"))
    return not set(words) & sure.surnames and any(
        run[i : i + len(words)] == words for run in sure.given_runs for i in range(len(run)))


def _settle_single(m: identity.Mention, sure: _SureReadings) -> None:
    """A lone given name ("Olivier") is a surname where only the note's surnames have it."""
    v = m.givens[0]
    if v in sure.surnames and v not in sure.givens:
        m.as_surname()
    elif v in sure.givens:
        m.ambiguous = ""


def _settle_lone_words(parsed: Sequence[identity.Mention]) -> None:
    """A lone word read as a surname ("MARY", "mme [Rose]") goes with how the note's other
    mentions read it, "Mary Jones" (its order settled or the lists') included: a given name
    elsewhere stays one."""
    givens = {g for m in parsed if m.ambiguous in ("", "order") for g in m.givens}
    surnames = {s for m in parsed if m.ambiguous in ("", "order") for s in m.surnames}
    given_genders = _given_name_genders(parsed)
    for m in parsed:
        if m.ambiguous in READ_AS_SURNAME:
            v = m.surnames[0]
            if v in givens and v not in surnames:
                m.as_given()
            elif v in surnames:
                m.ambiguous = ""
        elif m.ambiguous == "titled":
            v = m.surnames[0]
            if v in surnames:
                m.ambiguous = ""
            elif any(_compatible(g, m.said_gender) for g in given_genders.get(v, ())):
                m.as_given()


def _given_name_genders(parsed: Sequence[identity.Mention]) -> dict[str, set[str | None]]:
    """The genders of the persons each given name of the note names ("mme [Rose]" after "mme
    PIERRE Rose": a given name of a person of the title's gender)."""
    out: dict[str, set[str | None]] = {}
    for m in parsed:
        if m.ambiguous in ("", "order") and m.givens:
            first = next(u.text for u in m.units if u.role == "given")
            g = m.said_gender or identity.gender_of_given(first, "")
            for v in m.givens:
                out.setdefault(v, set()).add(g)
    return out


# ------------------------------------------------------------------------------------- draw


class _NoteDraw:
    """The draws of one note's person entries: what the patient's history (``memo``) and this
    note's earlier draws (``out``) hold, and the names no new surrogate may be. Its phases run in
    ``PersonOperator.draw``'s order, which is the order of the generator's draws."""

    def __init__(self, ctx: NoteContext, memo: Mapping[str, str]) -> None:
        self.ctx, self.memo = ctx, memo
        self.lang, self.rng = ctx.language, ctx.rng
        self.out: dict[str, str] = {}
        self.avoid: set[str] = set()  # the note's own name words
        self.taken: set[str] = set()  # surrogates of the note's names, drawn or in the history
        self.reused: set[str] = set()  # initials' surrogates a full given name took over
        # never an initial that reads as a title ("M. Lebreton" is Monsieur Lebreton): any given
        # name may be written as an initial in this note or a later one of the patient
        self.title_letters = "".join(identity.title_initials(ctx.language))

    def get(self, k: str) -> str | None:
        return self.out[k] if k in self.out else self.memo.get(k)

    def _has(self, *parts: str) -> bool:
        return self.get(_k(self.ctx, *parts)) is not None

    # -- readings the note left open, settled by the patient's history

    def settle_by_history(self, items: Sequence[Item]) -> bool:
        """Whether any mention's reading changed (its persons must be linked again)."""
        changed = False
        for it in items:
            changed = self._settle_by_history(it.data.mention) or changed
        return changed

    def _settle_by_history(self, m: identity.Mention) -> bool:
        if m.ambiguous == "order":
            s, g = m.surnames[0], m.givens[0]
            if not self._has("person", s, g) and (
                self._has("person", g, s) or (not self._has("surname", s) and self._has("surname", g))
            ):
                m.swap()
                return True
        elif m.ambiguous == "single":
            v = m.givens[0]
            if self._has("surname", v) and not any(self._has("given", g, v) for g in GENDERS):
                m.as_surname()
                return True
        elif m.ambiguous in READ_AS_SURNAME:
            v = m.surnames[0]
            if not self._has("surname", v) and any(self._has("given", g, v) for g in GENDERS):
                m.as_given()
                return True
        elif m.ambiguous == "titled":  # "Mme [Rose]": a given name of hers in an earlier note
            v = m.surnames[0]
            have = [g for g in GENDERS if self._has("given", g, v)]
            if not self._has("surname", v) and (m.said_gender in have if m.said_gender else len(have) == 1):
                m.as_given()
                return True
        return False

    def exclude_note_names(self, items: Sequence[Item]) -> None:
        """No surrogate is one of the note's name words, nor one already given to another of the
        note's names."""
        mentions: list[identity.Mention] = [it.data.mention for it in items]
        self.avoid = set(names.name_words(u.text for m in mentions for u in m.units)) | self.ctx.name_words
        self.taken = {
            fold(v) for it in items for k in it.memo_keys() if (v := self.memo.get(k)) and "|" not in v
        }

    # -- the gender of each note person, then of each mention

    def _history_gender(self, given: str) -> str | None:
        have = [g for g in GENDERS if self._has("given", g, given)]
        return have[0] if len(have) == 1 else None

    def person_genders(self, people: Mapping[tuple[str, str], Person]) -> dict[tuple[str, str], str]:
        """Said by a title or kinship word, else the person's record, the lexicon, the history's
        given name, else drawn."""
        person_gender: dict[tuple[str, str], str] = {}
        for key, p in people.items():
            record = self.get(_k(self.ctx, "person", *key))
            person_gender[key] = (
                p.said_gender
                or (record.split("|", 1)[0] if record else None)
                or p.lexicon
                or self._history_gender(p.given)
                or self.rng.choice(GENDERS)
            )
        return person_gender

    def mention_genders(
        self, items: Sequence[Item], person_gender: Mapping[tuple[str, str], str]
    ) -> dict[int, str]:
        """id(item) -> gender: its person's, else said of its given name in the note, in the
        history, by the lexicon, else drawn."""
        said_of_given = _note_given_genders(items, person_gender)
        genders: dict[int, str] = {}
        drawn: dict[str, str] = {}  # a given name no list knows ("Kerry"): one gender in the note
        for it in items:
            pm: PersonMention = it.data
            m = pm.mention
            if pm.person is not None and pm.person in person_gender:
                genders[id(it)] = m.said_gender or person_gender[pm.person]
                continue
            said_here = said_of_given.get(m.givens[0], set()) if m.givens else set()
            genders[id(it)] = (
                m.said_gender
                or (next(iter(said_here)) if len(said_here) == 1 else None)
                or (self._history_gender(m.givens[0]) if m.givens else None)
                or _given_gender(m, self.lang)
                or self._drawn_gender(m, drawn)
            )
        return genders

    def _drawn_gender(self, m: identity.Mention, drawn: dict[str, str]) -> str:
        """A gender drawn for a mention nothing says the gender of; every mention of one given
        name in the note takes the first one's, lest "Kerry" and "Kerry" be two people."""
        if not m.givens:
            return self.rng.choice(GENDERS)
        if m.givens[0] not in drawn:
            drawn[m.givens[0]] = self.rng.choice(GENDERS)
        return drawn[m.givens[0]]

    # -- single names

    def draw_last(self, original: str) -> str:
        """A surname that is no given name too ("Manuel", "Carlos" are Spanish surnames; "Medina"
        reads as hers)."""
        for _ in range(32):
            v = names.draw_last(self.rng, self.lang, original, self.avoid | self.taken)
            if not identity.is_given(v) and fold(v) not in names.given_genders():
                break
        self.taken.add(fold(v))
        return v

    def draw_first(self, g: str, letter: str = "") -> str:
        """A given name of gender ``g``; starting with ``letter`` when the pool has one."""
        avoid = self.avoid | self.taken
        pool = [n for n in names.name_lists()[self.lang][g]
                if letter and fold(n).startswith(fold(letter)) and fold(n) not in avoid
                and " " not in n and identity.gender_of_given(n, self.lang) == g]  # fmt: skip
        if pool:
            v = self.rng.choice(pool)
        else:
            for _ in range(32):  # a name that reads as its gender ("Lupe" is in both Spanish lists)
                v = names.draw_first(self.rng, self.lang, g, self.avoid | self.taken,
                                     initials_not=self.title_letters)  # fmt: skip
                if " " not in v and identity.gender_of_given(v, self.lang) == g:
                    break
        self.taken.add(fold(v))
        return v

    def draw_given(self, g: str, surname: str | None, original: str) -> str:
        """A person's first given name; when the history wrote them as an initial ("J. Dupont"
        before "Jean Dupont"), that initial's surrogate name, or one with its letter if that
        name is of the other gender."""
        prior = self.get(_k(self.ctx, "initial", surname, original[:1])) if surname else None
        if (prior and " " not in prior and identity.gender_of_given(prior, self.lang) in (None, g)
                and fold(prior) not in self.avoid and fold(prior) not in self.reused):  # fmt: skip
            self.reused.add(fold(prior))  # "Jean" and "Jacques Dupont": one of them takes it
            return prior  # (already among ``taken``: its own entry was looked up)
        return self.draw_first(g, prior[:1] if prior else "")

    # -- the entries, in the order of the draws

    def names(self, items: Sequence[Item], genders: Mapping[int, str]) -> None:
        """Every surname and given name of the note that has no entry yet."""
        for it in items:
            m = it.data.mention
            for u in m.units:
                if u.role == "surname":
                    k = _k(self.ctx, "surname", u.value)
                    if self.get(k) is None:
                        self.out[k] = self.draw_last(u.value)
                elif u.role == "given":
                    k = _k(self.ctx, "given", genders[id(it)], u.value)
                    if self.get(k) is None:
                        first = u.value == next(iter(m.givens), "")
                        surname = m.surnames[0] if m.surnames and first else None
                        self.out[k] = self.draw_given(genders[id(it)], surname, u.value)

    def person_records(
        self, person_gender: Mapping[tuple[str, str], str], people: Mapping[tuple[str, str], Person]
    ) -> None:
        """Each full person's record (gender, given name, surname), its initial, and its given
        names as initials when it has several."""
        ctx, get = self.ctx, self.get
        for key, g in person_gender.items():
            s, f = key
            given = get(_k(ctx, "given", g, f))
            if given is None:
                given = self.out[_k(ctx, "given", g, f)] = self.draw_given(g, s, f)
            surname = get(_k(ctx, "surname", s))
            if surname is None:
                surname = self.out[_k(ctx, "surname", s)] = self.draw_last(s)
            if get(_k(ctx, "person", s, f)) is None:
                self.out[_k(ctx, "person", s, f)] = f"{g}|{given}|{surname}"
            if get(_k(ctx, "initial", s, f[:1])) is None:
                self.out[_k(ctx, "initial", s, f[:1])] = given
            p = people[key]
            if len(p.givens) > 1 and get(k := _initials_key(ctx, s, p.givens)) is None:
                self.out[k] = self._given_names(g, given, p.givens[1:])

    def _given_names(self, g: str, first: str, others: Sequence[str]) -> str:
        """The surrogates of a person's given names in order: the first's, then each other's
        entry (of either gender) or a new draw."""
        parts = [first]
        for x in others:
            v = self.get(_k(self.ctx, "given", g, x)) or next(
                (w for y in GENDERS if (w := self.get(_k(self.ctx, "given", y, x))) is not None), None)
            if v is None:
                v = self.out[_k(self.ctx, "given", g, x)] = self.draw_first(g)
            parts.append(v)
        return " ".join(parts)

    def initials_of_unnamed(self, items: Sequence[Item], genders: Mapping[int, str]) -> None:
        """Initials of people the note does not name in full: "J. Dupont", "J.-L. Martin", "J.D."."""
        for it in items:
            m = it.data.mention
            if m.given_initial and m.surnames and it.data.person is None:
                k = _k(self.ctx, "initial", m.surnames[0], m.given_initial)
                if self.get(k) is None:
                    self.out[k] = self.draw_first(genders[id(it)])
            if len(m.given_initials) > 1 and m.surnames:
                self._several_initials(it, genders[id(it)])
            if not m.givens and not m.surnames and m.units:
                k = _k(self.ctx, "initials", "".join(u.value for u in m.units))
                if self.get(k) is None:
                    letters = [c for c in "ABCDEFGHIJLMNPRSTV" if c not in self.title_letters]
                    self.out[k] = "".join(self.rng.choice(letters) for _ in m.units)

    def email_initials(self, owners: Mapping[tuple[str, str], str]) -> None:
        """The initial entry of each e-mail's owner ("cgras" after "sa fille Carmelita": C. Gras
        is Carmelita), when no one of the patient holds it yet: a later note's "cgras" or
        "C. Gras" renders her, wherever it stands."""
        for (letter, surname), given_key in owners.items():
            k = initial_keys(self.ctx, letter, surname)[0]
            if self.get(k) is None and (v := self.get(given_key)) is not None:
                self.out[k] = v

    def _several_initials(self, it: Item, g: str) -> None:
        """"J.-L. Martin": the first as "J. Martin" reads (or the person's given name); the others
        drawn (before the first, when it is drawn too)."""
        m, ctx = it.data.mention, self.ctx
        k = _initials_key(ctx, m.surnames[0], m.given_initials)
        if self.get(k) is not None:
            return
        head = self.get(_k(ctx, "initial", m.surnames[0], m.given_initial))
        if head is None and it.data.person is not None:
            rec = self.get(_k(ctx, "person", *it.data.person)) or ""
            head = rec.split("|")[1] if rec.count("|") == 2 else None
        rest = [self.draw_first(g) for _ in m.given_initials[1:]]
        self.out[k] = " ".join([head or self.draw_first(g), *rest])


def _first_givens(
    ctx: NoteContext, items: Sequence[Item], genders: Mapping[int, str]
) -> dict[str, tuple[str, frozenset[str]]]:
    """Each first given name of the note -> (its entry, the surnames the note gives its people),
    for an e-mail's initial ("sa fille Océane, opayet@...": the one given name with that letter)."""
    keys: dict[str, str] = {}
    surnames: dict[str, set[str]] = {}
    for it in items:
        m: identity.Mention = it.data.mention
        if m.givens:
            keys[m.givens[0]] = _k(ctx, "given", genders[id(it)], m.givens[0])
            named = m.surnames[:1] or ([it.data.person[0]] if it.data.person else [])
            surnames.setdefault(m.givens[0], set()).update(map(_mail_word, named))
    return {g: (k, frozenset(surnames[g])) for g, k in keys.items()}


def _mail_word(name: str) -> str:
    """A surname as an e-mail writes it: "Le Goff" -> "legoff"."""
    return re.sub(r"[^a-z]", "", fold(name))


# an e-mail address in the note, and what may stand between its owner's name and it ("sa fille
# Carmelita, cgras@...", "Kara (HOWE, KARA), khowe@...", "John Smith - e-mail: jsmith@...")
_EMAIL = re.compile(r"([^\W_][\w.+-]*)@[\w-]+(?:\.[\w-]+)+")
_OWNER_GAP = re.compile(
    r"[\s,;:()<\[\]\-–—]*(?:(?:e-?mail|courriel|mail|correo(?:\s+electr[oó]nico)?)\s*:?[\s<(]*)?", re.I
)


def _email_owners(
    ctx: NoteContext, items: Sequence[Item], genders: Mapping[int, str]
) -> dict[tuple[str, str], str]:
    """(initial, surname) an e-mail right after a person mention reads as ("cgras" -> c, gras)
    -> the given-name entry of the person that mention names: the address is theirs."""
    text = ctx.note.text
    ordered = sorted(items, key=lambda it: it.span.start)
    owners: dict[tuple[str, str], str] = {}
    n = 0
    for email in _EMAIL.finditer(text):
        while n < len(ordered) and ordered[n].span.end <= email.start():
            n += 1
        if not n or not _OWNER_GAP.fullmatch(text[ordered[n - 1].span.end : email.start()]):
            continue
        it = ordered[n - 1]
        m: identity.Mention = it.data.mention
        given = m.givens[0] if m.givens else (it.data.person[1] if it.data.person else "")
        key = _k(ctx, "given", genders[id(it)], given)
        for letter, surname in _initial_and_surname(email.group(1)):
            if given and fold(letter) == given[:1]:
                owners[(fold(letter), fold(surname))] = key
    return owners


def _initial_and_surname(local: str) -> list[tuple[str, str]]:
    """The (initial, surname) readings of an e-mail's local part, as the e-mail operator reads it
    (``deid.substitution.simple``): an initial glued to a word ("cgras") or apart ("c.gras")."""
    pieces = re.findall(r"[^\W\d_]+", local)
    words = [p for p in pieces if len(p) > 1]
    glued = [(w[0], w[1:]) for w in words if len(w) > 2]
    return glued + [(c, w) for c in pieces if len(c) == 1 for w in words]


def _note_given_genders(
    items: Sequence[Item], person_gender: Mapping[tuple[str, str], str]
) -> dict[str, set[str]]:
    """The genders the note says of each first given name, anywhere ("husband [Will]", then
    "goes by [Will]")."""
    note_given: dict[str, set[str]] = {}
    for it in items:
        m = it.data.mention
        g_said = (m.said_gender or person_gender.get(it.data.person)) if it.data.person else m.said_gender
        for v in m.givens[:1]:
            if g_said:
                note_given.setdefault(v, set()).add(g_said)
    return note_given
