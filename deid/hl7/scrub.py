"""The de-identified HL7 message: default-deny over segments, fields and components.

Only the segments of ``POLICIES`` survive (Z-segments, NTE, PV2... are dropped). In a surviving
segment every field not listed is blanked. A listed field is either a code kept as is (sex,
message type, result status...) or a person-bearing type (name, identifier, address, phone, date)
rebuilt from its surrogates: every repetition, and only the components that carry a surrogate or
a code from a closed HL7 table come back. A prototype that scrubbed the first PID-3 repetition
leaked the SSN in the second (PLATFORM.md): nothing here looks at "the first" of anything.

Surrogates come from ``surrogate_for(label, original)``, which the worker backs with the same
per-patient memo as the note text, so that PID-5 and the name in the text agree: a person name
(XPN, XCN) is asked for whole as "FAMILY, Given Middle", so its parts come from one identity;
an address's street, town, state and postcode are asked for one after the other, so they form
one address group of the companion note and are rendered from one table row. Dates are asked
for in ISO form (``2024-03-15``) and the answer is written back as an HL7 date when it parses as
one, blank otherwise (a placeholder cannot go into a date field); times of day are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date

from deid.hl7.escape import escape
from deid.hl7.message import Hl7Message
from deid.hl7.note import ts_date
from deid.labels import Label

SurrogateFor = Callable[[Label, str], str]


@dataclass(frozen=True, slots=True)
class Kind:
    """How one field is rewritten: ``keep`` (a code), or a data type with the label of its value."""

    type: str  # keep | xpn | xcn | cx | ei | xad | xtn | ts | st | dln
    label: Label | None = None


KEEP = Kind("keep")


def _k(t: str, label: Label | None = None) -> Kind:
    return Kind(t, label)


_XTN = _k("xtn")
_XAD = _k("xad")
_STAFF = _k("xcn", Label.STAFF)
_DATE = _k("ts", Label.DATE)
_ID = _k("ei", Label.ID)

POLICIES: dict[str, dict[int, Kind]] = {
    # MSH-3..6 (applications, facilities) are blanked unless keep_routing; MSH-18 is rewritten.
    "MSH": {7: _DATE, 9: KEEP, 10: KEEP, 11: KEEP, 12: KEEP, 15: KEEP, 16: KEEP, 17: KEEP, 19: KEEP,
            21: KEEP},
    "EVN": {1: KEEP, 2: _DATE, 4: KEEP, 5: _STAFF, 6: _DATE},
    "PID": {1: KEEP, 2: _k("cx", Label.ID_PATIENT), 3: _k("cx"), 4: _k("cx", Label.ID_PATIENT),
            5: _k("xpn", Label.PATIENT), 6: _k("xpn", Label.RELATIVE), 7: _k("ts", Label.BIRTH_DATE),
            8: KEEP, 9: _k("xpn", Label.PATIENT), 11: _XAD, 13: _XTN, 14: _XTN,
            18: _k("cx", Label.ID), 19: _k("st", Label.ID_SSN), 20: _k("dln", Label.ID_NATIONAL),
            21: _k("cx", Label.ID), 23: _k("st", Label.LOCATION), 29: _DATE, 30: KEEP, 33: _DATE,
            40: _XTN},
    "PD1": {4: _STAFF},
    "NK1": {1: KEEP, 2: _k("xpn", Label.RELATIVE), 3: KEEP, 4: _XAD, 5: _XTN, 6: _XTN, 7: KEEP,
            8: _DATE, 9: _DATE, 30: _k("xpn", Label.RELATIVE), 31: _XTN, 32: _XAD,
            33: _k("cx", Label.ID), 37: _k("st", Label.ID_SSN), 40: _XTN, 41: _XTN},
    "PV1": {1: KEEP, 2: KEEP, 4: KEEP, 5: _k("cx", Label.ID_VISIT), 7: _STAFF, 8: _STAFF, 9: _STAFF,
            10: KEEP, 17: _STAFF, 18: KEEP, 19: _k("cx", Label.ID_VISIT), 44: _DATE, 45: _DATE,
            50: _k("cx", Label.ID_VISIT), 52: _STAFF},
    "ORC": {1: KEEP, 2: _ID, 3: _ID, 4: _ID, 5: KEEP, 9: _DATE, 10: _STAFF, 11: _STAFF, 12: _STAFF,
            14: _XTN, 15: _DATE, 19: _STAFF},
    "OBR": {1: KEEP, 2: _ID, 3: _ID, 4: KEEP, 7: _DATE, 8: _DATE, 10: _STAFF, 14: _DATE,
            16: _STAFF, 17: _XTN, 22: _DATE, 24: KEEP, 25: KEEP, 28: _STAFF},
    "TXA": {1: KEEP, 2: KEEP, 3: KEEP, 4: _DATE, 5: _STAFF, 6: _DATE, 7: _DATE, 8: _DATE, 9: _STAFF,
            10: _STAFF, 11: _STAFF, 12: _ID, 13: _ID, 14: _ID, 15: _ID, 17: KEEP, 18: KEEP, 19: KEEP,
            20: KEEP, 22: _STAFF, 23: _STAFF},
    # OBX-5 is handled apart (the de-identified text, or a kept number)
    "OBX": {1: KEEP, 2: KEEP, 3: KEEP, 4: KEEP, 6: KEEP, 7: KEEP, 8: KEEP, 11: KEEP, 14: _DATE,
            16: _STAFF},
}
_ROUTING = (3, 4, 5, 6)
_NUMERIC_OBX = frozenset({"NM", "SN", "NR"})

# Closed HL7 tables whose codes may come back inside a rebuilt composite (anything else: blank).
_ID_TYPES = frozenset({"PI", "PT", "MR", "PN", "AN", "VN", "SS", "NH", "NI", "NNFRA", "INS", "INS-C",
                       "INS-NIR", "INS-NIA", "DL", "PPN", "BC", "JHN", "HC", "EI", "PRN", "RRI", "RPPS",
                       "ADELI", "NPI", "U", "XX"})
_SSN_TYPES = frozenset({"SS", "NH", "NI", "NNFRA", "INS", "INS-C", "INS-NIR", "INS-NIA", "JHN", "HC"})
_NATIONAL_TYPES = frozenset({"DL", "PPN", "BC"})
_VISIT_TYPES = frozenset({"AN", "VN"})
_STAFF_TYPES = frozenset({"RPPS", "ADELI", "NPI", "EI", "PRN"})
_NAME_TYPES = frozenset({"A", "B", "BAD", "C", "D", "I", "L", "M", "N", "P", "R", "S", "T", "U"})
_ADDRESS_TYPES = frozenset({"B", "BA", "BDL", "BR", "C", "F", "H", "L", "M", "N", "O", "P", "RH"})
_TEL_USE = frozenset({"ASN", "BPN", "EMR", "NET", "ORN", "PRN", "PRS", "VHN", "WPN"})
_TEL_EQUIP = frozenset({"BP", "CP", "FX", "INTERNET", "MD", "PH", "SAT", "TDD", "TTY", "X.400"})
_DATE_OUT = (
    re.compile(r"^(\d{4})-(\d{2})-(\d{2})"),
    re.compile(r"^(\d{4})(\d{2})(\d{2})"),
    re.compile(r"^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$"),
)
_YEAR = re.compile(r"^(\d{4})$")


def deidentify_message(
    msg: Hl7Message,
    deid_text: str,
    surrogate_for: SurrogateFor,
    *,
    text_obx: tuple[int, ...] = (),
    keep_routing: bool = False,
) -> str:
    """The de-identified message as ER7 text (CR-separated segments, UTF-8 declared in MSH-18).

    ``text_obx`` are the indexes of the OBX segments the note text came from
    (``ParsedHl7.text_obx``): the first carries ``deid_text`` as FT, the others are dropped. With
    none given, every OBX of type TX/FT/ST/ED counts as text.
    """
    seps = msg.separators
    if not text_obx:
        text_obx = tuple(i for i, s in enumerate(msg.segments)
                         if s[0] == "OBX" and msg.get(s, 2).upper() in {"TX", "FT", "ST", "ED", ""})
    scrub = _Scrubber(msg, surrogate_for)
    out: list[str] = []
    obx_n = 0
    for idx, seg in enumerate(msg.segments):
        sid = seg[0]
        policy = POLICIES.get(sid)
        if policy is None:
            continue  # default deny: Z-segments, NTE, PV2, IN1, AL1, DG1...
        if sid == "OBX" and idx in text_obx[1:]:
            continue
        fields = [sid] + [""] * (len(seg) - 1)
        for n in range(1, len(seg)):
            kind = policy.get(n)
            if sid == "MSH" and n in _ROUTING and keep_routing:
                kind = KEEP
            if kind is not None:
                fields[n] = scrub.field(seg[n], kind)
        if sid == "MSH":
            fields = fields + [""] * max(0, 19 - len(fields))
            fields[1], fields[2] = seps.field, seps.encoding_characters
            fields[18] = "UNICODE UTF-8"
            out.append(sid + seps.field + seps.field.join(fields[2:]).rstrip(seps.field))
            continue
        if sid == "OBX":
            obx_n += 1
            fields = fields + [""] * max(0, 6 - len(fields))
            fields[1] = str(obx_n)
            if idx in text_obx[:1]:
                fields[2] = "FT"
                fields[5] = escape(deid_text, seps)
            elif msg.get(seg, 2).upper() in _NUMERIC_OBX:
                fields[5] = seg[5] if len(seg) > 5 else ""  # a truncated segment has no value
        out.append(seps.field.join(fields).rstrip(seps.field))
    return "\r".join(out) + "\r"


def identity_values(msg: Hl7Message, *, text_obx: tuple[int, ...] = (),
                    keep_routing: bool = False) -> list[tuple[Label, str]]:
    """Every (label, original value) ``deidentify_message`` will ask a surrogate for, in order,
    without duplicates: the worker resolves them in one store round trip, then passes a lookup."""
    seen: dict[tuple[Label, str], None] = {}

    def record(label: Label, value: str) -> str:
        seen[(label, value)] = None
        return ""

    deidentify_message(msg, "", record, text_obx=text_obx, keep_routing=keep_routing)
    return list(seen)


def mapping_lookup(surrogates: Mapping[tuple[Label, str], str]) -> SurrogateFor:
    """A ``surrogate_for`` over resolved surrogates; a value left unresolved gets its category
    placeholder, never the original."""

    def lookup(label: Label, value: str) -> str:
        found = surrogates.get((label, value))
        return found if found is not None else f"[{label.category.value}]"

    return lookup


class _Scrubber:
    def __init__(self, msg: Hl7Message, surrogate_for: SurrogateFor) -> None:
        self.msg = msg
        self.surrogate_for = surrogate_for
        self.seps = msg.separators

    def field(self, raw: str, kind: Kind) -> str:
        if kind.type == "keep" or not raw:
            return raw
        rebuild = getattr(self, f"_{kind.type}")
        reps = [rebuild(self.msg.components(rep), kind.label) for rep in self.msg.repetitions(raw)]
        reps = [r.rstrip(self.seps.component) for r in reps]
        return self.seps.repetition.join(reps).rstrip(self.seps.repetition)

    # -- helpers ---------------------------------------------------------------------------
    def _val(self, comps: list[str], n: int) -> str:
        """Unescaped component n (1-based), sub-components joined by a space."""
        if n > len(comps):
            return ""
        subs = (self.msg.value(s).strip() for s in self.msg.subcomponents(comps[n - 1]))
        return " ".join(s for s in subs if s)

    def _sur(self, label: Label, value: str) -> str:
        if not value:
            return ""
        return escape(self.surrogate_for(label, value), self.seps)

    def _code(self, comps: list[str], n: int, allowed: frozenset[str]) -> str:
        value = self._val(comps, n).upper()
        return value if value in allowed else ""

    def _join(self, comps: list[str]) -> str:
        return self.seps.component.join(comps)

    # -- data types --------------------------------------------------------------------------
    def _name(self, lab: Label, family: str, given: str, middle: str) -> list[str]:
        """Family, given and middle names from one identity: asked for as one "FAMILY, Given
        Middle" mention (the comma says which words are the surname, as in a note's "Nom,
        Prénom"), so the surrogate of each part is the one the note's text gets for that person;
        the answer is cut back into its parts by the same comma and word counts."""
        if not (family or given or middle):
            return ["", "", ""]
        forenames = " ".join(v for v in (given, middle) if v)
        if family and forenames:
            whole = f"{family}, {forenames}"
        else:
            whole = f"{family}," if family else f", {forenames}"
        got = self.surrogate_for(lab, whole)
        if got.startswith("[") or "," not in got:  # a placeholder: every part gets it
            return [escape(got, self.seps) if v else "" for v in (family, given, middle)]
        fam, _, rest = got.partition(",")
        words = rest.split()
        n_given = len(given.split())
        parts = [fam.strip(), " ".join(words[:n_given]), " ".join(words[n_given:])]
        originals = (family, given, middle)
        return [escape(p, self.seps) if v else "" for p, v in zip(parts, originals, strict=True)]

    def _xpn(self, comps: list[str], label: Label | None) -> str:
        lab = label or Label.PERSON
        return self._join([*self._name(lab, self._val(comps, 1), self._val(comps, 2), self._val(comps, 3)),
                           "", "", "", self._code(comps, 7, _NAME_TYPES)])

    def _xcn(self, comps: list[str], label: Label | None) -> str:
        lab = label or Label.STAFF
        return self._join([self._sur(Label.ID_STAFF, self._val(comps, 1)),
                           *self._name(lab, self._val(comps, 2), self._val(comps, 3), self._val(comps, 4))])

    def _cx(self, comps: list[str], label: Label | None) -> str:
        id_type = self._code(comps, 5, _ID_TYPES)
        lab = label or _label_of_id_type(id_type)
        return self._join([self._sur(lab, self._val(comps, 1)), "", "", "", id_type])

    def _ei(self, comps: list[str], label: Label | None) -> str:
        return self._sur(label or Label.ID, self._val(comps, 1))

    def _st(self, comps: list[str], label: Label | None) -> str:
        whole = " ".join(v for v in (self._val(comps, i) for i in range(1, len(comps) + 1)) if v)
        return self._sur(label or Label.OTHER, whole)

    def _dln(self, comps: list[str], label: Label | None) -> str:
        return self._sur(label or Label.ID_NATIONAL, self._val(comps, 1))

    def _xad(self, comps: list[str], label: Label | None) -> str:
        return self._join([
            self._sur(Label.STREET, self._val(comps, 1)),
            self._sur(Label.STREET, self._val(comps, 2)),
            self._sur(Label.CITY, self._val(comps, 3)),
            self._sur(Label.LOCATION, self._val(comps, 4)),
            self._sur(Label.POSTCODE, self._val(comps, 5)),
            "",  # country: a surrogate country is noise, the original a quasi-identifier: blank
            self._code(comps, 7, _ADDRESS_TYPES),
            self._sur(Label.LOCATION, self._val(comps, 8)),
            self._sur(Label.LOCATION, self._val(comps, 9)),
        ])

    def _xtn(self, comps: list[str], label: Label | None) -> str:
        equip = self._code(comps, 3, _TEL_EQUIP)
        number = self._val(comps, 1)
        if not number:  # v2.5 structured form: country, area, local number, extension
            number = " ".join(v for v in (self._val(comps, i) for i in (5, 6, 7, 8)) if v)
        lab = Label.FAX if equip == "FX" else Label.PHONE
        if equip == "INTERNET" and "@" in number:
            lab = Label.EMAIL
        return self._join([self._sur(lab, number), self._code(comps, 2, _TEL_USE), equip,
                           self._sur(Label.EMAIL, self._val(comps, 4))])

    def _ts(self, comps: list[str], label: Label | None) -> str:
        original = ts_date(self._val(comps, 1))
        if original is None:
            return ""  # not a date we can surrogate: default deny
        surrogate = self.surrogate_for(label or Label.DATE, original.isoformat())
        return _hl7_date(surrogate)


def _label_of_id_type(id_type: str) -> Label:
    if id_type in _SSN_TYPES:
        return Label.ID_SSN
    if id_type in _NATIONAL_TYPES:
        return Label.ID_NATIONAL
    if id_type in _VISIT_TYPES:
        return Label.ID_VISIT
    if id_type in _STAFF_TYPES:
        return Label.ID_STAFF
    return Label.ID_PATIENT


def _hl7_date(surrogate: str) -> str:
    text = surrogate.strip()
    for i, pattern in enumerate(_DATE_OUT):
        m = pattern.match(text)
        if m:
            y, mo, d = (m.group(1), m.group(2), m.group(3)) if i < 2 else (m.group(3), m.group(2),
                                                                           m.group(1))
            try:
                return date(int(y), int(mo), int(d)).strftime("%Y%m%d")
            except ValueError:
                return ""
    m = _YEAR.match(text)  # a year-only surrogate (Safe Harbor profile): year precision is valid TS
    return m.group(1) if m else ""
