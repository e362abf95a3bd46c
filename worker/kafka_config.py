"""aiokafka client arguments from ``KafkaSettings`` (SASL/TLS included), shared by every client."""

from __future__ import annotations

import ssl
from typing import Any

from deid.settings import KafkaSettings


def common_kwargs(kafka: KafkaSettings) -> dict[str, Any]:
    kw: dict[str, Any] = {
        "bootstrap_servers": kafka.bootstrap_servers,
        "client_id": kafka.client_id,
        "security_protocol": kafka.security_protocol,
        "request_timeout_ms": kafka.request_timeout_ms,
    }
    if kafka.security_protocol in ("SSL", "SASL_SSL"):
        ctx = ssl.create_default_context(cafile=str(kafka.ssl_cafile) if kafka.ssl_cafile else None)
        if kafka.ssl_certfile is not None:
            ctx.load_cert_chain(str(kafka.ssl_certfile),
                                str(kafka.ssl_keyfile) if kafka.ssl_keyfile else None)
        kw["ssl_context"] = ctx
    if kafka.security_protocol.startswith("SASL"):
        kw["sasl_mechanism"] = kafka.sasl_mechanism or "PLAIN"
        kw["sasl_plain_username"] = kafka.sasl_username
        kw["sasl_plain_password"] = kafka.sasl_password.get_secret_value() if kafka.sasl_password else None
    return kw


def consumer_kwargs(kafka: KafkaSettings, max_records: int) -> dict[str, Any]:
    return {
        **common_kwargs(kafka),
        "group_id": kafka.consumer_group,
        "enable_auto_commit": False,  # offsets are committed only after the outputs are acknowledged
        "auto_offset_reset": kafka.auto_offset_reset,
        "session_timeout_ms": kafka.session_timeout_ms,
        "heartbeat_interval_ms": kafka.heartbeat_interval_ms,
        "rebalance_timeout_ms": kafka.rebalance_timeout_ms,
        "max_poll_interval_ms": kafka.max_poll_interval_ms,
        "max_poll_records": max_records,
        "isolation_level": "read_committed",
    }


def producer_kwargs(kafka: KafkaSettings) -> dict[str, Any]:
    # No idempotent producer: Tansu rejects InitProducerId and duplicates are already harmless
    # (byte-identical). acks=all so that an acknowledged output survives a broker failover.
    return {
        **common_kwargs(kafka),
        "acks": "all",
        "linger_ms": kafka.linger_ms,
        "max_request_size": kafka.max_request_size,
        "enable_idempotence": False,
    }
