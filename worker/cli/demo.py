"""``deid demo``: the embedded default in one command (broker, Redis, worker, sample producer)."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "demo", help="run everything locally and de-identify sample French notes",
        description="Start an embedded Kafka-compatible broker (Tansu), a local redis-server (or the "
        "in-memory store when the binary is absent), the worker and a producer of fictitious French "
        "clinical notes; print the de-identified notes as they arrive. Ctrl-C stops everything. Without "
        "DEID_HMAC_SECRET a random secret is drawn for the run.")
    p.add_argument("--notes", type=int, default=8, help="how many sample notes to send (default 8)")
    p.add_argument("--patients", type=int, default=2, help="over how many patients (1-4, default 2)")
    p.add_argument("--exit-after", action="store_true",
                   help="exit once every note has come out (else run until Ctrl-C)")
    p.add_argument("--delay", type=float, default=0.5, help="seconds between two notes (default 0.5)")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="with --exit-after, give up after this many seconds (default 300)")
    p.add_argument("--no-model", action="store_true", help="rules only, no NER model (fast start)")
    p.add_argument("--memory", action="store_true",
                   help="use the in-memory store even if redis-server exists")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from deid.cli import CliError

    if args.notes < 1 or not 1 <= args.patients <= 4:
        raise CliError("--notes must be >= 1 and --patients between 1 and 4")
    import secrets

    from pydantic import SecretStr

    from deid.settings import Settings
    from worker.demo import run_demo
    from worker.logs import configure_logging
    from worker.main import ConfigError
    from worker.services.broker import BrokerError

    settings = Settings()
    if settings.hmac_secret is None:
        # No default secret exists; the demo's pseudonyms only need to hold for this run.
        settings.hmac_secret = SecretStr(secrets.token_urlsafe(32))
        print("secret: a random DEID_HMAC_SECRET drawn for this run (set one to keep pseudonyms "
              "across runs)", flush=True)
    settings.http.host = "127.0.0.1"
    settings.http.port = 0
    if args.no_model:
        settings.model.enabled = False
    configure_logging("WARNING")
    try:
        return run_demo(settings, notes=args.notes, patients=args.patients, exit_after=args.exit_after,
                        delay_s=args.delay, timeout_s=args.timeout, use_redis=not args.memory)
    except (ConfigError, BrokerError) as exc:
        raise CliError(str(exc)) from None
