"""Keyed hashes that stand in for raw values anywhere outside the process (Redis, events, logs).

A key is HMAC-SHA256 under the deployment's secret of a normalized value, so an attacker with a
Redis dump but without the secret cannot test guesses; the same value written two ways
("DUPONT" / "Dupont ", "06 12 34 56 78" / "0612345678") gets one key, so gets one surrogate.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import unicodedata
from typing import TYPE_CHECKING

from deid.labels import Category, Label

if TYPE_CHECKING:
    from deid.settings import Settings

_SPACES = re.compile(r"\s+")
_NON_DIGIT = re.compile(r"\D")
_NON_ALNUM = re.compile(r"[^0-9a-z]")


def normalize(label: Label, value: str) -> str:
    """Canonical form of a mention so that spelling variants share one memo entry."""
    text = unicodedata.normalize("NFKC", value).strip()
    cat = label.category
    if cat is Category.TEL:
        digits = _NON_DIGIT.sub("", text)
        return digits[-9:] if len(digits) >= 9 else digits  # drop country/trunk prefix
    if cat is Category.QID:
        return _NON_ALNUM.sub("", text.casefold())
    folded = _strip_accents(text).casefold()
    return _SPACES.sub(" ", folded)


def _strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


class KeyHasher:
    """HMAC-SHA256 under one secret; every identifier that leaves the process goes through it."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("the HMAC secret must be at least 16 bytes")
        self._secret = secret

    @classmethod
    def from_settings(cls, settings: Settings) -> KeyHasher:
        """The deployment's hasher, the one place one is built from settings: under the configured
        secret, else the process's random one (``Settings.secret_bytes``). A service has already
        refused a missing or weak secret (``Settings.require_secret``) before it gets here."""
        return cls(settings.secret_bytes())

    def _mac(self, *parts: str) -> str:
        msg = "\x1f".join(parts).encode("utf-8")
        return hmac.new(self._secret, msg, hashlib.sha256).hexdigest()

    def patient(self, patient_id: str) -> str:
        """Pseudonym of a patient: stable, keyed, 32 hex chars (128 bits)."""
        return self._mac("patient", patient_id.strip())[:32]

    def document(self, document_id: str) -> str:
        return self._mac("document", document_id.strip())[:32]

    def value(self, patient_key: str, label: Label, value: str) -> str:
        """Memo key of one PHI value of one patient (label category + normalized value)."""
        return self._mac("value", patient_key, label.category.value, normalize(label, value))[:32]

    def pad(self, patient_key: str, value_key: str) -> int:
        """A 64-bit pad that seals the true day of one timeline point (``deid.temporal.timeline``):
        a PRF of the secret, the patient and the point's memo key, so each pad seals one value only."""
        return int(self._mac("timeline-pad", patient_key, value_key)[:16], 16)

    def event(self, event_id: str) -> str:
        return self._mac("event", event_id)[:32]
