"""The store interface: the only I/O of the ``deid`` core.

All keys given to a store are already keyed hashes (``deid.store.keys.KeyHasher``): a store never sees
a raw PHI value or a raw patient id. Surrogates are not PHI and are stored as values.

Per batch and patient the substitution engine makes two calls:
1. ``lookup``: the memo entries that already exist for the batch's value keys (and, when the
   note has dates, ``timeline``: the patient's timeline points, see below);
2. ``commit``: atomically (a) charge the summed cost of the releases whose key is still absent,
   only if the patient's total stays within ``cap_micro``, and record ``spend_id``'s account the
   first time it commits; (b) get-or-create every release's surrogate (an existing entry wins, so
   two writers racing on one value converge on one surrogate). When the budget is refused, costed
   releases are not stored (the caller renders its placeholder) and free releases (cost 0: random
   surrogates of names, phones...) are stored anyway. A **replay** (``spend_id`` already
   committed) is not a free pass: a byte-identical replay finds every value memoized and costs
   nothing, but a value its first delivery never paid for (spans changed after a model upgrade, a
   reused event id) is charged like any new value, or refused at the cap.

The timeline (``Release.timeline``) is the per-patient record of true dates that keeps surrogate
dates in order across notes: for each date value it holds the true day, encrypted under a
pad derived from the secret (``deid.store.keys.KeyHasher.pad``), never in clear. It is written with the
memo entry it belongs to (only when that entry is created) and read whole by ``timeline``.
Budgets are integers in micro-epsilon so that sums are exact on every replica.

Identifiers (``patient``, memo keys, event keys) are lowercase hex HMACs; the Redis and local-file
adapters refuse anything else with ``ValueError`` (without echoing it), so a raw value can never
become a stored key. Any failure of the backing store surfaces as ``StoreUnavailable`` (after
bounded retries when waiting can help): the caller pauses and retries the batch later. Retrying a
``commit`` is safe: one that was applied but whose reply was lost returns the same surrogates
and charges nothing again (its spend id was recorded).
Adapters: ``deid.store.memory`` (one process), ``deid.store.redis`` (production),
``deid.store.local`` (SQLite file for command-line runs); ``deid.store.factory.open_store`` picks.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass, field

MICRO = 1_000_000  # micro-epsilon per epsilon
# A readiness probe entry outlives a few probes (so a probe never creates a key a reader could
# miss) and then goes: one key per worker, never a patient's.
PROBE_TTL_S = 60


class StoreUnavailable(RuntimeError):
    """The backing store did not answer within the retry policy; the caller must wait, not guess."""


@dataclass(frozen=True, slots=True)
class Release:
    """A surrogate drawn for a value that had no memo entry yet."""

    key: str  # memo key (HMAC of patient, category, normalized value)
    surrogate: str
    cost_micro: int = 0  # privacy cost of this noisy release; 0 for non-DP random surrogates
    timeline: str = ""  # the sealed timeline point of a date value ("" for anything else)


@dataclass(frozen=True, slots=True)
class CommitResult:
    surrogates: dict[str, str]  # key -> the surrogate that is now memoized (ours or a racer's)
    granted: bool  # the costed releases were charged (or there were none)
    spent_micro: int  # charged by this call: 0 on a replay or a refusal
    total_micro: int  # the patient's total spend after this call
    replay: bool = False  # spend_id had already been committed (granted) before
    refused_keys: frozenset[str] = field(default_factory=frozenset)  # costed keys not stored
    # The privacy account of spend_id as recorded by its first granted commit: equal to
    # spent_micro/total_micro on a first commit (and on a refusal, which records nothing), the
    # first commit's figures on a replay, so that a replayed note can publish the same account
    # and be byte-identical. None only from a store that does not record them.
    recorded_spent_micro: int | None = None
    recorded_total_micro: int | None = None


class PatientStore(abc.ABC):
    """Async per-patient state; implementations: in-memory, Redis, local persistent file."""

    @abc.abstractmethod
    async def lookup(self, patient: str, keys: Sequence[str]) -> dict[str, str]:
        """Existing memo entries among ``keys`` for ``patient`` (absent keys are left out)."""

    @abc.abstractmethod
    async def commit(
        self, patient: str, spend_id: str, releases: Sequence[Release], cap_micro: int
    ) -> CommitResult:
        """Charge the budget and get-or-create the surrogates, atomically (see module doc)."""

    @abc.abstractmethod
    async def timeline(self, patient: str) -> dict[str, str]:
        """Every timeline point of ``patient``: memo key -> sealed point (see module doc)."""

    @abc.abstractmethod
    async def spent(self, patient: str) -> int:
        """The patient's total spent budget in micro-epsilon."""

    @abc.abstractmethod
    async def mark_processed(self, patient: str, event_key: str) -> bool:
        """Record that an event was processed; True if it was the first time."""

    @abc.abstractmethod
    async def erase_patient(self, patient: str) -> int:
        """Delete everything stored for one patient; returns the number of entries removed."""

    @abc.abstractmethod
    async def probe_write(self, probe_key: str) -> None:
        """Readiness: write one entry under ``probe_key`` (a hex HMAC, never a patient key) in the
        store's probe namespace, expiring after ``PROBE_TTL_S``; ``StoreUnavailable`` (its message
        naming the cause, never a key) when the store cannot take a write now: down, frozen, out
        of memory, read-only. One attempt, no retries: readiness wants the store's present state.
        A store that answers reads but refuses writes cannot de-identify a single new value."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""
