"""Numbers the text proves are scores or measurements, never dates (issue 29).

The model reads any "a/b" as a date: a pain score "7/10", a strength "4/5", blood pressure "13/8",
a ventilator setting "10/5", an MMSE "23/30", a British "off work 2/52". A date moved or masked
there makes the note clinically false. A model date (or a score's name read as a person, "EVA")
is dropped only when its context proves a measurement:

- **no date holds its numbers**: two numbers with no year that are no day and month in either
  order ("23/30", "102/61", "3/52");
- **a score's or a measurement's name** just before it on its line ("EVA 4/10", "TA 13/8",
  "Strength 4/5", "PEEP 10/5", "Schober 15/10", "GCS 14/15"), words of the same kind between
  ("pain 7/10 this am" is read up to the score's name, not across a sentence);
- **the same scale again**: a mark out of the maximum of a proven score earlier on the same line
  ("pain 7/10 this am, 3/10 after dilaudid");
- **a fraction of a dose**: "3/4 de la dose", "1/2 tab", a smoker's "1/2 ppd", a meal's "3/4 du
  mixé";
- **a pain score's or a murmur's words after it**: "9/10 on arrival", "2/10 at rest",
  "2/6 SEM";
- **British duration notation** ("2/52" weeks, "6/12" months, "3/7" days) after "for", "in",
  "within", "over", "x" or before "ago", in English notes.

Issue 29 (the audit's "clinical numbers changed", realistic train split) added: marks no day can
be (a decimal "ADL 3,5/6", "BASDAI 4.6/10", a grade "4-/5", a rate "2/j", a blood gas, weeks of a
pregnancy "24-28/40", "0.04"); a visual acuity before "eye" or after another one a name proves;
a mark after a proven one and an arrow ("BiPAP 14/6 -> 18/8"); pain named earlier in the
sentence or its quality after ("now 8/10", "7/10, worse w/ sitting"); the number of a score's
name the model cut ("PHQ-|9 14"); a score and its value read as a place ("Glasgow 15"). A word
of a date right before a mark ("seen on 3/15") outweighs every proof by another mark.

A date with a year, or any span the rules made, is never touched: the rules carry their own score
check (``deid.rules.dates.is_score``). A mark whose maximum is no known scale stays a date.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from deid.detection.plausibility import widen_number
from deid.labels import Category
from deid.spans import Span

# Names of scores and measurements written before their value, in French, Spanish and English.
_NAMES = (
    r"EVA|EN|ENS|EVN|EVS|ECPA|pain(?:\s+score)?|douleur|dolor|GCS|glasgow|MMSE|MoCA|folstein|"
    r"force|fuerza|strength|power|motor|MRC|schober|TA|PA|BP|SBP|DBP|tension|pression|"
    r"PEEP|PS|CPAP|BiPAP|IPAP|EPAP|vent(?:ilator)?|settings|A/?C|SIMV|PSV|AI|VS-?AI|"
    r"acuity|AV|VA|apgar|barthel|tinetti|rankin|NIHSS|ECOG|karnofsky|braden|norton|"
    r"score|escala|[ée]chelle|scale|cot[ée]e?\s+[àa]|[ée]valu[ée]e?\s+[àa]|rated|scored|"
    r"saturation|FiO2|I:E|reflexes|r[ée]flexes|ROT|"
    # named clinical scores and examinations marked out of their maximum ("RCRI 2/6", "PRAM 8/12",
    # "Alvarado 8/10", "Apgars 8/9", "TOF 4/4", "Myotomes 5/5", "VA (Snellen) 6/18", "recall 2/5")
    r"apgars|RCRI|PRAS|PRAM|PAS|PEWS|NEWS2?|MEWS|AUDIT(?:-C)?|6CIT|AMTS|ACE(?:-III)?|M-CHAT(?:-R(?:/F)?)?|"
    r"alvarado|BASDAI|BASFI|BASMI|CURB-?65|CHA2DS2-VASc|HAS-BLED|wells|centor|FLACC|RASS|TOF|"
    r"myotomes?|grip|recall|snellen|pinhole|aldrete|"
    # cardiac and critical care risk scores, and a frailty battery ("TIMI 3/7", "SPPB 8/12")
    r"TIMI|GRACE|CRUSADE|SPPB|q?SOFA|MELD|APACHE(?:\s?II)?|"
    # geriatric and mood scales, a bowel preparation, muscles and movements graded out of 5 (issue
    # 29: "IADL 4/8", "HADS : anxiété 9/21", "Algoplus 3/5", "test de l'horloge 4/7", "BBPS 3/3/3",
    # "Quadriceps | D 4/5", "hip flex 3/5", "déficit MSD 2/5")
    r"ADL|IADL|GDS|HADS|MMS|algoplus|doloplus|PAINAD|CPOT|NRS|VAS|horloge|clock|PHQ-?\d{0,2}|GAD-?\d{0,2}|BBPS|morse|waterlow|"
    r"MSD|MSG|MID|MIG|flex(?:ion)?|ext(?:ension)?|quadriceps|psoas|triceps|biceps|delto[iï]des?|"
    r"ischio-jambiers|fessiers?|releveurs?|extenseurs?|fl[ée]chisseurs?|hallux"
)
# Scales whose name is a common word or a surname ("mémoire", "Fried", "grade"): a mark right after
# the name (separators only between) proves a score only out of the scale's own maximum: a
# murmur's grade /6 or a valve leak's /4 ("Souffle systolique 2/6", "IM grade 1/4"), a French
# visual acuity /10, the Fried phenotype /5, a paediatric pain or a cognitive screen (EVENDOL /15,
# EDIN /15, DN4 /10, AMT /10, 4AT /12), joint counts /28, the Clinical Frailty Scale /9, MNA-SF /14,
# HADS-A or -D /21, a monofilament's sites /10 ("RDV consultation mémoire 14/11", "Dr Fried 3/5"
# stay dates). A cognitive test's domains ("Attention 12/18, Memory 9/26" of the ACE-III) count only
# after the test's name on the line.
_SCALE_MAXIMA: tuple[tuple[re.Pattern[str], frozenset[int]], ...] = tuple(
    (re.compile(rf"(?:^|[^\w/])(?:{name})[ \t]*[:=]?[ \t]*$", re.IGNORECASE), frozenset(maxima))
    for name, maxima in (
        (r"souffle(?:[ \t]+(?:systolique|diastolique|holosystolique))?|soplo(?:[ \t]+sist[óo]lico)?|"
         r"murmur|grade|grado", (4, 6)),
        (r"acuit[ée](?:[ \t]+visuelle)?", (10,)),
        (r"(?-i:(?<!Dr )(?<!Dr\. )(?<!Mr )(?<!Mrs )(?<!Ms )(?<!Mme )Fried)", (5,)),  # not "Dr Fried 3/5"
        (r"EVENDOL|EDIN", (15,)),
        (r"DN4|AMT", (10,)),
        (r"4AT", (12,)),
        (r"(?:tender|swollen)?[ \t]*joint[ \t]+count|TJC|SJC", (28,)),
        (r"CFS", (9,)),
        (r"MNA(?:-SF)?", (14,)),
        (r"HADS-[AD]", (21,)),
        (r"monofilament[o]?(?:[ \t]+(?:absent|present|felt))?", (10,)),
    ))
_DOMAINS = re.compile(r"(?:^|[^\w/])(?:attention|memory|m[ée]moire|fluency|fluence|language|langage|"
                      r"visuospatial|visuo-spatial|naming|abstraction|registration|orientation)"
                      r"[ \t]*[:=]?[ \t]*$", re.IGNORECASE)
_COGNITIVE_TEST = re.compile(r"\b(?:ACE(?:-III)?|MoCA|MMSE|MMS|ACE-R)\b", re.IGNORECASE)


def _named_scale(text: str, start: int, a: int, b: int) -> bool:
    """A mark out of the maximum of the scale named right before it (``_SCALE_MAXIMA``), or of a
    cognitive test's domain after the test's name on the line (up to ``_LINE`` characters back)."""
    if a > b:
        return False
    before = _line_before(text, start)[1]
    if any(b in maxima and name.search(before) for name, maxima in _SCALE_MAXIMA):
        return True
    return bool(_DOMAINS.search(before) and _COGNITIVE_TEST.search(_line_before(text, start, _LINE)[1]))
# Between a name and its value: separators and a few linking words, and at most one other word
# that cannot introduce a date ("Force musculaire 4/5", "pain score of 7/10", "VA (Snellen) 6/18";
# not "Glasgow fait le 12/10", where "le" introduces a date).
# A comparison ("EVA > 4/10") or a table's column ("Quadriceps | D 4/5") links them too.
_LINK = r"(?:\s*(?:[:=)<>≤≥|]|(?:de|del|du|à|a|at|of|is|was|est|la)\b)\s*|\s+)"
_DATE_INTRODUCERS = r"(?:le|el|on|du|del|au|al|since|depuis|desde|from|until|jusqu|del|fait|done|vu|seen)"
_NAME_BEFORE = re.compile(
    # at most one other word, then maybe a side's letter ("releveurs du pied G 4/5", "Quadriceps | D")
    rf"(?:^|[^\w/])(?:{_NAMES})\b{_LINK}*(?:(?!{_DATE_INTRODUCERS}\b)[^\W\d_]{{2,20}}{_LINK}+)?"
    rf"(?:(?-i:[GDLR])\b{_LINK}+)?[:=]?\s*$",
    re.IGNORECASE,
)
_RATIO = re.compile(r"(\d{1,3})\s?/\s?(\d{1,3})")
# an earlier mark of the same scale may carry a grade sign ("grip 4+/5, otherwise 5/5")
_MARK = re.compile(r"(\d{1,3})[+-]?\s?/\s?(\d{1,3})")
_SCALES = frozenset({3, 4, 5, 6, 8, 9, 10, 12, 15, 20, 21, 24, 27, 30, 40, 50, 100})
_UK_DURATIONS = frozenset({7, 12, 52})
# after a dose's frequency or route, a British duration is the length of the course ("100mg BD PO
# - 3/7"); "~" before it is an approximation ("for ~6/12")
# (a dose's frequency in any case: "PO bd 7/7", "qds prn 5/7"; the short words that are English
# words or a date's preposition, "on", "od", only in capitals)
_DOSE_FREQUENCY = r"(?-i:OD|ON|PO|IV|SC|IM)|BD|TDS|QDS|PRN|nocte|mane"  # British: not BID, TID, QID
_UK_BEFORE = re.compile(r"(?:\b(?:for|in|within|over|after|x|past|last|since)\s*~?\s*|(?<![\w~])~\s*|"
                        rf"\b(?:{_DOSE_FREQUENCY})\s*[-–:]?\s*)$", re.IGNORECASE)
# a whole course after "x" or a dose's frequency ("Cefalexin 500mg TDS x 7/7", "monitor x 7/7"):
# not after "for" ("clinic booked for 12/12"), "since" or "last", where "7/7" may be a day
_UK_COURSE_BEFORE = re.compile(rf"(?:\bx\s*~?\s*|\b(?:{_DOSE_FREQUENCY})\s*[-–:]?\s*)$", re.IGNORECASE)
_UK_AFTER = re.compile(r"\s*(?:ago|later|hx|history|post|previously|course|supply|treatment|duration)\b",
                       re.IGNORECASE)
# a range of British durations ("within 6-12/52")
_UK_RANGE = re.compile(r"(\d{1,2})\s?[-–]\s?(\d{1,2})\s?/\s?(7|12|52)")
# a visual acuity in Snellen's notation, in metres or feet ("6/18", "6/7.5", "20/40")
_SNELLEN = re.compile(r"(6|3|20)\s?/\s?(5|6|7\.5|9|12|18|24|36|60|20|25|30|40|50|70|80|100|200|400)")
# ... or what is said only of a visual acuity ("RE 6/18 unaided, 6/12 with pinhole")
_EYE_AFTER = re.compile(r"\s*(?:in\s+the\s+)?(?:(?:better|worse|right|left|affected|other)\s+)?eye\b|"
                        r"\s*,?\s*(?:unaided|aided|uncorrected|corrected|(?:with\s+|c\s+)?(?:pinhole|glasses|"
                        r"spectacles|correction))\b|"
                        r"\s*\(?(?-i:OD|OS|OU|OG|ODG|RE|LE)\b", re.IGNORECASE)
# a glued grade sign ("4-/5", "4+/5"): a muscle's grade, never a day
_GRADED = re.compile(r"(\d{1,3})[+-]\s?/\s?(\d{1,3})")
# a decimal no day and month can be ("0.04" of "levophed 0.04")
_DECIMAL = re.compile(r"(\d{1,2})\.(\d{1,3})")
# a rate per day, week or hour ("CNO 2/j", "x3/d"): no date has a letter for its month
_RATE = re.compile(r"\d{1,3}\s?/\s?(?:j|jour|d|day|sem|wk|week|h|hr|min)\b", re.IGNORECASE)
# a mark with a decimal ("BASDAI 4.6/10"), a blood gas ("ABG 7.24/52/64"), weeks of a pregnancy
# ("24-28/40", "32+3/40"), a score of three parts after its name ("BBPS 3/3/3"), toes or fingers
# by their rank ("L 4th/5th toe"), an echo's E/e' ratio ("E/e' 11")
_DECIMAL_MARK = re.compile(r"\d{1,2}[.,]\d\s?/\s?\d{1,3}")  # no day has a decimal ("ADL 3,5/6")
_BLOOD_GAS = re.compile(
    r"[67][.,]\d{1,2}\s?/\s?\d{1,3}(?:[.,]\d)?\s?/\s?\d{1,3}(?:[.,]\d)?(?:\s?/\s?-?\d{1,2}(?:[.,]\d)?)*")
_GESTATION = re.compile(r"\d{1,2}(?:\+\d)?(?:\s?[-–]\s?\d{1,2}(?:\+\d)?)?\s?/\s?40")
_THREE_PARTS = re.compile(r"[1-9]\s?/\s?[1-9]\s?/\s?[1-9]")
_RANKS = re.compile(r"\d(?:st|nd|rd|th)\s?/\s?\d(?:st|nd|rd|th)")
_DIGIT_AFTER = re.compile(
    r"\s*(?:toes?|fingers?|digits?|ribs?|metatarsals?|metacarpals?|MTPJs?|MCPJs?|ICS)\b", re.IGNORECASE)
_E_OVER_E = re.compile(r"E\s?/\s?e['’]?\s*:?\s*\d{1,2}(?:[.,]\d)?")
# lymph nodes involved out of those resected ("3/19 LN", "2/14 nodes positive")
_NODES_AFTER = re.compile(r"\s*(?:LNs?|nodes?|lymph\s+nodes?|ganglions?|ganglios?)\b", re.IGNORECASE)
# joints out of the DAS28's 28 ("8/28 tender and 5/28 swollen joints", "6/28 articulations
# douloureuses")
_JOINTS_AFTER = re.compile(r"\s*(?:tender|swollen|articulations?|articulaciones)\b", re.IGNORECASE)
# a fetal head's fifths palpable ("3/5 palpable")
_PALPABLE_AFTER = re.compile(r"\s*(?:palpable|palp)\b", re.IGNORECASE)
# pain named earlier in the sentence ("pain migrated to the RLQ, now 8/10"), unless a word that
# introduces a date stands right before the mark ("pain since 8/10")
# ... and only when a word of a change or a rating stands right before the mark ("now 8/10")
_PAIN_EARLIER = re.compile(
    r"\b(?:pain|douleur|dolor)s?\b([^.\n]{0,50}\b(?:now|currently|down\s+to|up\s+to|improved\s+to|rated|"
    r"maintenant|actuellement|ahora|actualmente))\s*$", re.IGNORECASE)
_DATE_WORDS = (r"\b(?:le|el|on|du|del|au|al|since|depuis|desde|from|until|till|began|started|begun|onset|"
               r"dated|seen|vu|vue|visit|admitted|ingreso|apparue?s?|d[ée]but)\b")
_DATE_WORD_BEFORE = re.compile(_DATE_WORDS + r"\s*:?\s*$", re.IGNORECASE)
_DATE_WORD = re.compile(_DATE_WORDS, re.IGNORECASE)
# a mark joined to a measurement just before it ("BiPAP 14/6 -> 18/8")
_CHAIN_BEFORE = re.compile(r"(\d{1,3})\s?/\s?(\d{1,3})\s*(?:->|→|=>|>)\s*$")
# a fraction of a dose or of a tablet: "3/4 de la dose", "1/2 tab", "1/2 cp"
_FRACTION_AFTER = re.compile(
    r"(?:\s*(?:to|-|–|à|a)\s*\d/\d)?"  # a range of fractions ("1/2 to 3/4 of meals")
    r"\s*(?:de\s+(?:la\s+|l['’]|du\s+|des\s+)?|d['’]|du\s+|of\s+(?:the\s+|a\s+|her\s+|his\s+)?|del\s+)?"
    r"(?:dose|doses|comprim[ée]s?|cp|cps|tab|tabs|tablet|tablets|comp|comprimido|ampoule|amp|sachet|"
    r"cuill|bolus|plateau|bandeja|vial|flacon|pill|pills|dosis|meals?|repas|comidas?|"
    # a part of a meal eaten ("3/4 du mixé", "1/2 del túrmix", "ate 1/2 supper")
    r"mix[ée]|hach[ée]|bol|assiette|d[ée]jeuner|d[îi]ner|petit[ \t-]d[ée]jeuner|go[ûu]ter|t[úu]rmix|"
    r"triturado|plato|desayuno|cena|merienda|breakfast|lunch|dinner|supper|tray|"
    # a smoker's packs a day ("1/2 ppd", "1/2 paquet/j", "1/2 cajetilla")
    r"ppd|packs?|paquets?|paquetes?|cajetillas?|"
    # half normal saline, a half-sitting position ("1/2NS", "installée 1/2 assise", "3/4 G")
    r"NS|assise?s?|sentad[oa]s?|semi-?assise?|sitting|upright|[GD](?=\s*[.,;)\n]))\b",
    re.IGNORECASE)
# what only follows a pain score ("9/10 on arrival", "2/10 at rest") or a murmur's grade
# ("2/6 SEM at RUSB")
_PAIN_AFTER = re.compile(
    r"\s*(?:at\s+(?:rest|worst|best)|on\s+(?:arrival|rising|movement|exertion|walking|weight[- ]bearing)|"
    r"with\s+(?:movement|activity|walking))\b", re.IGNORECASE)
_MURMUR_AFTER = re.compile(
    r"\s*(?:SEM|ESM|PSM|HSM|SM|murmur|systolic|diastolic|holosystolic|pansystolic|ejection)\b", re.IGNORECASE)
# a pain's quality after its score ("7/10, worse w/ sitting", "8/10 sharp"), unless a date's word
# stands before it ("seen 3/10, better")
_PAIN_QUALITY_AFTER = re.compile(
    r"[,;]?\s*(?:worse|constant|intermittent|sharp|dull|aching|burning|throbbing|stabbing)\b", re.IGNORECASE)
# "day" right before the mark (not "5-day course 11/18", where a date follows the course)
_COURSE_DAY_BEFORE = re.compile(r"(?:^|[^\w-])(?:day\s*|(?-i:[dDJ]))$", re.IGNORECASE)
_SCORE_NAME_WORD = re.compile(rf"(?:{_NAMES})", re.IGNORECASE)


def _line_before(text: str, start: int, width: int = 40) -> tuple[int, str]:
    line = text.rfind("\n", max(0, start - width), start) + 1 or max(0, start - width)
    return line, text[line:start]


def _no_day_month(a: int, b: int) -> bool:
    return not ((1 <= a <= 31 and 1 <= b <= 12) or (1 <= a <= 12 and 1 <= b <= 31))


def measurement(text: str, start: int, end: int, language: str) -> bool:
    """Whether ``text[start:end]`` (an "a/b" without a year) is proven a score or measurement."""
    if _RATE.fullmatch(text, start, end) or _GRADED.fullmatch(text, start, end):
        return True
    if _DECIMAL_MARK.fullmatch(text, start, end) or _BLOOD_GAS.fullmatch(text, start, end):
        return True
    if _GESTATION.fullmatch(text, start, end) or _E_OVER_E.fullmatch(text, start, end):
        return True
    if _RANKS.fullmatch(text, start, end):
        return _DIGIT_AFTER.match(text, end) is not None
    if _THREE_PARTS.fullmatch(text, start, end):
        return bool(_NAME_BEFORE.search(_line_before(text, start)[1]))
    if (d := _DECIMAL.fullmatch(text, start, end)) is not None:
        return _no_day_month(int(d[1]), int(d[2]))
    if (r := _UK_RANGE.fullmatch(text, start, end)) is not None:
        before = _UK_BEFORE.search(text, max(0, start - 12), start)
        return language == "en" and int(r[1]) < int(r[2]) and before is not None
    if _SNELLEN.fullmatch(text, start, end) is not None and _EYE_AFTER.match(text, end):
        return True
    m = _RATIO.fullmatch(text, start, end)
    if m is None:
        return False
    a, b = int(m[1]), int(m[2])
    if _proven_alone(text, start, end, a, b, language):
        return True
    if _DATE_WORD_BEFORE.search(text, max(0, start - 12), start):
        return False  # "GCS 13/15 ... seen on 3/15": a word of a date outweighs another mark
    # the rest of a series ("L PF 4/5 (10 heel raises vs 20 R), rest 5/5") looks further back
    width = _LINE if _REST_BEFORE.search(text, max(0, start - 16), start) else 40
    line = text.rfind("\n", max(0, start - width), start) + 1 or max(0, start - width)
    if b in _SCALES and a <= b and _same_scale_before(text, line, start, b, language):
        return True
    if _snellen_again(text, line, start, end, language):
        return True
    if (c := _CHAIN_BEFORE.search(text, max(0, start - 16), start)) is not None:
        return _proven_alone(text, c.start(), c.end(2), int(c[1]), int(c[2]), language)
    return False


# how far back on its line an earlier mark of the same scale is looked for after "rest"
_LINE = 160
_REST_BEFORE = re.compile(
    r"\b(?:rest|reste|otherwise|sinon|ailleurs|elsewhere|resto)\b[ \t:]*$", re.IGNORECASE)


def _proven_alone(text: str, start: int, end: int, a: int, b: int, language: str) -> bool:
    """The proofs that read the mark and its own neighbourhood, not another mark."""
    if _no_day_month(a, b):
        return True
    if a < b <= 8 and _FRACTION_AFTER.match(text, end) and not _DATE_WORD_BEFORE.search(
            text, max(0, start - 12), start):  # "On 2/3 lunch with daughter" is a day
        return True
    if b == 10 and a <= b and _PAIN_AFTER.match(text, end):
        return True
    if b in (4, 6) and a <= b and _MURMUR_AFTER.match(text, end):
        return True
    if b == 5 and a <= b and _PALPABLE_AFTER.match(text, end):
        return True
    if b == 28 and a <= b and _JOINTS_AFTER.match(text, end) and not _DATE_WORD_BEFORE.search(
            text, max(0, start - 12), start):  # "seen on 2/28 swollen R ankle" is a day
        return True
    if a <= b and _NODES_AFTER.match(text, end):  # "pN1b (3/19 LN)": nodes involved of those found
        return True
    _, before = _line_before(text, start)
    if a <= b and _COURSE_DAY_BEFORE.search(before):  # "(day 5/5)": the last day of a course
        return True
    if _NAME_BEFORE.search(before):  # a blood pressure or a Schober index reads high over low
        return True
    if _named_scale(text, start, a, b):
        return True
    if b == 10 and a <= b and not _DATE_WORD_BEFORE.search(before):
        if _PAIN_QUALITY_AFTER.match(text, end):
            return True
        pain = _PAIN_EARLIER.search(before)
        if pain is not None and not _DATE_WORD.search(pain[1]):
            return True
    if language == "en" and b in _UK_DURATIONS and a < b:
        return bool(_UK_BEFORE.search(text, max(0, start - 12), start) or _UK_AFTER.match(text, end))
    # a whole course by the words after it ("to complete 7/7 course") or after "x" or a dose's
    # frequency ("TDS x 7/7"): "since 7/7" is a date
    return language == "en" and b in _UK_DURATIONS and a == b and bool(
        _UK_AFTER.match(text, end) or _UK_COURSE_BEFORE.search(text, max(0, start - 12), start))


def _same_scale_before(text: str, line: int, start: int, scale: int, language: str) -> bool:
    """An earlier mark out of ``scale`` on this line that is itself proven (by a score's name, by
    the words after it: "9/10 on arrival, now 6/10")."""
    for m in _MARK.finditer(text, line, start):
        if int(m[2]) != scale or int(m[1]) > scale:
            continue
        if m[0][len(m[1])] in "+-":
            return True
        # proven by its own words, not by having no day and month ("13/15" then "3/15" may be a date)
        if not _no_day_month(int(m[1]), scale) and _proven_alone(text, m.start(), m.end(), int(m[1]), scale,
                                                                 language):
            return True
        if _NAME_BEFORE.search(text[line : m.start()]):
            return True
    return False


def _snellen_again(text: str, line: int, start: int, end: int, language: str) -> bool:
    """A visual acuity after another one on its line that a name proves ("VA (Snellen) 6/18
    6/9 (was 6/24 ...)")."""
    if _SNELLEN.fullmatch(text, start, end) is None:
        return False
    for m in _SNELLEN.finditer(text, line, start):
        if _NAME_BEFORE.search(text[max(line, m.start() - 40) : m.start()]):
            return True
    return False


def _score_name_read_as_person(span: Span, text: str, language: str) -> bool:
    """ "EVA" of "EVA 4/10", "Schober" of "Schober 15/10": a score's name read as a person's."""
    word = text[span.start : span.end]
    if span.label.category is not Category.PER:
        return False
    if not _SCORE_NAME_WORD.fullmatch(word):
        return False
    m = re.match(r"\s*[:=]?\s*(\d{1,3}\s?/\s?\d{1,3})", text[span.end : span.end + 16])
    if m is None:
        return False
    s = span.end + m.start(1)
    return measurement(text, s, s + len(m[1]), language)


# a score whose name ends in a number, the model's span starting on that number ("PHQ-|9 14",
# "PHQ-|9 22/27"): the rest is the score's value
_NUMBERED_NAME_BEFORE = re.compile(r"\b(?:PHQ|GAD|PCL|CURB|EPDS|AUDIT|QRISK|CHADS|GDS)-?$", re.IGNORECASE)
_NAME_NUMBER = re.compile(r"\d{1,2}\s+")
_VALUE = re.compile(r"\d{1,3}(?:[.,]\d)?")
# a score's name and its value read as a place ("Glasgow 15", "Morse 85")
_NAMED_VALUE = re.compile(
    r"(?:Glasgow|GCS|Morse|Braden|Norton|Waterlow|Barthel)\s*:?\s*\d{1,3}", re.IGNORECASE)
# marks side by side in one span ("6/18         6/9" of a table of both eyes)
_MARKS = re.compile(r"\d{1,3}[+-]?\s?/\s?\d{1,3}(?:\.\d)?(?:[ \t]+\d{1,3}[+-]?\s?/\s?\d{1,3}(?:\.\d)?)+")
_ONE_MARK = re.compile(r"\d{1,3}[+-]?\s?/\s?\d{1,3}(?:\.\d)?")


def _date_proven_measurement(span: Span, text: str, language: str) -> bool:
    whole = widen_number(span, text)  # "/15" of "GCS 14/15": the model cut the score
    if measurement(text, whole.start, whole.end, language):
        return True
    if whole.start >= 2 and text[whole.start - 1] == "," and text[whole.start - 2].isdigit():
        # "5/6" of "ADL 3,5/6": a decimal comma's mark, never a day
        return _DECIMAL_MARK.fullmatch(text, whole.start - 2, whole.end) is not None
    if _NUMBERED_NAME_BEFORE.search(text, max(0, span.start - 8), span.start):
        rest = _NAME_NUMBER.match(text, span.start, span.end)
        if rest is not None and (_VALUE.fullmatch(text, rest.end(), span.end)
                                 or measurement(text, rest.end(), span.end, language)):
            return True
    if _MARKS.fullmatch(text, span.start, span.end):
        return all(measurement(text, m.start(), m.end(), language)
                   for m in _ONE_MARK.finditer(text, span.start, span.end))
    return False


def _score_read_as_place(span: Span, text: str, language: str) -> bool:
    """ "Glasgow 15" read as a town, "Morse 85" as a city: a score's name with its value; a mark
    after a score's name read as anything but a date ("Barthel actual 55/100" as a street)."""
    if span.label.category in (Category.PER, Category.DATE):
        return False
    if _NAMED_VALUE.fullmatch(text, span.start, span.end) is not None:
        return True
    start, end = span.start, span.end
    if not (_RATIO.fullmatch(text, start, end) or _DECIMAL_MARK.fullmatch(text, start, end)):
        return False
    return bool(_NAME_BEFORE.search(_line_before(text, span.start)[1])) and measurement(
        text, span.start, span.end, language)


def drop_measurements(spans: Iterable[Span], text: str, language: str) -> list[Span]:
    """The model's ``spans`` less the dates (and score names) their context proves measurements."""
    out = []
    for span in spans:
        if span.label.category is Category.DATE and _date_proven_measurement(span, text, language):
            continue
        if _score_name_read_as_person(span, text, language) or _score_read_as_place(span, text, language):
            continue
        out.append(span)
    return out
