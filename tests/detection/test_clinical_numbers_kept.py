"""Clinical numbers the de-identified note must keep (issue 29, ``deid audit``'s "clinical numbers
changed"): each class of number a span used to swallow, on a whole note of our own writing run
through the rules and the detection pipeline, the model's mistakes given as it makes them. Each
note also holds true PHI of the same kind that must stay covered (recall first).
"""

from __future__ import annotations

from deid.detection import combine
from deid.labels import Label
from deid.rules import RuleDetector
from deid.spans import Span

RULES = RuleDetector()


def _nth(text: str, words: str, nth: int = 0) -> int:
    at = -1
    for _ in range(nth + 1):
        at = text.index(words, at + 1)
    return at


def _model(text: str, *reads: tuple[str, Label] | tuple[str, Label, int]) -> list[Span]:
    """The model's spans: each (words, label[, which occurrence])."""
    spans = []
    for read in reads:
        words, label = read[0], read[1]
        start = _nth(text, words, read[2] if len(read) > 2 else 0)  # type: ignore[misc]
        spans.append(Span(start, start + len(words), label, "ner", 0.8))
    return spans


def _output(text: str, language: str, model: list[Span]) -> list[Span]:
    return combine(RULES.find(text, language), model, text, language)


def _covered(spans: list[Span], start: int, end: int) -> bool:
    return any(s.start < end and start < s.end for s in spans)


def _kept(text: str, spans: list[Span], words: str, nth: int = 0) -> bool:
    start = _nth(text, words, nth)
    return not _covered(spans, start, start + len(words))


GERIATRIC_FR = (
    "Évaluation gériatrique du 14/03/2024\n"
    "Autonomie : ADL 3,5/6, IADL 4/8, MMSE 25/30, GDS 4/15. HADS : anxiété 9/21, dépression 6/21.\n"
    "EVA 4/10 au repos, 8/10 à la mobilisation, Algoplus 3/5 la nuit ; tramadol si EVA > 4/10.\n"
    "Force releveurs du pied G 4/5, extenseur de l'hallux G 4/5, reste 5/5. Déficit MSD 2/5, MID 4/5.\n"
    "  | Quadriceps | D 4/5 | G 3/5 |\n"
    "Installée 1/2 assise. CNO 2/j. Test de l'horloge 4/7.\n"
)
GERIATRIC_FR_MARKS = [
    "5/6",
    "4/8",
    "4/15",
    "9/21",
    "6/21",
    "3/5",
    "4/10",
    "4/5",
    "5/5",
    "2/5",
    "1/2",
    "2/j",
    "4/7",
]


def _every(text: str, words: str) -> list[int]:
    return [i for i in range(len(text)) if text.startswith(words, i)]


def test_french_scores_read_as_dates_are_kept() -> None:
    text = GERIATRIC_FR
    marks = [(i, m) for m in GERIATRIC_FR_MARKS for i in _every(text, m)]
    model = _model(text, ("14/03/2024", Label.DATE))
    model += [Span(i, i + len(m), Label.DATE, "ner", 0.8) for i, m in marks]
    out = _output(text, "fr", model)
    assert not _kept(text, out, "14/03/2024")
    assert [(i, m) for i, m in marks if _covered(out, i, i + len(m))] == []


CLINIC_EN = (
    "Seen 03/04/2024 in clinic.\n"
    "Overnight pain migrated to the RLQ, now 8/10, vomited x2.\n"
    "Radiating to the foot, 7/10, worse w/ sitting.\n"
    "PHQ-9 14. GAD-7 9/21. BBPS 3/3/3 (9). TAPSE 19mm, E/e' 11.\n"
    "VA (Snellen)     6/18         6/9   (was 6/24 on 07/07/2023). With 6/9 in the better eye she drives.\n"
    "Worsening hypercapnia despite BiPAP 14/6 -> 18/8, ABG 7.28/68/58 on FiO2 50%. Norepi 0.05 off.\n"
    "MRC: L hip flex 3/5, L knee ext 4-/5, R LL 4/5 globally.\n"
    "1. Nitrofurantoin 100mg BD PO - 3/7 (to complete 7/7 course). Cough for ~6/12 at home.\n"
    "Cephalic, 3/5 palpable. OGTT at 24-28/40. BASDAI 4.6/10. Amputation of L 4th/5th toe tips.\n"
)


def test_english_scores_and_measurements_read_as_dates_are_kept() -> None:
    text = CLINIC_EN
    marks = [
        ("8/10", 0),
        ("7/10", 0),
        ("9 14", 0),
        ("9/21", 0),
        ("3/3/3", 0),
        ("E/e' 11", 0),
        ("6/18         6/9", 0),
        ("6/24", 0),
        ("6/9", 1),
        ("18/8", 0),
        ("7.28/68/58", 0),
        ("0.05", 0),
        ("4-/5", 0),
        ("4/5", 0),
        ("3/7", 0),
        ("7/7", 0),
        ("6/12", 0),
        ("3/5", 1),
        ("24-28/40", 0),
        ("4.6/10", 0),
        ("4th/5th", 0),
    ]
    model = _model(
        text, ("03/04/2024", Label.DATE), ("07/07/2023", Label.DATE), *[(m, Label.DATE, n) for m, n in marks]
    )
    out = _output(text, "en", model)
    assert not _kept(text, out, "03/04/2024") and not _kept(text, out, "07/07/2023")
    assert [m for m, n in marks if not _kept(text, out, m, n)] == []


WARD_EN = (
    "MICU   Room/Bed: 214-B   Age: 19    Bed: MICU 9\n"
    "Patient: Jane Harlow, DOB 02/11/1950, 12 Oak Street, Leeds LS1 4AB.\n"
    "Lives alone on the 9th floor. Transfer from MICU to 8 West step-down.\n"
    "G2P2002. POD 1-3 small air leak on the 24 Fr drain, drain out POD 4. Wound check day 5-7.\n"
    "Return to sport not before 9-12 months. CT: DLP 958 mGy.cm.\n"
    "Mum given the duty number; advised to call 111 out of hours.\n"
    "Last void 12:40. Day shift 0700-1930. Home visit 1015-1145.\n"
    "2. Review in clinic.\n"
    "Dr Will Price, FY1\n"
)


def _in(text: str, context: str, words: str) -> tuple[int, int]:
    """Where ``words`` stand inside the first ``context``."""
    start = text.index(context) + context.index(words)
    return start, start + len(words)


def test_rooms_floors_days_and_clock_parts_are_kept() -> None:
    text = WARD_EN
    reads = [
        ("Bed: 214-B", "214-B", Label.ID_PATIENT),
        ("MICU 9", "9", Label.AGE),
        ("9th floor", "9th floor", Label.STREET),
        ("8 West", "8 West", Label.STREET),
        ("G2P2002", "G2P2002", Label.ID_PATIENT),
        ("POD 1-3", "1-3", Label.DATE),
        ("24 Fr", "24 Fr", Label.DATE),
        ("POD 4", "4", Label.DATE),
        ("day 5-7", "5-7", Label.DATE),
        ("before 9-12", "9", Label.DATE),
        ("958 mGy", "958", Label.ID_PATIENT),
        ("call 111", "111", Label.PHONE),
        ("void 12:40", "12", Label.DATE),
        ("0700-1930", "1930", Label.DATE),
        ("1015-1145", "1015-1145", Label.DATE),
        ("\n2. Review", "2", Label.DATE),
        ("FY1", "FY1", Label.LOCATION),
    ]
    model = _model(
        text,
        ("Jane Harlow", Label.PATIENT),
        ("02/11/1950", Label.BIRTH_DATE),
        ("12 Oak Street", Label.STREET),
        ("Leeds", Label.CITY),
    )
    model += [Span(*_in(text, context, words), label, "ner", 0.8) for context, words, label in reads]
    out = _output(text, "en", model)
    for phi in ("Jane Harlow", "02/11/1950", "12 Oak Street", "Leeds"):
        assert not _kept(text, out, phi)
    assert [c for c, w, _ in reads if _covered(out, *_in(text, c, w))] == []


def test_rooms_and_durations_are_kept_in_french_and_spanish() -> None:
    fr = "Mme Dupont, ch. 214, lit 14. Apixaban réduit (âge > 80 ans, créat > 133). Patiente de 84 ans.\n"
    out = _output(
        fr, "fr", _model(fr, ("Dupont", Label.PATIENT), ("214", Label.DATE), ("14", Label.ID_PATIENT, 1))
    )
    assert _kept(fr, out, "214") and _kept(fr, out, "14", 1) and _kept(fr, out, "80 ans")
    assert not _kept(fr, out, "84 ans") and not _kept(fr, out, "Dupont")
    es = "Paciente de 67 años, hab. 514-A. DM tipo 2. ERC estadio 3a. Glasgow 15.\n"
    out = _output(es, "es", _model(es, ("514-A", Label.ID_PATIENT), ("Glasgow 15", Label.CITY)))
    assert _kept(es, out, "514-A") and _kept(es, out, "3a") and _kept(es, out, "15")
    assert not _kept(es, out, "67 años")


def test_a_place_after_a_room_word_stays_phi() -> None:
    # recall first: a room number misread as a date or an identifier is dropped, but a span the
    # model reads as a place after "box" or "bed" may be an address or a named unit
    text = "Mail to PO Box 4471, Dunmore. Moved to bed 7B.\n"
    model = _model(text, ("4471", Label.STREET), ("7B", Label.LOCATION))
    out = _output(text, "en", model)
    assert not _kept(text, out, "4471") and not _kept(text, out, "7B")


def test_years_of_a_history_are_no_age() -> None:
    text = (
        "68 yo M, retired. SH: line technician x 19 yrs, smoker ~8/day for 5 yrs, alcohol x ~2 yrs.\n"
        "Repeat colonoscopy in 3 yr. PECARN (>=2 yo) negative. Son (41) visits.\n"
    )
    out = _output(text, "en", [])
    assert not _kept(text, out, "68 yo") and not _kept(text, out, "41")
    assert [w for w in ("19 yrs", "5 yrs", "2 yrs", "3 yr", "2 yo") if not _kept(text, out, w)] == []


def test_a_date_leaves_its_clock_and_the_next_line_alone() -> None:
    text = (
        "Exam date: 07/05/2021 02:47\nFecha: 11/02/2025 04:20\n"
        "IOP (mmHg)       16           17\nOCT              drusen, no fluid\n"
    )
    out = _output(text, "en", [])
    assert not _kept(text, out, "07/05/2021") and not _kept(text, out, "11/02/2025")
    assert _kept(text, out, "02:47") and _kept(text, out, "04:20") and _kept(text, out, "17\nOCT")
