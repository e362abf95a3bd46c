"""What each de-identification mode costs a downstream classifier (Abdalla et al. 2020 style).

    OMP_NUM_THREADS=1 .venv/bin/python bench/downstream_modes.py [--seeds 3] [--meddocan DIR]

Two bag-of-words tasks, each trained on a mode's output of the TRAIN split and tested on the same
mode's output of the held-out split ("same mode": the data user only ever sees released text)
and on the original held-out text ("orig test": a model built on released data used in-house):
- MEDDOCAN label presence (train -> dev): does the note mention a HOSPITAL, a RELATIVE, ...?
  One binary task per label whose train prevalence is within 10-90%; macro F1 over the labels;
- synthetic note type (``deid.lab.synth``, 4 kinds of French note; 600 train / 300 test notes).
Modes: original; every-token replacement with N = 3, 5, 7 neighbours; PHI-neighbour
pseudonymisation (gold spans, N = 5); placeholder tags on gold spans. Randomised modes are run
with ``--seeds`` seeds; mean (and spread) reported. Classifier: L2 logistic regression (C = 10,
balanced class weights, L-BFGS, one-vs-rest for note types) on binary, L2-normalised word features
of the training vocabulary (words seen in >= 2 training notes). Writes docs/benchmarks/modes.md.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from pathlib import Path

import numpy as np
from scipy import sparse
from scipy.special import expit

from deid.lab.corpora import read_corpus
from deid.lab.neighbours.export import pseudonymise_document
from deid.lab.synth import generator as G
from deid.neighbours import load_table, replace_tokens
from deid.neighbours.replace import TOKEN
from deid.spans import Document

ROOT = Path(__file__).resolve().parents[1]
MEDDOCAN = ROOT.parent / "shared" / "data" / "meddocan"

Mode = Callable[[Document, random.Random], str]
C = 10.0  # inverse L2 strength of the classifier
KEEP_FROM = "## Reading the figures"


def placeholder(doc: Document, rng: random.Random) -> str:
    out, pos = [], 0
    for s in sorted(doc.spans):
        if s.start < pos:
            continue
        out += [doc.text[pos : s.start], f"[{s.label.category.value}]"]
        pos = s.end
    return "".join(out) + doc.text[pos:]


def modes() -> dict[str, tuple[Mode, bool]]:
    """Name -> (text of a document under the mode, whether the mode is randomised)."""
    table = load_table()

    def every_token(n: int) -> Mode:
        return lambda d, r: replace_tokens(d.text, r, n, table=table)

    m: dict[str, tuple[Mode, bool]] = {"original": (lambda d, r: d.text, False)}
    for n in (3, 5, 7):
        m[f"every-token N={n}"] = (every_token(n), True)
    m["PHI-neighbour N=5"] = (lambda d, r: pseudonymise_document(d, r, 5, table).text, True)
    m["placeholder"] = (placeholder, False)
    return m


# ------------------------------------------------------------------------------ classifier

def featurize(train: Sequence[str], tests: Sequence[Sequence[str]]) -> tuple[sparse.csr_matrix,
                                                                            list[sparse.csr_matrix]]:
    toks = [{t.lower() for t in TOKEN.findall(x)} for x in train]
    df: dict[str, int] = {}
    for s in toks:
        for w in s:
            df[w] = df.get(w, 0) + 1
    vocab = {w: i for i, w in enumerate(sorted(w for w, c in df.items() if c >= 2))}

    def mat(texts: Sequence[str]) -> sparse.csr_matrix:
        rows, cols = [], []
        for i, t in enumerate(texts):
            js = sorted({vocab[w] for w in (x.lower() for x in TOKEN.findall(t)) if w in vocab})
            rows += [i] * len(js)
            cols += js
        x = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(texts), len(vocab)))
        norm = np.sqrt(np.asarray(x.sum(axis=1)).ravel())
        x = sparse.diags(1.0 / np.maximum(norm, 1e-9)) @ x
        return sparse.hstack([x, np.ones((len(texts), 1))], format="csr")  # bias column

    return mat(train), [mat(t) for t in tests]


def fit_binary(x: sparse.csr_matrix, y: np.ndarray, c: float = C) -> np.ndarray:
    """L2 logistic regression (weighted sum of log-losses + ||w||^2 / 2C), L-BFGS; classes
    weighted n / (2 n_class) like scikit-learn's "balanced", so rare labels are not ignored."""
    from scipy.optimize import minimize

    s = np.where(y, 1.0, -1.0)
    pos = max(int(y.sum()), 1)
    cw = np.where(y, len(y) / (2 * pos), len(y) / (2 * max(len(y) - pos, 1)))

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        m = s * (x @ w)
        val = float((cw * np.logaddexp(0, -m)).sum() + w @ w / (2 * c))
        g = x.T @ (-s * cw * expit(-m)) + w / c
        return val, np.asarray(g)

    res = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": 500})
    return np.asarray(res.x)


def f1(tp: int, fp: int, fn: int) -> float:
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def macro_f1(y: np.ndarray, pred: np.ndarray) -> float:
    return float(np.mean([f1(int((pred[:, j] & y[:, j]).sum()), int((pred[:, j] & ~y[:, j]).sum()),
                             int((~pred[:, j] & y[:, j]).sum())) for j in range(y.shape[1])]))


def evaluate(train: list[str], ytr: np.ndarray, tests: list[list[str]], yte: np.ndarray,
             softmax: bool) -> list[float]:
    """Binary tasks: one classifier per column; multi-class (``softmax``): one-vs-rest, argmax."""
    xtr, xtes = featurize(train, tests)
    w = np.stack([fit_binary(xtr, ytr[:, j]) for j in range(ytr.shape[1])], axis=1)
    out = []
    for x in xtes:
        z = np.asarray(x @ w)
        if softmax:
            pred = np.zeros_like(yte)
            pred[np.arange(len(z)), z.argmax(axis=1)] = True
        else:
            pred = z > 0
        out.append(macro_f1(yte, pred))
    return out


# ----------------------------------------------------------------------------------- tasks

def meddocan_task(path: Path) -> tuple[list[Document], list[Document], np.ndarray, np.ndarray, list[str]]:
    tr, dv = read_corpus(path / "train"), read_corpus(path / "dev")
    labels = sorted({s.label.value for d in tr for s in d.spans})
    prev = {lab: sum(any(s.label.value == lab for s in d.spans) for d in tr) / len(tr) for lab in labels}
    keep = [lab for lab in labels if 0.1 <= prev[lab] <= 0.9]

    def y(docs: list[Document]) -> np.ndarray:
        return np.array([[any(s.label.value == lab for s in d.spans) for lab in keep] for d in docs])

    return tr, dv, y(tr), y(dv), keep


def synth_task(n_train: int = 600, n_test: int = 300) -> tuple[list[Document], list[Document], np.ndarray,
                                                               np.ndarray, list[str]]:
    kinds = list(G._KINDS)

    def gen(n: int, seed: int) -> tuple[list[Document], list[int]]:
        rng = random.Random(seed)
        docs, ys = [], []
        for i in range(n):
            pt = G.new_patient(rng)
            when = date(2015, 1, 1) + timedelta(days=rng.randrange(0, 3650))
            k = rng.randrange(len(kinds))
            docs.append(G._note(rng, pt, when, kinds[k], f"s{seed}-{i}"))
            ys.append(k)
        return docs, ys

    tr, ytr = gen(n_train, 101)
    te, yte = gen(n_test, 202)
    return tr, te, np.eye(len(kinds), dtype=bool)[ytr], np.eye(len(kinds), dtype=bool)[yte], kinds


def run_task(train: list[Document], test: list[Document], ytr: np.ndarray, yte: np.ndarray, softmax: bool,
             seeds: int) -> dict[str, tuple[list[float], list[float]]]:
    res: dict[str, tuple[list[float], list[float]]] = {}
    original_test = [d.text for d in test]
    for name, (mode, randomised) in modes().items():
        same, orig = [], []
        for seed in range(seeds if randomised else 1):
            rng = random.Random(seed)
            a, b = evaluate([mode(d, rng) for d in train], ytr,
                            [[mode(d, rng) for d in test], original_test], yte, softmax)
            same.append(a)
            orig.append(b)
        res[name] = (same, orig)
    return res


def fmt(v: list[float]) -> str:
    if len(v) == 1:
        return f"{100 * v[0]:.1f}"
    return f"{100 * statistics.mean(v):.1f} ± {100 * statistics.pstdev(v):.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--meddocan", type=Path, default=MEDDOCAN)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks" / "modes.md")
    args = ap.parse_args()
    t0 = time.perf_counter()
    tr, dv, ytr, ydv, keep = meddocan_task(args.meddocan)
    med = run_task(tr, dv, ytr, ydv, False, args.seeds)
    str_, ste, sytr, syte, kinds = synth_task()
    syn = run_task(str_, ste, sytr, syte, True, args.seeds)
    elapsed = time.perf_counter() - t0

    lines = [
        "# Downstream cost of the de-identification modes",
        "",
        f"Date: {date.today().isoformat()}. Machine: 2-core CPU dev box, no GPU "
        f"({platform.python_implementation()} {platform.python_version()}, one BLAS thread). "
        f"Run time: {elapsed:.0f} s.",
        "",
        "Command: `OMP_NUM_THREADS=1 .venv/bin/python bench/downstream_modes.py "
        f"--seeds {args.seeds}`",
        "",
        "Classifier: L2 logistic regression (C = 10, balanced class weights, scipy L-BFGS; one-vs-rest "
        "for note types) on binary "
        "L2-normalised bag-of-words features (words seen in >= 2 training notes). "
        "*same mode*: trained and tested on the mode's output; *orig test*: trained on the mode's "
        f"output, tested on the original text. Randomised modes: mean ± sd over {args.seeds} seeds.",
        "",
        f"- **MEDDOCAN label presence**: train split ({len(tr)} notes) -> dev split ({len(dv)} notes); "
        f"one binary task per label with 10-90% train prevalence ({', '.join(keep)}); macro F1 (%).",
        f"- **Synthetic note type**: `deid.lab.synth` French notes, {len(str_)} train / {len(ste)} test, "
        f"{len(kinds)} classes ({', '.join(kinds)}); macro F1 (%).",
        "",
        "| Mode | MEDDOCAN same mode | MEDDOCAN orig test | Note type same mode | Note type orig test |",
        "|---|---|---|---|---|",
    ]
    for name in med:
        lines.append(f"| {name} | {fmt(med[name][0])} | {fmt(med[name][1])} | {fmt(syn[name][0])} "
                     f"| {fmt(syn[name][1])} |")
    lines += [
        "",
        "Every-token mode replaces every word (vocabulary words by one of their N nearest "
        "neighbours in the multilingual-e5-small input-embedding space, other words by a random "
        "word of similar length) and every number: its PHI recall is 100% by construction. "
        "PHI-neighbour and placeholder act on gold spans only (their residual PHI is that of the "
        "detector, not measured here).",
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    kept = ""  # the hand-written commentary after the table survives a rerun
    if args.out.exists():
        old = args.out.read_text(encoding="utf-8")
        if KEEP_FROM in old:
            kept = old[old.index(KEEP_FROM):]
    args.out.write_text("\n".join(lines) + "\n" + kept, encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
