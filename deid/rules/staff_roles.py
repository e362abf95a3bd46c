"""Staff named by a role and their given name: "Sitter (Keisha)", "SALT (Eleri)", "TVN (Angela)",
"Maripili (TCAE)", "Conchi (supervisora)", "IDE Élodie / AS Gwenola", "AS : Nolwenn".

Ward notes name the people at work by their given name alone, often one the name tables do not
hold (Breton, Welsh, Spanish pet forms). The role is the cue, in one of three shapes that hold in
every team's writing: the role then the name in brackets; the name then the role in brackets; and
in the French and Spanish nursing team line, the role then the name closing an entry of the line
("IDE Katell / AS Soizic et Dylan"), where a line, a slash, a comma, "et"/"y" or a dash follows;
and an entry signed on a line of its own by the name, the role and the shift ("Soizic IDE nuit",
"Rubén enfermero noche").
Role acronyms are read in capitals only ("pt (Vietnamese)" is the patient), role words in any case.
The name is one capitalised word in small letters after its capital: a bracketed acronym is
initials, read by ``deid.rules.initials``.

Staff also sign an entry with their initials alone on its last line ("MRC", "JTP" closing each
shift of a Spanish nursing sheet): two to four capitals between a line of text and a blank line.
"""

from __future__ import annotations

import re
from typing import ClassVar

from deid.labels import Label
from deid.rules.base import Patterns, RegexRecognizer
from deid.rules.hospital_acronyms import CLINICAL
from deid.rules.registry import register

_ROLE = (r"(?:SALT|SLT|TVN|OT|PT|SW|IDE|AS|ASH|AES|AMP|TCAE|RN|HCA|CNA|NP|PA|RT|RRT|SHO|FY[12]|ST[1-8]|"
         r"(?:[A-Z]{2,4}[ \t]+)?(?i:consultant)|"
         r"(?i:sitter|physio(?:therapist)?|social[ \t]+worker|auxiliar|enfermer[oa]|supervisora?|cadre|nurse|"
         r"pharm(?:acist)?|dietitian|chaplain|interpreter|int[ée]rprete|interpr[èe]te|midwife|sage-femme|kin[ée]|"
         r"fisio(?:terapeuta)?|registrar|charge(?:[ \t]+nurse)?))")  # fmt: skip
_NAME = r"[A-ZÀ-Þ][a-zß-ÿ][a-zß-ÿ'’\-]{1,20}"
_TEAM_ROLE = r"(?:IDE|AS|ASH|AES|AMP|TCAE)"
_TEAM_ENTRY = r"[ \t]*+:?[ \t]*+(?P<phi>" + _NAME + r")(?=[ \t]*(?:/|,|$|[ \t]-[ \t]|[ \t]"

# An entry of the nursing team's sheet signed on a line of its own by a given name, the role and the
# shift ("Soizic IDE nuit", "Maripili TCAE tarde"); not a heading of the sheet ("Transmissions IDE nuit")
# The role may be written as a word ("Rubén enfermero noche", "Lucía - matrona - tarde"), in any case.
_SIGNING_ROLE = (rf"(?:{_TEAM_ROLE}|(?i:enfermer[oa]|auxiliar|celador[a]?|fisio|matrona|infirmi[eè]re?|"
                 rf"aide-soignante?|auxiliaire|kin[ée]|sage-femme))")
_SIGNED_ENTRY = re.compile(
    rf"^[ \t]*+(?!(?i:transmissions?|[ée]quipe|rel[èe]ve|poste|garde|planning|turno|equipo|enfermer[ií]a|"
    rf"cuidados|notes?|observations?|soins)\b)(?P<phi>{_NAME})[ \t]+(?:[-–][ \t]+)?{_SIGNING_ROLE}"
    rf"[ \t]+(?:[-–][ \t]+)?(?i:nuit|jour|matin|soir|apr[èe]s-midi|noche|ma[ñn]ana|tarde)[ \t]*+$",
    re.MULTILINE)


@register("staff_by_role", priority=64)
class StaffByRoleRecognizer(RegexRecognizer):
    name = "staff_by_role"
    label = Label.STAFF
    patterns: ClassVar[Patterns] = {
        "*": (
            re.compile(rf"(?<![\w/])(?:{_ROLE})[ \t]*\((?P<phi>{_NAME})\)"),
            re.compile(rf"(?<![\w'’-])(?P<phi>{_NAME})[ \t]*\((?:{_ROLE})\)"),
        ),
        "fr": (re.compile(rf"\b{_TEAM_ROLE}{_TEAM_ENTRY}et[ \t]))", re.MULTILINE), _SIGNED_ENTRY),
        "es": (re.compile(rf"\b{_TEAM_ROLE}{_TEAM_ENTRY}y[ \t]))", re.MULTILINE), _SIGNED_ENTRY),
    }


# Allergy statements written as a line of their own, the clinical look-alikes of a signature.
_NOT_INITIALS = CLINICAL | frozenset({"NKDA", "NKA", "NKFA", "NAD", "NBM", "NPO", "DNR", "DNAR", "TTO"})
# A nurse's or doctor's initials closing an entry: two to four capitals alone on the entry's last
# line, after a line of text and before a blank line or the end ("...se queda por la mañana.\nMRC\n\n
# 22/05 TARDE"). A heading in capitals ("PLAN", "LABS", "BABY") is followed by its content instead.
_SIGN_OFF = re.compile(r"(?<=[^\n]\n)(?P<phi>[A-ZÁÉÍÓÚÑ]{2,4})[ \t]*+(?=\n[ \t]*+\n|\Z)")


@register("sign_off_initials", priority=46)
class SignOffInitialsRecognizer(RegexRecognizer):
    name = "sign_off_initials"
    label = Label.STAFF
    patterns: ClassVar[Patterns] = {"*": (_SIGN_OFF,)}

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        return None if match.group("phi") in _NOT_INITIALS else self.label
