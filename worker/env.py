"""The DEID_* variables that give a ``deid worker`` process the settings of the process that
starts it: what the worker tests (``tests/worker/worker_testkit.py``) and the benchmarks
(``bench/pipeline_throughput.py``) pass to the worker processes they run, one rendering for both,
so that a setting they rely on is never forwarded by one and forgotten by the other.

The settings those runs change are rendered; every other one comes from the inherited
environment, as in production. The secret is in the result: keep it in the child's environment, never log it.
"""

from __future__ import annotations

from deid.settings import Settings


def worker_env(settings: Settings) -> dict[str, str]:
    """``settings`` as DEID_* variables for a worker subprocess: its broker, topics and consumer
    group (with the group's timeouts), secret, model switch, batch size and wait, Redis store, and
    an HTTP server on a free local port (several workers may run on one machine)."""
    k, r = settings.kafka, settings.redis
    env = {
        "DEID_KAFKA__BOOTSTRAP_SERVERS": k.bootstrap_servers,
        "DEID_KAFKA__CONSUMER_GROUP": k.consumer_group,
        "DEID_KAFKA__TOPIC_RAW_NOTES": k.topic_raw_notes,
        "DEID_KAFKA__TOPIC_DEID_NOTES": k.topic_deid_notes,
        "DEID_KAFKA__TOPIC_DEAD_LETTER": k.topic_dead_letter,
        "DEID_KAFKA__SESSION_TIMEOUT_MS": str(k.session_timeout_ms),
        "DEID_KAFKA__HEARTBEAT_INTERVAL_MS": str(k.heartbeat_interval_ms),
        "DEID_KAFKA__REBALANCE_TIMEOUT_MS": str(k.rebalance_timeout_ms),
        "DEID_MODEL__ENABLED": "true" if settings.model.enabled else "false",
        "DEID_HMAC_SECRET": settings.secret_bytes().decode(),
        "DEID_BATCH__MAX_EVENTS": str(settings.batch.max_events),
        "DEID_BATCH__MAX_WAIT_MS": str(settings.batch.max_wait_ms),
        "DEID_HTTP__HOST": "127.0.0.1",
        "DEID_HTTP__PORT": "0",
        "DEID_REDIS__MODE": r.mode,
        "DEID_REDIS__SOCKET_TIMEOUT_S": str(r.socket_timeout_s),
        "DEID_REDIS__MAX_RETRIES": str(r.max_retries),
        "DEID_REDIS__RETRY_BACKOFF_MAX_S": str(r.retry_backoff_max_s),
    }
    if r.url:
        env["DEID_REDIS__URL"] = r.url
    if r.sentinels:
        env["DEID_REDIS__SENTINELS"] = r.sentinels
    return env
