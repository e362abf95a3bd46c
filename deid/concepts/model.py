"""The concept head: a branch of the de-identification encoder (issue 20).

Layout (hard parameter sharing, as in Lange et al. 2020's multitask model, cut at one layer):
the de-identification model's embeddings and lower ``from_layer`` encoder layers are shared and
frozen; the concept branch is its own copy of the upper layers, fine-tuned on concepts, and a
token-classification head. The *stacked* variant (the paper's pipeline of heads) also feeds the
head the de-identification head's tag probabilities at each token.

Why frozen sharing rather than joint fine-tuning of the whole encoder: the de-identification
output stays bit-identical (the de-id path never sees the concept weights), so adding concepts
cannot cost de-identification recall; and the shared part's features are computed once, which is
what made training possible on two CPU cores. The branch's tensors live in the same
``model.safetensors`` under ``concepts.``; ``config.json`` says how under ``deid_concepts``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deid.ner.model import CONCEPTS_KEY

if TYPE_CHECKING:
    import torch

CONFIG_KEY = CONCEPTS_KEY  # config.json key that describes the head
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
    """The branch's tensors, named for the shared model file (fp16, as the de-id weights)."""
    return {PREFIX + k: v.detach().cpu().half().contiguous() for k, v in branch.state_dict().items()}


def read_branch_tensors(model_dir: Path) -> dict[str, torch.Tensor]:
    """The branch's tensors of ``model_dir/model.safetensors`` (only those: the file's other
    tensors, the de-identification model's, are not read)."""
    from safetensors import safe_open

    with safe_open(str(model_dir / "model.safetensors"), framework="pt") as ckpt:
        names = list(ckpt.keys())  # a safetensors handle is not iterable
        return {k: ckpt.get_tensor(k) for k in names if k.startswith(PREFIX)}


def branch_depth(tensors: dict[str, Any]) -> int:
    """How many encoder layers a head's tensors (``concepts.layers.<i>.*``) hold."""
    return len({k.split(".")[2] for k in tensors if k.startswith(PREFIX + "layers.")})


def load_branch_state(branch: Any, tensors: dict[str, torch.Tensor]) -> None:
    """``tensors`` (named as in the model file) into ``branch``; every tensor must fit."""
    state = {k[len(PREFIX):]: v.float() for k, v in tensors.items() if k.startswith(PREFIX)}
    missing, unexpected = branch.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise ValueError(f"concept head: {len(missing)} tensors missing, {len(unexpected)} unexpected")


def load_branch(base: Any, spec: BranchSpec, tensors: dict[str, torch.Tensor]) -> Any:
    branch = new_branch(base, spec)
    load_branch_state(branch, tensors)
    branch.eval()
    return branch
