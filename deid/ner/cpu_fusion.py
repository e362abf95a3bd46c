"""The BERT encoder's linear layers fused with what follows them into single oneDNN calls, for
inference on CPU.

Eager PyTorch runs a BERT layer's dense products as ``addmm`` (the bias is first copied into the
output, a full write of it), then the GELU and the residual add as separate passes over memory. On
this model (hidden size 384) those passes are dear: ``torch.profiler`` on the bf16 forward gave the
products 31 % of the time, the GELU 19 % and the copies 10 % (2-core AMX box, docs/BENCHMARKS.md;
``bench/cpu_runtimes.py`` times eager against fused). oneDNN's post-ops do the bias, the GELU (erf, as
BERT's ``gelu``) and the residual add inside the product's own kernel, which is what
``torch.compile`` would do for us, without its compile time for every new batch shape.

Only the inference graph changes: the weights are the model's own tensors (no copy), and the
replaced modules keep their LayerNorm. The fused model gives the same most probable tag as the
eager one (``tests/ner/test_cpu_fusion.py``); its logits differ by rounding only.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn


def fusion_available(dtype: torch.dtype = torch.float32) -> bool:
    """Whether this torch build and CPU run oneDNN's fused linear (``mkldnn::_linear_pointwise``)
    in ``dtype``: oneDNN refuses bf16 and fp16 on a CPU without AVX-512 (BW, VL, DQ)."""
    try:
        if not (torch.backends.mkldnn.is_available() and hasattr(torch.ops.mkldnn, "_linear_pointwise")):
            return False
        if dtype == torch.bfloat16:
            return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
        if dtype == torch.float16:
            return bool(torch.ops.mkldnn._is_mkldnn_fp16_supported())
        return dtype == torch.float32
    except (AttributeError, RuntimeError):
        return False


class FusedLinear(nn.Module):
    """``act(x @ W.T + b)`` in one oneDNN call; ``act`` is "none" or "gelu" (erf)."""

    def __init__(self, linear: nn.Linear, act: str = "none") -> None:
        super().__init__()
        self.weight = linear.weight
        self.bias = linear.bias
        self.act = act
        self._algorithm = "none" if act == "gelu" else ""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.mkldnn._linear_pointwise(x, self.weight, self.bias, self.act, [], self._algorithm)


class FusedResidualOutput(nn.Module):
    """BERT's ``SelfOutput``/``Output`` block: ``LayerNorm(h @ W.T + b + residual)``, the product,
    bias and residual add in one oneDNN call (dropout is the identity at inference)."""

    def __init__(self, block: Any) -> None:
        super().__init__()
        self.weight = block.dense.weight
        self.bias = block.dense.bias
        self.norm: nn.LayerNorm = block.LayerNorm

    def forward(self, hidden_states: torch.Tensor, input_tensor: torch.Tensor) -> torch.Tensor:
        fused = torch.ops.mkldnn._linear_pointwise.binary
        out = fused(hidden_states, input_tensor, self.weight, self.bias, "add")
        return self.norm(out)


def fuse_bert_for_cpu(model: Any) -> int:
    """Replaces, in place, the dense blocks of every BERT layer of ``model`` by their fused forms;
    returns how many layers were fused (0 when the model is no torch BERT, is training, is on a GPU, or
    torch or the CPU cannot run oneDNN's fusion in the weights' number format). Call it on an
    inference-only model: the fused modules have no backward pass."""
    if not isinstance(model, nn.Module) or model.training:
        return 0
    from transformers.models.bert.modeling_bert import BertLayer

    fused = 0
    for layer in [m for m in model.modules() if isinstance(m, BertLayer)]:
        weight = layer.output.dense.weight
        if weight.device.type != "cpu" or not fusion_available(weight.dtype):
            return fused
        attention = layer.attention
        self_attn = attention.self
        for name in ("query", "key", "value"):
            setattr(self_attn, name, FusedLinear(getattr(self_attn, name)))
        attention.output = FusedResidualOutput(attention.output)
        intermediate = layer.intermediate
        if getattr(model.config, "hidden_act", None) == "gelu":  # erf GELU, what oneDNN's "none" algorithm is
            intermediate.dense = FusedLinear(intermediate.dense, "gelu")
            intermediate.intermediate_act_fn = nn.Identity()
        else:
            intermediate.dense = FusedLinear(intermediate.dense)
            # the activation stays a module call of its own
        layer.output = FusedResidualOutput(layer.output)
        fused += 1
    return fused
