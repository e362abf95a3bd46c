"""Concept-extraction scoring (``deid.lab.eval.concepts``) and ``deid eval --task concepts`` end to end.

Every expected figure is worked out by hand in the comments, not by the code under test. The CLI
tests put a fake ``deid.concepts.tagger`` module in ``sys.modules``: the command's lazy import
finds it, so neither torch nor a model is loaded.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types
from collections.abc import Sequence
from pathlib import Path

import pytest
from test_eval_cli import one_line_error

from deid.cli import build_parser, main
from deid.concepts import CONCEPT_TYPES, Concept
from deid.lab.corpora.conll import read_conll
from deid.lab.eval.concepts import ConceptEvaluator, ConceptReport, ConceptScore, evaluate_concepts

NORM, NOTNORM, PROT = "NORMALIZABLES", "NOTNORMALIZABLES", "PROTEINAS"


def figures(s: ConceptScore) -> tuple[int, int, int, float, float, float]:
    return s.n_gold, s.n_pred, s.found, round(s.precision, 3), round(s.recall, 3), round(s.f1, 3)


# ---------------------------------------------------------------- scoring


def test_three_gold_two_predicted_one_exact() -> None:
    gold = [Concept(5, 16, NORM), Concept(19, 29, NORM), Concept(34, 42, PROT)]
    # one exact; one on the offsets of the protein but typed NORMALIZABLES (wrong type: no match)
    pred = [Concept(5, 16, NORM, 0.9), Concept(34, 42, NORM, 0.8)]
    report = evaluate_concepts([gold], [pred])
    # NORMALIZABLES: gold 2, pred 2, tp 1 -> P 1/2, R 1/2, F1 1/2
    assert figures(report.strict[NORM]) == (2, 2, 1, 0.5, 0.5, 0.5)
    # PROTEINAS: gold 1, pred 0 -> P 0 (nothing predicted: 0, not an error), R 0, F1 0
    assert figures(report.strict[PROT]) == (1, 0, 0, 0.0, 0.0, 0.0)
    assert figures(report.strict[NOTNORM]) == (0, 0, 0, 0.0, 0.0, 0.0)
    assert list(report.strict) == list(CONCEPT_TYPES)
    # micro: gold 3, pred 2, tp 1 -> P 0.5, R 0.333, F1 2 * 0.5 * (1/3) / (0.5 + 1/3) = 0.4
    assert figures(report.micro) == (3, 2, 1, 0.5, 0.333, 0.4)
    # relaxed: gold 5-16 and 34-42 are overlapped (the latter by the wrong type), 19-29 is not:
    # found 2/3; both predictions overlap gold: correct 2/2 -> P 1, R 0.667, F1 2*(2/3)/(5/3) = 0.8
    r = report.relaxed
    assert (r.n_gold, r.n_pred, r.found, r.correct) == (3, 2, 2, 2)
    assert (round(r.precision, 3), round(r.recall, 3), round(r.f1, 3)) == (1.0, 0.667, 0.8)


def test_a_prediction_counts_once_and_boundaries_must_be_exact() -> None:
    gold = [Concept(0, 8, PROT), Concept(11, 23, NORM)]
    pred = [
        Concept(0, 8, PROT, 0.9),
        Concept(0, 8, PROT, 0.6),  # the same mention twice: one prediction, one true positive
        Concept(11, 16, NORM),  # a boundary short of the gold end: wrong strictly, right relaxed
    ]
    report = evaluate_concepts([gold], [pred])
    # PROTEINAS: gold 1, pred 1, tp 1 -> 1, 1, 1; NORMALIZABLES: gold 1, pred 1, tp 0 -> 0, 0, 0
    assert figures(report.strict[PROT]) == (1, 1, 1, 1.0, 1.0, 1.0)
    assert figures(report.strict[NORM]) == (1, 1, 0, 0.0, 0.0, 0.0)
    # micro: gold 2, pred 2, tp 1 -> 0.5, 0.5, 0.5
    assert figures(report.micro) == (2, 2, 1, 0.5, 0.5, 0.5)
    # relaxed: both gold overlapped, both predictions overlap -> 1, 1, 1
    assert figures(report.relaxed) == (2, 2, 2, 1.0, 1.0, 1.0)


def test_empty_predictions_score_zero_without_a_division_error() -> None:
    report = evaluate_concepts([[Concept(0, 4, NORM)], [Concept(2, 9, PROT)]], [[], []])
    # gold 2, pred 0, tp 0: P defined as 0, R 0/2 = 0, F1 0
    assert figures(report.micro) == (2, 0, 0, 0.0, 0.0, 0.0)
    assert figures(report.relaxed) == (2, 0, 0, 0.0, 0.0, 0.0)
    nothing = evaluate_concepts([[]], [[]])  # nothing on either side
    assert figures(nothing.micro) == (0, 0, 0, 0.0, 0.0, 0.0)
    assert "micro" in nothing.to_table()


def test_sentences_are_matched_apart_and_pooled() -> None:
    # the same offsets in two different sentences are not a match
    evaluator = ConceptEvaluator()
    evaluator.add([Concept(0, 4, NORM)], [])
    evaluator.add([], [Concept(0, 4, NORM)])
    evaluator.add([Concept(3, 7, PROT)], [Concept(3, 7, PROT)])
    report = evaluator.report()
    # NORMALIZABLES: gold 1, pred 1, tp 0; PROTEINAS: 1, 1, 1; micro gold 2, pred 2, tp 1
    assert figures(report.strict[NORM]) == (1, 1, 0, 0.0, 0.0, 0.0)
    assert figures(report.micro) == (2, 2, 1, 0.5, 0.5, 0.5)
    assert figures(report.relaxed) == (2, 2, 1, 0.5, 0.5, 0.5)


def test_a_type_outside_the_known_ones_gets_its_own_row_after_them() -> None:
    report = evaluate_concepts([[Concept(0, 3, NORM)]], [[Concept(0, 3, "UNCLEAR")]])
    assert list(report.strict) == [*CONCEPT_TYPES, "UNCLEAR"]
    assert figures(report.strict["UNCLEAR"]) == (0, 1, 0, 0.0, 0.0, 0.0)
    assert figures(report.micro) == (1, 1, 0, 0.0, 0.0, 0.0)


def test_an_i_tag_that_does_not_continue_an_entity_starts_one(tmp_path: Path) -> None:
    path = tmp_path / "i.conll"
    # "insulina y ácido fólico": an I- opening the sentence, and an I- of another type after a B-
    path.write_text(
        "insulina\tI-PROTEINAS\ny\tO\nácido\tB-NORMALIZABLES\nfólico\tI-PROTEINAS\n", encoding="utf-8"
    )
    (sentence,) = read_conll(path)
    assert sentence.text == "insulina y ácido fólico"
    # offsets: insulina 0-8, y 9-10, ácido 11-16, fólico 17-23; conlleval reads three mentions
    assert sentence.concepts == (Concept(0, 8, PROT), Concept(11, 16, NORM), Concept(17, 23, PROT))
    pred = [Concept(0, 8, PROT), Concept(11, 23, NORM)]  # "ácido fólico" read as one drug
    report = evaluate_concepts([sentence.concepts], [pred])
    # PROTEINAS: gold 2, pred 1, tp 1 -> P 1, R 0.5, F1 2*0.5/1.5 = 0.667
    assert figures(report.strict[PROT]) == (2, 1, 1, 1.0, 0.5, 0.667)
    # NORMALIZABLES: gold 1 (11-16), pred 1 (11-23), tp 0
    assert figures(report.strict[NORM]) == (1, 1, 0, 0.0, 0.0, 0.0)
    # micro: gold 3, pred 2, tp 1 -> 0.5, 0.333, 0.4; relaxed: all 3 gold overlapped, both
    # predictions overlap -> P 1, R 1, F1 1
    assert figures(report.micro) == (3, 2, 1, 0.5, 0.333, 0.4)
    assert figures(report.relaxed) == (3, 2, 3, 1.0, 1.0, 1.0)


def test_report_json_round_trip_and_table() -> None:
    report = evaluate_concepts([[Concept(0, 4, NORM), Concept(6, 9, PROT)]], [[Concept(0, 4, NORM)]])
    data = json.loads(report.to_json())
    assert data["task"] == "concepts"
    assert data["strict"]["micro"]["precision"] == 1.0 and data["strict"]["micro"]["recall"] == 0.5
    assert ConceptReport.from_dict(data) == report
    table = report.to_table()
    # micro: gold 2, pred 1, tp 1 -> P 1, R 0.5, F1 0.667
    assert re.search(r"^micro\s+2\s+1\s+1\s+1\.000\s+0\.500\s+0\.667$", table, re.M), table
    assert re.search(r"^PROTEINAS\s+1\s+0\s+0\s+0\.000\s+0\.000\s+0\.000$", table, re.M), table
    with pytest.raises(ValueError, match="2 gold sentences but 1"):
        evaluate_concepts([[], []], [[]])


# ---------------------------------------------------------------- the command

CONLL = """Tomaba\tO
paracetamol\tB-NORMALIZABLES
e\tO
insulina\tB-PROTEINAS
.\tO

Se\tO
pautó\tO
ácido\tB-NORMALIZABLES
fólico\tI-NORMALIZABLES
.\tO

Sin\tO
heparina\tB-NORMALIZABLES
.\tO
"""

LEXICON = {"paracetamol": NORM, "insulina": PROT, "fólico": NORM}


class LexiconTagger:
    """Tags the words of ``LEXICON`` and nothing else: finds paracetamol and insulina, tags only
    "fólico" of "ácido fólico" and misses heparina."""

    model_version = "fake-lexicon 0"

    def __init__(self) -> None:
        self.batches: list[int] = []

    def tag(self, texts: Sequence[str]) -> list[list[Concept]]:
        self.batches.append(len(texts))
        out = []
        for text in texts:
            out.append([Concept(m.start(), m.end(), LEXICON[m.group()], 0.9)
                        for m in re.finditer(r"\w+", text) if m.group() in LEXICON])
        return out

    tag_sentences = tag


class FakeTaggerModule(types.ModuleType):
    class ConceptsUnavailable(ValueError):
        pass

    def __init__(self) -> None:
        super().__init__("deid.concepts.tagger")
        self.tagger = LexiconTagger()
        self.loaded_from: list[Path | None] = []
        self.has_head = True

    def load_concept_tagger(self, path: Path | None = None) -> LexiconTagger:
        self.loaded_from.append(path)
        if not self.has_head:
            raise self.ConceptsUnavailable(f"{path or 'deid/models/default'}: this model has no concept head")
        return self.tagger


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeTaggerModule:
    module = FakeTaggerModule()
    monkeypatch.setitem(sys.modules, "deid.concepts.tagger", module)
    return module


@pytest.fixture
def conll(tmp_path: Path) -> Path:
    path = tmp_path / "dev.conll"
    path.write_text(CONLL, encoding="utf-8")
    return path


def test_table_per_type_and_overall(
    conll: Path, fake: FakeTaggerModule, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", "--task", "concepts", str(conll)]) == 0
    out, err = capsys.readouterr()
    assert fake.loaded_from == [None]  # the shipped model
    assert "3 sentences" in out and "fake-lexicon 0" in out
    # NORMALIZABLES: gold 3 (paracetamol, ácido fólico, heparina), pred 2 (paracetamol, fólico),
    # tp 1 -> P 0.5, R 0.333, F1 0.4; PROTEINAS: insulina 1, 1, 1
    assert re.search(r"^NORMALIZABLES\s+3\s+2\s+1\s+0\.500\s+0\.333\s+0\.400$", out, re.M), out
    assert re.search(r"^PROTEINAS\s+1\s+1\s+1\s+1\.000\s+1\.000\s+1\.000$", out, re.M), out
    # micro: gold 4, pred 3, tp 2 -> P 0.667, R 0.5, F1 2*(2/3)*(1/2)/(7/6) = 4/7 = 0.571
    assert re.search(r"^micro\s+4\s+3\s+2\s+0\.667\s+0\.500\s+0\.571$", out, re.M), out
    # relaxed: fólico overlaps ácido fólico: gold found 3/4, predictions correct 3/3
    assert "gold found 3/4, predictions correct 3/3" in out
    assert "deid eval: 3/3 sentences" in err


def test_json_to_output_with_limit_batches_and_model(
    tmp_path: Path, conll: Path, fake: FakeTaggerModule, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "model"
    model.mkdir()
    out_file = tmp_path / "report.json"
    argv = ["eval", str(conll), "--task", "concepts", "--json", "--output", str(out_file),
            "--limit", "2", "--batch-size", "1", "--model", str(model)]
    assert main(argv) == 0
    assert capsys.readouterr().out == ""
    assert fake.loaded_from == [model] and fake.tagger.batches == [1, 1]
    data = json.loads(out_file.read_text(encoding="utf-8"))
    assert data["run"]["n_sentences"] == 2 and data["run"]["tagger_version"] == "fake-lexicon 0"
    # first two sentences: gold 3 (paracetamol, insulina, ácido fólico), pred 3, tp 2 -> 2/3 each
    micro = data["strict"]["micro"]
    assert (micro["n_gold"], micro["n_pred"], micro["correct"]) == (3, 3, 2)
    assert round(micro["f1"], 3) == 0.667
    assert data["strict"]["types"][PROT]["f1"] == 1.0

    assert main(["eval", str(conll), "--task", "concepts", "--json", "--batch-size", "2"]) == 0
    assert fake.tagger.batches[2:] == [2, 1]
    assert json.loads(capsys.readouterr().out)["strict"]["micro"]["n_gold"] == 4


def test_the_default_task_is_deid_and_help_says_what_each_task_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert build_parser().parse_args(["eval", "corpus"]).task == "deid"
    with pytest.raises(SystemExit) as exc:
        main(["eval", "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--task {deid,concepts}" in text
    assert "concept extraction against a CoNLL file" in text
    assert "deid, PHI detection against" in text and "--task concepts: run the concept tagger" in text


@pytest.mark.parametrize(
    ("options", "flag"),
    [
        (["--rules-only"], "--rules-only"),
        (["--format", "brat"], "--format"),
        (["--lang", "es"], "--lang"),
        (["--labels", "DATE"], "--labels"),
        (["--scheme"], "--scheme"),
        (["--convention"], "--convention"),
        (["--backend", "onnx"], "--backend"),
        (["--min-phi-prob", "0.3"], "--min-phi-prob"),
    ],
)
def test_deid_only_options_are_a_one_line_error(
    conll: Path, fake: FakeTaggerModule, capsys: pytest.CaptureFixture[str], options: list[str], flag: str
) -> None:
    assert main(["eval", str(conll), "--task", "concepts", *options]) == 2
    assert f"{flag} applies to --task deid only" in one_line_error(capsys)
    assert fake.loaded_from == []


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "missing.conll: no such file or directory"),
        ("paracetamol\tB-NORMALIZABLES\nsolo\n", "bad.conll:2: expected 'token<TAB>tag'"),
        ("paracetamol\tB_NORMALIZABLES\n", "bad.conll:1: tag is not BIO"),
        ("\n\n", "bad.conll: no sentence found"),
        (b"\xe9t\xe9\tO\n", "bad.conll: not UTF-8 text"),
    ],
    ids=["missing", "no-tag", "not-bio", "empty", "latin1"],
)
def test_bad_input_is_a_one_line_error(
    tmp_path: Path,
    fake: FakeTaggerModule,
    capsys: pytest.CaptureFixture[str],
    content: str | bytes | None,
    expected: str,
) -> None:
    path = tmp_path / ("missing.conll" if content is None else "bad.conll")
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    assert main(["eval", "--task", "concepts", str(path)]) == 2
    assert expected in one_line_error(capsys)
    assert fake.loaded_from == []  # the corpus is checked before the model is loaded


def test_a_directory_a_missing_model_and_an_unwritable_output_are_one_line_errors(
    tmp_path: Path, conll: Path, fake: FakeTaggerModule, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", "--task", "concepts", str(tmp_path)]) == 2
    assert "not a CoNLL file" in one_line_error(capsys)
    assert main(["eval", "--task", "concepts", str(conll), "--model", str(tmp_path / "nope")]) == 2
    assert "no model at" in one_line_error(capsys)
    assert main(["eval", "--task", "concepts", str(conll), "--output", str(tmp_path / "no" / "r.json")]) == 2
    assert "cannot write report" in one_line_error(capsys)


def test_a_model_without_a_concept_head_is_a_one_line_error(
    conll: Path, fake: FakeTaggerModule, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.has_head = False
    assert main(["eval", "--task", "concepts", str(conll)]) == 2
    assert one_line_error(capsys) == (
        "deid eval: error: deid/models/default: this model has no concept head"
    )


def test_the_real_entry_point_exits_2_without_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.conll"
    bad.write_text("paracetamol\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "deid", "eval", "--task", "concepts", str(bad)],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"deid eval: error: {bad}:1: expected 'token<TAB>tag'"


def test_an_installation_without_the_tagger_is_a_one_line_error(
    conll: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "deid.concepts.tagger", None)  # import raises ImportError
    assert main(["eval", "--task", "concepts", str(conll)]) == 2
    assert "concept extraction is not available" in one_line_error(capsys)


def _shipped_concept_head() -> bool:
    from deid.concepts.model import CONFIG_KEY
    from deid.ner import DEFAULT_MODEL_DIR

    config = DEFAULT_MODEL_DIR / "config.json"
    return config.is_file() and CONFIG_KEY in json.loads(config.read_text(encoding="utf-8"))


SAMPLE = Path(__file__).parent / "data" / "pharmaconer-dev-sample.conll"


@pytest.mark.skipif(not _shipped_concept_head(), reason="the shipped model has no concept head")
def test_the_shipped_tagger_on_held_out_pharmaconer_sentences(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real tagger (deid/models/default), through the command, on the first 40 sentences of a
    PharmaCoNER dev sample (58 mentions; the head is trained on the train split only)."""
    out = tmp_path / "report.json"
    argv = ["eval", "--task", "concepts", str(SAMPLE), "--limit", "40", "--json", "--output", str(out)]
    assert main(argv) == 0, capsys.readouterr().err
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["run"]["n_sentences"] == 40
    micro = data["strict"]["micro"]
    assert micro["n_gold"] == 58
    assert micro["f1"] > 0.5, micro
