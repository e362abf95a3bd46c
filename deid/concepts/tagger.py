"""The concept tagger: texts in, concept mentions out (offsets into each text).

Runs on torch: the shared encoder (the de-identification model) once, then the concept branch.
A text is tagged sentence by sentence, the unit the head was trained on (PharmaCoNER sentences):
read as one window of twenty sentences, the same dev sentences scored strict F1 0.578 instead of
0.686. The sentences go through the same word splitting, windows and length-packed batches as
de-identification (``deid.ner.infer``); a word takes its first subword's tag and an entity breaks
at a B- or an O.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from deid.concepts import Concept
from deid.concepts.model import CONFIG_KEY, BranchSpec, load_branch, read_branch_tensors, shared_forward
from deid.ner.encode import EncodedText
from deid.ner.infer import InferenceConfig, TokenPreds, token_predictions

# Where a text is cut into the sentences the head reads: line ends, and a sentence end (. ! ?)
# followed by a space and a capital, a digit or an opening sign.
_SENTENCE_END = re.compile(r"\n+|(?<=[.!?])[ \t]+(?=[A-ZÁÉÍÓÚÑÜ0-9¿¡(])")


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of the non-blank sentences of ``text``, covering every non-blank character."""
    out, pos = [], 0
    for m in _SENTENCE_END.finditer(text):
        if text[pos : m.start()].strip():
            out.append((pos, m.start()))
        pos = m.end()
    if text[pos:].strip():
        out.append((pos, len(text)))
    return out


class ConceptsUnavailable(ValueError):
    """The model directory has no concept head."""


def load_concept_tagger(path: Path | None = None, *, threads: int | None = None) -> ConceptTagger:
    """The concept tagger of the model at ``path`` (default: the shipped model)."""
    from deid.ner import DEFAULT_MODEL_DIR

    path = Path(path) if path is not None else DEFAULT_MODEL_DIR
    cfg_file = path / "config.json"
    if not cfg_file.is_file():
        raise ConceptsUnavailable(f"{path}: not a model directory (no config.json)")
    cfg = json.loads(cfg_file.read_text())
    if CONFIG_KEY not in cfg:
        raise ConceptsUnavailable(f"{path}: this model has no concept head")
    import torch

    from deid.ner.model import load_token_classifier

    if threads:
        torch.set_num_threads(threads)
    spec = BranchSpec.from_json(cfg[CONFIG_KEY])
    base, tokenizer = load_token_classifier(path)
    branch = load_branch(base, spec, read_branch_tensors(path))
    version = str(cfg.get("deid_model_version") or path.name)
    return ConceptTagger(base, branch, tokenizer, spec, version=version)


class ConceptTagger:
    """``deid.concepts.ConceptTagger`` on the shared encoder plus the concept branch."""

    def __init__(self, base: Any, branch: Any, tokenizer: Any, spec: BranchSpec, *, version: str,
                 config: InferenceConfig | None = None) -> None:
        self._base, self._branch, self._tokenizer, self.spec = base, branch, tokenizer, spec
        self._version = version
        self._config = config or InferenceConfig()
        self._lock = threading.Lock()

    @property
    def model_version(self) -> str:
        return self._version

    @property
    def model_name(self) -> str:
        return "deid-concepts"

    @property
    def trained_on(self) -> tuple[str, ...]:
        """Languages of the concept corpus the head learned from (the event's ``trained_on``)."""
        return self.spec.trained_on

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        import torch

        with torch.inference_mode():
            ids_t, mask_t = torch.from_numpy(ids), torch.from_numpy(mask)
            hidden, probs = shared_forward(self._base, ids_t, mask_t, self.spec.from_layer)
            logits = self._branch(hidden, mask_t, probs if self.spec.stacked else None)
            return np.asarray(torch.softmax(logits.float(), dim=-1).numpy())

    def tag(self, texts: Sequence[str]) -> list[list[Concept]]:
        """The mentions of each text, read sentence by sentence (``sentences``)."""
        return self._tag([(t, a, b) for t, text in enumerate(texts) for a, b in sentences(text)], texts)

    def tag_sentences(self, texts: Sequence[str]) -> list[list[Concept]]:
        """The mentions of each text, each read whole as one sentence: for a corpus that gives its
        sentences (CoNLL), whose space-separated tokens ("1 . 485") would fool the sentence cutter."""
        return self._tag([(t, 0, len(text)) for t, text in enumerate(texts) if text.strip()], texts)

    def _tag(self, pieces: list[tuple[int, int, int]], texts: Sequence[str]) -> list[list[Concept]]:
        if not pieces:
            return [[] for _ in texts]
        with self._lock:
            encoded, preds = token_predictions(
                self._forward, self._tokenizer, [texts[t][a:b] for t, a, b in pieces], self._config, 0)
        out: list[list[Concept]] = [[] for _ in texts]
        for (t, a, b), enc, pr in zip(pieces, encoded, preds, strict=True):
            found = decode(enc, pr, self.spec.tags, texts[t][a:b])
            out[t] += [Concept(c.start + a, c.end + a, c.type, c.score) for c in found]
        return out


def _is_separator(word: str, at_end: bool) -> bool:
    """A word of punctuation only, which no mention starts or ends with: of PharmaCoNER's 5,047
    training mentions none starts with one and 4 end with one ("+" in "Na+"-like ions, "."),
    while 10 of the ~570 dev mentions of the stacked-L6 head (runs/concepts-L6-e10) started or
    ended with one: an I- on the "/" of "amoxicilina / ácido clavulánico", a "-" alone."""
    return not any(c.isalnum() for c in word) and not (at_end and word in ("+", "."))


def decode(enc: EncodedText, pred: TokenPreds, tags: Sequence[str], text: str) -> list[Concept]:
    """Word tags (first subword, most probable tag) to mentions of ``text``: an entity breaks only
    at a B- or an O and takes the majority type of its words, its score the lowest of its words';
    punctuation words at either edge of a mention are left out of it."""
    word_tag = ["O"] * len(enc.words)
    word_p = [1.0] * len(enc.words)
    for k, (is_first, w) in enumerate(zip(enc.first, enc.word_of, strict=True)):
        if is_first and pred.p_tag[k] > pred.p_o[k]:
            word_tag[w] = tags[int(pred.tag[k])]
            word_p[w] = float(pred.p_tag[k])
    out: list[Concept] = []
    cur: list[int] = []

    def word(i: int) -> str:
        return text[enc.words[i].start : enc.words[i].end]

    def flush() -> None:
        while cur and _is_separator(word(cur[-1]), at_end=True):
            cur.pop()
        while cur and _is_separator(word(cur[0]), at_end=False):
            cur.pop(0)
        if cur:
            kind = Counter(word_tag[i][2:] for i in cur).most_common(1)[0][0]
            out.append(Concept(enc.words[cur[0]].start, enc.words[cur[-1]].end, kind,
                               min(word_p[i] for i in cur)))
            cur.clear()

    for i, t in enumerate(word_tag):
        if t == "O" or t.startswith("B-"):
            flush()
        if t != "O":
            cur.append(i)
    flush()
    return out
