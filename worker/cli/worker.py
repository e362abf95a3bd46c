"""``deid worker``: the streaming worker (Kafka in, Kafka out), configured from DEID_* variables."""

from __future__ import annotations

import argparse
from typing import Any

from deid.cli import CliError
from deid.settings import Settings


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "worker", help="run the streaming de-identification worker on Kafka",
        description="Consume raw notes from Kafka, de-identify them and publish the result. Every "
        "setting comes from the environment (DEID_KAFKA__BOOTSTRAP_SERVERS, DEID_REDIS__URL, "
        "DEID_HMAC_SECRET, DEID_MODEL__PATH, ...); the options below override a few. "
        "DEID_HMAC_SECRET (at least 32 bytes) is required: there is no default secret. "
        "SIGTERM drains the batch in flight, commits and exits.")
    p.add_argument("--bootstrap-servers", help="Kafka bootstrap servers (host:port,...)")
    p.add_argument("--redis-url", help="Redis URL (default: in-memory store, one process only)")
    p.add_argument("--http-port", type=int, help="port of /livez /readyz /metrics (0 = any free port)")
    p.add_argument("--no-model", action="store_true", help="rules only, no NER model")
    p.set_defaults(handler=run)


def load_settings() -> Settings:
    """Settings from the environment; an invalid one is one line (exit 2) naming the setting, and
    what a validator says (a removed setting, a locale of another language). The secret is checked
    once, where the service starts (``Settings.require_secret``, from ``serve``)."""
    from pydantic import ValidationError

    try:
        return Settings()
    except ValidationError as exc:
        fields = ", ".join(".".join(str(p) for p in e["loc"])
                           + (f" ({e['msg']})" if e["type"] == "value_error" else "") for e in exc.errors())
        raise CliError(f"invalid settings in the environment: {fields}") from None


def run(args: argparse.Namespace) -> int:
    import asyncio

    settings = load_settings()
    if args.bootstrap_servers:
        settings.kafka.bootstrap_servers = args.bootstrap_servers
    if args.redis_url:
        settings.redis.url = args.redis_url
    if args.http_port is not None:
        settings.http.port = args.http_port
    if args.no_model:
        settings.model.enabled = False

    from aiokafka.errors import KafkaError

    from worker.logs import configure_logging
    from worker.main import ConfigError, serve

    configure_logging(settings.log_level)
    try:
        asyncio.run(serve(settings))
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    except KafkaError as exc:
        raise CliError(f"Kafka at {settings.kafka.bootstrap_servers}: {type(exc).__name__}") from None
    except OSError as exc:
        raise CliError(f"cannot start: {type(exc).__name__}: {exc.strerror or exc}") from None
    return 0
