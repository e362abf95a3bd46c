"""Corpus readers map each corpus onto the project's labels and reject malformed files in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deid.lab.corpora import CorpusFormatError, detect_format, read_corpus
from deid.lab.corpora.mapping import TABLES, map_label
from deid.labels import Label


def _surfaces(doc: object) -> list[tuple[str, str]]:
    return [(doc.text[s.start:s.end], s.label.value) for s in doc.spans]  # type: ignore[attr-defined]


def test_brat_spans_keep_offsets_and_every_annotation_sex_included(tmp_path: Path) -> None:
    text = "Paciente: Pedro Ruiz. Varón de 53 años. Fecha: 10/10/2016.\n"
    (tmp_path / "a.txt").write_text(text, encoding="utf-8")
    (tmp_path / "a.ann").write_text(
        "T1\tNOMBRE_SUJETO_ASISTENCIA 10 20\tPedro Ruiz\n"
        "T2\tSEXO_SUJETO_ASISTENCIA 22 27\tVarón\n"
        "T3\tEDAD_SUJETO_ASISTENCIA 31 38\t53 años\n"
        "T4\tFECHAS 47 57\t10/10/2016\n", encoding="utf-8")
    (doc,) = read_corpus(tmp_path)
    assert _surfaces(doc) == [("Pedro Ruiz", "PATIENT"), ("Varón", "SEX"), ("53 años", "AGE"),
                              ("10/10/2016", "DATE")]
    assert [s.source for s in doc.spans][:2] == ["gold:NOMBRE_SUJETO_ASISTENCIA",
                                                  "gold:SEXO_SUJETO_ASISTENCIA"]
    assert detect_format(tmp_path) == "brat"


def test_eds_jsonl_joins_first_and_last_name_into_one_person(tmp_path: Path) -> None:
    text = "Vu par Jean DUPONT le 03/04/2021."
    rec = {"note_id": "n1", "note_text": text, "entities": [
        {"start": 7, "end": 11, "label": "PRENOM"}, {"start": 12, "end": 18, "label": "NOM"},
        {"start": 22, "end": 32, "label": "DATE"}]}
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    (doc,) = read_corpus(path)
    assert _surfaces(doc) == [("Jean DUPONT", "PERSON"), ("03/04/2021", "DATE")]


def test_eds_templates_markup_becomes_gold_spans(tmp_path: Path) -> None:
    path = tmp_path / "templates.txt"
    markup = "Docteur [ROMAIN](PRENOM) [SPRITZ](NOM) à [Créteil](VILLE)\n\nSans PHI\n"
    path.write_text(markup, encoding="utf-8")
    docs = read_corpus(path)
    assert [d.text for d in docs] == ["Docteur ROMAIN SPRITZ à Créteil", "Sans PHI\n"]
    assert _surfaces(docs[0]) == [("ROMAIN SPRITZ", "PERSON"), ("Créteil", "CITY")]


def test_echr_tsv_sentences_become_documents_with_bio_entities(tmp_path: Path) -> None:
    path = tmp_path / "FR-manual-dev.tsv"
    lines = ["Le O", "12 B-DATE", "mars I-DATE", "M. O", "Dupont B-PER", "", "Fin O", ""]
    path.write_text("\r\n".join(lines), encoding="utf-8")
    docs = read_corpus(path, language="fr")
    assert [d.text for d in docs] == ["Le 12 mars M. Dupont", "Fin"]
    assert docs[0].language == "fr"
    assert _surfaces(docs[0]) == [("12 mars", "DATE"), ("Dupont", "PERSON")]


@pytest.mark.parametrize(("name", "content", "message"), [
    ("bad.jsonl", "{not json\n", "not an eds-pseudo record"),
    ("off.jsonl", json.dumps({"note_text": "abc", "entities": [{"start": 1, "end": 9, "label": "NOM"}]}),
     "offsets outside the text"),
    ("lab.jsonl", json.dumps({"note_text": "abcdef", "entities": [{"start": 1, "end": 3, "label": "XYZ"}]}),
     "not in the mapping table"),
    ("bad.tsv", "token-without-tag\n", "expected 'token TAG'"),
    ("notes.xyz", "hello", "unknown corpus format"),
])
def test_malformed_files_raise_a_one_line_format_error(tmp_path: Path, name: str, content: str,
                                                        message: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CorpusFormatError, match=message) as exc:
        read_corpus(path)
    assert "\n" not in str(exc.value)


def test_every_mapped_label_is_a_project_label_or_explicitly_dropped() -> None:
    for corpus, table in TABLES.items():
        for label in table:
            mapped = map_label(corpus, label)
            assert mapped is None or isinstance(mapped, Label)


def test_readers_put_gold_spans_under_the_project_convention(tmp_path: Path) -> None:
    """ECHR's leading articles and titles go, and eds-pseudo's whole addresses become three spans,
    so a model trained on the mix sees one convention (deid.detection.convention)."""
    echr = tmp_path / "FR-manual-train.tsv"
    echr.write_text("\n".join(["le B-DATE", "3 I-DATE", "août I-DATE", "Mme B-PER", "Anne I-PER", ""]),
                    encoding="utf-8")
    (doc,) = read_corpus(echr, language="fr")
    assert _surfaces(doc) == [("3 août", "DATE"), ("Anne", "PERSON")]

    text = "Adresse : 28, rue laetitia albert, 80739 hoareau."
    rec = {"note_id": "n1", "note_text": text,
           "entities": [{"start": 10, "end": len(text) - 1, "label": "ADRESSE"}]}
    eds = tmp_path / "public_small_dev_data.jsonl"
    eds.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    (doc,) = read_corpus(eds)
    assert _surfaces(doc) == [
        ("28, rue laetitia albert", "STREET"), ("80739", "POSTCODE"), ("hoareau", "CITY")]


def test_without_the_convention_gold_is_the_corpus_own(tmp_path: Path) -> None:
    """``convention=False`` (what ``deid eval`` scores by default): titles, articles, whole
    addresses and separate first and last names stay as annotated."""
    echr = tmp_path / "x.tsv"
    echr.write_text("\n".join(["le B-DATE", "3 I-DATE", "août I-DATE", "Mme B-PER", "Anne I-PER", ""]),
                    encoding="utf-8")
    (doc,) = read_corpus(echr, language="fr", convention=False)
    assert _surfaces(doc) == [("le 3 août", "DATE"), ("Mme Anne", "PERSON")]
    text = "Vu par Jean DUPONT le 03/04/2021."
    rec = {"note_id": "n1", "note_text": text, "entities": [
        {"start": 7, "end": 11, "label": "PRENOM"}, {"start": 12, "end": 18, "label": "NOM"}]}
    eds = tmp_path / "x.jsonl"
    eds.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    (doc,) = read_corpus(eds, convention=False)
    assert _surfaces(doc) == [("Jean", "PERSON"), ("DUPONT", "PERSON")]


def test_the_language_is_given_or_read_from_the_text_never_from_the_file_name(tmp_path: Path) -> None:
    spanish = " ".join(["El paciente fue ingresado en el hospital con su madre y los hermanos, que se"
                        " quedaron para la noche por una fiebre alta."] * 4)
    path = tmp_path / "FR-manual-dev.tsv"  # a French name, a Spanish text
    path.write_text("\n".join(f"{w} O" for w in spanish.split()) + "\n", encoding="utf-8")
    (doc,) = read_corpus(path)
    assert doc.language == "es"
    with pytest.raises(CorpusFormatError, match="reads as 'es', not 'fr'"):
        read_corpus(path, language="fr")
    tiny = tmp_path / "ES-tiny.tsv"
    tiny.write_text("Dupont B-PER\n", encoding="utf-8")
    with pytest.raises(CorpusFormatError, match="cannot tell the language"):
        read_corpus(tiny)
    (doc,) = read_corpus(tiny, language="fr")  # too little text to contradict what is given
    assert doc.language == "fr"
