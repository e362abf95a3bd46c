"""``deid mllp``: the MLLP bridge (HL7 v2 over TCP -> the raw-hl7 topic), see docs/HL7.md."""

from __future__ import annotations

import argparse
import logging
from typing import Any

from deid.cli import CliError


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text}")
    return value


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0:  # NaN is refused too
        raise argparse.ArgumentTypeError(f"must be positive: {text}")
    return value


def _port(text: str) -> int:
    value = _positive_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"not a TCP port: {text}")
    return value


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "mllp",
        help="run the MLLP bridge: receive HL7 v2 over TCP and write it to the raw-hl7 topic",
        description="Listen for HL7 v2 messages over MLLP (TLS when DEID_MLLP__TLS_CERTFILE is set), "
        "validate each one (ORU^R01, MDM^T02 with a patient id and note text), write it to the raw-hl7 "
        "topic keyed by the patient's keyed-hash pseudonym, and answer AA only after the broker "
        "acknowledged the write (AR: rejected, do not resend; AE: not written, resend). Settings come "
        "from the DEID_ environment; the options below override them. DEID_HMAC_SECRET (at least "
        "32 bytes, the worker's) is required: there is no default secret.",
    )
    p.add_argument("--host", help="listen address (default: DEID_MLLP__HOST, 0.0.0.0)")
    p.add_argument("--port", type=_port, help="listen port (default: DEID_MLLP__PORT, 2575)")
    p.add_argument("--bootstrap-servers", metavar="HOST:PORT", help="Kafka bootstrap servers")
    p.add_argument("--topic", help="raw-HL7 topic (default: DEID_KAFKA__TOPIC_RAW_HL7, raw-hl7)")
    p.add_argument("--max-in-flight", type=_positive_int, default=64, metavar="N",
                   help="broker writes awaiting acknowledgement, bridge-wide, before senders wait")
    p.add_argument("--max-message-bytes", type=_positive_int, metavar="N",
                   help="larger messages are answered AR message_too_large (default: "
                   "DEID_MLLP__MAX_MESSAGE_BYTES, 4 MiB); lowered at start to what the raw-hl7 topic "
                   "(max.message.bytes) and the producer (DEID_KAFKA__MAX_REQUEST_SIZE) take")
    p.add_argument("--max-connections", type=_positive_int, metavar="N",
                   help="connections beyond this are closed at once (default: "
                   "DEID_MLLP__MAX_CONNECTIONS, 64)")
    p.add_argument("--idle-timeout", type=_positive_seconds, metavar="SECONDS",
                   help="close a connection that starts or finishes no frame for this long (default: "
                   "DEID_MLLP__IDLE_TIMEOUT_S, 60)")
    p.add_argument("--frame-timeout", type=_positive_seconds, metavar="SECONDS",
                   help="drop a frame not finished this long after its start block, and close the "
                   "connection (default: DEID_MLLP__FRAME_TIMEOUT_S, 30)")
    p.add_argument("--metrics-port", type=_port, metavar="PORT",
                   help="serve Prometheus metrics on this port (default: off)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import asyncio
    import signal

    from deid.settings import SecretNotSet
    from worker.cli.worker import load_settings

    overrides: dict[str, Any] = {}
    settings = load_settings()
    flags = (("host", args.host), ("port", args.port), ("max_message_bytes", args.max_message_bytes),
             ("max_connections", args.max_connections), ("idle_timeout_s", args.idle_timeout),
             ("frame_timeout_s", args.frame_timeout))
    mllp = settings.mllp.model_copy(update={k: v for k, v in flags if v is not None})
    kafka_update: dict[str, Any] = {}
    if args.bootstrap_servers:
        kafka_update["bootstrap_servers"] = args.bootstrap_servers
    if args.topic:
        kafka_update["topic_raw_hl7"] = args.topic
    overrides["mllp"] = mllp
    overrides["kafka"] = settings.kafka.model_copy(update=kafka_update)
    settings = settings.model_copy(update=overrides)
    for name, path in (("TLS certificate", mllp.tls_certfile), ("TLS key", mllp.tls_keyfile)):
        if path is not None and not path.is_file():
            raise CliError(f"{name} not found: {path}")
    if mllp.tls_keyfile is not None and mllp.tls_certfile is None:
        raise CliError("DEID_MLLP__TLS_KEYFILE is set without DEID_MLLP__TLS_CERTFILE")
    from worker.logs import PINNED_LEVEL, configure_logging

    # Third-party loggers pinned (never below WARNING, whatever DEID_LOG_LEVEL says) and
    # rate-limited: no raw HL7 in any log line, no error flood while the broker is away.
    configure_logging(settings.log_level)
    # aiokafka logs its own connection errors; until the bridge is up, ours is the one line shown
    kafka_log = logging.getLogger("aiokafka")
    kafka_log.setLevel(logging.CRITICAL)

    from worker.mllp import MllpBridge, serve

    def ready(bridge: MllpBridge) -> None:
        kafka_log.setLevel(PINNED_LEVEL)  # back to the pin, never to an inherited DEBUG

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await serve(settings, stop, max_in_flight=args.max_in_flight, metrics_port=args.metrics_port,
                    ready=ready)

    try:
        asyncio.run(main())  # serve refuses a missing or weak DEID_HMAC_SECRET before anything starts
    except SecretNotSet as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:  # port in use, certificate unreadable...
        raise CliError(f"cannot start the bridge: {exc.strerror or type(exc).__name__}") from None
    except Exception as exc:
        from aiokafka.errors import KafkaError

        if isinstance(exc, KafkaError):
            raise CliError(f"cannot reach the Kafka broker ({type(exc).__name__})") from None
        raise
    finally:
        kafka_log.setLevel(PINNED_LEVEL)
    return 0
