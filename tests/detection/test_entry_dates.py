"""A nursing log's entries headed by a weekday and the day of the month (issue 29): a whole note
through the rules and every post-processing step, no model span. Invented for the test."""

from __future__ import annotations

from deid.detection.pipeline import combine
from deid.labels import Label
from deid.rules import RuleDetector


def test_a_weekday_and_its_day_heading_a_log_entry_are_a_date_and_a_saturation_is_not() -> None:
    note = (
        "CURAS DOMICILIARIAS — úlcera venosa MID\n\n"
        "jue 11 — vendaje bien, algo caído. Sat 94% basal.\n"
        "lun 15 — 4 x 2,8 cm, 50% granulación. EVA 3/10.\n"
        "lun 22/1 — 3,6 x 2,4 cm. Próxima cura vie 26.\n"
    )
    spans = combine(RuleDetector().find(note, "es"), [], note, "es")
    dates = [note[s.start : s.end] for s in spans if s.label is Label.DATE]
    assert dates == ["jue 11", "lun 15", "lun 22/1", "vie 26"]
