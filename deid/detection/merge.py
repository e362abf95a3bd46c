"""Recall-first merge of detections (PRIVACY.md, after Tchouka et al. 2022).

Decision for spans of the rules and of the model that overlap:
- same label -> keep it;
- only one side flagged the characters (the other said O) -> keep that side;
- different labels -> the contextual model wins when the rules' label is of a contextual
  category (PER, LOC, ORG: names and places need context), the rules win for structured types
  (dates, ages, phones, references, identifiers: a checked pattern beats a guess).

Overlapping spans become one span over the union of their characters: a missed PHI character is a
privacy failure, a few extra characters only cost utility. Touching spans stay separate.

One exception keeps boundaries exact without losing a character: when the rules win a cluster
with a structured type against another label of the model, the rules' spans keep their own
extent and label, and whatever the model flagged beyond them stays flagged under the model's
label ("Denis GERARD Gilb85@aphm.fr" tagged
PERSON by the model and EMAIL by the rules becomes PERSON "Denis GERARD" + EMAIL
"Gilb85@aphm.fr", not one EMAIL span). The same holds for the labels whose syntax fixes their
extent (e-mail, URL, IP, street address, postcode) against a model span that reaches beyond
them, whatever its label: "Georgette Noirot 31, RUE GÉRARD GOMEZ" read as one PERSON by the model
and "31, RUE GÉRARD GOMEZ" by the street rule becomes PERSON + STREET. A model span with exactly
the rules' extent keeps its own label there (a postcode that MEDDOCAN calls a place).
Within the DATE category the model's BIRTH_DATE refines
the rules' DATE: the label needs the context the model reads; within persons, a role the rules
read from a title, a field or a kinship word (STAFF after "Dr", RELATIVE after "daughter")
refines the model's role-less PERSON. A model DATE over a list of dates
that the rules each found complete ("28 janvier et 10 février 1997") is the rules' dates: ECHR
splits such lists, and joins them only where one side is no date alone ("les 16 et 17 avril").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from deid.detection.convention import conform_span
from deid.labels import CONTEXTUAL_CATEGORIES, Category, Label
from deid.spans import Span, clusters, longest, resolve

# Labels whose extent the pattern fixes exactly (an e-mail address, a URL, an IP address, a
# numbered street, a postcode).
_SELF_DELIMITED = frozenset({Label.EMAIL, Label.URL, Label.IP, Label.STREET, Label.POSTCODE})


# Person labels that say the person's role; PERSON says none.
_ROLES = frozenset({Label.PATIENT, Label.STAFF, Label.RELATIVE})


def _rules_win(rule: Span) -> bool:
    return rule.label.category not in CONTEXTUAL_CATEGORIES


# Under this probability the model's label is a guess: the threshold it flags at is 0.1.
_GUESS_BELOW = 0.5


# Rules whose person is proven by the words around it: the note says someone goes by the name, or
# names a relative beside the kinship word. A name-table rule is no such proof: a hospital, a street
# or a town named after a person ("Complejo Hospitalario San Borja Arriarán", "Benito Juárez") is
# that place, whatever the model's score (MEDDOCAN dev lost 0.1 point of strict F1 when any rule's
# person won).
_CUED_PERSON_SOURCES = frozenset({"rules.nickname", "rules.kin_name"})


def _cue_beats_guess(rule: Span, model: Span) -> bool:
    """A person the rules read from a cue over another kind of name the model only guessed over
    the same words: 'Goes by "PJ"' read HOSPITAL at 0.14 left "PJ" out of the name echoes, and its
    later uses ("PJ using it") in the output."""
    return (rule.source in _CUED_PERSON_SOURCES and rule.label.category is Category.PER
            and model.label.category is not Category.PER and model.score < _GUESS_BELOW
            and rule.start <= model.start and model.end <= rule.end)


# What may stand between dates of a list: "28 janvier et 10 février 1997", "3, 5 y 7 de mayo".
_DATE_LIST_GLUE = re.compile(r"(?:\s|,|;|&|et|and|y|les|des|los|the)*", re.IGNORECASE)


def _listed_dates(from_rules: Sequence[Span], from_model: Sequence[Span], text: str | None) -> bool:
    """The model read a list of dates as one, and the rules found each of them complete (with a
    number: "febrero y abril de 2002" is one date in MEDDOCAN, "mars, avril et juin 1989" in ECHR)."""
    if text is None or len(from_rules) < 2:
        return False
    if any(s.label is not Label.DATE for s in (*from_rules, *from_model)):
        return False
    if not all(any(c.isdigit() for c in text[s.start : s.end]) for s in from_rules):
        return False
    gaps = [part for m in from_model for part in _split_around(m, from_rules)]
    return all(_DATE_LIST_GLUE.fullmatch(text, g.start, g.end) for g in gaps)


def _delimits(from_rules: Sequence[Span], from_model: Sequence[Span]) -> bool:
    """A rule span whose syntax fixes its extent, and a model span not contained in any rule span."""
    return any(r.label in _SELF_DELIMITED for r in from_rules) and any(
        not any(r.start <= m.start and m.end <= r.end for r in from_rules) for m in from_model
    )


def _place_label_within(rule: Span, from_model: Sequence[Span]) -> Span:
    """A rule's street or postcode takes the place label the model gave inside it, if any (MEDDOCAN
    calls a postcode a place: "E-41013" read as "E-" + LOCATION "41013")."""
    if rule.label.category not in CONTEXTUAL_CATEGORIES:
        return rule
    inner = [m for m in from_model if rule.start <= m.start and m.end <= rule.end
             and m.label.category is rule.label.category]  # fmt: skip
    if not inner:
        return rule
    return Span(rule.start, rule.end, longest(inner).label, rule.source, rule.score)


# Labels whose rule-found extent can leave a model's words in front of it on the same line.
_LETTERHEAD = frozenset({Label.STREET, Label.EMAIL})
# One or two words alone at the start of a line, right before a name: the rest of that name.
_LINE_START_WORDS = re.compile(r"[ \t]*(?P<words>(?:[^\W\d_][\w'’-]* ){1,2})")


def _name_before(part: Span, model: Span, kept: Sequence[Span], text: str | None) -> Span:
    """Words the model read into a street or an e-mail, cut off in front of the rules' one on the
    same line, are a name ("SENECAILLE MARC 87, Rue Amélie Gomes", "Alihan PEROTIN perotin@labo.fr"):
    in eds-pseudo gen_dataset_train, 22 of the 25 PHI word runs just before a street or an e-mail on
    its line are persons."""
    if text is None or model.label not in _LETTERHEAD:
        return part
    if any(c.isdigit() or c == "@" for c in text[part.start : part.end]):
        return part
    after = [k for k in kept if k.label is model.label and k.start >= part.end]
    if not after or "\n" in text[part.end : min(k.start for k in after)]:
        return part
    start = part.start
    line = text.rfind("\n", 0, start) + 1
    if start == model.start and (lead := _LINE_START_WORDS.fullmatch(text, line, start)) is not None:
        start = lead.start("words")  # "stacey ESTEVE Avenue ...": the model left out a first name
    name = Span(start, part.end, Label.PERSON, part.source, part.score)
    return next(iter(conform_span(name, text)), name)  # "Madame stacey ESTEVE": not the title


def _split_around(model: Span, cover: Sequence[Span]) -> list[Span]:
    """The parts of ``model`` outside the ``cover`` spans."""
    parts: list[tuple[int, int]] = []
    pos = model.start
    for c in sorted(cover, key=lambda c: c.start):
        if c.start > pos:
            parts.append((pos, min(c.start, model.end)))
        pos = max(pos, c.end)
    if pos < model.end:
        parts.append((pos, model.end))
    return [Span(a, b, model.label, model.source, model.score) for a, b in parts if b > a]


def merge(rule_spans: Iterable[Span], model_spans: Iterable[Span], text: str | None = None) -> list[Span]:
    """Merge the rules' and the model's spans of one text (see the module docstring).

    ``text`` (optional) lets the split case drop edge whitespace and punctuation-only remainders.
    """
    rules = list(rule_spans)
    models = list(model_spans)
    rule_ids = {id(s) for s in rules}
    out: list[Span] = []
    for group in clusters([*rules, *models]):
        from_rules = [s for s in group if id(s) in rule_ids]
        from_model = [s for s in group if id(s) not in rule_ids]
        if not from_rules or not from_model:
            out.extend(resolve(group))
            continue
        rule, model = longest(from_rules), longest(from_model)
        if _listed_dates(from_rules, from_model, text):
            out.extend(resolve(from_rules))
            continue
        if rule.label == model.label and rule.label not in _SELF_DELIMITED:
            winner = model if model.length > rule.length else rule
        elif (rule.label, model.label) == (Label.DATE, Label.BIRTH_DATE):
            winner = Span(rule.start, rule.end, Label.BIRTH_DATE, rule.source, rule.score)
        elif model.label is Label.PERSON and rule.label in _ROLES:
            # the rules' role refines the model's role-less person ("Dr. K. Lee" read as PERSON)
            winner = Span(model.start, model.end, rule.label, model.source, model.score)
        elif rule.label == model.label or _rules_win(rule) or _delimits(from_rules, from_model):
            # the rules' extent stands (an address's syntax fixes it, or a checked pattern won);
            # whatever else the model flagged stays flagged beside it
            kept = [_place_label_within(k, from_model) for k in resolve(from_rules)]
            rest = [_name_before(part, m, kept, text) for m in from_model for part in _split_around(m, kept)]
            out.extend(kept)
            out.extend(resolve(_trim(rest, text)))
            continue
        elif _cue_beats_guess(rule, model):
            winner = rule
        else:
            winner = model
        start, end = min(s.start for s in group), max(s.end for s in group)
        out.append(Span(start, end, winner.label, winner.source, max(s.score for s in group)))
    return sorted(out, key=lambda s: (s.start, s.end))


def _trim(spans: Iterable[Span], text: str | None) -> list[Span]:
    if text is None:
        return list(spans)
    out = []
    for s in spans:
        a, b = s.start, s.end
        while a < b and not text[a].isalnum():
            a += 1
        while b > a and not text[b - 1].isalnum():
            b -= 1
        if b > a:
            out.append(Span(a, b, s.label, s.source, s.score))
    return out
