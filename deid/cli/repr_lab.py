"""``deid repr-lab``: the provider side of shareable representations (Friedrich et al. 2019).

``train``: the representation model and its adversaries, three phases; ``attack``: the privacy
test on a frozen model (fresh T1, T2, token recovery; Wilson 95 % intervals); ``raw-head``: the
baseline head trained on the raw frozen embeddings. Training code: never on the runtime path.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from deid.cli import CliError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "repr-lab",
        help="train and attack a shareable representation model (the provider side of share-repr)",
        description="Train the representation model of deid share-repr with its adversaries, run the "
        "privacy test on a frozen one, or train the raw-embedding baseline head.",
    )
    sub = p.add_subparsers(dest="lab_command", metavar="STEP", required=True)

    t = sub.add_parser("train", help="train a representation model (three phases)")
    _corpus_args(t, "--corpus", "training corpus (repeatable)")
    t.add_argument("--out", type=Path, required=True, help="model directory to write")
    t.add_argument("--model-id", default="", help="the model's id (default: deid-repr-d<dim>-n<N>)")
    t.add_argument(
        "--neighbours", type=int, default=100, help="N, neighbours of a PHI unit for fake pairs (default 100)"
    )
    t.add_argument("--dim", type=int, default=50)
    t.add_argument("--hidden", type=int, default=128)
    t.add_argument("--head-hidden", type=int, default=64)
    t.add_argument("--adversary-hidden", type=int, default=64)
    t.add_argument("--max-len", type=int, default=64, help="units per sequence at most")
    t.add_argument("--pretrain-epochs", type=int, default=2)
    t.add_argument("--adversary-epochs", type=int, default=2)
    t.add_argument("--alternate-epochs", type=int, default=3)
    t.add_argument("--adversary-weight", type=float, default=1.0)
    t.add_argument(
        "--adversary-steps",
        type=_at_least_one,
        default=1,
        metavar="K",
        help="adversary updates per representation update in the alternating phase (default 1)",
    )
    t.add_argument(
        "--recovery-weight",
        type=float,
        default=0.0,
        help="weight of the recovery adversary (guesses at PHI units pulled to a drawn neighbour's "
        "row) in the representation's loss (default 0: none; at 1 it helped the fresh recovery "
        "attacker on MEDDOCAN, see the 2026-11-26 journal)",
    )
    t.add_argument(
        "--decoys",
        choices=("neighbours", "label", "mixed"),
        default="neighbours",
        help="where a fake pair's (and the recovery term's) replacement unit comes from: the unit's "
        "N neighbours, any PHI unit of its label, or either at even odds (default neighbours)",
    )
    t.add_argument("--batch-size", type=int, default=32)
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--in-noise", type=float, default=0.1, help="initial input noise deviation")
    t.add_argument("--out-noise", type=float, default=0.1, help="initial output noise deviation")
    t.add_argument(
        "--noise-floor",
        type=float,
        default=0.0,
        help="no input or output noise deviation below this, however the training pulls (default 0: none)",
    )
    t.set_defaults(handler=run_train)

    a = sub.add_parser("attack", help="the privacy test: fresh adversaries on a frozen model")
    a.add_argument("--model", type=Path, required=True, help="representation model directory")
    _corpus_args(a, "--corpus", "the attacker's training corpus (repeatable)")
    a.add_argument(
        "--eval",
        action="append",
        type=Path,
        required=True,
        metavar="PATH[:MAXDOCS]",
        help="corpus the attackers are scored on (never their training corpus)",
    )
    a.add_argument("--epochs", type=int, default=50, help="attacker training epochs (default 50)")
    a.add_argument("--neighbours", type=int, default=100)
    a.add_argument("--hidden", type=int, default=64)
    a.add_argument("--max-eval", type=int, default=5000, help="PHI units scored by the recovery attacker")
    a.add_argument(
        "--identity",
        action="store_true",
        help="attack the noiseless identity representation instead (the broken mechanism: "
        "calibrates the attackers)",
    )
    a.add_argument("--json", type=Path, help="also write the scores here")
    a.set_defaults(handler=run_attack)

    r = sub.add_parser("raw-head", help="baseline: the same head trained on the raw frozen embeddings")
    _corpus_args(r, "--corpus", "training corpus (repeatable)")
    r.add_argument("--dev", action="append", type=Path, required=True, metavar="PATH[:MAXDOCS]")
    r.add_argument("--epochs", type=int, default=5)
    r.add_argument("--hidden", type=int, default=64)
    r.add_argument("--max-len", type=int, default=64)
    r.set_defaults(handler=run_raw_head)


def _corpus_args(p: argparse.ArgumentParser, flag: str, text: str) -> None:
    p.add_argument(flag, action="append", required=True, metavar="PATH[:MAXDOCS]", help=text)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=13)


def _at_least_one(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, not {value}")
    return value


def _split(arg: str | Path) -> tuple[Path, int]:
    head, sep, tail = str(arg).rpartition(":")
    return (Path(head), int(tail)) if sep and tail.isdigit() else (Path(arg), 0)


def read_corpora(args_list: list[Any], *, what: str) -> list[Any]:
    """Documents of PATH[:MAXDOCS] arguments, less the frozen held-out documents."""
    from deid.lab.corpora import CorpusFormatError, read_corpus
    from deid.lab.eval.heldout import leave_out

    docs: list[Any] = []
    for arg in args_list:
        path, limit = _split(arg)
        try:
            part = read_corpus(path)
        except CorpusFormatError as exc:
            raise CliError(str(exc)) from None
        except OSError as exc:
            raise CliError(f"cannot read {path}: {exc.strerror or 'I/O error'}") from None
        part, left = leave_out(part)
        if left:
            print(f"{what}: left out {left} held-out documents", file=sys.stderr)
        docs.extend(part[:limit] if limit else part)
    if not any(d.spans for d in docs):
        raise CliError(f"{what}: no PHI annotation in the corpus")
    return docs


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run_train(args: argparse.Namespace) -> int:
    import torch

    from deid.lab.share.model import ReprDims
    from deid.lab.share.neighbours import nearest_rows
    from deid.lab.share.store import save_representation
    from deid.lab.share.train import ReprTrainConfig, train_representation
    from deid.lab.share.units import SubwordUnits, segment_corpus

    torch.set_num_threads(args.threads)
    docs = read_corpora(args.corpus, what="--corpus")
    units = SubwordUnits()
    segments = segment_corpus(units, docs, args.max_len)
    phi_ids = {int(i) for s in segments for i in s.ids[s.phi]}
    t0 = time.monotonic()
    index = nearest_rows(units.embeddings, phi_ids, args.neighbours, units.special_ids())
    nb_seconds = time.monotonic() - t0
    _log(
        f"neighbour table: {len(phi_ids)} PHI units x {args.neighbours} neighbours over "
        f"{units.embeddings.shape[0]} rows in {nb_seconds:.1f}s"
    )
    dims = ReprDims(
        dim=args.dim, hidden=args.hidden, in_noise=args.in_noise, out_noise=args.out_noise,
        noise_floor=args.noise_floor,
    )  # fmt: skip
    cfg = ReprTrainConfig(
        dims=dims, head_hidden=args.head_hidden, adversary_hidden=args.adversary_hidden,
        batch_size=args.batch_size, lr=args.lr, pretrain_epochs=args.pretrain_epochs,
        adversary_epochs=args.adversary_epochs, alternate_epochs=args.alternate_epochs,
        adversary_weight=args.adversary_weight, recovery_weight=args.recovery_weight, decoys=args.decoys,
        adversary_steps=args.adversary_steps, seed=args.seed,
    )  # fmt: skip
    t0 = time.monotonic()
    trained = train_representation(units, segments, index, cfg, log=_log)
    model_id = args.model_id or f"deid-repr-d{args.dim}-n{args.neighbours}"
    sha = save_representation(
        trained.represent, units, args.out, model_id=model_id, max_len=args.max_len,
        extra={"neighbours": args.neighbours, "neighbour_seconds": round(nb_seconds, 1),
               "train_seconds": round(time.monotonic() - t0, 1), "documents": len(docs),
               "segments": len(segments), "seed": args.seed, "decoys": args.decoys,
               "adversary_steps": args.adversary_steps,
               "history": trained.history},
    )  # fmt: skip
    print(f"{model_id} {sha}")
    return 0


def run_attack(args: argparse.Namespace) -> int:
    import torch

    from deid.lab.share.attack import AttackConfig, attack_pairs, attack_recovery_scores
    from deid.lab.share.model import IdentityRepresentation
    from deid.lab.share.neighbours import nearest_rows
    from deid.lab.share.store import load_representation
    from deid.lab.share.units import segment_corpus

    torch.set_num_threads(args.threads)
    try:
        frozen = load_representation(args.model)
    except (FileNotFoundError, ValueError) as exc:
        raise CliError(str(exc)) from None
    train = segment_corpus(frozen.units, read_corpora(args.corpus, what="--corpus"), frozen.max_len)
    held = segment_corpus(frozen.units, read_corpora(args.eval, what="--eval"), frozen.max_len)
    phi_ids = {int(i) for s in [*train, *held] for i in s.ids[s.phi]}
    index = nearest_rows(frozen.units.embeddings, phi_ids, args.neighbours, frozen.units.special_ids())
    embedding = frozen.represent.embedding
    represent = IdentityRepresentation(embedding) if args.identity else frozen.represent
    cfg = AttackConfig(epochs=args.epochs, hidden=args.hidden, seed=args.seed)
    t1, t2 = attack_pairs(represent, embedding, train, held, index, cfg, log=_log)
    rec = attack_recovery_scores(
        represent, frozen.units.embeddings, train, held, cfg, max_eval=args.max_eval, log=_log
    ).all()
    for score in (t1, t2, *rec):
        print(score.line())
    if args.json:
        args.json.write_text(json.dumps({
            "model_id": frozen.model_id, "model_sha256": frozen.sha256, "identity": args.identity,
            "epochs": args.epochs, "neighbours": args.neighbours,
            "scores": [{"name": s.name, "correct": s.correct, "total": s.total, "accuracy": s.accuracy,
                        "wilson95": s.interval, "chance": s.chance} for s in (t1, t2, *rec)],
        }, indent=1))  # fmt: skip
    return 0


def run_raw_head(args: argparse.Namespace) -> int:
    import torch

    from deid.lab.share.head import HeadConfig, raw_vectors, score_words, train_head
    from deid.lab.share.units import SubwordUnits, segment_corpus

    torch.set_num_threads(args.threads)
    units = SubwordUnits()
    train = segment_corpus(units, read_corpora(args.corpus, what="--corpus"), args.max_len)
    dev = segment_corpus(units, read_corpora(args.dev, what="--dev"), args.max_len)
    cfg = HeadConfig(hidden=args.hidden, epochs=args.epochs, seed=args.seed)
    head = train_head(raw_vectors(units.embeddings, train), [s.tags for s in train], cfg, log=_log)
    print(f"raw-embedding head, dev: {score_words(head, raw_vectors(units.embeddings, dev), dev).line()}")
    return 0
