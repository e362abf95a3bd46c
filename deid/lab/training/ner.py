"""Fine-tune the e5-small encoder for PHI token classification.

Word embeddings stay frozen (the 250k-row matrix is most of the parameters, and keeping it
lets a checkpoint leave it out); lr ~1e-4 for the encoder and 10x for the new head (at 5e-5
the head barely learned, PLATFORM.md). Windows of ``max_len`` tokens overlap; batches are packed
by length under a token budget. Progress goes to ``<out>/train.log``; ``<out>/last`` is saved
every ``save_minutes`` (resumable: model, optimizer, step, RNG) and ``<out>/best`` holds the
compact checkpoint with the best dev score.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from deid.labels import BIO_TAGS
from deid.ner.encode import IGNORE, encode_text, special_ids, token_windows
from deid.ner.text import TAG2ID, word_tags
from deid.spans import Document, Span

log = logging.getLogger("deid.lab.training.ner")


@dataclass
class TrainConfig:
    out_dir: str = "runs/ner"
    max_len: int = 256
    overlap: int = 64
    token_budget: int = 4096
    lr: float = 1e-4
    head_lr_mult: float = 10.0
    weight_decay: float = 0.01
    warmup_steps: int = 30
    decay_steps: int = 0  # >0: lr falls linearly to 0 over this many steps after warmup
    max_steps: int = 100000
    max_minutes: float = 0.0  # 0: no limit
    freeze_layers: int = 0  # lower encoder layers kept frozen
    threads: int = 1
    seed: int = 13
    log_every: int = 10
    eval_minutes: float = 15.0
    save_minutes: float = 10.0
    device: str = "auto"
    sources: list[str] = field(default_factory=list)
    init: str = ""  # compact checkpoint to start from instead of the bare encoder
    # A smaller student (issue 18): keep only these encoder layers of the ``init`` model (their
    # order kept), and learn from ``teacher``'s token distributions as well as from the gold tags.
    keep_layers: list[int] = field(default_factory=list)
    teacher: str = ""
    kd_weight: float = 0.5  # share of the distillation loss when a teacher is given
    kd_temperature: float = 2.0
    # bf16 autocast for the forward passes (fp32 master weights and optimizer): on a CPU with AMX
    # a step costs about a third of fp32 (deid.ner.runtime); off by default, as the shipped runs were
    bf16: bool = False


@dataclass(frozen=True)
class Example:
    ids: list[int]
    labels: list[int]


def document_examples(tokenizer: Any, doc: Document, max_len: int, overlap: int,
                      tag2id: dict[str, int] | None = None) -> list[Example]:
    """Windows of ``doc`` with the BIO id of each word's first subword. ``tag2id``: the head being
    trained (default: every project tag); a tag it lacks (a label added after the model, such as
    SEX) is left unscored (IGNORE) rather than taught as O."""
    cuts = tuple(x for s in doc.spans for x in (s.start, s.end))
    enc = encode_text(tokenizer, doc.text, cuts)
    tags = word_tags(enc.words, doc.spans)
    ids = TAG2ID if tag2id is None else tag2id
    labels = [ids.get(tags[w], IGNORE) if f else IGNORE for w, f in zip(enc.word_of, enc.first, strict=True)]
    cls, sep, _ = special_ids(tokenizer)
    out = []
    for w in token_windows(len(enc.ids), max_len, overlap):
        out.append(Example([cls, *enc.ids[w.start : w.end], sep], [IGNORE, *labels[w.start : w.end], IGNORE]))
    return out


def pack_batches(examples: Sequence[Example], budget: int, rng: random.Random) -> list[list[int]]:
    """Shuffle, bucket by length in chunks, pack under the padded-token budget, shuffle batches."""
    idx = list(range(len(examples)))
    rng.shuffle(idx)
    batches: list[list[int]] = []
    chunk = 2000
    for c in range(0, len(idx), chunk):
        part = sorted(idx[c : c + chunk], key=lambda i: len(examples[i].ids))
        cur: list[int] = []
        cur_max = 0
        for i in part:
            n = len(examples[i].ids)
            if cur and max(cur_max, n) * (len(cur) + 1) > budget:
                batches.append(cur)
                cur, cur_max = [], 0
            cur.append(i)
            cur_max = max(cur_max, n)
        if cur:
            batches.append(cur)
    rng.shuffle(batches)
    return batches


def span_scores(gold: Sequence[Sequence[Span]], pred: Sequence[Sequence[Span]]) -> dict[str, float]:
    """Micro strict (offsets + fine label) and relaxed (overlap, any label) P/R/F1."""
    tp_s = n_g = n_p = 0
    rel_r = rel_p = 0
    for g, p in zip(gold, pred, strict=True):
        gs = {(s.start, s.end, s.label) for s in g}
        ps = {(s.start, s.end, s.label) for s in p}
        tp_s += len(gs & ps)
        n_g += len(gs)
        n_p += len(ps)
        rel_r += sum(1 for s in g if any(s.overlaps(x) for x in p))
        rel_p += sum(1 for s in p if any(s.overlaps(x) for x in g))

    def f1(pr: float, rc: float) -> float:
        return 0.0 if pr + rc == 0 else 2 * pr * rc / (pr + rc)

    sp = tp_s / n_p if n_p else 0.0
    sr = tp_s / n_g if n_g else 0.0
    rp = rel_p / n_p if n_p else 0.0
    rr = rel_r / n_g if n_g else 0.0
    return {
        "strict_p": sp, "strict_r": sr, "strict_f1": f1(sp, sr),
        "relaxed_p": rp, "relaxed_r": rr, "relaxed_f1": f1(rp, rr),
        "gold": float(n_g), "pred": float(n_p),
    }  # fmt: skip


def evaluate(model: Any, tokenizer: Any, dev: dict[str, list[Document]], device: str) -> dict[str, Any]:
    from deid.ner.infer import InferenceConfig, predict_spans

    model.eval()
    res: dict[str, Any] = {}
    for name, docs in dev.items():
        pred = predict_spans(model, tokenizer, [d.text for d in docs], InferenceConfig(), device)
        res[name] = span_scores([d.spans for d in docs], pred)
    model.train()
    return res


def _save_last(
    model: Any, opt: Any, sched: Any, step: int, epoch: int, path: Path, rng: random.Random
) -> None:
    import torch

    from deid.ner.model import save_compact

    tmp = path.with_name(path.name + ".tmp")
    save_compact(model, tmp, fp16=False, extra={"deid_model_version": f"{path.parent.name}-step{step}"})
    torch.save(
        {"opt": opt.state_dict(), "sched": sched.state_dict(), "step": step, "epoch": epoch,
         "rng": rng.getstate(), "torch_rng": torch.get_rng_state()},
        tmp / "trainer_state.pt",
    )  # fmt: skip
    if path.exists():
        import shutil

        shutil.rmtree(path)
    tmp.rename(path)


def train(
    cfg: TrainConfig,
    train_docs: Sequence[Document],
    dev: dict[str, list[Document]],
    resume: bool = True,
) -> Path:
    import torch

    from deid.ner.e5 import load_tokenizer
    from deid.ner.model import CONCEPTS_KEY, is_compact, load_token_classifier, new_token_classifier

    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(out / "train.log")
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%Y-%m-%dT%H:%M:%S"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    rng = random.Random(cfg.seed)
    device = ("cuda" if torch.cuda.is_available() else "cpu") if cfg.device == "auto" else cfg.device
    (out / "config.json").write_text(json.dumps(asdict(cfg), indent=2))

    last = out / "last"
    step = epoch = 0
    state: dict[str, Any] | None = None
    if resume and is_compact(last) and (last / "trainer_state.pt").exists():
        model, tokenizer = load_token_classifier(last)
        state = torch.load(last / "trainer_state.pt", weights_only=False)
        step, epoch = int(state["step"]), int(state["epoch"])
        log.info("resumed from step %d", step)
    elif cfg.init:
        # continued fine-tuning: the weights come from a finished model, the optimizer starts fresh
        model, tokenizer = load_token_classifier(Path(cfg.init))
        log.info("initialised from %s", cfg.init)
        if CONCEPTS_KEY in model.config.to_dict():
            log.info("its concept head is not trained here and is left out of the checkpoints")
    else:
        model = new_token_classifier()
        tokenizer = load_tokenizer()
    if cfg.keep_layers:
        keep_layers(model, cfg.keep_layers)
        log.info("student: encoder layers %s of %s", cfg.keep_layers, cfg.init or "the encoder")
    teacher = None
    if cfg.teacher:
        teacher, _ = load_token_classifier(Path(cfg.teacher))
        teacher.to(device).eval()
        for p in teacher.parameters():
            p.requires_grad_(False)
    model.to(device)
    model.train()
    for name, p in model.named_parameters():
        frozen = "word_embeddings" in name or any(
            f"encoder.layer.{i}." in name for i in range(cfg.freeze_layers)
        )
        if cfg.freeze_layers > 0 and ".embeddings." in name:
            frozen = True
        p.requires_grad = not frozen
    head = [p for n, p in model.named_parameters() if p.requires_grad and n.startswith("classifier")]
    body = [p for n, p in model.named_parameters() if p.requires_grad and not n.startswith("classifier")]
    opt = torch.optim.AdamW(
        [{"params": body, "lr": cfg.lr}, {"params": head, "lr": cfg.lr * cfg.head_lr_mult}],
        weight_decay=cfg.weight_decay,
    )

    def lr_lambda(s: int) -> float:
        warm = min(1.0, (s + 1) / max(1, cfg.warmup_steps))
        if cfg.decay_steps <= 0:
            return warm
        # a falling rate settles span boundaries that a constant one keeps shaking
        return warm * max(0.0, 1.0 - max(0, s - cfg.warmup_steps) / cfg.decay_steps)

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
    if state is not None:
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        rng.setstate(state["rng"])
        torch.set_rng_state(state["torch_rng"])

    t0 = time.time()
    head_tags = {str(k): int(v) for k, v in model.config.label2id.items()}
    examples: list[Example] = []
    for d in train_docs:
        examples.extend(document_examples(tokenizer, d, cfg.max_len, cfg.overlap, head_tags))
    n_tok = sum(len(e.ids) for e in examples)
    log.info("train: %d docs, %d windows, %d tokens (%.0fs to encode); device %s, %d threads",
             len(train_docs), len(examples), n_tok, time.time() - t0, device, cfg.threads)  # fmt: skip
    n_trainable = sum(p.numel() for p in body + head)
    log.info("trainable parameters: %d", n_trainable)

    best_score = -1.0
    best_file = out / "best" / "scores.json"
    if best_file.exists():
        best_score = float(json.loads(best_file.read_text()).get("score", -1.0))
    start = time.time()
    last_eval = last_save = window_start = start
    loss_acc = 0.0
    n_acc = 0
    done = False
    while not done:
        batches = pack_batches(examples, cfg.token_budget, random.Random(cfg.seed + epoch))
        # a resumed run restarts its epoch's batch order: cheap, and every window still comes
        for batch in batches:
            if step >= cfg.max_steps or (cfg.max_minutes and time.time() - start > cfg.max_minutes * 60):
                done = True
                break
            maxlen = max(len(examples[i].ids) for i in batch)
            ids = torch.full((len(batch), maxlen), special_ids(tokenizer)[2], dtype=torch.long)
            labels = torch.full((len(batch), maxlen), IGNORE, dtype=torch.long)
            mask = torch.zeros((len(batch), maxlen), dtype=torch.long)
            for r, i in enumerate(batch):
                ex = examples[i]
                ids[r, : len(ex.ids)] = torch.tensor(ex.ids)
                labels[r, : len(ex.ids)] = torch.tensor(ex.labels)
                mask[r, : len(ex.ids)] = 1
            kind = device.split(":")[0]
            with torch.autocast(kind, dtype=torch.bfloat16, enabled=cfg.bf16):
                outp = model(input_ids=ids.to(device), attention_mask=mask.to(device),
                             labels=labels.to(device))
            if teacher is not None:
                with torch.inference_mode(), torch.autocast(kind, dtype=torch.bfloat16, enabled=cfg.bf16):
                    t_logits = teacher(input_ids=ids.to(device), attention_mask=mask.to(device)).logits
                kd = distillation_loss(outp.logits, t_logits.clone(), mask.to(device), cfg.kd_temperature)
                outp.loss = (1 - cfg.kd_weight) * outp.loss + cfg.kd_weight * kd
            outp.loss.backward()
            torch.nn.utils.clip_grad_norm_(body + head, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            loss_acc += float(outp.loss.detach())
            n_acc += 1
            if step % cfg.log_every == 0:
                el = time.time() - window_start
                log.info(
                    "step %d epoch %d loss %.4f (%.1f s/step)", step, epoch, loss_acc / n_acc, el / n_acc
                )
                loss_acc = 0.0
                n_acc = 0
                window_start = time.time()
            now = time.time()
            if now - last_save > cfg.save_minutes * 60:
                _save_last(model, opt, sched, step, epoch, last, rng)
                log.info("saved %s at step %d", last, step)
                last_save = time.time()
            if dev and now - last_eval > cfg.eval_minutes * 60:
                best_score = _eval_and_keep(model, tokenizer, dev, device, out, step, best_score)
                last_eval = time.time()
        else:
            epoch += 1
            log.info("epoch %d done at step %d", epoch, step)
    _save_last(model, opt, sched, step, epoch, last, rng)
    if dev:
        _eval_and_keep(model, tokenizer, dev, device, out, step, best_score)
    log.info("finished at step %d", step)
    # without a dev set nothing chooses a checkpoint: the last one is the run's model
    return out / "best" if dev else last


def keep_layers(model: Any, layers: Sequence[int]) -> None:
    """Drop every encoder layer but ``layers`` (DistilBERT's initialisation of a student from its
    teacher's layers); the config follows, so the checkpoint saves and loads as a smaller BERT."""
    from torch import nn

    encoder = model.bert.encoder
    n = len(encoder.layer)
    if not layers or sorted(set(layers)) != list(layers) or layers[0] < 0 or layers[-1] >= n:
        raise ValueError(f"keep_layers must be increasing layer indices below {n}")
    encoder.layer = nn.ModuleList(encoder.layer[i] for i in layers)
    for i, layer in enumerate(encoder.layer):  # attention modules that know their index
        attn = getattr(getattr(layer, "attention", None), "self", None)
        if attn is not None and hasattr(attn, "layer_idx"):
            attn.layer_idx = i
    model.config.num_hidden_layers = len(layers)


def distillation_loss(student: Any, teacher: Any, mask: Any, temperature: float) -> Any:
    """Mean over real tokens of KL(teacher || student) at ``temperature``, scaled by T^2 so its
    gradients keep the size of the gold loss's (Hinton et al. 2015)."""
    import torch

    t = torch.log_softmax(teacher.float() / temperature, dim=-1)
    s = torch.log_softmax(student.float() / temperature, dim=-1)
    per_token = torch.sum(t.exp() * (t - s), dim=-1)
    real = mask.to(per_token.dtype)
    return (per_token * real).sum() / real.sum().clamp(min=1.0) * temperature**2


def _eval_and_keep(model: Any, tokenizer: Any, dev: dict[str, list[Document]], device: str,
                   out: Path, step: int, best_score: float) -> float:  # fmt: skip
    from deid.ner.model import save_compact

    t = time.time()
    res = evaluate(model, tokenizer, dev, device)
    score = sum(r["strict_f1"] for r in res.values()) / max(1, len(res))
    brief = {k: {m: round(v, 4) for m, v in r.items()} for k, r in res.items()}
    log.info("eval step %d score %.4f (%.0fs): %s", step, score, time.time() - t, json.dumps(brief))
    if score > best_score:
        best = out / "best"
        tmp = out / "best.tmp"
        save_compact(model, tmp, fp16=False, extra={"deid_model_version": f"{out.name}-step{step}"})
        (tmp / "scores.json").write_text(json.dumps({"step": step, "score": score, "dev": brief}, indent=2))
        if best.exists():
            import shutil

            shutil.rmtree(best)
        tmp.rename(best)
        log.info("new best at step %d", step)
        return score
    return best_score


__all__ = ["BIO_TAGS", "TrainConfig", "evaluate", "span_scores", "train"]
