"""Logging of every worker-side process (worker, MLLP bridge, demo): no PHI at any level, no flood.

Two rules, applied by ``configure_logging`` whatever the requested level (DEBUG included):

- **Third-party loggers are pinned** to WARNING or above (aiokafka, asyncio, aiohttp, redis, the
  ``hl7`` parser, transformers, ...), and a record below WARNING from any logger outside
  ``deid.*`` is dropped at the handler, so a library missing from the list is held too. Their
  DEBUG/INFO output is either wire chatter or, for some, request and record contents; our own
  loggers (``deid.*``) never format a payload, an identifier or an exception message, only
  counts, offsets, event ids, reason codes and exception classes.
- **Their warnings and errors are rate-limited**: while the broker is unreachable aiokafka logs
  tens of ERROR lines per second. One line per (logger, message template) goes through per
  ``window_s`` seconds; the rest are counted in ``deid_client_log_records_total{source,level}``
  (``REGISTRY``, served on ``/metrics``) and summarised in the next line let through.
"""

from __future__ import annotations

import logging
import threading
import time

from prometheus_client import CollectorRegistry, Counter

# Loggers of libraries a worker process imports. A child (``aiokafka.conn``) follows its parent.
PINNED_LOGGERS: tuple[str, ...] = (
    "aiokafka", "kafka", "asyncio", "aiohttp", "redis", "hl7", "urllib3", "filelock",
    "transformers", "torch", "huggingface_hub", "safetensors", "tokenizers", "prometheus_client",
    "concurrent", "multipart",
)
PINNED_LEVEL = logging.WARNING
_OWN_PREFIX = "deid"
FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"

REGISTRY = CollectorRegistry()
CLIENT_LOG_RECORDS = Counter(
    "deid_client_log_records", "Warnings and errors of client libraries (aiokafka, redis...), "
    "counted even when rate-limited out of the log", ["source", "level"], registry=REGISTRY)
CLIENT_LOG_SUPPRESSED = Counter(
    "deid_client_log_records_suppressed", "Client-library log records dropped by the rate limit",
    ["source"], registry=REGISTRY)


def _source(name: str) -> str:
    """A closed label: the top-level package of a pinned logger, else ``other``."""
    top = name.split(".", 1)[0]
    return top if top in PINNED_LOGGERS else "other"


class RateLimitFilter(logging.Filter):
    """Lets through one record per (logger, template) per ``window_s`` for non-``deid`` loggers;
    records of our own loggers always pass. Thread-safe (aiokafka logs from the loop, torch and
    the detection executor from other threads)."""

    def __init__(self, window_s: float = 30.0) -> None:
        super().__init__()
        self.window_s = window_s
        self._lock = threading.Lock()
        self._last: dict[tuple[str, str], float] = {}
        self._dropped: dict[tuple[str, str], int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        name = record.name
        if name == _OWN_PREFIX or name.startswith(_OWN_PREFIX + "."):
            return True
        if record.levelno < PINNED_LEVEL:
            # A library the pinned list does not name (pydantic_settings, dotenv, httpcore...)
            # inherits the root's DEBUG: its chatter is dropped here whatever its name.
            return False
        source = _source(name)
        CLIENT_LOG_RECORDS.labels(source, record.levelname.lower()).inc()
        key = (name, str(record.msg))
        now = time.monotonic()
        with self._lock:
            last = self._last.get(key)
            if last is not None and now - last < self.window_s:
                self._dropped[key] = self._dropped.get(key, 0) + 1
                CLIENT_LOG_SUPPRESSED.labels(source).inc()
                return False
            self._last[key] = now
            dropped = self._dropped.pop(key, 0)
        if dropped:
            record.msg = f"{record.msg} [and {dropped} more like it in the last {self.window_s:.0f}s]"
        return True


def pin_third_party_loggers(level: int = PINNED_LEVEL) -> None:
    """Raise every pinned logger to ``level`` at least (never lower one set higher)."""
    for name in PINNED_LOGGERS:
        logger = logging.getLogger(name)
        if logger.level < level:  # NOTSET (0) included: it would inherit the root's DEBUG
            logger.setLevel(level)


def configure_logging(level: str, *, window_s: float = 30.0) -> None:
    """Root handler at ``level`` for our loggers, third-party loggers pinned and rate-limited."""
    root = logging.getLogger()
    if not root.handlers:
        stream = logging.StreamHandler()
        stream.setFormatter(logging.Formatter(FORMAT))
        root.addHandler(stream)
    root.setLevel(level.upper())
    for handler in root.handlers:
        if not any(isinstance(f, RateLimitFilter) for f in handler.filters):
            handler.addFilter(RateLimitFilter(window_s))
    pin_third_party_loggers()
    logging.getLogger("deid.logs").debug("log level %s; client libraries pinned at %s and rate-limited",
                                         level.upper(), logging.getLevelName(PINNED_LEVEL))
