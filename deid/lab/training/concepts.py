"""Train the concept branch on a CoNLL corpus (PharmaCoNER): ``python -m deid.lab.training.concepts``.

The shared part (embeddings and lower layers of the de-identification model, frozen) is run once
over every sentence and its outputs cached; epochs then train only the branch's layers and head
on the cache. An internal held-out split is carved from the training file (blocks of 50
sentences, every tenth block: ``heldout_block``), frozen and never read for any choice; the
checkpoint is chosen on dev, and dev and held-out are both reported.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import random
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from deid.concepts import CONCEPT_TYPES, Concept
from deid.concepts.model import (
    CONFIG_KEY,
    HEAD_FILE,
    BranchSpec,
    branch_depth,
    branch_state,
    load_branch_state,
    new_branch,
    read_branch_tensors,
    shared_forward,
    split_branch_file,
    write_branch_file,
)
from deid.lab.corpora.conll import Sentence, read_conll
from deid.ner.encode import IGNORE, EncodedText, encode_texts, special_ids
from deid.ner.infer import TokenPreds, pack_by_length

log = logging.getLogger("deid.lab.training.concepts")

TAGS = ("O", *(f"{p}-{t}" for t in CONCEPT_TYPES for p in ("B", "I")))
BLOCK, HELDOUT_EVERY, HELDOUT_BLOCK = 50, 10, 3
MAX_CONTENT = 254


def is_heldout(index: int) -> bool:
    """Sentence ``index`` of the training file belongs to the frozen internal held-out split."""
    return (index // BLOCK) % HELDOUT_EVERY == HELDOUT_BLOCK


@dataclass
class Cached:
    sentence: Sentence
    enc: EncodedText
    labels: np.ndarray  # per content token (IGNORE off first subwords)
    hidden: Any  # torch fp16 (length + 2, hidden)
    probs: Any  # torch fp16 (length + 2, n_deid_tags)


def word_labels(enc: EncodedText, concepts: Sequence[Concept]) -> np.ndarray:
    tags = ["O"] * len(enc.words)
    for c in concepts:
        first = True
        for i, w in enumerate(enc.words):
            if w.start >= c.start and w.end <= c.end:
                tags[i] = ("B-" if first else "I-") + c.type
                first = False
    tag_id = {t: i for i, t in enumerate(TAGS)}
    return np.array([tag_id[tags[w]] if f else IGNORE for w, f in zip(enc.word_of, enc.first, strict=True)],
                    dtype=np.int64)


def cache(base: Any, tokenizer: Any, sentences: Sequence[Sentence], from_layer: int,
          budget: int = 8192, device: str = "cpu") -> list[Cached]:
    """Each sentence's shared-part outputs, computed on ``device`` and kept on the CPU (fp16)."""
    import torch

    encoded = encode_texts(tokenizer, [s.text for s in sentences])
    cls, sep, pad = special_ids(tokenizer)
    out: list[Cached | None] = [None] * len(sentences)
    order = sorted(range(len(sentences)), key=lambda i: len(encoded[i].ids))
    batch: list[int] = []
    done = 0
    started = time.perf_counter()

    def run(batch: list[int]) -> None:
        lens = [min(len(encoded[i].ids), MAX_CONTENT) for i in batch]
        maxlen = max(lens) + 2
        ids = np.full((len(batch), maxlen), pad, dtype=np.int64)
        mask = np.zeros_like(ids)
        for r, (i, n) in enumerate(zip(batch, lens, strict=True)):
            ids[r, 0], ids[r, 1 : n + 1], ids[r, n + 1] = cls, encoded[i].ids[:n], sep
            mask[r, : n + 2] = 1
        with torch.inference_mode():
            hidden, probs = shared_forward(base, torch.from_numpy(ids).to(device),
                                           torch.from_numpy(mask).to(device), from_layer)
            hidden, probs = hidden.cpu(), probs.cpu()
        for r, (i, n) in enumerate(zip(batch, lens, strict=True)):
            labels = word_labels(encoded[i], sentences[i].concepts)[:n]
            out[i] = Cached(sentences[i], encoded[i], labels, hidden[r, : n + 2].half().clone(),
                            probs[r, : n + 2].half().clone())

    for i in order:
        n = min(len(encoded[i].ids), MAX_CONTENT) + 2
        if batch and n * (len(batch) + 1) > budget:
            run(batch)
            done += len(batch)
            batch = []
            if done % 1000 < 64:
                log.info("cached %d/%d sentences (%.0f s)", done, len(sentences),
                         time.perf_counter() - started)
        batch.append(i)
    if batch:
        run(batch)
    return [c for c in out if c is not None]


def pad_batch(items: Sequence[Cached], with_labels: bool = True) -> tuple[Any, Any, Any, Any]:
    import torch

    maxlen = max(c.hidden.shape[0] for c in items)
    h = torch.zeros(len(items), maxlen, items[0].hidden.shape[1])
    p = torch.zeros(len(items), maxlen, items[0].probs.shape[1])
    mask = torch.zeros(len(items), maxlen, dtype=torch.long)
    labels = torch.full((len(items), maxlen), IGNORE, dtype=torch.long)
    for r, c in enumerate(items):
        n = c.hidden.shape[0]
        h[r, :n], p[r, :n], mask[r, :n] = c.hidden.float(), c.probs.float(), 1
        if with_labels:
            labels[r, 1 : n - 1] = torch.from_numpy(c.labels)
    return h, p, mask, labels


def batches(items: Sequence[Cached], budget: int, rng: random.Random | None) -> list[list[int]]:
    out = pack_by_length([c.hidden.shape[0] for c in items], budget)
    if rng is not None:
        rng.shuffle(out)
    return out


def evaluate(branch: Any, items: Sequence[Cached], stacked: bool, device: str = "cpu") -> dict[str, float]:
    """Strict micro P/R/F1 (exact offsets and type) over ``items``."""
    import torch

    from deid.concepts.tagger import decode

    branch.eval()
    tp = n_pred = n_gold = 0
    with torch.inference_mode():
        for b in batches(items, 16384, None):
            h, p, mask, _ = pad_batch([items[i] for i in b], with_labels=False)
            h, p, mask = h.to(device), p.to(device), mask.to(device)
            probs = torch.softmax(branch(h, mask, p if stacked else None).float(), -1).cpu().numpy()
            for r, i in enumerate(b):
                c = items[i]
                n = c.hidden.shape[0] - 2
                pr = probs[r, 1 : n + 1]
                phi = pr.copy()
                phi[:, 0] = -1
                tag = phi.argmax(-1)
                preds = TokenPreds(tag, np.take_along_axis(phi, tag[:, None], -1)[:, 0], pr[:, 0])
                enc = c.enc
                if len(enc.ids) > n:  # a truncated sentence: score only what was read
                    enc = EncodedText(enc.words, enc.ids[:n], enc.word_of[:n], enc.first[:n])
                got = {(x.start, x.end, x.type) for x in decode(enc, preds, TAGS, c.sentence.text)}
                gold = {(x.start, x.end, x.type) for x in c.sentence.concepts}
                tp += len(got & gold)
                n_pred += len(got)
                n_gold += len(gold)
    prec = tp / n_pred if n_pred else 0.0
    rec = tp / n_gold if n_gold else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    return {"p": round(prec, 4), "r": round(rec, 4), "f1": round(f1, 4), "gold": n_gold, "pred": n_pred}


def train_variant(base: Any, train: list[Cached], dev: list[Cached], heldout: list[Cached], *,
                  from_layer: int, stacked: bool, epochs: int, lr: float, budget: int, seed: int,
                  out_dir: Path, start_state: dict[str, Any] | None = None,
                  device: str = "cpu", max_minutes: float = 0.0) -> tuple[Any, dict[str, Any]]:
    import torch

    torch.manual_seed(seed)
    rng = random.Random(seed)
    # a continued head keeps its own depth, also over a shallower de-identification model
    n_layers = (branch_depth(start_state) if start_state is not None
                else int(base.config.num_hidden_layers) - from_layer)
    spec = BranchSpec(from_layer, TAGS, stacked, int(base.config.num_labels), n_layers=n_layers)
    branch = new_branch(base, spec)
    if start_state is not None:  # continue a trained head (--init-branch)
        load_branch_state(branch, start_state)
    branch.to(device)
    head = list(branch.classifier.parameters())
    body = [p for n, p in branch.named_parameters() if not n.startswith("classifier.")]
    opt = torch.optim.AdamW([{"params": body, "lr": lr}, {"params": head, "lr": lr * 10}], weight_decay=0.01)
    per_epoch = len(batches(train, budget, None))
    total, warmup = per_epoch * epochs, max(1, per_epoch // 10)

    def factor(step: int) -> float:
        return (step + 1) / warmup if step < warmup else max(0.0, (total - step) / max(1, total - warmup))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
    best: dict[str, Any] = {"dev": {"f1": -1.0}}
    step = 0
    started = time.perf_counter()
    name = f"{'stacked' if stacked else 'branch'}-L{from_layer}"
    for epoch in range(epochs):
        for b in batches(train, budget, rng):
            branch.train()
            h, p, mask, labels = (t.to(device) for t in pad_batch([train[i] for i in b]))
            logits = branch(h, mask, p if stacked else None)
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, len(TAGS)), labels.reshape(-1),
                                                     ignore_index=IGNORE)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(branch.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            if step % 20 == 0:
                log.info("%s epoch %d step %d/%d loss %.4f (%.0f s)", name, epoch, step, total, loss.item(),
                         time.perf_counter() - started)
        dev_scores = evaluate(branch, dev, stacked, device)
        log.info("%s epoch %d dev %s (%.0f s)", name, epoch, dev_scores, time.perf_counter() - started)
        if dev_scores["f1"] > best["dev"]["f1"]:
            best = {"variant": name, "epoch": epoch, "step": step, "dev": dev_scores,
                    "state": branch_state(branch)}
        if max_minutes and time.perf_counter() - started > 60 * max_minutes:
            log.info("%s stopped by time after epoch %d of %d", name, epoch, epochs)
            break
    # the held-out split is read once, for the checkpoint dev chose
    chosen = new_branch(base, spec)
    load_branch_state(chosen, best["state"])
    best["heldout"] = evaluate(chosen.to(device), heldout, stacked, device)
    best["minutes"] = round((time.perf_counter() - started) / 60, 1)
    best["spec"] = spec
    log.info("%s chosen epoch %d dev %s heldout %s", name, best["epoch"], best["dev"], best["heldout"])
    (out_dir / f"{name}.json").write_text(json.dumps({k: v for k, v in best.items()
                                                      if k not in ("state", "spec")}, indent=2))
    return chosen, best


def write_model(model_dir: Path, out: Path, best: dict[str, Any]) -> None:
    """``model_dir`` copied to ``out`` with the branch in its own file (``concepts.safetensors``)
    in place of any head ``model_dir`` had; the de-identification file is copied as it is (or,
    from a model that held its head in it, rewritten without the head's tensors)."""
    from dataclasses import replace

    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(model_dir, out)
    (out / HEAD_FILE).unlink(missing_ok=True)
    split_branch_file(out)  # an older model's head, moved out of model.safetensors, then replaced
    write_branch_file(best["state"], out)
    cfg = json.loads((model_dir / "config.json").read_text())
    scores = {k: best[k] for k in ("dev", "heldout", "variant", "epoch")}
    cfg[CONFIG_KEY] = replace(best["spec"], scores=scores).to_json()
    (out / "config.json").write_text(json.dumps(cfg, indent=2))


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--train", type=Path, required=True)
    ap.add_argument("--dev", type=Path, required=True)
    ap.add_argument("--model", type=Path, default=None, help="de-identification model (default: shipped)")
    ap.add_argument("--out", type=Path, required=True, help="run directory (log, scores, model)")
    ap.add_argument("--from-layer", type=int, default=6)
    ap.add_argument("--variants", default="stacked,branch")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--budget", type=int, default=2048, help="padded tokens per training batch")
    ap.add_argument("--init-branch", type=Path, default=None, metavar="MODEL_DIR",
                    help="continue from the concept head of this model directory (its from-layer and "
                         "variant are taken; e.g. deid/models/default)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                    help="auto: the GPU when there is one")
    ap.add_argument("--max-minutes", type=float, default=0.0,
                    help="per variant: stop after the epoch that passes this time, the learning "
                         "rate part-way down its decay (0: run every epoch)")
    ap.add_argument("--limit", type=int, default=0, help="first N training sentences only (smoke runs)")
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    # this module's logger into the run's log file (basicConfig would do nothing in a process
    # whose logging is already configured, a test runner's or a notebook's)
    handler = logging.FileHandler(args.out / "train.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        run(args)
    finally:
        log.removeHandler(handler)
        handler.close()


def run(args: argparse.Namespace) -> None:
    """One training run as ``main``'s arguments describe it."""
    import torch

    from deid.ner import DEFAULT_MODEL_DIR
    from deid.ner.model import load_token_classifier

    torch.set_num_threads(args.threads)
    model_dir = args.model or DEFAULT_MODEL_DIR
    start_state = None
    if args.init_branch is not None:  # checked before minutes of caching
        cfg = json.loads((args.init_branch / "config.json").read_text())
        if CONFIG_KEY not in cfg:
            raise SystemExit(f"{args.init_branch}: this model has no concept head")
        old = BranchSpec.from_json(cfg[CONFIG_KEY])
        kind = "stacked" if old.stacked else "branch"
        if old.from_layer != args.from_layer or args.variants != kind:
            raise SystemExit(f"{args.init_branch}: its head is from layer {old.from_layer}, {kind}: "
                             "pass the same --from-layer and --variants")
        start_state = read_branch_tensors(args.init_branch)
    device = ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    base, tokenizer = load_token_classifier(model_dir)
    n_layers = int(base.config.num_hidden_layers)
    if not 0 <= args.from_layer < n_layers:  # checked before minutes of caching
        raise SystemExit(f"--from-layer {args.from_layer}: the model has layers 0 to {n_layers - 1}")
    for prm in base.parameters():
        prm.requires_grad_(False)
    base.to(device)
    every = read_conll(args.train)
    if args.limit:
        every = every[: args.limit]
    train_s = [s for i, s in enumerate(every) if not is_heldout(i)]
    held_s = [s for i, s in enumerate(every) if is_heldout(i)]
    dev_s = read_conll(args.dev)
    log.info("sentences: train %d, internal held-out %d, dev %d; device %s", len(train_s), len(held_s),
             len(dev_s), device)
    train = cache(base, tokenizer, train_s, args.from_layer, device=device)
    held = cache(base, tokenizer, held_s, args.from_layer, device=device)
    dev = cache(base, tokenizer, dev_s, args.from_layer, device=device)
    results = []
    for variant in args.variants.split(","):
        _, best = train_variant(base, train, dev, held, from_layer=args.from_layer,
                                stacked=variant == "stacked", epochs=args.epochs, lr=args.lr,
                                budget=args.budget, seed=args.seed, out_dir=args.out,
                                start_state=start_state, device=device, max_minutes=args.max_minutes)
        results.append(best)
        write_model(model_dir, args.out / f"model-{best['variant']}", best)
    winner = max(results, key=lambda b: b["dev"]["f1"])
    log.info("winner on dev: %s", winner["variant"])
    summary = [{k: v for k, v in b.items() if k not in ("state", "spec")} for b in results]
    report = {"winner": winner["variant"], "runs": summary}
    (args.out / "summary.json").write_text(json.dumps(report, indent=2))
    if not math.isfinite(winner["dev"]["f1"]):
        raise SystemExit("training diverged")


if __name__ == "__main__":
    main()
