"""The concept head: a branch of the de-identification encoder (issue 20).

Layout (hard parameter sharing, as in Lange et al. 2020's multitask model, cut at one layer):
the de-identification model's embeddings and lower ``from_layer`` encoder layers are shared and
frozen; the concept branch is its own copy of the upper layers, fine-tuned on concepts, and a
token-classification head. The *stacked* variant (the paper's pipeline of heads) also feeds the
head the de-identification head's tag probabilities at each token.

Why frozen sharing rather than joint fine-tuning of the whole encoder: the de-identification
output stays bit-identical (the de-id path never sees the concept weights), so adding concepts
cannot cost de-identification recall; and the shared part's features are computed once, which is
what made training possible on two CPU cores. The branch's tensors (named ``concepts.*``) live in
their own file beside the de-identification model's, ``concepts.safetensors``, so that retraining
either model rewrites one file and adds no copy of the other to git history (issue 34); a model
exported before that holds them in ``model.safetensors``, and is still read. ``config.json`` says
how under ``deid_concepts``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deid.ner.model import CONCEPTS_FILE, CONCEPTS_KEY

if TYPE_CHECKING:
    import torch

CONFIG_KEY = CONCEPTS_KEY  # config.json key that describes the head
HEAD_FILE = CONCEPTS_FILE  # the head's tensors, beside model.safetensors
PREFIX = "concepts."


@dataclass(frozen=True)
class BranchSpec:
    from_layer: int  # index of the first encoder layer the branch owns (0 = right after embeddings)
    tags: tuple[str, ...]  # BIO tags, "O" first
    stacked: bool  # head also reads the de-id head's probabilities
    n_deid_tags: int
    trained_on: tuple[str, ...] = ("es",)
    corpus: str = "PharmaCoNER train (CC BY 4.0)"
    scores: dict[str, Any] = field(default_factory=dict)
    # layers the branch owns; None: the base's layers from ``from_layer`` up. Recorded so that a
    # head keeps its depth when the de-identification model under it is replaced by a shallower
    # student (the shipped head has 12 layers over an 8-layer de-identification model).
    n_layers: int | None = None

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["tags"] = list(self.tags)
        out["trained_on"] = list(self.trained_on)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BranchSpec:
        return cls(
            from_layer=int(data["from_layer"]),
            tags=tuple(data["tags"]),
            stacked=bool(data["stacked"]),
            n_deid_tags=int(data["n_deid_tags"]),
            trained_on=tuple(data.get("trained_on", ("es",))),
            corpus=str(data.get("corpus", "")),
            scores=dict(data.get("scores", {})),
            n_layers=None if data.get("n_layers") is None else int(data["n_layers"]),
        )


def additive_mask(mask: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """(batch, length) 0/1 -> (batch, 1, 1, length) additive mask, what a ``BertLayer`` adds to
    its attention scores (eager and SDPA alike)."""
    import torch

    return ((1.0 - mask.to(dtype)) * torch.finfo(dtype).min)[:, None, None, :]


def new_branch(base: Any, spec: BranchSpec) -> Any:
    """A branch initialized from ``base``'s upper layers (a ``BertForTokenClassification``)."""
    import copy

    import torch
    from torch import nn

    class ConceptBranch(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            layers = base.bert.encoder.layer
            n = spec.n_layers if spec.n_layers is not None else len(layers) - spec.from_layer
            # a branch deeper than the base's upper part (its tensors are loaded after) copies the
            # base's last layer for the structure: every BERT layer of a model has the same shape
            self.layers = nn.ModuleList(copy.deepcopy(layers[min(spec.from_layer + i, len(layers) - 1)])
                                        for i in range(n))
            hidden = base.config.hidden_size
            self.dropout = nn.Dropout(base.config.hidden_dropout_prob)
            self.classifier = nn.Linear(hidden + (spec.n_deid_tags if spec.stacked else 0), len(spec.tags))

        def forward(self, hidden: torch.Tensor, mask: torch.Tensor,
                    deid_probs: torch.Tensor | None = None) -> torch.Tensor:
            ext = additive_mask(mask, hidden.dtype)
            for layer in self.layers:
                out = layer(hidden, attention_mask=ext)
                hidden = out[0] if isinstance(out, tuple) else out
            x = self.dropout(hidden)
            if spec.stacked:
                if deid_probs is None:
                    raise ValueError("the stacked head needs the de-identification probabilities")
                x = torch.cat([x, deid_probs.to(x.dtype)], dim=-1)
            return self.classifier(x)

    branch = ConceptBranch()
    for prm in branch.parameters():  # the copied layers keep the frozen base's flag otherwise
        prm.requires_grad_(True)
    return branch


def shared_forward(base: Any, ids: torch.Tensor, mask: torch.Tensor,
                   from_layer: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The shared part once: (hidden state entering layer ``from_layer``, de-id tag probabilities)."""
    import torch

    out = base.bert(input_ids=ids, attention_mask=mask, output_hidden_states=True)
    probs = torch.softmax(base.classifier(out.last_hidden_state).float(), dim=-1)
    return out.hidden_states[from_layer], probs


def branch_state(branch: Any) -> dict[str, torch.Tensor]:
    """The branch's tensors, named as in its file (``concepts.*``; fp16, as the de-id weights)."""
    return {PREFIX + k: v.detach().cpu().half().contiguous() for k, v in branch.state_dict().items()}


def read_branch_tensors(model_dir: Path) -> dict[str, torch.Tensor]:
    """The branch's tensors of the model at ``model_dir``: its ``concepts.safetensors``, else (a
    model exported before the head had its own file) the ``concepts.*`` tensors of its
    ``model.safetensors``, without reading the de-identification tensors there."""
    from safetensors import safe_open

    own = model_dir / HEAD_FILE
    with safe_open(str(own if own.is_file() else model_dir / "model.safetensors"), framework="pt") as ckpt:
        names = list(ckpt.keys())  # a safetensors handle is not iterable
        if own.is_file() and any(not k.startswith(PREFIX) for k in names):
            raise ValueError(f"{own}: holds tensors outside the concept head ({PREFIX}*)")
        return {k: ckpt.get_tensor(k) for k in names if k.startswith(PREFIX)}


def write_branch_file(tensors: dict[str, torch.Tensor], model_dir: Path) -> Path:
    """``tensors`` (the branch's, named ``concepts.*``) as ``model_dir/concepts.safetensors``."""
    from safetensors.torch import save_file

    if not tensors or any(not k.startswith(PREFIX) for k in tensors):
        raise ValueError(f"a concept head file holds {PREFIX}* tensors, and at least one")
    out = model_dir / HEAD_FILE
    save_file(tensors, str(out))
    out.chmod(0o644)  # safetensors writes 0600; the file ships in a wheel
    return out


def split_branch_file(model_dir: Path) -> int:
    """Move the branch's tensors of a model exported before the head had its own file out of its
    ``model.safetensors`` into ``concepts.safetensors`` (each tensor's dtype and bytes, and the
    file's metadata, unchanged); returns how many moved (0: nothing to move, no file rewritten)."""
    from safetensors import safe_open
    from safetensors.torch import save_file

    model_file = model_dir / "model.safetensors"
    with safe_open(str(model_file), framework="pt") as ckpt:
        names = list(ckpt.keys())  # a safetensors handle is not iterable
        metadata = ckpt.metadata()
        head = {k: ckpt.get_tensor(k) for k in names if k.startswith(PREFIX)}
        rest = {k: ckpt.get_tensor(k) for k in names if not k.startswith(PREFIX)}
    if not head:
        return 0
    if (model_dir / HEAD_FILE).exists():
        raise ValueError(f"{model_dir}: holds a concept head in both {HEAD_FILE} and model.safetensors")
    write_branch_file(head, model_dir)
    tmp = model_file.with_name(model_file.name + ".tmp")
    save_file(rest, str(tmp), metadata=metadata)
    tmp.chmod(0o644)
    tmp.replace(model_file)  # a reader never sees a half-written model file
    return len(head)


def branch_depth(tensors: dict[str, Any]) -> int:
    """How many encoder layers a head's tensors (``concepts.layers.<i>.*``) hold."""
    return len({k.split(".")[2] for k in tensors if k.startswith(PREFIX + "layers.")})


def load_branch_state(branch: Any, tensors: dict[str, torch.Tensor]) -> None:
    """``tensors`` (named as in the head's file) into ``branch``; every tensor must fit."""
    state = {k[len(PREFIX):]: v.float() for k, v in tensors.items() if k.startswith(PREFIX)}
    missing, unexpected = branch.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise ValueError(f"concept head: {len(missing)} tensors missing, {len(unexpected)} unexpected")


def load_branch(base: Any, spec: BranchSpec, tensors: dict[str, torch.Tensor]) -> Any:
    branch = new_branch(base, spec)
    load_branch_state(branch, tensors)
    branch.eval()
    return branch
