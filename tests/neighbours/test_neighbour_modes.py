"""Every-token mode, the neighbour surrogate strategy and export-training over the shipped table."""

import asyncio
import gzip
import io
import json
import random
import re

import numpy as np
import pytest

from deid.cli import main
from deid.events import ModelInfo, RawNote
from deid.lab.neighbours.export import pseudonymise_document
from deid.lab.synth.generator import generate_notes
from deid.labels import Label
from deid.neighbours import load_table, replace_tokens
from deid.neighbours.replace import TOKEN, match_case
from deid.neighbours.table import fold, related
from deid.settings import Settings
from deid.spans import Document, Span
from deid.store.keys import KeyHasher
from deid.store.memory import InMemoryStore
from deid.substitution import Substituter

NOTE = ("Le patient Jean DUPONT, 45 ans, a été vu le 12/03/2021 à l'hôpital de Besançon.\n"
        "Antécédents : hypertension artérielle ; traitement par amlodipine 5 mg.  Tél. 06 12 34 56 78")


SECRET = b"0123456789abcdef-test-secret"
MODEL = ModelInfo(name="t", version="0")


@pytest.fixture(scope="module")
def table():
    return load_table()


def _skeleton(text: str) -> str:
    return TOKEN.sub("#", text)


def test_artifact_loads_with_k_sorted_neighbours_that_exclude_the_word_and_its_accent_variants(table):
    assert len(table) >= 20_000 and table.k == 10
    s = table.scores.astype(np.float32)
    assert np.all(np.diff(s, axis=1) <= 1e-3)  # best first (float16 rounding)
    for w in ("paciente", "patient", "janvier", "madrid", "douleur"):
        near = table.neighbours(w, 10)
        assert near and len(near) == 10 and not any(related(w, x) for x in near)


def test_stored_neighbours_are_the_top_k_by_cosine_of_the_encoder_embeddings(table):
    from deid.ner.e5 import default_cache_dir

    cache = default_cache_dir()
    if not (cache / "model.safetensors").is_file():
        pytest.skip("the dequantized e5 cache is not built here")
    from safetensors import safe_open

    from deid.neighbours.table import DATA_DIR

    with gzip.open(DATA_DIR / "neighbours.npz.gz") as fh, np.load(io.BytesIO(fh.read())) as z:
        ids = z["piece_ids"]
    with safe_open(str(cache / "model.safetensors"), "np") as f:
        vec = f.get_tensor("embeddings.word_embeddings.weight")[ids].astype(np.float32)
    vec /= np.linalg.norm(vec, axis=1, keepdims=True)
    for i in random.Random(3).sample(range(len(table)), 25):
        sim = vec @ vec[i]
        top = np.argsort(-sim)[:200]
        sim[[j for j in top if j == i or related(table.words[i], table.words[j])]] = -np.inf
        stored = table.neighbour_ids(i)
        # every stored neighbour is at least as close as the best word left out (ties allowed)
        rest = np.delete(sim, stored)
        assert sim[stored].min() >= rest.max() - 1e-5
        assert list(stored) == sorted(stored, key=lambda j: -sim[j]) or np.allclose(
            sim[stored], np.sort(sim[stored])[::-1], atol=1e-5)


def test_every_token_mode_changes_every_word_and_keeps_punctuation_whitespace_and_case(table):
    out = replace_tokens(NOTE, random.Random(0), 5, table=table)
    assert _skeleton(out) == _skeleton(NOTE)
    src, dst = TOKEN.findall(NOTE), TOKEN.findall(out)
    assert len(src) == len(dst)
    for a, b in zip(src, dst, strict=True):
        assert fold(a) != fold(b)
        if a.isdigit():
            assert b.isdigit() and len(b) == len(a)
        elif len(a) > 1 and a.isupper():
            assert b.isupper()
        elif a[0].isupper():
            assert b[0].isupper() and b[1:] == b[1:].lower()
        else:
            assert b == b.lower()


def test_every_token_mode_is_deterministic_under_a_seed_and_random_otherwise(table):
    a = replace_tokens(NOTE, random.Random(7), 3, table=table)
    assert a == replace_tokens(NOTE, random.Random(7), 3, table=table)
    assert a != replace_tokens(NOTE, random.Random(8), 3, table=table)


def test_known_words_move_only_within_their_n_nearest_neighbours(table):
    rng = random.Random(1)
    for n in (1, 3, 7):
        allowed = set(table.neighbours("douleur", n) or [])
        seen = {replace_tokens("douleur", rng, n, table=table) for _ in range(200)}
        assert seen <= allowed
        assert len(seen) == n  # 200 draws over n <= 7 choices: each appears (p of a miss < 1e-10)
    with pytest.raises(ValueError):
        replace_tokens("x", rng, 11, table=table)
    with pytest.raises(ValueError):
        replace_tokens("x", rng, 0, table=table)


def test_case_style_follows_the_source():
    assert match_case("DUPONT", "martin") == "MARTIN"
    assert match_case("Dupont", "martin") == "Martin"
    assert match_case("dupont", "martin") == "martin"


def _substituter(seed: int = 0) -> Substituter:
    settings = Settings(strategies={"PER": "neighbour", "CITY": "neighbour", "ID_PATIENT": "neighbour"})
    return Substituter(InMemoryStore(), KeyHasher(SECRET), settings, random.Random(seed))


def test_neighbour_strategy_is_memoized_per_patient_across_notes():
    sub = _substituter()
    t1 = "Mme Jeanne Dupont habite Besançon, IPP 8812345."
    t2 = "Revue ce jour : Jeanne Dupont, IPP 8812345, de Besançon."
    s1 = [Span(4, 17, Label.PATIENT), Span(25, 33, Label.CITY), Span(39, 46, Label.ID_PATIENT)]
    s2 = [Span(16, 29, Label.PATIENT), Span(35, 42, Label.ID_PATIENT), Span(47, 55, Label.CITY)]
    notes = [RawNote(event_id=f"e{i}", patient_id="p1", language="fr", text=t)
             for i, t in enumerate((t1, t2))]
    out = asyncio.run(sub.substitute(notes, [s1, s2], MODEL))

    def surrogates(note):  # type: ignore[no-untyped-def]
        return {sp.label: note.text[sp.start : sp.end] for sp in note.spans}

    a, b = surrogates(out[0]), surrogates(out[1])
    assert a == b
    assert {sp.strategy for sp in out[0].spans} == {"neighbour"}
    for original in ("Jeanne", "Dupont", "Besançon", "8812345"):
        assert original not in out[0].text and original not in out[1].text
    assert re.fullmatch(r"\d{7}", a["ID_PATIENT"])
    # another patient draws afresh
    other = asyncio.run(sub.substitute(
        [RawNote(event_id="e9", patient_id="p2", language="fr", text=t1)], [s1], MODEL))
    assert other[0].text != out[0].text


def test_neighbour_strategy_is_refused_for_dates_and_ages():
    with pytest.raises(ValueError):
        Substituter(InMemoryStore(), KeyHasher(SECRET),
                    Settings(strategies={"DATE": "neighbour"}), random.Random(0))


def test_pseudonymised_document_offsets_line_up_and_no_phi_surface_survives(table):
    docs = generate_notes(30, seed=5)
    for doc in docs:
        new = pseudonymise_document(doc, random.Random(2), 5, table)
        assert len(new.spans) == len(doc.spans)
        assert [s.label for s in new.spans] == [s.label for s in doc.spans]
        for old_s, new_s in zip(doc.spans, new.spans, strict=True):
            before, after = doc.text[old_s.start : old_s.end], new.text[new_s.start : new_s.end]
            assert _skeleton(before) == _skeleton(after)  # same shape, words moved
        surfaces = {doc.text[s.start : s.end] for s in doc.spans}
        for surface in surfaces:
            if len(surface) >= 4:
                assert surface not in new.text
        # the text outside the spans is untouched
        outside_old = [doc.text[a:b] for a, b in _gaps(doc)]
        outside_new = [new.text[a:b] for a, b in _gaps(new)]
        assert outside_old == outside_new


def _gaps(doc: Document) -> list[tuple[int, int]]:
    pos, out = 0, []
    for s in doc.spans:
        out.append((pos, s.start))
        pos = s.end
    return [*out, (pos, len(doc.text))]


def test_export_training_cli_writes_eds_jsonl_with_aligned_offsets(tmp_path):
    src = tmp_path / "in.jsonl"
    text = "Patient Jean Dupont né le 12/03/1950 à Besançon."
    ents = [{"start": 8, "end": 12, "label": "PRENOM"}, {"start": 13, "end": 19, "label": "NOM"},
            {"start": 26, "end": 36, "label": "DATE_NAISSANCE"}, {"start": 39, "end": 47, "label": "VILLE"}]
    record = {"note_id": "n1", "note_text": text, "entities": ents}
    src.write_text(json.dumps(record) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["export-training", str(src), "--output", str(out), "--seed", "3", "-n", "3"]) == 0
    rec = json.loads(out.read_text(encoding="utf-8"))
    assert rec["note_id"] == "n1"
    assert [e["label"] for e in rec["entities"]] == ["PERSON", "BIRTH_DATE", "CITY"]
    new = rec["note_text"]
    assert new.startswith("Patient ") and new.endswith(".")
    for e in rec["entities"]:
        assert 0 <= e["start"] < e["end"] <= len(new)
    assert re.fullmatch(r"\d\d/\d\d/\d{4}", new[rec["entities"][1]["start"] : rec["entities"][1]["end"]])
    for surface in ("Jean", "Dupont", "12/03/1950", "Besançon"):
        assert surface not in new


def test_scramble_cli_is_seeded_and_keeps_the_skeleton(tmp_path, capsys):
    f = tmp_path / "note.txt"
    f.write_text(NOTE, encoding="utf-8")
    assert main(["scramble", str(f), "--neighbours", "3", "--seed", "4"]) == 0
    first = capsys.readouterr().out
    assert main(["scramble", str(f), "--neighbours", "3", "--seed", "4"]) == 0
    assert capsys.readouterr().out == first
    assert _skeleton(first) == _skeleton(NOTE)


@pytest.mark.parametrize("argv", [
    ["scramble", "/nonexistent/note.txt"],
    ["scramble", "{note}", "--neighbours", "11"],
    ["scramble", "{bad}"],
    ["export-training", "/nonexistent.jsonl", "--output", "{out}"],
    ["export-training", "{bad_jsonl}", "--output", "{out}"],
    ["export-training", "{good_jsonl}", "--output", "{out}", "-n", "0"],
])
def test_cli_errors_are_one_line(tmp_path, capsys, argv):
    paths = {"note": tmp_path / "n.txt", "bad": tmp_path / "b.txt", "out": tmp_path / "o.jsonl",
             "bad_jsonl": tmp_path / "x.jsonl", "good_jsonl": tmp_path / "g.jsonl"}
    paths["note"].write_text("bonjour", encoding="utf-8")
    paths["bad"].write_bytes(b"\xff\xfe\xfa")
    paths["bad_jsonl"].write_text("{not json\n", encoding="utf-8")
    paths["good_jsonl"].write_text(json.dumps({"note_text": "a", "entities": []}) + "\n", encoding="utf-8")
    assert main([a.format(**{k: str(v) for k, v in paths.items()}) for a in argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("deid ") and "\n" not in err and "Traceback" not in err
