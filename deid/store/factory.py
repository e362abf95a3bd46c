"""Choose the store from settings: Redis when configured, a local file when asked, else memory."""

from __future__ import annotations

import random
from pathlib import Path

from deid.settings import SecretNotSet, Settings
from deid.store.base import PatientStore
from deid.store.memory import InMemoryStore


class LocalStoreNeedsSecret(OSError):
    """A local memo file kept between runs needs the same DEID_HMAC_SECRET on every run: without
    one, each run would draw its own and never find the previous run's entries. An ``OSError`` so
    that callers reporting "cannot open the memo file" show its one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(22, reason)  # EINVAL; strerror carries the line


def open_store(
    settings: Settings, *, local_path: Path | str | None = None, rng: random.Random | None = None
) -> PatientStore:
    """The store for this process.

    - ``local_path`` given (a command-line run asked to keep its memo between runs): a SQLite file,
      only with DEID_HMAC_SECRET set (``LocalStoreNeedsSecret`` otherwise: a random per-process
      secret would make every run's keys different, so consistency across runs would silently fail);
    - else ``settings.redis.url`` set (or ``redis.mode`` sentinel): Redis, one server, a Redis
      Cluster or the master behind Sentinel (shared by every replica; the production choice);
    - else the in-memory store (embedded default, one process, lost on exit).

    No connection is made here; the first call connects, and a Redis store raises
    ``StoreUnavailable`` from its calls (after bounded retries) when the server does not answer.
    ``rng`` only jitters the Redis retry backoff.
    """
    if local_path is not None:
        try:
            settings.require_secret()
        except SecretNotSet as exc:
            raise LocalStoreNeedsSecret(f"{exc}; a memo file kept between runs needs the same secret "
                                        "on every run") from None
        from deid.store.local import LocalFileStore

        return LocalFileStore(local_path, patient_ttl_days=settings.redis.patient_ttl_days)
    if settings.redis.url or settings.redis.mode == "sentinel":
        from deid.store.redis import RedisPatientStore

        return RedisPatientStore.from_settings(settings.redis, rng=rng)
    return InMemoryStore()
