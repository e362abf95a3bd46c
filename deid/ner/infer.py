"""Token-classification inference: notes in, character spans out (``Span.source == "ner"``).

Windows from all notes of a call are sorted by length and packed into batches under a token
budget, so padding stays small; each token's prediction is read from the window where it has
the most context, then words are decoded (first subword's tag, majority label per entity).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deid.ner.encode import EncodedText, encode_text, special_ids, token_windows
from deid.ner.text import Window, decode_words
from deid.spans import Span


@dataclass(frozen=True, slots=True)
class InferenceConfig:
    max_len: int = 256  # tokens per window, specials included
    overlap: int = 64
    token_budget: int = 4096  # padded tokens per forward pass
    min_score: float = 0.0


def _pick_device(device: str | None) -> str:
    import torch

    if device and device != "auto":
        return device
    return "cuda" if torch.cuda.is_available() else "cpu"


def predict_spans(
    model: Any,
    tokenizer: Any,
    texts: Sequence[str],
    config: InferenceConfig = InferenceConfig(),
    device: str = "cpu",
    dtype: Any = None,
) -> list[list[Span]]:
    """Tag ``texts`` with ``model``; the model must be in eval mode on ``device``."""
    import torch

    id2label: dict[int, str] = {int(k): v for k, v in model.config.id2label.items()}
    cls, sep, pad = special_ids(tokenizer)
    encoded: list[EncodedText] = [encode_text(tokenizer, t) for t in texts]
    jobs: list[tuple[int, Window]] = []
    for ti, enc in enumerate(encoded):
        for w in token_windows(len(enc.ids), config.max_len, config.overlap):
            jobs.append((ti, w))
    # per text, per token: (tag id, probability)
    tok_pred: list[list[tuple[int, float]]] = [[(0, 1.0)] * len(e.ids) for e in encoded]
    order = sorted(range(len(jobs)), key=lambda j: jobs[j][1].end - jobs[j][1].start)
    batches: list[list[int]] = []
    cur: list[int] = []
    for j in order:
        length = jobs[j][1].end - jobs[j][1].start + 2
        if cur and length * (len(cur) + 1) > config.token_budget:
            batches.append(cur)
            cur = []
        cur.append(j)
    if cur:
        batches.append(cur)
    with torch.inference_mode():
        for batch in batches:
            maxlen = max(jobs[j][1].end - jobs[j][1].start for j in batch) + 2
            ids = torch.full((len(batch), maxlen), pad, dtype=torch.long)
            mask = torch.zeros((len(batch), maxlen), dtype=torch.long)
            for r, j in enumerate(batch):
                ti, w = jobs[j]
                row = [cls, *encoded[ti].ids[w.start : w.end], sep]
                ids[r, : len(row)] = torch.tensor(row)
                mask[r, : len(row)] = 1
            ids_d, mask_d = ids.to(device), mask.to(device)
            if dtype is not None and device != "cpu":
                with torch.autocast(device_type=device.split(":")[0], dtype=dtype):
                    logits = model(input_ids=ids_d, attention_mask=mask_d).logits
            else:
                logits = model(input_ids=ids_d, attention_mask=mask_d).logits
            top_p, top_i = torch.softmax(logits.float(), dim=-1).max(dim=-1)
            best_p: list[list[float]] = top_p.cpu().tolist()
            best_i: list[list[int]] = top_i.cpu().tolist()
            for r, j in enumerate(batch):
                ti, w = jobs[j]
                preds = tok_pred[ti]
                for k in range(w.keep_start, w.keep_end):
                    col = k - w.start + 1
                    preds[k] = (best_i[r][col], best_p[r][col])
    out: list[list[Span]] = []
    for text, enc, preds in zip(texts, encoded, tok_pred, strict=True):
        tags = ["O"] * len(enc.words)
        scores = [1.0] * len(enc.words)
        for k, (tag_id, p) in enumerate(preds):
            if enc.first[k]:
                tag = id2label.get(tag_id, "O")
                if p < config.min_score:
                    tag = "O"
                tags[enc.word_of[k]] = tag
                scores[enc.word_of[k]] = p
        out.append(decode_words(enc.words, tags, scores, text=text))
    return out


class NerDetector:
    """The transformer model as a ``deid.detect.Detector``.

    One lock serializes calls: torch already uses every core it is given for one batch, and
    the tokenizer is not safe to share between threads.
    """

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
    ) -> None:
        import torch

        self._device = _pick_device(device)
        self._dtype: Any = None
        if self._device.startswith("cuda") and dtype != "float32":
            if dtype == "auto":
                self._dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
            else:
                self._dtype = getattr(torch, dtype)
        model = model.to(self._device).eval()
        if quantize_int8 and self._device == "cpu":
            import warnings

            # torch 2.13 marks eager dynamic quantization deprecated (moving to torchao); it still
            # gives the measured ~1.6x on CPU and needs no extra package.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
        self._model = model
        self._tokenizer = tokenizer
        self._config = config or InferenceConfig()
        self._name = name
        self._version = version
        self._lock = threading.Lock()

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

    def detect(self, texts: Sequence[str], languages: Sequence[str]) -> list[list[Span]]:
        if len(texts) != len(languages):
            raise ValueError("texts and languages differ in length")
        if not texts:
            return []
        with self._lock:
            return predict_spans(self._model, self._tokenizer, texts, self._config, self._device, self._dtype)
