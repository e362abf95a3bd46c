"""scripts/device_pack.py carries the word-embedding rows of a GPU run's texts: every subword the
model is fed for them, by training (words cut at gold span boundaries) and by inference, must have
its row (a missing one is a zero vector there). Whole-text tokenization missed 0.7 % of MEDDOCAN's
training tokens (2026-11-24 review)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from deid.labels import Label
from deid.spans import Document, Span


def _pack_module() -> Any:
    path = Path(__file__).resolve().parents[2] / "scripts" / "device_pack.py"
    spec = importlib.util.spec_from_file_location("device_pack", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_packed_ids_cover_what_training_and_inference_feed_the_model(e5_tokenizer: Any) -> None:
    from deid.lab.training.ner import document_examples
    from deid.ner.encode import encode_texts

    text = "Paciente: Juan/Pedro GARCÍA (nacido el 12/03/2014), c/ Mayor 3, 28001 Madrid; tel.:612345678."
    spans = [Span(10, 20, Label.PATIENT), Span(39, 49, Label.DATE), Span(52, 62, Label.STREET),
             Span(64, 69, Label.POSTCODE), Span(70, 76, Label.CITY), Span(83, 92, Label.PHONE)]
    doc = Document("d1", text, spans)
    cuts = tuple(x for s in spans for x in (s.start, s.end))
    packed = _pack_module().token_ids(e5_tokenizer, [(doc.text, cuts)])
    fed_in_training = {i for ex in document_examples(e5_tokenizer, doc, 256, 64) for i in ex.ids}
    fed_in_inference = set(encode_texts(e5_tokenizer, [text])[0].ids)
    assert fed_in_training <= packed and fed_in_inference <= packed
    whole = set(e5_tokenizer(text, add_special_tokens=False)["input_ids"])
    assert not fed_in_training <= whole  # the trap this guards: whole-text pieces are other pieces
