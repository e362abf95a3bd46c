"""The encoder over windows packed end to end, without padding (the GPU path; issue 36).

The padded path (``deid.ner.infer.torch_forward``) pads every window of a pass to the pass's
longest and runs transformers' model over a (batch, length) tensor. On a GPU that path is bound by
the host and by padding: on a lent H200 it read 227 notes/s of 2.3 kB in float32, while the same
weights read windows packed end to end, in half precision, under flash attention's variable-length
kernel, with only three small arrays copied back, reached 2,996 notes/s with 99.997 % of spans
identical (``bench/gpu_speed.py``, commit 49d74f3). This module is that encoder, for the product.

``PackedEncoder`` rewrites the token classifier's forward pass over the model's own weights (BERT,
post-LN, erf GELU, absolute positions): Q, K and V in one product, attention window by window
through ``cu`` (the windows' int32 boundaries in the packed sequence). It returns, per token, the
most probable non-O tag, its probability and P(O), computed on the device (softmax in float32, as
the padded path): what ``deid.ner.infer.token_predictions`` keeps of the probabilities anyway.

Where flash attention's variable-length kernel is missing (a CPU, float32, an old GPU), attention
runs window by window through SDPA: exact, slow, and the reference the tests compare with.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

# (tag, P(tag), P(O)) per token of a packed pass, on the host
TokenArrays = tuple[np.ndarray, np.ndarray, np.ndarray]
# ids (tokens,) and cu (windows + 1,) on the host, the longest window -> the wait for TokenArrays
PackedLaunch = Callable[[np.ndarray, np.ndarray, int], Callable[[], TokenArrays]]

VarlenAttention = Callable[[Any, Any, Any, Any, int], Any]


def varlen_attention(device: str, dtype: Any) -> tuple[VarlenAttention | None, str]:
    """Flash attention's variable-length kernel as ``f(q, k, v, cu, max_len)`` over (tokens, heads,
    dim) inputs: the first way this torch offers that runs and agrees with SDPA window by window
    (``torch.nn.attention.varlen``, then aten's own op; on views of the fused QKV product, then on
    contiguous copies); None and why where none does (a CPU, float32, a GPU before Ampere)."""
    import torch

    if not device.startswith("cuda"):
        return None, "no variable-length attention on a CPU"
    F = torch.nn.functional
    tries: list[tuple[str, VarlenAttention]] = []
    try:
        from torch.nn.attention.varlen import varlen_attn

        tries.append(("torch.nn.attention.varlen.varlen_attn",
                      lambda q, k, v, cu, m: varlen_attn(q, k, v, cu, cu, m, m)))
    except ImportError:
        pass
    op = getattr(torch.ops.aten, "_flash_attention_forward", None)
    if op is not None:
        tries.append(("aten._flash_attention_forward",
                      lambda q, k, v, cu, m: op(q, k, v, cu, cu, m, m, 0.0, False, False)[0]))
    gen = torch.Generator(device="cpu").manual_seed(0)
    lens = [7, 130, 33]
    cu_h = np.concatenate(([0], np.cumsum(lens))).astype(np.int32)
    qkv = torch.randn(int(cu_h[-1]), 3 * 384, generator=gen).to(device=device, dtype=dtype)
    q, k, v = (z.view(-1, 12, 32) for z in qkv.split(384, dim=-1))
    bounds = list(zip(cu_h[:-1].tolist(), cu_h[1:].tolist(), strict=True))
    ref = torch.cat([F.scaled_dot_product_attention(*(z[a:b].transpose(0, 1).float() for z in (q, k, v)))
                     .transpose(0, 1) for a, b in bounds])  # fmt: skip
    cu = torch.from_numpy(cu_h).to(device)
    why: list[str] = []
    for name, f in tries:
        for contiguous in (False, True):
            try:
                args = [z.contiguous() for z in (q, k, v)] if contiguous else [q, k, v]
                err = (f(args[0], args[1], args[2], cu, max(lens)).float() - ref).abs().max().item()
            except (RuntimeError, TypeError, ValueError, NotImplementedError) as e:
                why.append(f"{name}{' (contiguous)' if contiguous else ''}: {str(e).splitlines()[0][:120]}")
                continue
            if err > 1e-2:
                why.append(f"{name}: off by {err:.2g}")
                continue
            if contiguous:
                return _contiguous(f), f"{name} (contiguous q, k, v)"
            return f, name
    return None, "; ".join(why) or "no variable-length attention in this torch"


def _contiguous(f: VarlenAttention) -> VarlenAttention:
    def call(q: Any, k: Any, v: Any, cu: Any, m: int) -> Any:
        return f(q.contiguous(), k.contiguous(), v.contiguous(), cu, m)

    return call


def _dense(block: Any) -> Any:
    """A BERT output block's linear layer, or the block itself once fused for the CPU
    (``deid.ner.cpu_fusion.FusedResidualOutput`` holds the weight and bias)."""
    return block.dense if hasattr(block, "dense") else block


def _norm(block: Any) -> Any:
    return block.LayerNorm if hasattr(block, "LayerNorm") else block.norm


class PackedEncoder:
    """A BERT token classifier's forward pass over packed windows, on ``device`` in ``dtype``
    (weights copied there; the model itself is left as it is). ``kernel`` says which attention
    runs: flash attention's variable-length kernel, or SDPA window by window."""

    def __init__(self, model: Any, device: str, dtype: Any, o_id: int) -> None:
        import torch

        cfg = model.config
        if cfg.hidden_act != "gelu" or getattr(cfg, "position_embedding_type", "absolute") != "absolute":
            raise ValueError("the packed encoder reads BERT with erf GELU and absolute positions only")
        self.torch = torch
        self.device, self.dtype, self.o_id = device, dtype, o_id
        self.heads = int(cfg.num_attention_heads)
        self.hidden = int(cfg.hidden_size)
        self.eps = float(cfg.layer_norm_eps)

        def t(x: Any) -> Any:
            return x.detach().to(device=device, dtype=dtype).contiguous()

        emb = model.bert.embeddings
        self.word = t(emb.word_embeddings.weight)
        self.pos = t(emb.position_embeddings.weight)
        self.type0 = t(emb.token_type_embeddings.weight[0])
        self.eln = (t(emb.LayerNorm.weight), t(emb.LayerNorm.bias))
        self.layers = []
        for layer in model.bert.encoder.layer:
            s, out, ffo = layer.attention.self, layer.attention.output, layer.output
            qkv_w = torch.cat([s.query.weight, s.key.weight, s.value.weight])
            qkv_b = torch.cat([s.query.bias, s.key.bias, s.value.bias])
            self.layers.append((
                t(qkv_w), t(qkv_b),
                t(_dense(out).weight), t(_dense(out).bias), t(_norm(out).weight), t(_norm(out).bias),
                t(layer.intermediate.dense.weight), t(layer.intermediate.dense.bias),
                t(_dense(ffo).weight), t(_dense(ffo).bias), t(_norm(ffo).weight), t(_norm(ffo).bias),
            ))  # fmt: skip
        self.cls_w = t(model.classifier.weight)
        self.cls_b = t(model.classifier.bias)
        self.varlen, self.kernel = varlen_attention(device, dtype)
        if self.varlen is None:
            self.kernel = f"SDPA window by window ({self.kernel})"

    def __call__(
        self, ids: Any, pos: Any, cu: Any, cu_host: np.ndarray, max_len: int
    ) -> tuple[Any, Any, Any]:
        """``ids``/``pos`` (tokens,) on the device, ``cu`` their int32 window boundaries (and the
        same on the host) -> tag (int16), P(tag), P(O) per token, on the device."""
        torch = self.torch
        F = torch.nn.functional
        nh, d, h = self.heads, self.hidden // self.heads, self.hidden

        def attend(q: Any, k: Any, v: Any) -> Any:
            n = q.shape[0]
            q, k, v = (z.view(n, nh, d) for z in (q, k, v))
            if self.varlen is not None:
                return self.varlen(q, k, v, cu, max_len).reshape(n, h)
            out = torch.empty_like(q)
            for a, b in zip(cu_host[:-1].tolist(), cu_host[1:].tolist(), strict=True):
                qs, ks, vs = (z[a:b].transpose(0, 1) for z in (q, k, v))
                out[a:b] = F.scaled_dot_product_attention(qs, ks, vs).transpose(0, 1)
            return out.reshape(n, h)

        x = F.layer_norm(self.word[ids] + self.type0 + self.pos[pos], (h,), *self.eln, self.eps)
        for qkv_w, qkv_b, ao_w, ao_b, ln1_w, ln1_b, fi_w, fi_b, fo_w, fo_b, ln2_w, ln2_b in self.layers:
            q, k, v = F.linear(x, qkv_w, qkv_b).split(h, dim=-1)
            x = F.layer_norm(F.linear(attend(q, k, v), ao_w, ao_b) + x, (h,), ln1_w, ln1_b, self.eps)
            f = F.gelu(F.linear(x, fi_w, fi_b))
            x = F.layer_norm(F.linear(f, fo_w, fo_b) + x, (h,), ln2_w, ln2_b, self.eps)
        probs = torch.softmax(F.linear(x, self.cls_w, self.cls_b).float(), dim=-1)
        p_o = probs[:, self.o_id].clone()
        probs[:, self.o_id] = -1.0
        tag = probs.argmax(-1)
        return tag.to(torch.int16), probs.gather(-1, tag.unsqueeze(-1)).squeeze(-1), p_o


def packed_launch(encoder: PackedEncoder) -> PackedLaunch:
    """``encoder`` as a ``PackedLaunch``: on a GPU the host arrays are pinned and copied without
    blocking, the three outputs copied back into pinned memory, and the wait blocks on an event
    recorded after the copy, so the host plans the next pass while this one computes (the
    one-deep pipeline of ``deid.ner.infer.token_predictions``)."""
    torch = encoder.torch
    cuda = encoder.device.startswith("cuda")

    def to_device(a: np.ndarray) -> Any:
        t = torch.from_numpy(a)
        return t.pin_memory().to(encoder.device, non_blocking=True) if cuda else t

    def launch(ids: np.ndarray, cu: np.ndarray, max_len: int) -> Callable[[], TokenArrays]:
        starts = np.repeat(cu[:-1].astype(np.int64), np.diff(cu))
        pos = np.arange(int(cu[-1]), dtype=np.int64) - starts  # each window's positions from 0
        with torch.inference_mode():
            got = encoder(to_device(ids), to_device(pos), to_device(cu), cu, max_len)
            if not cuda:
                arrays = tuple(np.asarray(g.numpy()) for g in got)
                return lambda: arrays  # type: ignore[return-value]
            host = [torch.empty(g.shape, dtype=g.dtype, pin_memory=True) for g in got]
            for h, g in zip(host, got, strict=True):
                h.copy_(g, non_blocking=True)
            done = torch.cuda.Event()
            done.record()

        def wait() -> TokenArrays:
            done.synchronize()
            return np.asarray(host[0].numpy()), np.asarray(host[1].numpy()), np.asarray(host[2].numpy())

        return wait

    return launch
