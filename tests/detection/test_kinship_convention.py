"""A relative named by a kinship word alone ("su madre", "la familia") is no PHI under HIPAA and
the realistic corpus's guideline, in every language; MEDDOCAN's guideline marks it, and the
detector follows that convention where it is named (``DetectionSettings.kinship_words_phi``), as
``deid eval`` names it for a MEDDOCAN corpus."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from deid.detection.own_words import names_no_one
from deid.detection.pipeline import combine
from deid.labels import Label
from deid.settings import Settings
from deid.spans import Span

TEXT = "Acude acompañada de su madre y su hija."


def _at(word: str, label: Label = Label.RELATIVE) -> Span:
    start = TEXT.index(word)
    return Span(start, start + len(word), label, "ner", 0.9)


@pytest.mark.parametrize("word", ["madre", "hija"])
def test_a_spanish_kinship_word_alone_names_no_one_by_default(word: str) -> None:
    assert names_no_one(_at(word), TEXT, "es")
    assert combine([], [_at(word)], TEXT, "es") == []


@pytest.mark.parametrize("word", ["madre", "hija"])
def test_under_meddocans_convention_it_stays(word: str) -> None:
    assert not names_no_one(_at(word), TEXT, "es", kinship_phi=frozenset({"es"}))
    out = combine([], [_at(word)], TEXT, "es", kinship_phi=frozenset({"es"}))
    assert [TEXT[s.start : s.end] for s in out] == [word]


def test_the_convention_is_per_language() -> None:
    text = "Seen with her mother today."
    span = Span(text.index("mother"), text.index("mother") + 6, Label.RELATIVE, "ner", 0.9)
    assert names_no_one(span, text, "en", kinship_phi=frozenset({"es"}))


def test_the_setting_reads_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().detection.kinship_words_phi == []
    monkeypatch.setenv("DEID_DETECTION__KINSHIP_WORDS_PHI", '["es"]')
    assert Settings().detection.kinship_words_phi == ["es"]


def test_the_detector_built_from_the_settings_follows_them() -> None:
    from deid.pipeline import build_detector

    settings = Settings()
    settings = settings.model_copy(update={
        "model": settings.model.model_copy(update={"enabled": False}),
        "detection": settings.detection.model_copy(update={"kinship_words_phi": ["es"]}),
    })
    assert build_detector(settings).kinship_phi == frozenset({"es"})  # type: ignore[attr-defined]


def test_deid_eval_scores_a_meddocan_corpus_under_its_convention(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import deid.cli.eval as cli_eval

    folder = tmp_path / "meddocan"
    folder.mkdir()
    (folder / "a.txt").write_text(TEXT, encoding="utf-8")
    start = TEXT.index("madre")
    (folder / "a.ann").write_text(f"T1\tFAMILIARES_SUJETO_ASISTENCIA {start} {start + 5}\tmadre\n",
                                  encoding="utf-8")
    seen: list[frozenset[str]] = []
    real = cli_eval.detector_from_args

    def spy(args: argparse.Namespace, **kw: object) -> object:
        seen.append(frozenset(kw["settings"].detection.kinship_words_phi))  # type: ignore[attr-defined]
        return real(args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(cli_eval, "detector_from_args", spy)
    from deid.cli import main

    assert main(["eval", str(folder), "--rules-only"]) == 0
    assert seen == [frozenset({"es"})]
