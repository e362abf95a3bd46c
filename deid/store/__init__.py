"""Per-patient state behind one async interface: memoized surrogates, privacy ledger, event marks."""

from deid.store.base import CommitResult, PatientStore, Release, StoreUnavailable
from deid.store.memory import InMemoryStore

__all__ = ["CommitResult", "InMemoryStore", "PatientStore", "Release", "StoreUnavailable"]
