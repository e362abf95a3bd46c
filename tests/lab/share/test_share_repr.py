"""Shareable training representations (issue 35): the file, the CLI, the three-phase trainer and
the privacy test, on a toy word table (tiny dimensions, seeded)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from safetensors import safe_open

from deid.cli import main
from deid.lab.share.attack import AttackConfig, attack_pairs, attack_recovery, wilson
from deid.lab.share.model import IdentityRepresentation, ReprDims, Representation, frozen_embedding
from deid.lab.share.neighbours import nearest_rows
from deid.lab.share.reprfile import max_cosine_to_rows, read_repr_file
from deid.lab.share.store import load_representation, save_representation
from deid.lab.share.train import ReprTrainConfig, train_representation
from deid.lab.share.units import WordUnits, segment_corpus, segment_document
from deid.ner.text import TAG2ID
from deid.spans import Document

from .toy import toy_corpus, toy_units


def _write_eds(path: Path, docs: list[Document]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for d in docs:
            ents = [{"start": s.start, "end": s.end, "label": "NOM"} for s in d.spans]
            fh.write(json.dumps({"note_id": d.doc_id, "note_text": d.text, "entities": ents}) + "\n")


@pytest.fixture(scope="module", autouse=True)
def one_thread() -> None:
    # tiny LSTMs: one thread is fastest, and more only fight the other jobs of a shared machine
    torch.set_num_threads(1)


@pytest.fixture(scope="module")
def wide() -> tuple[WordUnits, list[str]]:
    # 64 columns: in 32 dimensions a random vector lands within cosine 0.95 of a row with odds
    # ~1e-16, so the 0.95 check below measures the mechanism, not chance
    return toy_units(seed=3, dim=64)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory, wide: tuple[WordUnits, list[str]]) -> Path:
    units, names = wide
    segments = segment_corpus(units, toy_corpus(names, 100, seed=2))
    index = nearest_rows(
        units.embeddings, {int(i) for s in segments for i in s.ids[s.phi]}, 20, units.special_ids()
    )
    cfg = ReprTrainConfig(
        dims=ReprDims(dim=32, hidden=16),
        head_hidden=16,
        adversary_hidden=16,
        batch_size=16,
        lr=5e-3,
        pretrain_epochs=5,
        adversary_epochs=1,
        alternate_epochs=1,
    )
    represent = train_representation(units, segments, index, cfg).represent
    out = tmp_path_factory.mktemp("repr")
    save_representation(represent, units, out, model_id="toy-repr-d32", max_len=64, extra={})
    return out


def test_segments_cut_at_sentence_ends_and_tag_phi_units(wide: tuple[WordUnits, list[str]]) -> None:
    units, names = wide
    doc = toy_corpus(names, 1, seed=5)[0]
    segments = segment_document(units, doc)
    assert len(segments) == 3  # three template sentences, one per line
    tagged = [int(t) for s in segments for t in s.tags if t != TAG2ID["O"]]
    assert len(tagged) == len(doc.spans)  # one unit per toy name, each B- of its label
    assert all(t == TAG2ID["B-" + s.label.value] for t, s in zip(tagged, doc.spans, strict=True))


def test_neighbours_are_the_nearest_rows_by_cosine_without_self_or_excluded() -> None:
    rng = np.random.default_rng(0)
    table = rng.normal(size=(300, 12)).astype(np.float32)
    index = nearest_rows(table, [5, 17], 100, excluded=[0], chunk=1)
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    for i in (5, 17):
        sim = unit @ unit[i]
        sim[[i, 0]] = -np.inf
        assert list(index.neighbours[index.row[i]]) == list(np.argsort(-sim, kind="stable")[:100])


def test_round_trip_file_holds_no_unit_id_no_text_and_no_embedding_row(
    tmp_path: Path, wide: tuple[WordUnits, list[str]], model_dir: Path
) -> None:
    units, names = wide
    docs = toy_corpus(names, 20, seed=7)
    corpus, out = tmp_path / "notes.jsonl", tmp_path / "notes.repr"
    _write_eds(corpus, docs)
    assert main(["share-repr", str(corpus), "--model", str(model_dir), "-o", str(out), "--seed", "1"]) == 0

    with safe_open(str(out), "np") as f:
        assert set(f.keys()) == {"vectors", "labels", "offsets"}
        assert f.get_tensor("vectors").dtype == np.float16
        assert set(np.unique(f.get_tensor("labels")).tolist()) <= set(TAG2ID.values())
    raw = out.read_bytes()
    segments = segment_corpus(units, [d for d in docs], 64)
    for s in segments:  # no run of three unit ids, in any integer width
        for dtype in (np.int64, np.int32, np.int16):
            for k in range(len(s) - 2):
                assert s.ids[k : k + 3].astype(dtype).tobytes() not in raw
    for d in docs:  # no substring of 4+ characters of the text (4 suffices: longer ones contain one)
        for k in range(len(d.text) - 3):
            piece = d.text[k : k + 4]
            if piece.strip():
                assert piece.encode("utf-8") not in raw, "a 4-character piece of the source text"
    shared = read_repr_file(out)
    assert shared.model_id == "toy-repr-d32"
    assert shared.model_sha256 == load_representation(model_dir).sha256
    assert sum(len(v) for v in shared.vectors) == sum(len(s) for s in segments)
    assert max_cosine_to_rows(np.concatenate(shared.vectors), units.embeddings) < 0.95


def test_embedding_row_check_catches_a_file_of_raw_embeddings(wide: tuple[WordUnits, list[str]]) -> None:
    units, names = wide
    segments = segment_corpus(units, toy_corpus(names, 3, seed=7))
    leaked = IdentityRepresentation(frozen_embedding(units.embeddings))(torch.from_numpy(segments[0].ids))
    assert max_cosine_to_rows(leaked.numpy(), units.embeddings) > 0.999
    assert max_cosine_to_rows(leaked.numpy()[:, :32], units.embeddings) > 0.999  # a truncated copy too


def test_share_repr_refuses_a_corpus_without_annotations(
    tmp_path: Path, wide: tuple[WordUnits, list[str]], model_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, names = wide
    corpus, out = tmp_path / "bare.jsonl", tmp_path / "bare.repr"
    _write_eds(corpus, toy_corpus(names, 3, seed=7, annotated=False))
    assert main(["share-repr", str(corpus), "--model", str(model_dir), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no PHI annotation" in err
    assert not out.exists()


def test_head_trained_only_from_representation_files_tags_the_toy_corpus(
    tmp_path: Path, wide: tuple[WordUnits, list[str]], model_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, names = wide
    files = []
    for site in (1, 2):  # two hospitals, one file each
        corpus, out = tmp_path / f"site{site}.jsonl", tmp_path / f"site{site}.repr"
        _write_eds(corpus, toy_corpus(names, 30, seed=10 + site))
        assert (
            main(["share-repr", str(corpus), "--model", str(model_dir), "-o", str(out), "--seed", str(site)])
            == 0
        )
        files.append(str(out))
    dev = tmp_path / "dev.jsonl"
    _write_eds(dev, toy_corpus(names, 15, seed=99))
    capsys.readouterr()
    head = tmp_path / "head"
    assert (
        main(
            [
                "train",
                "--from-repr",
                *files,
                "--out",
                str(head),
                "--repr-model",
                str(model_dir),
                "--dev",
                str(dev),
                "--head-epochs",
                "40",
                "--head-hidden",
                "16",
            ]
        )
        == 0
    )
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("dev "))
    f1 = float(line.split("F1=")[1].split()[0])
    assert f1 >= 0.9, line  # the names are told by their context, which the representation keeps
    assert (
        json.loads((head / "head.json").read_text())["repr_model_sha256"]
        == load_representation(model_dir).sha256
    )


def test_wilson_interval_matches_the_closed_form() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


# --- the privacy test on the toy table: names clustered, so their neighbours are names ---------

ATTACK = AttackConfig(epochs=20, hidden=16, batch_size=16, lr=5e-3)
# Tolerance: 244 held-out pairs; at a true accuracy of 1/2 the standard deviation is 0.032, so a
# trained representation must keep both attackers <= 0.60 (3 sd), a broken one lets them reach
# >= 0.85; the recovery attacker's chance is 10/154 = 0.065, bound 0.20 for the trained one.
NEAR_CHANCE, CAUGHT = 0.60, 0.85


@pytest.fixture(scope="module")
def toy_task() -> tuple[WordUnits, list, list, object]:
    units, names = toy_units()
    train = segment_corpus(units, toy_corpus(names, 150, seed=1))
    test = segment_corpus(units, toy_corpus(names, 60, seed=2))
    phi = {int(i) for s in train + test for i in s.ids[s.phi]}
    return units, train, test, nearest_rows(units.embeddings, phi, 20, units.special_ids())


def _train(toy_task: tuple, alternate_epochs: int) -> Representation:
    units, train, _, index = toy_task
    cfg = ReprTrainConfig(
        dims=ReprDims(dim=8, hidden=16),
        head_hidden=16,
        adversary_hidden=16,
        batch_size=16,
        lr=5e-3,
        pretrain_epochs=3,
        adversary_epochs=3,
        alternate_epochs=alternate_epochs,
    )
    return train_representation(units, train, index, cfg).represent


def test_privacy_test_catches_a_noiseless_identity_representation(toy_task: tuple) -> None:
    units, train, test, index = toy_task
    embedding = frozen_embedding(units.embeddings)
    identity = IdentityRepresentation(embedding)
    t1, t2 = attack_pairs(identity, embedding, train, test, index, ATTACK)
    assert t1.accuracy >= CAUGHT and t2.accuracy >= CAUGHT, (t1.line(), t2.line())
    assert attack_recovery(identity, units.embeddings, train, test, ATTACK).accuracy >= 0.9


def test_three_phase_training_brings_fresh_adversaries_to_chance(toy_task: tuple) -> None:
    units, train, test, index = toy_task
    embedding = frozen_embedding(units.embeddings)
    # without the adversarial phases the representation gives the neighbour swap away ...
    plain = _train(toy_task, alternate_epochs=0)
    t1, t2 = attack_pairs(plain, embedding, train, test, index, ATTACK)
    assert max(t1.accuracy, t2.accuracy) > NEAR_CHANCE, (t1.line(), t2.line())
    # ... and after them fresh attackers on the frozen representation are near chance
    trained = _train(toy_task, alternate_epochs=8)
    t1, t2 = attack_pairs(trained, embedding, train, test, index, ATTACK)
    assert t1.accuracy <= NEAR_CHANCE and t2.accuracy <= NEAR_CHANCE, (t1.line(), t2.line())
    assert attack_recovery(trained, units.embeddings, train, test, ATTACK).accuracy <= 0.20


def test_runtime_path_does_not_import_the_lab_package() -> None:
    import subprocess
    import sys

    code = (
        "import sys, deid.pipeline, deid.cli; deid.cli.build_parser(); print('deid.lab.share' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# --- the noise floor and the recovery adversary (issue 35, second round) -----------------------


def _small_cfg(**kw: object) -> ReprTrainConfig:
    base: dict = dict(
        dims=ReprDims(dim=8, hidden=16),
        head_hidden=16,
        adversary_hidden=16,
        batch_size=16,
        lr=2e-2,  # a large step: the tagging loss pulls the deviations down fast
        pretrain_epochs=2,
        adversary_epochs=1,
        alternate_epochs=1,
        recovery_weight=1.0,  # the recovery adversary's path runs too (off by default)
    )
    base.update(kw)
    return ReprTrainConfig(**base)  # type: ignore[arg-type]


def test_noise_floor_holds_through_training_and_the_saved_model(tmp_path: Path, toy_task: tuple) -> None:
    units, train, _, index = toy_task
    free = train_representation(units, train[:200], index, _small_cfg()).represent
    # without a floor the training learns the noise away (else the floor below proves nothing)
    assert float(free.in_noise.log_sigma.exp().min()) < 0.1
    floor = ReprDims(dim=8, hidden=16, noise_floor=0.1)
    held = train_representation(units, train[:200], index, _small_cfg(dims=floor)).represent
    for noise in (held.in_noise, held.out_noise):
        # the parameter itself is projected back, not only the value used in the forward pass
        assert float(noise.log_sigma.exp().min()) >= 0.1 * (1 - 1e-6)
    save_representation(held, units, tmp_path, model_id="toy-floor", max_len=64, extra={})
    loaded = load_representation(tmp_path).represent
    assert loaded.in_noise.floor == loaded.out_noise.floor == pytest.approx(0.1)
    with torch.no_grad():  # a deviation set below the floor from outside is still clamped
        loaded.in_noise.log_sigma.fill_(-20.0)
    assert float(loaded.in_noise.sigma().min()) == pytest.approx(0.1)


def test_recovery_term_hides_the_unit_among_its_neighbours_and_a_flipped_sign_reveals_it(
    toy_task: tuple,
) -> None:
    """The representation's recovery term, against a fixed adversary trained to read units back:
    with its sign, steps on it lower how often the adversary's guess is nearer the true unit's
    row than a neighbour's; flipped, the same steps make the unit easier to single out."""
    import copy

    from deid.lab.share.model import Recovery
    from deid.lab.share.pairs import make_batch, neighbour_targets, with_phi
    from deid.lab.share.train import cosine_miss, decoy_loss

    units, train, _, index = toy_task
    segs = with_phi(train, index)[:96]
    chunks = [segs[k : k + 16] for k in range(0, len(segs), 16)]
    torch.manual_seed(0)
    emb = frozen_embedding(units.embeddings)
    table = torch.nn.functional.normalize(emb.weight, dim=1)
    represent = Representation(emb, ReprDims(dim=8, hidden=16)).requires_grad_(False)
    rec = Recovery(8, 16, emb.embedding_dim)
    opt = torch.optim.Adam(rec.parameters(), lr=1e-2)
    gen = torch.Generator().manual_seed(0)
    for step in range(100):  # the adversary, as in phase 2
        b = make_batch(chunks[step % len(chunks)])
        loss = cosine_miss(rec(represent(b.ids, gen)), table[b.ids])[b.mask].mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    rec.requires_grad_(False)

    def singled_out(r: torch.nn.Module) -> float:
        """Share of (PHI unit, neighbour) pairs where the guess is nearer the unit (1/2: hidden)."""
        g2, wins = torch.Generator().manual_seed(1), []
        with torch.no_grad():
            for c in chunks:
                b = make_batch(c)
                where, _ = neighbour_targets(c, b, index, np.random.default_rng(0))
                guess = torch.nn.functional.normalize(rec(r(b.ids, g2))[where], dim=-1)
                true = b.ids[where]
                nb = torch.from_numpy(np.stack([index.neighbours[index.row[int(t)]] for t in true]))
                near_true = (guess * table[true]).sum(-1, keepdim=True)
                wins.append((near_true > torch.einsum("pd,pnd->pn", guess, table[nb])).float().mean(1))
        return float(torch.cat(wins).mean())

    def after_steps(sign: float) -> float:
        r = copy.deepcopy(represent).requires_grad_(True)
        r.embedding.weight.requires_grad_(False)
        o = torch.optim.Adam([p for p in r.parameters() if p.requires_grad], lr=1e-2)
        rng, g3 = np.random.default_rng(0), torch.Generator().manual_seed(2)
        for step in range(30):  # representation steps on the recovery term alone
            c = chunks[step % len(chunks)]
            b = make_batch(c)
            where, drawn = neighbour_targets(c, b, index, rng)
            loss = sign * decoy_loss(rec, r(b.ids, g3), where, drawn, table)
            o.zero_grad()
            loss.backward()
            o.step()
        return singled_out(r)

    before, right, flipped = singled_out(represent), after_steps(1.0), after_steps(-1.0)
    # measured 0.47 -> 0.37 (right) and 0.61 (flipped); 0.05 is well inside both gaps
    assert right < before - 0.05, (before, right)
    assert flipped > before + 0.05, (before, flipped)


def test_attack_cli_reports_recovery_per_distinct_unit_and_the_no_information_prior(
    tmp_path: Path, wide: tuple[WordUnits, list[str]], model_dir: Path
) -> None:
    units, names = wide
    train_docs, eval_docs = toy_corpus(names, 30, seed=21), toy_corpus(names, 10, seed=22)
    corpus, held, out = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "scores.json"
    _write_eds(corpus, train_docs)
    _write_eds(held, eval_docs)
    args = ["repr-lab", "attack", "--model", str(model_dir), "--corpus", str(corpus), "--eval", str(held)]
    assert main([*args, "--epochs", "1", "--neighbours", "20", "--hidden", "8", "--json", str(out)]) == 0
    scores = {s["name"]: s for s in json.loads(out.read_text())["scores"]}
    assert len(scores) == 6
    # the prior guesses the 10 most frequent PHI units of the attacker's corpus, whatever it sees
    phi_train = [int(i) for s in segment_corpus(units, train_docs) for i in s.ids[s.phi]]
    frequent = {u for u, _ in Counter(phi_train).most_common(10)}
    phi_eval = [int(i) for s in segment_corpus(units, eval_docs) for i in s.ids[s.phi]]
    prior = scores["prior, no representation (top-10, PHI units)"]
    assert prior["total"] == len(phi_eval)  # fewer than --max-eval: every occurrence scored
    assert prior["correct"] == sum(i in frequent for i in phi_eval)
    per_unit = scores["prior, no representation (top-10, distinct PHI units)"]
    assert per_unit["total"] == len(set(phi_eval)) and per_unit["correct"] <= 10
    assert scores["token recovery (top-10, distinct PHI units)"]["total"] == len(set(phi_eval))


# --- adversary steps per representation step (issue 35, sixth stop) ----------------------------


def _optimizer_steps(
    monkeypatch: pytest.MonkeyPatch, toy_task: tuple, **kw: object
) -> tuple[int, int, list[dict[str, float | str]]]:
    """(representation steps, adversary steps, history) of a run with phase 3 alone: the Adam
    step counts of the optimizer holding the head and of the one holding T1."""
    made: list[torch.optim.Adam] = []
    init = torch.optim.Adam.__init__

    def spy(self: torch.optim.Adam, *args: object, **kwargs: object) -> None:
        init(self, *args, **kwargs)  # type: ignore[arg-type]
        made.append(self)

    monkeypatch.setattr(torch.optim.Adam, "__init__", spy)
    units, train, _, index = toy_task
    cfg = _small_cfg(pretrain_epochs=0, adversary_epochs=0, alternate_epochs=2, **kw)
    trained = train_representation(units, train[:120], index, cfg)
    monkeypatch.undo()

    def steps_of(param: torch.nn.Parameter) -> int:
        (opt,) = [o for o in made if any(p is param for g in o.param_groups for p in g["params"])]
        return int(opt.state[param]["step"])

    head, t1 = next(trained.head.parameters()), next(trained.t1.parameters())
    return steps_of(head), steps_of(t1), trained.history


def test_adversary_steps_run_k_adversary_updates_per_representation_update(
    monkeypatch: pytest.MonkeyPatch, toy_task: tuple
) -> None:
    rep1, adv1, hist1 = _optimizer_steps(monkeypatch, toy_task)
    assert rep1 > 0 and adv1 == rep1  # the default: one adversary step per representation step
    rep3, adv3, hist3 = _optimizer_steps(monkeypatch, toy_task, adversary_steps=3)
    # the extra steps are adversary steps only: as many representation steps as before
    assert rep3 == rep1 and adv3 == 3 * rep3
    assert all("t1_acc_last" in r for r in hist3 if r["phase"] == "3-alternate")
    assert not any("t1_acc_last" in r for r in hist1)


def test_one_adversary_step_draws_no_extra_batch_and_gives_the_model_of_the_default(
    monkeypatch: pytest.MonkeyPatch, toy_task: tuple
) -> None:
    """K = 1 shuffles no extra batch list (so it draws the random numbers of the runs before the
    option) and gives the weights and history of a config without the option."""
    import deid.lab.share.train as train_module

    shuffles: list[int] = []
    real_batches = train_module.batches

    def counted(*args: Any, **kwargs: Any) -> Any:
        shuffles.append(1)
        return real_batches(*args, **kwargs)

    monkeypatch.setattr(train_module, "batches", counted)
    units, train, _, index = toy_task
    runs = [
        train_representation(units, train[:120], index, _small_cfg(**kw))
        for kw in ({}, {"adversary_steps": 1})
    ]
    # per run: one per epoch of the three phases (2 + 1 + 1) and the tagged cycle of phase 3
    assert len(shuffles) == 2 * 5
    train_representation(units, train[:120], index, _small_cfg(adversary_steps=2))
    assert len(shuffles) > 3 * 5  # K = 2 does draw its own batches
    a, b = (r.represent.trainable_state() for r in runs)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    strip = [[{k: v for k, v in row.items() if k != "seconds"} for row in r.history] for r in runs]
    assert strip[0] == strip[1]
    with pytest.raises(ValueError, match="adversary_steps"):
        train_representation(units, train[:120], index, _small_cfg(adversary_steps=0))


def test_repr_lab_train_parses_adversary_steps_and_refuses_zero() -> None:
    from deid.cli import build_parser

    base = ["repr-lab", "train", "--corpus", "c", "--out", "o"]
    assert build_parser().parse_args(base).adversary_steps == 1
    assert build_parser().parse_args([*base, "--adversary-steps", "4"]).adversary_steps == 4
    with pytest.raises(SystemExit):
        build_parser().parse_args([*base, "--adversary-steps", "0"])
