"""The product's detector on a GPU node (issue 36): ``NerDetector.detect`` as the worker builds it
from the settings, in 1 to N processes sharing one GPU, model only (notes in, spans out).

Usage: python bench/gpu_detectors.py --device cuda --procs 1,2,4,8 --notes 4096   (a GPU node)
       .venv/bin/python bench/gpu_detectors.py --device cpu --procs 1,2 --notes 16  (a dry run)

Notes: deid.lab.synth's French notes of seed 1234 joined to at least --note-chars characters (the
notes of bench/gpu_speed.py and bench/ner_throughput.py). Each process builds its detector with
``deid.ner.load_detector_from_settings`` (the environment's ``DEID_MODEL__*`` apply: on a GPU the
packed half-precision path of ``deid.ner.packed`` by default), warms it on 16 notes, waits for the
others, then detects its share in calls of --batch notes. notes/s = all notes / (last process's
end - first process's start). One process is also run with the padded float32 path
(``model.gpu_packing`` false) on the first --compare notes, and the packed spans are compared with
it (share identical in offsets and label).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def make_notes(n: int, chars: int, seed: int = 1234) -> list[str]:
    from bench.gpu_speed import make_notes as notes_of_gpu_speed

    return notes_of_gpu_speed(n, chars, seed)


def _detect_share(
    rank: int, notes: list[str], batch: int, device: str, packing: bool, threads: int, barrier: Any, out: Any
) -> None:
    os.environ["DEID_MODEL__DEVICE"] = device
    os.environ["DEID_MODEL__GPU_PACKING"] = "true" if packing else "false"
    import torch

    from deid.ner import load_detector_from_settings
    from deid.ner.infer import Timings
    from deid.settings import Settings

    torch.set_num_threads(threads)
    det = load_detector_from_settings(Settings().model)
    det.detect(notes[:16], ["fr"] * min(16, len(notes)))
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    det.timings = Timings()
    barrier.wait()
    start = time.time()
    spans = []
    for i in range(0, len(notes), batch):
        chunk = notes[i : i + batch]
        found_all = det.detect(chunk, ["fr"] * len(chunk))
        spans += [[(s.start, s.end, s.label.value) for s in found] for found in found_all]
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    end = time.time()
    t = det.timings
    stages = {k: getattr(t, k) for k in ("tokenize", "windows", "encoder", "decode")}
    out.put((rank, start, end, len(notes), t.tokens, stages, det.backend, det.kernel, spans))


def run(notes: list[str], procs: int, batch: int, device: str, packing: bool, threads: int) -> list[Any]:
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(procs)
    out = ctx.Queue()
    share = -(-len(notes) // procs)
    children = [
        ctx.Process(
            target=_detect_share,
            args=(r, notes[r * share : (r + 1) * share], batch, device, packing, threads, barrier, out),
        )
        for r in range(procs)
    ]
    for c in children:
        c.start()
    got = [out.get(timeout=900) for _ in children]
    for c in children:
        c.join()
    return sorted(got)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cuda", help="cuda, or cpu for a dry run")
    p.add_argument("--procs", default="1,2,4,8", help="process counts to time")
    p.add_argument("--notes", type=int, default=4096)
    p.add_argument("--note-chars", type=int, default=2000)
    p.add_argument("--batch", type=int, default=128, help="notes per detect() call")
    p.add_argument("--compare", type=int, default=512, help="notes timed on the padded float32 path too")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads a process")
    args = p.parse_args()
    if args.device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            print("# no CUDA device here: running on the CPU (a dry run, not a GPU figure)")
            args.device = "cpu"
    notes = make_notes(args.notes, args.note_chars)
    gpu = "no GPU"
    if args.device.startswith("cuda"):
        import torch

        gpu = torch.cuda.get_device_name()
    cpu = platform.processor() or platform.machine()
    mean = sum(map(len, notes)) / len(notes)
    print(f"# {gpu}; {os.cpu_count()} CPUs ({cpu}); {len(notes)} notes, mean {mean:.0f} chars; "
          f"--batch {args.batch}, {args.threads} torch thread(s) a process")  # fmt: skip
    print("| path | processes | notes | notes/s | tokens/s | stages of process 0 "
          "(tokenize / windows+host / encoder wait / decode) |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---|")

    def row(name: str, got: list[Any]) -> dict[int, list[Any]]:
        start = min(g[1] for g in got)
        end = max(g[2] for g in got)
        n = sum(g[3] for g in got)
        tokens = sum(g[4] for g in got)
        st = got[0][5]
        total = sum(st.values()) or 1.0
        shares = " / ".join(f"{st[k] / total:.0%}" for k in ("tokenize", "windows", "encoder", "decode"))
        print(f"| {name} ({got[0][6]}, {got[0][7]}) | {len(got)} | {n} | {n / (end - start):,.1f} | "
              f"{tokens / (end - start):,.0f} | {shares} |", flush=True)  # fmt: skip
        return {g[0]: g[8] for g in got}

    ref = row("padded float32", run(notes[: args.compare], 1, args.batch, args.device, False, args.threads))
    for k in (int(x) for x in args.procs.split(",")):
        found = row("packed (settings default)", run(notes, k, args.batch, args.device, True, args.threads))
        if k == 1:
            mine = found[0][: args.compare]
            want = ref[0]
            same = sum(len(set(a) & set(b)) for a, b in zip(mine, want, strict=True))
            total = sum(len(set(b)) for b in want)
            print(f"# packed spans identical to the padded float32 path's: {same}/{total} "
                  f"({same / max(1, total):.3%}) on {len(want)} notes", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
