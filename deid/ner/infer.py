"""Token-classification inference: notes in, character spans out (``Span.source == "ner"``).

The steps are shared by every backend (torch for GPU and training, ONNX Runtime on CPU):
the whole batch is tokenized in one call; each note is cut into windows that end at line or
sentence starts where possible; windows from all notes are sorted by length and packed into
forward passes under a token budget, so padding stays small; each token's prediction is read
from the window where it has the most context, then words are decoded (first subword's tag,
majority label per entity). A backend is only ``forward(ids, mask) -> probabilities``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from deid.labels import Label
from deid.ner.encode import EncodedText, WordCache, encode_texts, special_ids, unit_starts
from deid.ner.packed import PackedLaunch, TokenArrays
from deid.ner.text import _CONTINUABLE, Window, Word, breaks_line, make_aligned_windows
from deid.protocols.deadline import Deadline, check
from deid.spans import Span

_log = logging.getLogger(__name__)

# (input ids, attention mask), both int64 (batch, length) -> softmax probabilities (batch, length, tags)
Forward = Callable[[np.ndarray, np.ndarray], np.ndarray]
# Starts a forward pass and returns the wait for its probabilities. A forward that has a ``launch``
# attribute of this type (the torch one on a GPU) lets the host pack the next batch and read back
# the previous one while the device computes: a one-deep pipeline (``token_predictions``).
Launch = Callable[[np.ndarray, np.ndarray], Callable[[], np.ndarray]]


def launcher(forward: Forward) -> Launch:
    """``forward``'s own ``launch`` when it has one, else a launch that computes at once."""
    launch: Launch | None = getattr(forward, "launch", None)
    if launch is not None:
        return launch

    def eager(ids: np.ndarray, mask: np.ndarray) -> Callable[[], np.ndarray]:
        probs = forward(ids, mask)
        return lambda: probs

    return eager


@dataclass(frozen=True, slots=True)
class InferenceConfig:
    max_len: int = 256  # tokens per window, specials included
    overlap: int = 8  # tokens shared by neighbouring windows: ModelSettings.window_stride's default
    token_budget: int = 4096  # padded tokens per forward pass
    # a batch's length is padded up to a multiple of this (within max_len): oneDNN builds and
    # caches a kernel per matrix shape, and with one shape per batch a CPU spent more time building
    # them than the padding costs (bench/cpu_runtimes.py --shapes, docs/BENCHMARKS.md)
    pad_multiple: int = 32
    min_score: float = 0.0
    # None: a word takes the most probable tag (O included). A number: a word is PHI when
    # 1 - P(O) of its first subword reaches it, with the most probable PHI tag: the operating
    # point of the precision/recall curve (lower = more recall).
    min_phi_prob: float | None = None


@dataclass(slots=True)
class TokenPreds:
    """Per subword token of one text: the most probable PHI tag, its probability and P(O)."""

    tag: np.ndarray  # int, never the O tag
    p_tag: np.ndarray
    p_o: np.ndarray


@dataclass(slots=True)
class Timings:
    """Seconds spent in each stage (accumulated over calls): what ``bench/profile_detect.py``
    reports."""

    tokenize: float = 0.0
    windows: float = 0.0
    encoder: float = 0.0
    decode: float = 0.0
    tokens: int = 0  # real tokens fed (specials included)
    padded: int = 0  # tokens fed with padding
    # the notes' own tokens, each once, and the windows that fed them: ``tokens`` less these two
    # (two specials a window) is what overlapping windows read twice
    distinct: int = 0
    n_windows: int = 0
    calls: dict[str, int] = field(default_factory=dict)


def _pick_device(device: str | None) -> str:
    import torch

    if device and device != "auto":
        return device
    return "cuda" if torch.cuda.is_available() else "cpu"


def _plan(encoded: Sequence[EncodedText], texts: Sequence[str],
          config: InferenceConfig) -> list[tuple[int, Window]]:
    size = config.max_len - 2
    overlap = min(config.overlap, size - 1)
    jobs: list[tuple[int, Window]] = []
    for ti, enc in enumerate(encoded):
        if not enc.ids:
            continue
        starts = unit_starts(texts[ti], enc) if len(enc.ids) > size else []
        for w in make_aligned_windows(len(enc.ids), size, overlap, starts):
            jobs.append((ti, w))
    return jobs


def pack_by_length(lengths: Sequence[int], budget: int) -> list[list[int]]:
    """Indices sorted by length, packed under ``budget`` padded tokens: a batch pads to its own
    longest item, which is close to its shortest."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    cur: list[int] = []
    for i in order:
        if cur and lengths[i] * (len(cur) + 1) > budget:
            batches.append(cur)
            cur = []
        cur.append(i)
    if cur:
        batches.append(cur)
    return batches


def _padded_length(length: int, config: InferenceConfig) -> int:
    """``length`` rounded up to ``config.pad_multiple``, never past ``max_len`` nor below itself."""
    step = max(1, config.pad_multiple)
    return max(length, min(-(-length // step) * step, config.max_len))


def _batches(jobs: Sequence[tuple[int, Window]], config: InferenceConfig) -> list[list[int]]:
    """The windows packed by length (``pack_by_length``), two special tokens each, each length
    counted as padded, so a batch keeps to the budget."""
    return pack_by_length([_padded_length(w.end - w.start + 2, config) for _, w in jobs], config.token_budget)


def token_predictions(
    forward: Forward,
    tokenizer: Any,
    texts: Sequence[str],
    config: InferenceConfig = InferenceConfig(),
    o_id: int = 0,
    timings: Timings | None = None,
    word_cache: WordCache | None = None,
    deadline: Deadline | None = None,
    packed: PackedLaunch | None = None,
) -> tuple[list[EncodedText], list[TokenPreds]]:
    """The model's reading of every subword of ``texts``, before any decoding (``word_cache``:
    words already seen are not tokenized again, ``encode_texts``). ``deadline`` is checked before
    each forward pass (``deid.protocols.deadline``): one pass of ``token_budget`` tokens is the longest
    stretch that does not look at it. ``packed`` (the GPU path, ``deid.ner.packed``) replaces
    ``forward``: windows packed end to end, no padding, ``token_budget`` real tokens a pass."""
    t0 = time.perf_counter()
    encoded = encode_texts(tokenizer, texts, word_cache)
    t1 = time.perf_counter()
    check(deadline, "ner")
    jobs = _plan(encoded, texts, config)
    preds = [
        TokenPreds(np.zeros(len(e.ids), np.int64), np.zeros(len(e.ids), np.float32),
                   np.ones(len(e.ids), np.float32))
        for e in encoded
    ]
    if packed is not None:
        real, enc_s = _packed_passes(packed, tokenizer, encoded, jobs, preds, config, deadline)
        padded = real
    else:
        real, padded, enc_s = _padded_passes(forward, tokenizer, encoded, jobs, preds, config, o_id, deadline)
    t3 = time.perf_counter()
    if timings is not None:
        timings.tokenize += t1 - t0
        timings.encoder += enc_s
        timings.windows += (t3 - t1) - enc_s  # planning, packing and reading back
        timings.tokens += real
        timings.padded += padded
        timings.distinct += sum(len(e.ids) for e in encoded)
        timings.n_windows += len(jobs)
    return encoded, preds


def _packed_passes(
    launch: PackedLaunch,
    tokenizer: Any,
    encoded: Sequence[EncodedText],
    jobs: Sequence[tuple[int, Window]],
    preds: list[TokenPreds],
    config: InferenceConfig,
    deadline: Deadline | None,
) -> tuple[int, float]:
    """Every window once, in note order, packed end to end under ``token_budget`` real tokens a
    pass; each pass queued before the previous one is read back. Returns (tokens fed, seconds the
    host spent launching and waiting)."""
    cls, sep, _ = special_ids(tokenizer)
    passes: list[list[int]] = []
    size = 0
    for j, (_, w) in enumerate(jobs):
        n = w.end - w.start + 2
        if not passes or size + n > config.token_budget:
            passes.append([])
            size = 0
        passes[-1].append(j)
        size += n
    enc_s = 0.0
    real = 0

    def read_back(batch: list[int], cu: np.ndarray, wait: Callable[[], TokenArrays]) -> float:
        s = time.perf_counter()
        tag, p_tag, p_o = wait()
        waited = time.perf_counter() - s
        for r, j in enumerate(batch):
            ti, w = jobs[j]
            a = int(cu[r]) + w.keep_start - w.start + 1
            b = a + w.keep_end - w.keep_start
            out = preds[ti]
            out.tag[w.keep_start : w.keep_end] = tag[a:b]
            out.p_tag[w.keep_start : w.keep_end] = p_tag[a:b]
            out.p_o[w.keep_start : w.keep_end] = p_o[a:b]
        return waited

    in_flight: tuple[list[int], np.ndarray, Callable[[], TokenArrays]] | None = None
    for batch in passes:
        check(deadline, "ner")
        lengths = [jobs[j][1].end - jobs[j][1].start + 2 for j in batch]
        cu = np.zeros(len(batch) + 1, dtype=np.int32)
        np.cumsum(lengths, out=cu[1:])
        ids = np.empty(int(cu[-1]), dtype=np.int64)
        for r, j in enumerate(batch):
            ti, w = jobs[j]
            a, b = int(cu[r]), int(cu[r + 1])
            ids[a] = cls
            ids[a + 1 : b - 1] = encoded[ti].ids[w.start : w.end]
            ids[b - 1] = sep
        real += int(cu[-1])
        s = time.perf_counter()
        wait = launch(ids, cu, max(lengths))
        enc_s += time.perf_counter() - s
        if in_flight is not None:  # the previous pass is read back while this one computes
            enc_s += read_back(*in_flight)
        in_flight = (batch, cu, wait)
    if in_flight is not None:
        enc_s += read_back(*in_flight)
    return real, enc_s


def _padded_passes(
    forward: Forward,
    tokenizer: Any,
    encoded: Sequence[EncodedText],
    jobs: Sequence[tuple[int, Window]],
    preds: list[TokenPreds],
    config: InferenceConfig,
    o_id: int,
    deadline: Deadline | None,
) -> tuple[int, int, float]:
    """The windows sorted by length and padded to each pass's longest (``_batches``); each pass
    queued before the previous one is read back where the backend can (``launcher``). Returns
    (tokens fed, tokens fed with padding, seconds the host spent launching and waiting)."""
    batches = _batches(jobs, config)
    cls, sep, pad = special_ids(tokenizer)
    enc_s = 0.0
    real = padded = 0
    launch = launcher(forward)

    def read_back(batch: list[int], wait: Callable[[], np.ndarray]) -> float:
        s = time.perf_counter()
        probs = wait()
        waited = time.perf_counter() - s
        p_o = probs[..., o_id]
        phi = probs.copy()
        phi[..., o_id] = -1.0
        tag = phi.argmax(-1)
        p_tag = np.take_along_axis(phi, tag[..., None], -1)[..., 0]
        for r, j in enumerate(batch):
            ti, w = jobs[j]
            a, b = w.keep_start - w.start + 1, w.keep_end - w.start + 1
            out = preds[ti]
            out.tag[w.keep_start : w.keep_end] = tag[r, a:b]
            out.p_tag[w.keep_start : w.keep_end] = p_tag[r, a:b]
            out.p_o[w.keep_start : w.keep_end] = p_o[r, a:b]
        return waited

    in_flight: tuple[list[int], Callable[[], np.ndarray]] | None = None
    for batch in batches:
        check(deadline, "ner")
        maxlen = _padded_length(max(jobs[j][1].end - jobs[j][1].start for j in batch) + 2, config)
        ids = np.full((len(batch), maxlen), pad, dtype=np.int64)
        mask = np.zeros((len(batch), maxlen), dtype=np.int64)
        for r, j in enumerate(batch):
            ti, w = jobs[j]
            n = w.end - w.start
            ids[r, 0] = cls
            ids[r, 1 : n + 1] = encoded[ti].ids[w.start : w.end]
            ids[r, n + 1] = sep
            mask[r, : n + 2] = 1
            real += n + 2
        padded += ids.size
        s = time.perf_counter()
        wait = launch(ids, mask)
        enc_s += time.perf_counter() - s
        if in_flight is not None:  # the previous batch is read back while this one computes
            enc_s += read_back(*in_flight)
        in_flight = (batch, wait)
    if in_flight is not None:
        enc_s += read_back(*in_flight)
    return real, padded, enc_s


def decode_predictions(
    texts: Sequence[str],
    encoded: Sequence[EncodedText],
    preds: Sequence[TokenPreds],
    id2label: dict[int, str],
    config: InferenceConfig = InferenceConfig(),
) -> list[list[Span]]:
    """Word tags from each word's first subword, then spans: ``deid.ner.text.decode_words``'s
    spans (an entity breaks only at a B- or an O and takes its majority label; a B- one space after
    a name of its label continues it), from a loop over the PHI words only. An O word only ends the
    entity in progress, so skipping O words and ending the entity at each gap in the word indices
    gives the same spans (tests/ner/test_word_cache_and_phi_decode.py checks it against decode_words)."""
    labels: dict[str, Label] = {}
    out: list[list[Span]] = []
    for text, enc, pr in zip(texts, encoded, preds, strict=True):
        out.append(_decode_phi_words(text, enc, pr, id2label, config, labels) if enc.ids else [])
    return out


def _decode_phi_words(text: str, enc: EncodedText, pr: TokenPreds, id2label: dict[int, str],
                      config: InferenceConfig, labels: dict[str, Label]) -> list[Span]:
    first = np.flatnonzero(np.asarray(enc.first, dtype=bool))
    p_tag, p_o = pr.p_tag[first], pr.p_o[first]
    # the argmax (O winning ties), or the operating threshold on 1 - P(O)
    phi = p_tag > p_o if config.min_phi_prob is None else (1.0 - p_o) >= config.min_phi_prob
    if config.min_score > 0:
        phi &= np.where(phi, p_tag, p_o) >= config.min_score
    sel = first[phi]
    if not sel.size:
        return []
    word_idx = np.asarray(enc.word_of, dtype=np.int64)[sel].tolist()
    tags = [id2label.get(t, "O") for t in pr.tag[sel].tolist()]
    scores = pr.p_tag[sel].tolist()  # a PHI word's score is its tag's probability
    words = enc.words
    spans: list[Span] = []
    cur: list[int] = []  # positions in word_idx / tags / scores of the entity in progress

    def flush() -> None:
        if len(cur) == 1:
            k = cur[0]
            best, score = tags[k][2:], scores[k]
        else:
            counts: dict[str, int] = {}
            for k in cur:
                counts[tags[k][2:]] = counts.get(tags[k][2:], 0) + 1
            best = max(counts, key=counts.__getitem__)  # a tie goes to the label seen first
            score = min(scores[k] for k in cur)
        label = labels.get(best)
        if label is None:
            label = labels[best] = Label(best)
        spans.append(Span(words[word_idx[cur[0]]].start, words[word_idx[cur[-1]]].end, label, "ner", score))
        cur.clear()

    prev = -2  # word index of the last word of the entity in progress
    for k, w in enumerate(word_idx):
        tag = tags[k]
        if tag == "O":  # an id id2label does not know reads as O
            if cur:
                flush()
            prev = -2
            continue
        # an entity ends at an O word (a gap in the word indices) or at a B- that continues nothing
        if cur and (w != prev + 1 or breaks_line(text, words[w - 1], words[w]) or (
                tag[:2] == "B-" and not _continues_name(text, words[w - 1], words[w], tags[k - 1], tag))):
            flush()
        cur.append(k)
        prev = w
    if cur:
        flush()
    return spans


def _continues_name(text: str, before: Word, word: Word, before_tag: str, tag: str) -> bool:
    """``deid.ner.text._continues`` for a B- word right after a PHI word."""
    label = tag[2:]
    return (
        label in _CONTINUABLE
        and before_tag[2:] == label
        and text[before.end : word.start] == " "
        and any(c.isalnum() for c in text[before.start : before.end])
    )


def _gpu_kernels(torch: Any, tf32: bool) -> Any:
    """The context a GPU forward pass runs in: SDPA kept off the cuDNN attention backend, and with
    ``tf32`` float32 matrix products in TensorFloat-32, both for this pass only.

    cuDNN's attention (the one SDPA picks first for half precision on Hopper) builds a plan per
    new (batch, length) shape, 45-600 ms each on an H200, and the windows' shapes keep changing:
    half precision measured slower than float32 because of it (bench/gpu_speed.py); flash or
    memory-efficient attention (or the math one) take any shape at once. TF32 (torch's
    ``float32_matmul_precision`` "high" instead of its default "highest") doubled the float32
    encoder on an H200 with no span changed (bench/gpu_speed.py); the setting is process-wide, so it is
    set around the pass and put back after it."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    stack = contextlib.ExitStack()
    stack.enter_context(sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                                     SDPBackend.MATH]))
    if tf32:
        before = torch.get_float32_matmul_precision()
        if before == "highest":
            torch.set_float32_matmul_precision("high")
            stack.callback(torch.set_float32_matmul_precision, before)
    return stack


def torch_forward(model: Any, device: str = "cpu", dtype: Any = None, *, fuse: bool = False,
                  tf32: bool = False) -> Forward:
    """``model`` (eval mode, on ``device``) as a ``Forward``; its weights are cast **in place** to
    ``dtype`` when one is given (the detector owns its model; half-precision weights rather than
    autocast, which re-casts every weight at every call and measured 1.5x slower at batch 128 on
    an H100); on a GPU the host arrays are pinned so the copy overlaps, SDPA never uses cuDNN's
    attention, and ``tf32`` lets float32 products run in TensorFloat-32 (``_gpu_kernels``; both
    ignored on a CPU). ``fuse``: on a CPU, the encoder's dense blocks are replaced **in place** by
    oneDNN fused calls (``deid.ner.cpu_fusion``), for a model that will never train again."""
    import torch

    cuda = device.startswith("cuda")
    if dtype is not None:
        model = model.to(dtype)
    if fuse and not cuda:
        from deid.ner.cpu_fusion import fuse_bert_for_cpu

        fuse_bert_for_cpu(model)

    # SDPA takes a (batch, 1, 1, length) boolean mask as it is; from a 2-D mask transformers
    # builds a (batch, 1, length, length) one that every layer's CPU attention converts again
    # (4.7 % of the detector's time on MEDDOCAN dev, bench/profile_detect.py)
    broadcast_mask = getattr(getattr(model, "config", None), "_attn_implementation", None) == "sdpa"

    def forward(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if cuda:
            return launch(ids, mask)()
        with torch.inference_mode():
            mask_t = torch.from_numpy(mask)
            if broadcast_mask:
                mask_t = mask_t.bool()[:, None, None, :]
            logits = model(input_ids=torch.from_numpy(ids), attention_mask=mask_t).logits
            return np.asarray(torch.softmax(logits.float(), dim=-1).numpy())

    def launch(ids: np.ndarray, mask: np.ndarray) -> Callable[[], np.ndarray]:
        # kernels are queued and the probabilities copied back into pinned memory asynchronously;
        # the returned wait blocks on an event recorded after the copy
        ids_t = torch.from_numpy(ids).pin_memory().to(device, non_blocking=True)
        mask_t = torch.from_numpy(mask).pin_memory().to(device, non_blocking=True)
        with torch.inference_mode(), _gpu_kernels(torch, tf32):
            probs = torch.softmax(model(input_ids=ids_t, attention_mask=mask_t).logits.float(), dim=-1)
            host = torch.empty(probs.shape, dtype=probs.dtype, pin_memory=True)
            host.copy_(probs, non_blocking=True)
            done = torch.cuda.Event()
            done.record()

        def wait() -> np.ndarray:
            done.synchronize()
            return np.asarray(host.numpy())

        return wait

    if cuda:
        forward.launch = launch  # type: ignore[attr-defined]
    return forward


def _packed_only(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    raise RuntimeError("this detector reads packed windows only (deid.ner.packed)")


def _o_id(id2label: dict[int, str]) -> int:
    return next((i for i, t in id2label.items() if t == "O"), 0)


def predict_spans(
    model: Any,
    tokenizer: Any,
    texts: Sequence[str],
    config: InferenceConfig = InferenceConfig(),
    device: str = "cpu",
) -> list[list[Span]]:
    """Tag ``texts`` with a torch ``model`` as it is (eval mode, on ``device``, its own dtype:
    training scores its checkpoints this way, so nothing here may cast the model)."""
    id2label: dict[int, str] = {int(k): v for k, v in model.config.id2label.items()}
    encoded, preds = token_predictions(torch_forward(model, device), tokenizer, texts, config,
                                       _o_id(id2label))
    return decode_predictions(texts, encoded, preds, id2label, config)


class NerDetector:
    """The transformer model as a ``deid.protocols.Detector``, on torch or ONNX Runtime.

    One lock serializes calls: the backend already uses every core it is given for one batch,
    and the tokenizer is not safe to share between threads.

    On a GPU (``packed`` None or True) windows are packed end to end without padding and read in
    half precision under flash attention's variable-length kernel (``deid.ner.packed``);
    ``packed=False`` keeps the padded path of the CPU backends.
    """

    kernel = "padded windows"  # how attention runs; the packed path says which kernel

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        name: str = "ner",
        version: str = "0",
        config: InferenceConfig | None = None,
        device: str | None = None,
        quantize_int8: bool = False,
        dtype: str = "auto",
        forward: Forward | None = None,
        id2label: dict[int, str] | None = None,
        backend: str = "torch",
        packed: bool | None = None,
    ) -> None:
        self._tokenizer = tokenizer
        self._packed: PackedLaunch | None = None
        self._config = config or InferenceConfig()
        self._name = name
        self._version = version
        self._lock = threading.Lock()
        # words already tokenized (bounded LRU; exact, see WordCache), shared with with_config clones
        self._word_cache = WordCache(tokenizer) if tokenizer is not None else None
        self.backend = backend
        self.timings = Timings()
        if forward is not None:  # a ready backend (ONNX Runtime): no torch model at all
            if id2label is None:
                raise ValueError("a forward function needs its id2label")
            self._model = model
            self._device = "cpu"
            self._forward = forward
            self._id2label = id2label
            return
        import torch

        from deid.ner.runtime import resolve_dtype

        self._device = _pick_device(device)
        self._id2label = {int(k): v for k, v in model.config.id2label.items()}
        wants_packed = self._device.startswith("cuda") if packed is None else packed
        if wants_packed and not quantize_int8 and self._use_packed(model, dtype, required=packed is True):
            return
        torch_dtype: Any = None
        # auto: float32 on a GPU (half-precision weights measured slower on an H100), bfloat16 on a
        # CPU with AMX (3x ONNX int8 there); deid.ner.runtime says why
        chosen = "float32" if quantize_int8 else resolve_dtype(dtype, self._device)
        if chosen != "float32":
            torch_dtype = getattr(torch, chosen)
            self.backend = f"{backend}-{'bf16' if chosen == 'bfloat16' else 'fp16'}"
        model = model.to(self._device).eval()
        if quantize_int8 and self._device == "cpu":
            import warnings

            # torch 2.13 marks eager dynamic quantization deprecated (moving to torchao); it still
            # gives the measured ~1.6x on CPU and needs no extra package.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
        self._model = model
        # the detector owns its model and never trains it: its CPU graph may be fused (not under
        # torch's dynamic int8 quantization, whose linear layers are not nn.Linear)
        # float32 on a GPU runs its products in TF32 (twice the speed, no span changed; _gpu_kernels)
        self._forward = torch_forward(model, self._device, torch_dtype, fuse=not quantize_int8,
                                      tf32=chosen == "float32")

    def _use_packed(self, model: Any, dtype: str, *, required: bool) -> bool:
        """Windows packed end to end on this device (``deid.ner.packed``), in half precision by
        default (``auto``: float16; flash attention's variable-length kernel takes no float32).
        Where that kernel is missing, ``required`` (packed=True) keeps the packed encoder with
        attention window by window (exact, slow: tests and CPU checks); otherwise False, and the
        padded path is built instead."""
        import torch

        from deid.ner.packed import PackedEncoder, packed_launch

        chosen = "float16" if dtype == "auto" else dtype
        encoder = PackedEncoder(model.eval(), self._device, getattr(torch, chosen), _o_id(self._id2label))
        if encoder.varlen is None and not required:
            _log.warning("no variable-length attention on %s (%s): windows padded instead",
                         self._device, encoder.kernel)
            return False
        self._model = model  # its weights stay where they were: the encoder holds its own copies
        self._forward = _packed_only
        self._packed = packed_launch(encoder)
        short = {"float16": "fp16", "bfloat16": "bf16"}.get(chosen, "fp32")
        self.backend = f"{self.backend}-packed-{short}"
        self.kernel = encoder.kernel
        return True

    @classmethod
    def from_path(cls, path: Path | str, **kwargs: Any) -> NerDetector:
        from deid.ner.model import load_token_classifier

        path = Path(path)
        model, tok = load_token_classifier(path)
        version = str(getattr(model.config, "deid_model_version", "") or path.name)
        kwargs.setdefault("version", version)
        kwargs.setdefault("name", str(getattr(model.config, "deid_model_name", "") or "ner"))
        return cls(model, tok, **kwargs)

    @property
    def model_name(self) -> str:
        return self._name

    @property
    def model_version(self) -> str:
        return self._version

    @property
    def device(self) -> str:
        return self._device

    @property
    def config(self) -> InferenceConfig:
        return self._config

    def with_config(self, config: InferenceConfig) -> NerDetector:
        """The same loaded model under other inference options (threshold, windows)."""
        clone = object.__new__(NerDetector)
        for attr in ("_tokenizer", "_name", "_version", "backend", "_model", "_device", "_forward",
                     "_id2label", "_word_cache", "_packed", "kernel"):
            setattr(clone, attr, getattr(self, attr))
        clone._config = config
        clone._lock = self._lock
        clone.timings = self.timings
        return clone

    def token_predictions(self, texts: Sequence[str], deadline: Deadline | None = None
                          ) -> tuple[list[EncodedText], list[TokenPreds]]:
        """The model's per-subword reading (for sweeping thresholds without re-running it)."""
        with self._lock:
            return token_predictions(self._forward, self._tokenizer, texts, self._config,
                                     _o_id(self._id2label), self.timings, self._word_cache, deadline,
                                     self._packed)

    def decode(self, texts: Sequence[str], encoded: Sequence[EncodedText], preds: Sequence[TokenPreds],
               config: InferenceConfig | None = None) -> list[list[Span]]:
        return decode_predictions(texts, encoded, preds, self._id2label, config or self._config)

    def detect(self, texts: Sequence[str], languages: Sequence[str], *,
               deadline: Deadline | None = None) -> list[list[Span]]:
        if len(texts) != len(languages):
            raise ValueError("texts and languages differ in length")
        if not texts:
            return []
        encoded, preds = self.token_predictions(texts, deadline)
        check(deadline, "ner")
        started = time.perf_counter()
        out = self.decode(texts, encoded, preds)
        self.timings.decode += time.perf_counter() - started
        return out
