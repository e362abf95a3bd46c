"""The NER detector's speed on ~2 kB notes: the shipped path (baseline) against faster paths, on a
GPU (or the CPU, as a dry run), with the share of spans identical to the baseline's (issue 36).

Usage: .venv/bin/python bench/gpu_speed.py --device cpu --notes 24          (dry run, minutes)
       python bench/gpu_speed.py --device cuda --notes 4096 --workers 12    (bench/gpu_run.sh speed)

Notes are deid.lab.synth's French notes of seed 1234 joined to at least --note-chars characters, as
bench/ner_throughput.py --note-chars does (the same notes for the same --notes). Token counts are
the subwords the model reads (words split first, no specials, no window overlap); every variant
divides by the same count, so tokens/s and notes/s are proportional.

Timed, each on the same notes and spans compared with the baseline's (start, end, label):
  model-only   notes in, spans out: tokenize + windows + forward + decode
    baseline     NerDetector.detect as shipped (deid.ner.infer), --batch notes a call
    fast-1p      one process: word-cached tokenizer, vectorized planning and decoding, the encoder
                 rewritten over the same weights (fused QKV; on a GPU half precision with
                 padding-free packed windows and flash attention's variable-length kernel),
                 pinned double buffers, batch k+1 queued before batch k is read back
    fast-mp      fast-1p with tokenization and decoding in --workers processes beside the GPU
  forward-only the encoder alone over already-built batches (the same windows)
    hf-*         the transformers model as the baseline runs it (2-D int mask), fp32/fp16/bf16,
                 and under each SDPA backend, each twice (first pass: new shapes; second: seen)
    fast-*       the rewritten encoder: padded (SDPA, boolean key mask) or packed (varlen)

Batching of the fast paths (--batching, issue 36): ``varlen`` windows packed end to end, no padding;
``sorted`` windows sorted by length, each batch padded to its longest (rounded up to 32, as the
shipped path); ``arrival`` windows in note order, each batch padded to its longest; ``fixed`` every
window padded to 256 tokens, a fixed number of rows a batch (one shape: what CUDA graphs need).
--dtypes picks the fast paths' precisions, --compile adds torch.compile'd copies of the padded
variants (``reduce-overhead`` records CUDA graphs on a GPU). --device cuda falls back to the CPU
where torch sees no GPU, so the same command is a dry run on any machine.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import platform
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SpanSet = set[tuple[int, int, str]]


# --------------------------------------------------------------------------------------------
# notes


def make_notes(n: int, chars: int, seed: int = 1234) -> list[str]:
    """bench/ner_throughput.py's notes: synthetic notes joined until each has ``chars`` chars
    (the same prefix of the generator's stream; drawn further if the first draw runs out)."""
    from deid.lab.synth import generate_notes

    draw = n * (chars // 400 + 2)
    while True:
        pool = iter([d.text for d in generate_notes(draw, seed=seed)])
        notes: list[str] = []
        try:
            while len(notes) < n:
                text = next(pool)
                while len(text) < chars:
                    text += "\n\n" + next(pool)
                notes.append(text)
            return notes
        except StopIteration:
            draw *= 2


# --------------------------------------------------------------------------------------------
# host side of the fast path: no torch here (the worker processes never import it)

_TOK: Any = None


class _WordCache:
    """word -> its subword ids, stored end to end (CSR) so a note's ids are one numpy gather. The
    model's input is tokenized word by word (pre-tokenized: each word normalized and prefixed with
    the metaspace on its own), so a word's pieces never depend on its neighbours and the cache is
    exact (checked against deid.ner.encode at every run)."""

    def __init__(self, max_words: int = 1 << 20) -> None:
        self.max_words = max_words
        self.clear()

    def clear(self) -> None:
        self.index: dict[str, int] = {}
        self.lens = np.zeros(1024, np.int64)
        self.offs = np.zeros(1024, np.int64)
        self.flat = np.zeros(4096, np.int32)
        self.used = 0

    def __len__(self) -> int:
        return len(self.index)

    def add(self, words: set[str]) -> None:
        miss = [w for w in words if w not in self.index]
        if not miss:
            return
        if len(self.index) + len(miss) > self.max_words:
            self.clear()
            miss = list(words)
        encs = _TOK.encode_batch([[w] for w in miss], is_pretokenized=True, add_special_tokens=False)
        pieces = [e.ids for e in encs]
        lens = np.fromiter(map(len, pieces), np.int64, len(pieces))
        flat = np.fromiter(chain.from_iterable(pieces), np.int32, int(lens.sum()))
        n0, k = len(self.index), len(miss)
        while n0 + k > len(self.lens):
            self.lens = np.concatenate((self.lens, np.zeros_like(self.lens)))
            self.offs = np.concatenate((self.offs, np.zeros_like(self.offs)))
        while self.used + len(flat) > len(self.flat):
            self.flat = np.concatenate((self.flat, np.zeros_like(self.flat)))
        self.lens[n0 : n0 + k] = lens
        self.offs[n0 : n0 + k] = self.used + np.cumsum(lens) - lens
        self.flat[self.used : self.used + len(flat)] = flat
        self.used += len(flat)
        self.index.update(zip(miss, range(n0, n0 + k), strict=True))


_CACHE = _WordCache()
# character classes of deid.ner.text._WORD ("[^\W_]+|\S"): 0 space, 1 word character, 2 other
_CLASS = np.full(0x110000, 255, np.uint8)


def _classes(codes: np.ndarray) -> np.ndarray:
    cls = _CLASS[codes]
    if (cls == 255).any():
        for c in np.unique(codes[cls == 255]).tolist():
            ch = chr(c)
            _CLASS[c] = 1 if re.fullmatch(r"[^\W_]", ch) else 0 if re.fullmatch(r"\s", ch) else 2
        cls = _CLASS[codes]
    return cls


def split_words_arrays(text: str) -> tuple[np.ndarray, np.ndarray]:
    """deid.ner.text.split_words(text) as (starts, ends) arrays: runs of word characters, and
    every other visible character alone."""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    cls = _classes(codes)
    w = cls == 1
    prev = np.concatenate(([False], w[:-1]))
    nxt = np.concatenate((w[1:], [False]))
    run_start = w & ~prev
    starts = np.flatnonzero(run_start | (cls == 2))
    ends = starts + 1
    ends[run_start[starts]] = np.flatnonzero(w & ~nxt) + 1
    return starts.astype(np.int32), ends.astype(np.int32)


@dataclass(slots=True)
class Prepped:
    """One note as the model reads it: words, subwords and windows, as arrays."""

    starts: np.ndarray  # int32 (words,): word character offsets
    ends: np.ndarray
    ids: np.ndarray  # int32 (tokens,): subword ids, no specials
    word_of: np.ndarray  # int32 (tokens,)
    first: np.ndarray  # bool (tokens,)
    windows: np.ndarray  # int32 (k, 4): start, end, keep_start, keep_end (deid.ner.text.Window)


def init_worker(tokenizer_json: str) -> None:
    global _TOK
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    from tokenizers import Tokenizer

    _TOK = Tokenizer.from_file(tokenizer_json)


_PUNCT = np.array([ord(c) for c in ".!?;"], np.uint32)


def prep_texts(texts: Sequence[str], max_len: int = 256, overlap: int = 64) -> list[Prepped]:
    """deid.ner.encode.encode_texts + unit_starts + deid.ner.infer._plan, the same output as arrays."""
    from deid.ner.text import make_aligned_windows

    size = max_len - 2
    overlap = min(overlap, size - 1)
    split = [split_words_arrays(t) for t in texts]
    words = [
        [t[a:b] for a, b in zip(s.tolist(), e.tolist(), strict=True)]
        for t, (s, e) in zip(texts, split, strict=True)
    ]
    cache = _CACHE
    cache.add({w for ws in words for w in ws})
    index = cache.index
    out: list[Prepped] = []
    for text, (starts, ends), ws in zip(texts, split, words, strict=True):
        nw = len(ws)
        if not nw:
            z = np.zeros(0, np.int32)
            out.append(Prepped(z, z, z, z, np.zeros(0, bool), np.zeros((0, 4), np.int32)))
            continue
        widx = np.fromiter(map(index.__getitem__, ws), np.int64, nw)
        lens = cache.lens[widx]
        n = int(lens.sum())
        tok_start = np.cumsum(lens) - lens  # first token of each word
        ids = cache.flat[np.repeat(cache.offs[widx] - tok_start, lens) + np.arange(n)]
        word_of = np.repeat(np.arange(nw, dtype=np.int32), lens)
        first = np.zeros(n, bool)
        has = lens > 0
        first[tok_start[has]] = True
        if n > size:
            # unit_starts: a word (not the first) that has tokens, after a gap holding a line end or
            # after a one-character word in ".!?;"
            codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
            nl = np.concatenate(([0], np.cumsum(codes == 10)))
            gap_nl = nl[starts[1:]] - nl[ends[:-1]] > 0
            one = (ends[:-1] - starts[:-1]) == 1
            punct = np.isin(codes[starts[:-1]], _PUNCT)
            unit = np.concatenate(([False], gap_nl | (one & punct))) & has
            wins = make_aligned_windows(n, size, overlap, tok_start[unit].tolist())
        else:
            wins = make_aligned_windows(n, size, overlap, [])
        w = np.array([(x.start, x.end, x.keep_start, x.keep_end) for x in wins], dtype=np.int32)
        out.append(Prepped(starts, ends, ids, word_of, first, w))
    return out


def decode_one(
    text: str,
    p: Prepped,
    tag: np.ndarray,
    p_tag: np.ndarray,
    p_o: np.ndarray,
    id2label: dict[int, str],
    min_phi_prob: float | None,
) -> list[Any]:
    """deid.ner.infer.decode_predictions for one note (min_score 0): the same spans, as (start,
    end, label, score) tuples (``as_spans`` makes deid.spans.Span objects of them), from a loop
    over the PHI words only (deid.ner.text.decode_words walks every word; an O only ends the
    entity in progress, so skipping the O words and ending at each gap is the same)."""
    from deid.ner.text import _CONTINUABLE

    nw = len(p.starts)
    if nw == 0 or not len(p.ids):
        return []
    f = np.flatnonzero(p.first)
    wo = p.word_of[f]
    pt, po, tg = p_tag[f], p_o[f], tag[f]
    phi_tok = pt > po if min_phi_prob is None else (1.0 - po) >= min_phi_prob
    words = wo[phi_tok]
    if not len(words):
        return []
    tags = [id2label.get(t, "O") for t in tg[phi_tok].tolist()]
    scores = np.where(phi_tok, pt, po)[phi_tok].tolist()
    idx = words.tolist()
    starts, ends = p.starts, p.ends
    out: list[Any] = []
    cur: list[int] = []

    def flush() -> None:
        if len(cur) == 1:
            k = cur[0]
            best = tags[k][2:]
            score = scores[k]
        else:
            counts: dict[str, int] = {}
            for k in cur:
                lab = tags[k][2:]
                counts[lab] = counts.get(lab, 0) + 1
            best = max(counts, key=lambda lab: counts[lab])  # dict order: first seen wins a tie
            score = min(scores[k] for k in cur)
        out.append((int(starts[idx[cur[0]]]), int(ends[idx[cur[-1]]]), best, score))
        cur.clear()

    prev = -2
    for k, w in enumerate(idx):
        t = tags[k]
        if t == "O":  # a tag id2label does not know: an O, as decode_predictions reads it
            if cur:
                flush()
            prev = -2
            continue
        if w != prev + 1 and cur:
            flush()
        if t.startswith("B-") and cur:
            lab = t[2:]
            cont = (
                w == prev + 1
                and lab in _CONTINUABLE
                and tags[k - 1][2:] == lab
                and text[ends[w - 1] : starts[w]] == " "
                and any(c.isalnum() for c in text[starts[w - 1] : ends[w - 1]])
            )
            if not cont:
                flush()
        cur.append(k)
        prev = w
    if cur:
        flush()
    return out


_LABELS: dict[str, Any] = {}


def as_spans(found: list[tuple[int, int, str, float]]) -> list[Any]:
    """decode_one's tuples as the deid.spans.Span objects NerDetector.detect returns."""
    from deid.labels import Label
    from deid.spans import Span

    out = []
    for s, e, name, score in found:
        lab = _LABELS.get(name)
        if lab is None:
            lab = _LABELS[name] = Label(name)
        out.append(Span(s, e, lab, "ner", score))
    return out


def decode_texts(
    jobs: list[tuple[str, Prepped, np.ndarray, np.ndarray, np.ndarray]],
    id2label: dict[int, str],
    min_phi_prob: float | None,
) -> list[list[Any]]:
    return [decode_one(t, p, a, b, c, id2label, min_phi_prob) for t, p, a, b, c in jobs]


_ID2LABEL: dict[int, str] = {}
_MIN_PHI: float | None = None


_SPECIALS = (0, 2, 1)


def init_worker_full(
    tokenizer_json: str,
    id2label: dict[int, str],
    min_phi_prob: float | None,
    specials: tuple[int, int, int] = (0, 2, 1),
) -> None:
    global _ID2LABEL, _MIN_PHI, _SPECIALS
    init_worker(tokenizer_json)
    _ID2LABEL, _MIN_PHI, _SPECIALS = id2label, min_phi_prob, specials


def worker_prep(texts: list[str]) -> list[Prepped]:
    return prep_texts(texts)


def worker_decode(jobs: list[tuple[str, Prepped, np.ndarray, np.ndarray, np.ndarray]]) -> list[list[Any]]:
    return decode_texts(jobs, _ID2LABEL, _MIN_PHI)


def worker_ping(_: int) -> int:
    return os.getpid()


def worker_prep_packed(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, bytes]:
    """fast-mp2's first half in a worker: these notes prepared and their windows already packed end
    to end (ids, positions, boundaries, longest window), the Prepped list pickled once for the
    decoding worker (the GPU process forwards the bytes without reading them)."""
    import pickle

    pp = prep_texts(texts)
    cls, sep, pad = _SPECIALS
    b = build_batches(pp, 1 << 62, cls, sep, pad, packed=True)
    blob = pickle.dumps(pp, protocol=pickle.HIGHEST_PROTOCOL)
    if not b:
        z = np.zeros(0, np.int32)
        return z, z, np.zeros(1, np.int32), 0, blob
    return b[0].ids, b[0].pos, b[0].cu, b[0].max_len, blob  # type: ignore[return-value]


def worker_decode_packed(
    texts: list[str], blob: bytes, cu: np.ndarray, tag: np.ndarray, p_tag: np.ndarray, p_o: np.ndarray
) -> list[list[tuple[int, int, str, float]]]:
    """fast-mp2's second half: the packed outputs back onto each note's subwords, then decoding."""
    import pickle

    pp: list[Prepped] = pickle.loads(blob)
    out = []
    r = 0
    for text, x in zip(texts, pp, strict=True):
        n = len(x.ids)
        tg, pt, po = np.zeros(n, np.int16), np.zeros(n, np.float32), np.ones(n, np.float32)
        for s, _, ks, ke in x.windows.tolist():
            a = int(cu[r]) + 1 + ks - s
            tg[ks:ke], pt[ks:ke], po[ks:ke] = (
                tag[a : a + ke - ks],
                p_tag[a : a + ke - ks],
                p_o[a : a + ke - ks],
            )
            r += 1
        out.append(decode_one(text, x, tg, pt, po, _ID2LABEL, _MIN_PHI))
    return out


# --------------------------------------------------------------------------------------------
# device side of the fast path


def flash_varlen(device: str, dtype: Any) -> tuple[Callable[..., Any] | None, str]:
    """Flash attention's variable-length kernel, as the product finds it (``deid.ner.packed``)."""
    from deid.ner.packed import varlen_attention

    return varlen_attention(device, dtype)


class FastEncoder:
    """The token classifier's forward pass rewritten over the model's own weights (BERT, post-LN,
    erf GELU, absolute positions), without transformers' per-call overhead: Q, K and V in one
    product; attention by SDPA over padded windows with a (batch, 1, 1, length) boolean key mask,
    or over windows packed end to end without padding (``attn="varlen"``: flash attention's
    variable-length kernel on a GPU in half precision; elsewhere, one SDPA call per window, a
    reference for the dry run). Output: per token, the most probable non-O tag, its probability and
    P(O), computed on the device (softmax in fp32, as the baseline) so only three small arrays
    travel back."""

    def __init__(self, model: Any, device: str, dtype: Any, o_id: int, attn: str = "sdpa") -> None:
        import torch

        self.torch = torch
        self.device, self.dtype, self.o_id, self.attn = device, dtype, o_id, attn
        cfg = model.config
        self.heads = cfg.num_attention_heads
        self.hidden = cfg.hidden_size
        self.eps = cfg.layer_norm_eps
        if cfg.hidden_act != "gelu" or getattr(cfg, "position_embedding_type", "absolute") != "absolute":
            raise ValueError("FastEncoder reads BERT with erf GELU and absolute positions only")
        bert = model.bert

        def t(x: Any) -> Any:
            return x.detach().to(device=device, dtype=dtype).contiguous()

        emb = bert.embeddings
        self.word = t(emb.word_embeddings.weight)
        self.pos = t(emb.position_embeddings.weight)
        self.type0 = t(emb.token_type_embeddings.weight[0])
        self.eln = (t(emb.LayerNorm.weight), t(emb.LayerNorm.bias))
        self.layers = []
        for layer in bert.encoder.layer:
            a = layer.attention
            s = a.self
            qkv_w = torch.cat([_weight(s.query), _weight(s.key), _weight(s.value)])
            qkv_b = torch.cat([s.query.bias, s.key.bias, s.value.bias])
            out = a.output
            ffo = layer.output
            self.layers.append((
                t(qkv_w), t(qkv_b),
                t(_dense(out).weight), t(_dense(out).bias),
                t(_norm(out).weight), t(_norm(out).bias),
                t(_weight(layer.intermediate.dense)), t(layer.intermediate.dense.bias),
                t(_dense(ffo).weight), t(_dense(ffo).bias),
                t(_norm(ffo).weight), t(_norm(ffo).bias),
            ))  # fmt: skip
        self.cls_w = t(model.classifier.weight)
        self.cls_b = t(model.classifier.bias)
        self.varlen: Callable[..., Any] | None = None
        self.kernel = "SDPA" if attn == "sdpa" else "SDPA window by window (reference)"
        if attn == "varlen" and device.startswith("cuda"):
            self.varlen, self.kernel = flash_varlen(device, dtype)
            if self.varlen is None:
                raise RuntimeError(self.kernel)

    # x: (tokens, hidden) packed, or (batch, length, hidden) padded
    def _layers(self, x: Any, attend: Callable[[Any, Any, Any], Any]) -> Any:
        F = self.torch.nn.functional
        h = self.hidden
        for qkv_w, qkv_b, ao_w, ao_b, ln1_w, ln1_b, fi_w, fi_b, fo_w, fo_b, ln2_w, ln2_b in self.layers:
            qkv = F.linear(x, qkv_w, qkv_b)
            q, k, v = qkv.split(h, dim=-1)
            a = attend(q, k, v)
            x = F.layer_norm(F.linear(a, ao_w, ao_b) + x, (h,), ln1_w, ln1_b, self.eps)
            f = F.gelu(F.linear(x, fi_w, fi_b))
            x = F.layer_norm(F.linear(f, fo_w, fo_b) + x, (h,), ln2_w, ln2_b, self.eps)
        return x

    def _head(self, x: Any) -> tuple[Any, Any, Any]:
        torch = self.torch
        probs = torch.softmax(self.torch.nn.functional.linear(x, self.cls_w, self.cls_b).float(), dim=-1)
        p_o = probs[..., self.o_id].clone()
        probs[..., self.o_id] = -1.0
        tag = probs.argmax(-1)
        p_tag = probs.gather(-1, tag.unsqueeze(-1)).squeeze(-1)
        return tag.to(torch.int16), p_tag, p_o

    def _embed(self, ids: Any, pos: Any) -> Any:
        F = self.torch.nn.functional
        x = self.word[ids] + self.type0 + self.pos[pos]
        return F.layer_norm(x, (self.hidden,), *self.eln, self.eps)

    def packed(self, ids: Any, pos: Any, cu: Any, cu_host: np.ndarray, max_len: int) -> tuple[Any, Any, Any]:
        """Windows packed end to end: ``ids``/``pos`` (tokens,), ``cu`` their int32 boundaries."""
        torch = self.torch
        nh, d = self.heads, self.hidden // self.heads
        F = torch.nn.functional

        def attend(q: Any, k: Any, v: Any) -> Any:
            n = q.shape[0]
            q, k, v = (z.view(n, nh, d) for z in (q, k, v))
            if self.varlen is not None:
                return self.varlen(q, k, v, cu, max_len).reshape(n, nh * d)
            out = torch.empty_like(q)
            for a, b in zip(cu_host[:-1].tolist(), cu_host[1:].tolist(), strict=True):
                qs, ks, vs = (z[a:b].transpose(0, 1) for z in (q, k, v))
                out[a:b] = F.scaled_dot_product_attention(qs, ks, vs).transpose(0, 1)
            return out.reshape(n, nh * d)

        return self._head(self._layers(self._embed(ids, pos), attend))

    def padded(self, ids: Any, lengths: Any) -> tuple[Any, Any, Any]:
        """Windows padded to one length: ``ids`` (batch, length), ``lengths`` (batch,)."""
        torch = self.torch
        nb, n = ids.shape
        nh, d = self.heads, self.hidden // self.heads
        pos = torch.arange(n, device=ids.device)
        mask = (pos[None, :] < lengths[:, None])[:, None, None, :]
        F = torch.nn.functional

        def attend(q: Any, k: Any, v: Any) -> Any:
            q, k, v = (z.view(nb, n, nh, d).transpose(1, 2) for z in (q, k, v))
            o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            return o.transpose(1, 2).reshape(nb, n, nh * d)

        return self._head(self._layers(self._embed(ids, pos[None, :].expand(nb, n)), attend))


def _weight(m: Any) -> Any:
    return m.weight


def _dense(block: Any) -> Any:
    """A BERT output block's linear layer (``dense``), or the block itself once fused for the CPU
    (deid.ner.cpu_fusion.FusedResidualOutput holds the weight and bias)."""
    return block.dense if hasattr(block, "dense") else block


def _norm(block: Any) -> Any:
    return block.LayerNorm if hasattr(block, "LayerNorm") else block.norm


@dataclass(slots=True)
class Batch:
    rows: list[tuple[int, int]]  # (note index, window index) per packed window
    ids: np.ndarray  # int32 (tokens,) packed, or (batch, length) padded
    pos: np.ndarray | None  # int32 (tokens,) packed
    cu: np.ndarray  # int32 (windows + 1,) packed; lengths (batch,) padded
    max_len: int
    real: int  # tokens fed, specials included
    fed: int  # tokens fed, padding included


def build_batches(
    prepped: Sequence[Prepped],
    budget: int,
    cls: int,
    sep: int,
    pad: int,
    packed: bool,
    pad_multiple: int = 32,
    max_len: int = 256,
    order: str = "sorted",
) -> list[Batch]:
    """Every window of ``prepped`` with its two specials, in batches of at most ``budget`` tokens:
    packed end to end (any order: nothing is padded), or padded: sorted by length, each batch to
    its longest rounded up to ``pad_multiple`` (``order="sorted"``, as deid.ner.infer does); in
    note order, each batch to its longest (``"arrival"``); in note order, every window to
    ``max_len`` (``"fixed"``: one shape for every full batch)."""
    jobs = [(i, k, int(w[1] - w[0]) + 2) for i, p in enumerate(prepped) for k, w in enumerate(p.windows)]
    out: list[Batch] = []
    if packed:
        cur: list[tuple[int, int, int]] = []
        total = 0

        def flush() -> None:
            lens = np.array([j[2] for j in cur], np.int32)
            cu = np.concatenate(([0], np.cumsum(lens))).astype(np.int32)
            parts: list[np.ndarray] = []
            sp_c, sp_s = np.array([cls], np.int32), np.array([sep], np.int32)
            for i, k, _ in cur:
                s, e = prepped[i].windows[k, :2]
                parts += [sp_c, prepped[i].ids[s:e], sp_s]
            ids = np.concatenate(parts)
            pos = (np.arange(len(ids), dtype=np.int32) - np.repeat(cu[:-1], lens)).astype(np.int32)
            out.append(Batch([(i, k) for i, k, _ in cur], ids, pos, cu, int(lens.max()), len(ids), len(ids)))

        for j in jobs:
            if cur and total + j[2] > budget:
                flush()
                cur, total = [], 0
            cur.append(j)
            total += j[2]
        if cur:
            flush()
        return out
    step = max(1, pad_multiple)

    def padded_len(n: int) -> int:
        return max(n, min(-(-n // step) * step, max_len))

    from deid.ner.infer import pack_by_length

    if order == "sorted":
        groups = pack_by_length([padded_len(j[2]) for j in jobs], budget)
    elif order in ("arrival", "fixed"):
        groups, cur, longest = [], [], 0
        for g, j in enumerate(jobs):
            size = max_len if order == "fixed" else max(longest, padded_len(j[2]))
            if cur and size * (len(cur) + 1) > budget:
                groups.append(cur)
                cur, longest = [], 0
            cur.append(g)
            longest = max(longest, padded_len(j[2]))
        if cur:
            groups.append(cur)
    else:
        raise ValueError(f"batch order {order!r}: sorted, arrival or fixed")
    for group in groups:
        sel = [jobs[g] for g in group]
        length = max_len if order == "fixed" else padded_len(max(j[2] for j in sel))
        ids = np.full((len(sel), length), pad, np.int32)
        lens = np.zeros(len(sel), np.int32)
        for r, (i, k, n) in enumerate(sel):
            s, e = prepped[i].windows[k, :2]
            ids[r, 0] = cls
            ids[r, 1 : n - 1] = prepped[i].ids[s:e]
            ids[r, n - 1] = sep
            lens[r] = n
        out.append(Batch([(i, k) for i, k, _ in sel], ids, None, lens, length, int(lens.sum()), ids.size))
    return out


class DeviceRunner:
    """Batches through the FastEncoder: inputs staged in pinned host buffers (two, alternating),
    copied without blocking, the three outputs copied back into pinned buffers and waited on by an
    event, so the host builds batch k+1 and reads back batch k while the device computes."""

    def __init__(self, enc: FastEncoder, packed: bool) -> None:
        self.enc, self.packed = enc, packed
        self.torch = enc.torch
        self.cuda = enc.device.startswith("cuda")

    def launch(self, b: Batch) -> Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]]:
        torch = self.torch
        dev = self.enc.device

        def to_dev(a: np.ndarray) -> Any:
            t = torch.from_numpy(a)
            if self.cuda:
                t = t.pin_memory().to(dev, non_blocking=True)
            return t.long() if t.dtype != torch.int64 else t

        with torch.inference_mode():
            if self.packed:
                cu = torch.from_numpy(b.cu)
                if self.cuda:
                    cu = cu.pin_memory().to(dev, non_blocking=True)
                outs = self.enc.packed(to_dev(b.ids), to_dev(b.pos), cu, b.cu, b.max_len)  # type: ignore[arg-type]
            else:
                outs = self.enc.padded(to_dev(b.ids), to_dev(b.cu))
            if not self.cuda:
                res = tuple(np.asarray(o.numpy()) for o in outs)
                return lambda: res  # type: ignore[return-value]
            hosts = [torch.empty(o.shape, dtype=o.dtype, pin_memory=True) for o in outs]
            for h, o in zip(hosts, outs, strict=True):
                h.copy_(o, non_blocking=True)
            done = torch.cuda.Event()
            done.record()

        def wait() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            done.synchronize()
            return tuple(np.asarray(h.numpy()) for h in hosts)  # type: ignore[return-value]

        return wait

    def run(
        self, prepped: Sequence[Prepped], batches: Sequence[Batch]
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per note: tag (int16), p_tag, p_o per subword (deid.ner.infer.TokenPreds)."""
        preds = [(np.zeros(len(p.ids), np.int16), np.zeros(len(p.ids), np.float32),
                  np.ones(len(p.ids), np.float32)) for p in prepped]  # fmt: skip

        def read_back(b: Batch, wait: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]]) -> None:
            tag, p_tag, p_o = wait()
            for r, (i, k) in enumerate(b.rows):
                s, _, ks, ke = prepped[i].windows[k].tolist()
                out = preds[i]
                if self.packed:
                    a = int(b.cu[r]) + 1 + ks - s
                    src = slice(a, a + ke - ks)
                    out[0][ks:ke], out[1][ks:ke], out[2][ks:ke] = tag[src], p_tag[src], p_o[src]
                else:
                    a = 1 + ks - s
                    src2 = slice(a, a + ke - ks)
                    out[0][ks:ke], out[1][ks:ke], out[2][ks:ke] = tag[r, src2], p_tag[r, src2], p_o[r, src2]

        in_flight = None
        for b in batches:
            wait = self.launch(b)
            if in_flight is not None:
                read_back(*in_flight)
            in_flight = (b, wait)
        if in_flight is not None:
            read_back(*in_flight)
        return preds

    def forward_only(self, batches: Sequence[Batch]) -> None:
        waits = []
        for b in batches:
            waits.append(self.launch(b))
            if len(waits) > 2:
                waits.pop(0)()
        for w in waits:
            w()


# --------------------------------------------------------------------------------------------
# the paths, timed


def spans_of(found: Sequence[Sequence[Any]]) -> list[SpanSet]:
    out = []
    for spans in found:
        s: SpanSet = set()
        for sp in spans:
            s.add((sp.start, sp.end, str(sp.label)) if hasattr(sp, "start") else (sp[0], sp[1], sp[2]))
        out.append(s)
    return out


def agreement(found: Sequence[SpanSet], ref: Sequence[SpanSet]) -> tuple[float, int, int]:
    n = min(len(found), len(ref))
    same = sum(len(a & b) for a, b in zip(found[:n], ref[:n], strict=True))
    union = sum(len(a | b) for a, b in zip(found[:n], ref[:n], strict=True))
    return same / max(1, union), union - same, union


class Report:
    def __init__(self, n_tokens: Callable[[int], int]) -> None:
        self.rows: list[str] = []
        self.n_tokens = n_tokens

    def add(self, kind: str, name: str, notes: int, seconds: float, agree: str = "", extra: str = "") -> None:
        toks = self.n_tokens(notes)
        row = (f"| {kind} | {name} | {notes} | {seconds:.3f} | {notes / seconds:,.1f} | "
               f"{toks / seconds:,.0f} | {agree} | {extra} |")  # fmt: skip
        self.rows.append(row)
        print(row, flush=True)

    def header(self) -> None:
        print("| timed | path | notes | seconds | notes/s | tokens/s | spans identical to baseline | notes |")
        print("|---|---|---:|---:|---:|---:|---|---|", flush=True)


def sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def write_pack(out: Path, notes: list[str], model_dir: Path) -> None:
    """What a lent GPU machine (no network, 64 MiB a call) needs to run this bench: the word-embedding
    rows of exactly these notes' subwords in scripts/device_pack.py's format (``unpack`` rebuilds
    the e5 cache from ``out/e5``), and the model's de-identification tensors alone (``out/model``;
    the shipped file also holds the concept head, which would put the tree over the limit)."""
    import json
    import lzma
    import shutil

    from safetensors import safe_open
    from safetensors.torch import save_file

    from deid.ner.e5 import ensure_e5_dir, load_tokenizer, read_word_rows_q4
    from deid.ner.model import CONCEPTS_KEY

    e5 = ensure_e5_dir()
    init_worker(str(e5 / "tokenizer.json"))
    tok = load_tokenizer()
    ids = set(tok.all_special_ids) | {tok.pad_token_id}
    for x in prep_texts(notes):
        ids.update(x.ids.tolist())
    rows = np.array(sorted(ids), dtype=np.int64)
    (out / "e5").mkdir(parents=True, exist_ok=True)
    np.savez(out / "e5" / "word_rows.npz", ids=rows, q4=read_word_rows_q4(rows))
    for name in ("config.json", "tokenizer_config.json"):
        shutil.copy(e5 / name, out / "e5" / name)
    with lzma.open(out / "e5" / "tokenizer.json.xz", "wb", preset=6) as f:
        f.write((e5 / "tokenizer.json").read_bytes())
    (out / "model").mkdir(parents=True, exist_ok=True)
    cfg = json.loads((model_dir / "config.json").read_text())
    cfg.pop(CONCEPTS_KEY, None)
    (out / "model" / "config.json").write_text(json.dumps(cfg, indent=2))
    with safe_open(str(model_dir / "model.safetensors"), framework="pt") as f:
        state = {k: f.get_tensor(k) for k in f.keys() if not k.startswith("concepts.")}  # noqa: SIM118
    save_file(state, str(out / "model" / "model.safetensors"))
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(
        f"{out}: {len(rows)} embedding rows for {len(notes)} notes, {len(state)} model tensors; "
        f"{size / 2**20:.1f} MiB"
    )


def profile_top(fn: Callable[[], Any], label: str, rows: int = 8) -> None:
    """The ops that take the most device time (or CPU time without a GPU) over one call of ``fn``."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    cuda = torch.cuda.is_available()
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(activities=acts) as prof:
        fn()
        if cuda:
            torch.cuda.synchronize()
    ev = prof.key_averages()

    def dev_time(e: Any) -> float:
        return float(getattr(e, "self_device_time_total", getattr(e, "self_cuda_time_total", 0.0)) or 0.0)

    total_dev = sum(dev_time(e) for e in ev)
    total_cpu = sum(e.self_cpu_time_total for e in ev)
    key = dev_time if cuda else (lambda e: e.self_cpu_time_total)
    print(
        f"#   profile of {label}: device {total_dev / 1e3:.1f} ms, host {total_cpu / 1e3:.1f} ms (self times)"
    )
    for e in sorted(ev, key=key, reverse=True)[:rows]:
        print(
            f"#     {e.key[:70]:70s} device {dev_time(e) / 1e3:8.2f} ms  "
            f"host {e.self_cpu_time_total / 1e3:8.2f} ms  calls {e.count}"
        )


# One timed run read top to bottom (the order of the report's rows); its phases share the notes,
# the baseline's spans and the runners, so splitting it would pass a dozen values between functions.
def main() -> None:  # noqa: C901
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cpu", help="cpu (a dry run) or cuda (the CPU where there is no GPU)")
    p.add_argument("--notes", type=int, default=24, help="notes of the fast paths")
    p.add_argument(
        "--baseline-notes",
        type=int,
        default=0,
        help="notes of the baseline, the first of --notes (0: min(--notes, 1024))",
    )
    p.add_argument(
        "--half-notes",
        type=int,
        default=0,
        help="notes of the fp16/bf16 baseline diagnostics (0: min(--baseline-notes, 256); -1: none)",
    )
    p.add_argument("--note-chars", type=int, default=2000)
    p.add_argument("--model", type=Path, default=None, help="model dir (default: the shipped model)")
    p.add_argument("--batch", type=int, default=128, help="notes per detect() call (baseline)")
    p.add_argument("--token-budget", type=int, default=32768, help="tokens per forward pass, both paths")
    p.add_argument("--chunk", type=int, default=512, help="notes the fast path plans together")
    p.add_argument(
        "--workers", type=int, default=0, help="processes of fast-mp (0: cpu count - 2, at least 1)"
    )
    p.add_argument(
        "--fast",
        default="",
        help="fast variants, dtype:batching (default on cuda: fp16:varlen,bf16:varlen,fp16:sorted,"
        "fp32:sorted,tf32:sorted; on cpu: fp32:varlen,fp32:sorted,bf16:sorted; 'sdpa' is 'sorted'); "
        "overrides --dtypes and --batching",
    )
    p.add_argument(
        "--dtypes",
        default="",
        help="precisions of the fast variants, each with every --batching (fp32, tf32, fp16, bf16; "
        "half precision is fp32 on a CPU without bf16 kernels only in speed, not in spans)",
    )
    p.add_argument(
        "--batching",
        default="varlen,sorted",
        help="batchings of the fast variants with --dtypes: varlen, sorted, arrival, fixed (module doc)",
    )
    p.add_argument(
        "--compile",
        default="",
        help="also time torch.compile'd copies of the padded fast variants, one per mode "
        "(default, reduce-overhead, max-autotune-no-cudagraphs; empty: none)",
    )
    p.add_argument(
        "--mp",
        default="",
        help="fast variants also run with --workers (default: the first varlen one that ran, fp32:sorted)",
    )
    p.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    p.add_argument(
        "--time-limit", type=float, default=0, help="seconds after which the diagnostics are skipped"
    )
    p.add_argument(
        "--min-phi-prob",
        type=float,
        default=None,
        help="operating threshold (default: the most probable tag, as ner_throughput)",
    )
    p.add_argument("--profile-forwards", type=int, default=4, help="forwards profiled per encoder (0: none)")
    p.add_argument(
        "--pack",
        type=Path,
        default=None,
        help="write what a GPU machine needs for these notes into this folder, and stop",
    )
    args = p.parse_args()
    t_start = time.perf_counter()

    def time_left() -> bool:
        return not args.time_limit or time.perf_counter() - t_start < args.time_limit

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch
    import transformers

    from deid.ner import DEFAULT_MODEL_DIR, load_detector
    from deid.ner.e5 import ensure_e5_dir
    from deid.ner.encode import encode_texts, special_ids
    from deid.ner.infer import InferenceConfig, Timings, _o_id, _plan

    if args.threads:
        torch.set_num_threads(args.threads)
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("# no CUDA device here: --device cuda runs on the CPU (a dry run, not a GPU figure)")
        args.device = "cpu"
    cuda = args.device.startswith("cuda")
    dev = args.device
    model_dir = args.model or DEFAULT_MODEL_DIR
    nb = min(args.notes, args.baseline_notes or 1024)
    nh = 0 if args.half_notes < 0 else min(nb, args.half_notes or 256)
    if args.fast:
        spec = args.fast
    elif args.dtypes:
        spec = ",".join(f"{d}:{b}" for d in args.dtypes.split(",") for b in args.batching.split(","))
    else:
        spec = (
            "fp16:varlen,bf16:varlen,fp16:sorted,fp32:sorted,tf32:sorted"
            if cuda
            else "fp32:varlen,fp32:sorted,bf16:sorted"
        )
    fast = [(d, "sorted" if b == "sdpa" else b) for d, b in (x.split(":") for x in spec.split(","))]
    compile_modes = [m for m in args.compile.split(",") if m]
    workers = args.workers or max(1, (os.cpu_count() or 2) - 2)
    tdt = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}

    t = time.perf_counter()
    notes = make_notes(args.notes, args.note_chars)
    if args.pack:
        write_pack(args.pack, notes, model_dir)
        return
    gpu = torch.cuda.get_device_name() if cuda else "no GPU"
    props = ""
    if cuda:
        pr = torch.cuda.get_device_properties(0)
        props = f" ({pr.multi_processor_count} SMs, {pr.total_memory / 2**30:.0f} GiB)"
    print(
        f"# {gpu}{props}; torch {torch.__version__} (CUDA {torch.version.cuda}, cuDNN "
        f"{torch.backends.cudnn.version()}); transformers {transformers.__version__}; python "
        f"{platform.python_version()}; {os.cpu_count()} CPUs; {platform.processor() or platform.machine()}"
    )
    print(
        f"# model {model_dir}; {len(notes)} notes of seed 1234 joined to >= {args.note_chars} chars "
        f"(mean {sum(map(len, notes)) / len(notes):.0f}), drawn in {time.perf_counter() - t:.1f} s"
    )
    print(
        f"# settings: {' '.join(sys.argv[1:])}; baseline notes {nb}, half-precision diagnostics {nh}; "
        f"--batch {args.batch} --token-budget {args.token_budget} --chunk {args.chunk} --workers {workers}; "
        f"fast variants {','.join(':'.join(f) for f in fast)}; windows 256 tokens, overlap 64; "
        f"min_phi_prob {args.min_phi_prob}; "
        f"TF32 matmul {torch.backends.cuda.matmul.allow_tf32 if cuda else '-'}, "
        f"float32 matmul precision {torch.get_float32_matmul_precision()}; TOKENIZERS_PARALLELISM="
        f"{os.environ.get('TOKENIZERS_PARALLELISM')}; torch threads {torch.get_num_threads()}"
    )
    if cuda:
        b = torch.backends.cuda
        print(
            f"# SDPA backends enabled: flash {b.flash_sdp_enabled()}, "
            f"mem-efficient {b.mem_efficient_sdp_enabled()}, cuDNN {b.cudnn_sdp_enabled()}, "
            f"math {b.math_sdp_enabled()}"
        )

    # overlap 64: this bench's own window planner (prep_texts) and its header use 64
    config = InferenceConfig(overlap=64, token_budget=args.token_budget, min_phi_prob=args.min_phi_prob)
    # the padded float32 path (the product's GPU path before deid.ner.packed)
    det = load_detector(model_dir, device=dev, dtype="float32", config=config, packed=False)
    tok = det._tokenizer
    o_id = _o_id(det._id2label)
    id2label = dict(det._id2label)
    cls, sep, pad = special_ids(tok)
    tokenizer_json = str(ensure_e5_dir() / "tokenizer.json")

    # the token count every rate divides by, and a check that the fast tokenization is exact
    t = time.perf_counter()
    ref_enc = encode_texts(tok, notes[:nb])
    t_ref = time.perf_counter() - t
    init_worker(tokenizer_json)
    t = time.perf_counter()
    prepped_all = prep_texts(notes)
    t_prep = time.perf_counter() - t
    cum = np.concatenate(([0], np.cumsum([len(x.ids) for x in prepped_all])))
    bad = sum(
        1
        for e, x in zip(ref_enc, prepped_all, strict=False)
        if e.ids != x.ids.tolist()
        or e.first != x.first.tolist()
        or e.word_of != x.word_of.tolist()
        or [(w.start, w.end) for w in e.words] != list(zip(x.starts.tolist(), x.ends.tolist(), strict=True))
    )
    plan = [(i, (w.start, w.end, w.keep_start, w.keep_end)) for i, w in _plan(ref_enc, notes[:nb], config)]
    same_plan = plan == [(i, tuple(w)) for i, x in enumerate(prepped_all[:nb]) for w in x.windows.tolist()]
    print(
        f"# tokens: {int(cum[-1])} subwords in {len(notes)} notes ({cum[-1] / len(notes):.0f} a note, "
        f"{len(plan) / nb:.2f} windows a note); fast tokenization identical to deid.ner.encode on "
        f"{nb - bad}/{nb} notes, windows identical: {same_plan}; one thread: encode_texts "
        f"{nb / t_ref:,.0f} notes/s, fast prep {len(notes) / t_prep:,.0f} notes/s (cold word cache)",
        flush=True,
    )

    rep = Report(lambda n: int(cum[min(n, len(notes))]))
    rep.header()

    # ---------------- baseline: NerDetector.detect as shipped
    def run_detector(d: Any, texts: list[str]) -> tuple[float, list[SpanSet]]:
        warm = texts[:8]
        d.detect(warm, ["fr"] * len(warm))
        sync(dev)
        d.timings = Timings()
        found: list[SpanSet] = []
        t0 = time.perf_counter()
        for i in range(0, len(texts), args.batch):
            chunk = texts[i : i + args.batch]
            found += spans_of(d.detect(chunk, ["fr"] * len(chunk)))
        sync(dev)
        return time.perf_counter() - t0, found

    def stages(d: Any) -> str:
        tm = d.timings
        total = tm.tokenize + tm.windows + tm.encoder + tm.decode
        return (
            f"stages: tokenize {tm.tokenize / total:.0%}, windows {tm.windows / total:.0%}, encoder "
            f"{tm.encoder / total:.0%}, decode {tm.decode / total:.0%}; padding "
            f"{tm.padded / max(1, tm.tokens) - 1:.1%}"
        )

    dt, base = run_detector(det, notes[:nb])
    rep.add("model-only", "baseline fp32 (NerDetector.detect)", nb, dt, "-", stages(det))

    def hf_batches(n: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """The baseline's batches (sorted by length, padded, int64 ids and mask) of the first n notes."""
        out = []
        for bt in build_batches(prepped_all[:n], args.token_budget, cls, sep, pad, packed=False):
            mask = (np.arange(bt.ids.shape[1])[None, :] < bt.cu[:, None]).astype(np.int64)
            out.append((bt.ids.astype(np.int64), mask))
        return out

    hf_inputs = hf_batches(nb)
    fed = sum(x[0].size for x in hf_inputs)
    real = sum(int(x[1].sum()) for x in hf_inputs)
    print(
        f"# forward-only: the baseline's batches of the first {nb} notes ({len(hf_inputs)} forwards, "
        f"{real} tokens fed, padding {fed / real - 1:.1%})",
        flush=True,
    )

    def time_forward(
        fwd: Any,
        label: str,
        n: int,
        inputs: list[tuple[np.ndarray, np.ndarray]],
        ctx: Any = None,
        passes: int = 2,
    ) -> None:
        launch = getattr(fwd, "launch", None)
        for rnd in range(1, passes + 1):
            with ctx() if ctx else contextlib.nullcontext():
                sync(dev)
                t0 = time.perf_counter()
                try:
                    if launch is None:
                        for ids, mask in inputs:
                            fwd(ids, mask)
                    else:
                        waits = []
                        for x in inputs:
                            waits.append(launch(*x))
                            if len(waits) > 2:
                                waits.pop(0)()
                        for w in waits:
                            w()
                    sync(dev)
                except RuntimeError as e:
                    print(f"#   {label}: {type(e).__name__}: {str(e).splitlines()[0][:200]}")
                    return
            rep.add(
                "forward-only",
                f"{label} (pass {rnd})",
                n,
                time.perf_counter() - t0,
                "",
                f"{len(inputs)} forwards",
            )

    time_forward(det._forward, "hf fp32 (baseline's encoder)", nb, hf_inputs)

    npf = args.profile_forwards

    def forward_some(fwd: Any, inputs: list[tuple[np.ndarray, np.ndarray]]) -> Callable[[], None]:
        def go() -> None:
            for x in inputs[:npf]:
                fwd(*x)

        return go

    if npf:
        profile_top(forward_some(det._forward, hf_inputs), f"hf fp32, {npf} forwards")

    # ---------------- the fast path
    model = det._model

    def fast_pipeline(
        runner: DeviceRunner, texts: list[str], packed: bool, order: str
    ) -> tuple[float, list[SpanSet]]:
        found: list[SpanSet] = []
        t0 = time.perf_counter()
        for i in range(0, len(texts), args.chunk):
            chunk = texts[i : i + args.chunk]
            pp = prep_texts(chunk)
            batches = build_batches(pp, args.token_budget, cls, sep, pad, packed=packed, order=order)
            preds = runner.run(pp, batches)
            out = decode_texts(
                [(tx, p_, *pr) for tx, p_, pr in zip(chunk, pp, preds, strict=True)],
                id2label,
                args.min_phi_prob,
            )
            found += spans_of(out)
        sync(dev)
        return time.perf_counter() - t0, found

    batch_names = {
        "varlen": "packed varlen",
        "sorted": "padded SDPA, sorted by length",
        "arrival": "padded SDPA, note order",
        "fixed": "padded SDPA, every window to 256",
    }
    # (dtype, batching, compile mode): the eager variants, then a compiled copy of each padded one
    variants = [(d, b, "") for d, b in fast] + [
        (d, b, m) for m in compile_modes for d, b in fast if b != "varlen"
    ]
    runners: dict[str, tuple[DeviceRunner, bool, str, str]] = {}
    for dtn, attn, mode in variants:
        if attn not in batch_names:
            print(f"#   {dtn}:{attn}: unknown batching ({', '.join(batch_names)})")
            continue
        label = f"fast {dtn} {batch_names[attn]}" + (f", torch.compile {mode}" if mode else "")
        # tf32: fp32 weights, matrix products on TF32 tensor cores (torch's default is full fp32)
        torch.backends.cuda.matmul.allow_tf32 = dtn == "tf32"
        packed = attn == "varlen"
        order = "sorted" if packed else attn
        try:
            enc = FastEncoder(model, dev, tdt[dtn], o_id, "varlen" if packed else "sdpa")
            if mode:
                enc.padded = torch.compile(enc.padded, mode=None if mode == "default" else mode)  # type: ignore[method-assign]
        except (RuntimeError, ValueError) as e:
            print(f"#   {label}: unavailable: {e}")
            continue
        runner = DeviceRunner(enc, packed)
        try:
            warm = prepped_all[:16]
            t0 = time.perf_counter()
            warm_batches = build_batches(warm, args.token_budget, cls, sep, pad, packed=packed, order=order)
            runner.run(warm, warm_batches)
            sync(dev)
            warm_s = time.perf_counter() - t0
        except Exception as e:  # a compile failure can be any error of the compiler's stack
            print(f"#   {label}: failed: {type(e).__name__}: {str(e).splitlines()[0][:300]}")
            continue
        print(f"#   {label}: attention by {enc.kernel}; warm-up on 16 notes {warm_s:.1f} s", flush=True)
        fb = build_batches(prepped_all[:nb], args.token_budget, cls, sep, pad, packed=packed, order=order)
        for rnd in (1, 2):
            sync(dev)
            t0 = time.perf_counter()
            runner.forward_only(fb)
            sync(dev)
            rep.add(
                "forward-only",
                f"{label} (pass {rnd})",
                nb,
                time.perf_counter() - t0,
                "",
                f"{len(fb)} forwards, padding {sum(x.fed for x in fb) / sum(x.real for x in fb) - 1:.1%}",
            )
        if npf:
            profile_top(functools.partial(runner.forward_only, fb[:npf]), f"{label}, {npf} forwards")
        _CACHE.clear()  # the first model-only pass pays for the tokenizer as a fresh process would
        dt, found = fast_pipeline(runner, notes, packed, order)
        a, diff, union = agreement(found, base)
        rep.add(
            "model-only",
            f"{label} fast-1p (cold word cache)",
            len(notes),
            dt,
            f"{a:.3%} ({diff} of {union} differ)",
            f"word cache {len(_CACHE)} words",
        )
        dt, found = fast_pipeline(runner, notes, packed, order)
        a, diff, union = agreement(found, base)
        rep.add("model-only", f"{label} fast-1p (warm word cache)", len(notes), dt, f"{a:.3%}")
        runners[f"{dtn}:{attn}" + (f"+{mode}" if mode else "")] = (runner, packed, order, label)
    torch.backends.cuda.matmul.allow_tf32 = False

    # ---------------- fast-mp: tokenization and decoding in worker processes, the GPU in this one
    mp_keys = (
        [k for k in args.mp.split(",") if k]
        if args.mp
        else (
            [k for k in runners if k.endswith(":varlen")][:1]
            + [k for k in ("fp32:sorted", "tf32:sorted") if k in runners]
        )
    )
    mp_keys = [k for k in mp_keys if k in runners]
    if mp_keys and workers > 0:
        import multiprocessing as mp

        ctx = mp.get_context("spawn")  # no fork of a process that holds CUDA
        t = time.perf_counter()
        with ctx.Pool(
            workers,
            initializer=init_worker_full,
            initargs=(tokenizer_json, id2label, args.min_phi_prob, (cls, sep, pad)),
        ) as pool:
            pool.map(worker_ping, range(workers * 4))
            print(f"# {workers} worker processes started in {time.perf_counter() - t:.1f} s", flush=True)
            sub = max(8, args.chunk // workers // 2)

            def mp_pipeline(
                runner: DeviceRunner, packed: bool, texts: list[str], order: str
            ) -> tuple[float, list[SpanSet], float]:
                t0 = time.perf_counter()
                pieces = [texts[i : i + sub] for i in range(0, len(texts), sub)]
                prep_iter: Iterator[list[Prepped]] = pool.imap(worker_prep, pieces)
                pending = []
                done_notes = 0
                gpu_s = 0.0
                while done_notes < len(texts):
                    pp: list[Prepped] = []
                    while len(pp) < args.chunk and done_notes + len(pp) < len(texts):
                        pp += next(prep_iter)
                    chunk = texts[done_notes : done_notes + len(pp)]
                    t1 = time.perf_counter()
                    preds = runner.run(
                        pp, build_batches(pp, args.token_budget, cls, sep, pad, packed=packed, order=order)
                    )
                    gpu_s += time.perf_counter() - t1
                    jobs = [(tx, p_, *pr) for tx, p_, pr in zip(chunk, pp, preds, strict=True)]
                    pending += [
                        pool.apply_async(worker_decode, (jobs[j : j + sub],))
                        for j in range(0, len(jobs), sub)
                    ]
                    done_notes += len(pp)
                found: list[SpanSet] = []
                for r in pending:
                    found += spans_of(r.get())
                sync(dev)
                return time.perf_counter() - t0, found, gpu_s

            def mp2_pipeline(
                runner: DeviceRunner, texts: list[str], sub2: int
            ) -> tuple[float, list[SpanSet], str]:
                """Workers prepare and pack windows by 16 notes; this process only joins packs into
                forwards of about --token-budget tokens, launches them (one queued ahead) and hands
                each pack's outputs, sliced, to a decoding worker."""
                t0 = time.perf_counter()
                pieces = [texts[i : i + sub2] for i in range(0, len(texts), sub2)]
                it = pool.imap(worker_prep_packed, pieces)
                decoded: list[Any] = [None] * len(pieces)
                waited = {"workers": 0.0, "gpu": 0.0}
                Group = list[tuple[int, int, int, np.ndarray, bytes]]

                def launch(
                    acc: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, int, bytes]],
                ) -> tuple[Group, Any]:
                    group: Group = []
                    off = 0
                    cus = []
                    for k, ids, _, cu, _, blob in acc:
                        group.append((k, off, len(ids), cu, blob))
                        cus.append(cu[:-1] + off)
                        off += len(ids)
                    if off == 0:
                        return group, None
                    cu_all = np.concatenate([*cus, np.array([off], np.int32)]).astype(np.int32)
                    b = Batch(
                        [],
                        np.concatenate([a[1] for a in acc]),
                        np.concatenate([a[2] for a in acc]),
                        cu_all,
                        max(a[4] for a in acc),
                        off,
                        off,
                    )
                    return group, runner.launch(b)

                def read(group: Group, wait: Any) -> None:
                    s = time.perf_counter()
                    tag, p_tag, p_o = (
                        wait()
                        if wait is not None
                        else (np.zeros(0, np.int16),) + (np.zeros(0, np.float32),) * 2
                    )
                    waited["gpu"] += time.perf_counter() - s
                    for k, off, n, cu, blob in group:
                        sl = slice(off, off + n)
                        decoded[k] = pool.apply_async(
                            worker_decode_packed,
                            (pieces[k], blob, cu, tag[sl].copy(), p_tag[sl].copy(), p_o[sl].copy()),
                        )

                in_flight = None
                acc: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, int, bytes]] = []
                tokens = 0
                for k in range(len(pieces)):
                    s = time.perf_counter()
                    ids, pos, cu, ml, blob = next(it)
                    waited["workers"] += time.perf_counter() - s
                    acc.append((k, ids, pos, cu, ml, blob))
                    tokens += len(ids)
                    if tokens >= args.token_budget or k == len(pieces) - 1:
                        launched = launch(acc)
                        if in_flight is not None:
                            read(*in_flight)
                        in_flight = launched
                        acc, tokens = [], 0
                if in_flight is not None:
                    read(*in_flight)
                found: list[SpanSet] = []
                for r in decoded:
                    found += spans_of(r.get())
                sync(dev)
                return (
                    time.perf_counter() - t0,
                    found,
                    (
                        f"this process waited {waited['workers']:.2f} s "
                        f"on the workers' packs, {waited['gpu']:.2f} s on the GPU"
                    ),
                )

            for key in mp_keys:
                runner, packed, order, label = runners[key]
                torch.backends.cuda.matmul.allow_tf32 = key.startswith("tf32")
                for rnd in (1, 2):
                    dt, found, gpu_s = mp_pipeline(runner, packed, notes, order)
                    a, diff, union = agreement(found, base)
                    rep.add(
                        "model-only",
                        f"{label} fast-mp, {workers} workers (pass {rnd})",
                        len(notes),
                        dt,
                        f"{a:.3%} ({diff} of {union} differ)",
                        f"main thread in batches+forward+read-back {gpu_s:.2f} s",
                    )
                if packed:
                    for rnd in (1, 2):
                        dt, found, note = mp2_pipeline(runner, notes, 16)
                        a, diff, union = agreement(found, base)
                        rep.add(
                            "model-only",
                            f"{label} fast-mp2 (packed in the workers), {workers} workers (pass {rnd})",
                            len(notes),
                            dt,
                            f"{a:.3%} ({diff} of {union} differ)",
                            note,
                        )
            torch.backends.cuda.matmul.allow_tf32 = False
        # what turning the tuples into deid.spans.Span objects costs (NerDetector.detect's output)
        tuples = [
            decode_one(tx, x, *pr, id2label, args.min_phi_prob)
            for tx, x, pr in zip(
                notes[:nb],
                prepped_all[:nb],
                runners[mp_keys[0]][0].run(
                    prepped_all[:nb],
                    build_batches(
                        prepped_all[:nb],
                        args.token_budget,
                        cls,
                        sep,
                        pad,
                        packed=runners[mp_keys[0]][1],
                        order=runners[mp_keys[0]][2],
                    ),
                ),
                strict=True,
            )
        ]
        t0 = time.perf_counter()
        n_sp = sum(len(as_spans(x)) for x in tuples)
        dt = time.perf_counter() - t0
        print(
            f"# Span objects from decode tuples: {n_sp} spans of {nb} notes in {dt:.3f} s "
            f"({1e6 * dt / max(1, n_sp):.1f} us a span, {nb / dt:,.0f} notes/s on one thread)",
            flush=True,
        )

    # ---------------- diagnostics: why half precision was slower through the shipped path
    try:
        if nh and time_left():
            halves = ("fp16", "bf16") if cuda else ("bf16",)
            hf_inputs_h = hf_batches(nh)
            for mode in halves:
                if not time_left():
                    print(f"# time limit: {mode} diagnostics skipped")
                    break
                dh = load_detector(
                    model_dir, device=dev, dtype={"fp16": "float16", "bf16": "bfloat16"}[mode], config=config
                )
                for rnd in (1, 2):
                    dt, found = run_detector(dh, notes[:nh])
                    a, diff, union = agreement(found, base)
                    rep.add(
                        "model-only",
                        f"baseline {mode} (pass {rnd})",
                        nh,
                        dt,
                        f"{a:.3%} ({diff} of {union} differ)",
                        stages(dh),
                    )
                time_forward(dh._forward, f"hf {mode} (baseline's encoder)", nh, hf_inputs_h)
                if npf:
                    profile_top(
                        forward_some(dh._forward, hf_inputs_h),
                        f"hf {mode}, {npf} forwards (shapes seen before)",
                    )
                if time_left():
                    from torch.nn.attention import SDPBackend, sdpa_kernel

                    known = (
                        "ERROR",
                        "MATH",
                        "FLASH_ATTENTION",
                        "EFFICIENT_ATTENTION",
                        "CUDNN_ATTENTION",
                        "OVERRIDEABLE",
                    )
                    names = ", ".join(
                        f"{n}={int(getattr(SDPBackend, n))}" for n in known if hasattr(SDPBackend, n)
                    )
                    x0 = hf_inputs_h[0]
                    q = torch.randn(x0[0].shape[0], 12, x0[0].shape[1], 32, device=dev, dtype=tdt[mode])
                    m4 = torch.ones(q.shape[0], 1, q.shape[2], q.shape[2], device=dev, dtype=torch.bool)
                    try:
                        masks = (m4, m4[:, :, :1], None)
                        pick = [torch._fused_sdp_choice(q, q, q, m, 0.0, False) for m in masks]
                        print(
                            f"#   SDPA's choice for {mode} (B={q.shape[0]}, L={q.shape[2]}): "
                            f"with a (B,1,L,L) bool mask {pick[0]}, with (B,1,1,L) {pick[1]}, "
                            f"without a mask {pick[2]} ({names})",
                            flush=True,
                        )
                    except (RuntimeError, AttributeError, TypeError) as e:
                        print(f"#   _fused_sdp_choice: {e}")
                    # a shape never fed before (lengths the product never pads to), first and second sight,
                    # through the baseline's own forward, under each attention backend
                    gen = torch.Generator().manual_seed(7)
                    for k, backend in enumerate(
                        ("default", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH")
                    ):
                        be = getattr(SDPBackend, backend, None)
                        if backend != "default" and be is None:
                            continue
                        timings = []
                        try:
                            for j, length in enumerate((200, 170, 230)):
                                bsz = max(1, args.token_budget // length - 3 * k - j)
                                ids = torch.randint(5, 20000, (bsz, length), generator=gen).numpy()
                                mask = np.ones((bsz, length), np.int64)
                                mask[::2, length - 17 :] = 0
                                for _ in (1, 2):
                                    with sdpa_kernel([be]) if be is not None else contextlib.nullcontext():
                                        sync(dev)
                                        s = time.perf_counter()
                                        dh._forward(ids, mask)
                                        sync(dev)
                                    timings.append(1000 * (time.perf_counter() - s))
                            print(
                                f"#   hf {mode}, new shapes under SDPA {backend.lower()}: "
                                "first / second sight "
                                + ", ".join(
                                    f"{a:.1f} / {b:.1f} ms"
                                    for a, b in zip(timings[::2], timings[1::2], strict=True)
                                ),
                                flush=True,
                            )
                        except RuntimeError as e:
                            print(
                                f"#   hf {mode}, new shapes under SDPA {backend.lower()}: "
                                f"{str(e).splitlines()[0][:150]}"
                            )
                    for backend in ("EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH"):
                        be = getattr(SDPBackend, backend, None)
                        if mode == "fp16" and be is not None and time_left():
                            time_forward(
                                dh._forward,
                                f"hf {mode}, SDPA {backend.lower()} only",
                                nh,
                                hf_inputs_h,
                                lambda be=be: sdpa_kernel([be]),
                                passes=1 if backend == "MATH" else 2,
                            )
                if getattr(dh._model.config, "_attn_implementation", None) == "sdpa" and time_left():

                    def bool_mask_fwd(ids: np.ndarray, mask: np.ndarray, m: Any = dh._model) -> Any:
                        with torch.inference_mode():
                            mt = torch.from_numpy(mask).to(dev).bool()[:, None, None, :]
                            lo = m(input_ids=torch.from_numpy(ids).to(dev), attention_mask=mt).logits
                            return torch.softmax(lo.float(), -1).cpu().numpy()

                    time_forward(bool_mask_fwd, f"hf {mode} with a (B,1,1,L) bool mask", nh, hf_inputs_h)
                del dh
                if cuda:
                    torch.cuda.empty_cache()
    except Exception as e:
        print(f"# diagnostics stopped: {type(e).__name__}: {e}")

    print(f"\n# summary ({time.perf_counter() - t_start:.0f} s in all)")
    print("| timed | path | notes | seconds | notes/s | tokens/s | spans identical to baseline | notes |")
    print("|---|---|---:|---:|---:|---:|---|---|")
    for r in rep.rows:
        print(r)


if __name__ == "__main__":
    main()
