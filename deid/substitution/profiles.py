"""Substitution profiles and the synchronous one-note entry of the command line.

A profile (``Settings.profile``, ``deid redact --profile``) is the whole choice: a table of
strategies (the choice for one label or category) laid over the settings:
- ``dp``: the settings' differentially private strategies (timeline dates, ages from the
  surrogate birth date, exponential-mechanism places) with random surrogates elsewhere;
- ``random``: random surrogates, dates moved by one secret shift per patient, ages kept below 90
  (i2b2 practice; said in the output event's ``kept_labels``);
- ``safe-harbor``: HIPAA Safe Harbor for dates and ages (year only, ages over 89 aggregated) and
  ZIP codes (first three digits, "000" for the restricted areas); the table in ``docs/PRIVACY.md``;
- ``placeholder``: category tags everywhere.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from datetime import date

from deid.events import DeidNote, ModelInfo, RawNote
from deid.labels import KEPT_BY_DEFAULT, Category
from deid.settings import Settings
from deid.spans import Span
from deid.store.base import PatientStore
from deid.store.keys import KeyHasher
from deid.store.memory import InMemoryStore
from deid.substitution.engine import Substituter

PROFILES: dict[str, dict[str, str]] = {
    "dp": {},
    "random": {"DATE": "shift", "AGE": "shift", "CITY": "random"},
    # a US ZIP code keeps its first three digits ("000" for an area of 20,000 people or fewer)
    "safe-harbor": {"DATE": "safe-harbor", "AGE": "safe-harbor", "CITY": "random", "POSTCODE": "safe-harbor"},
    # the patient's sex is a quasi-identifier kept by default in every profile (issue 17);
    # ``DEID_STRATEGIES='{"SEX": "placeholder"}'`` replaces it
    "placeholder": {**{c.value: "placeholder" for c in Category},
                    **{lab.value: "keep" for lab in KEPT_BY_DEFAULT}},
}


def profile_settings(base: Settings, profile: str) -> Settings:
    """``base`` with the strategies of ``profile``; the settings' own per-label choices win, except
    under ``placeholder``, where they may only ask for more placeholders."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {sorted(PROFILES)}")
    own = base.strategies
    if profile == "placeholder":
        own = {k: v for k, v in own.items() if v == "placeholder"}
    merged = {**PROFILES[profile], **own}
    return base.model_copy(update={"strategies": merged})


def build_substituter(settings: Settings, store: PatientStore, rng: random.Random | None = None, *,
                      profile: str | None = None) -> Substituter:
    """The one constructor of the substitution engine: ``profile`` (default: the settings') laid
    over the settings, keys hashed under the deployment's secret, draws from ``rng`` (a system
    random generator when None; seeded in tests and benches)."""
    cfg = profile_settings(settings, profile or settings.profile)
    return Substituter(store, KeyHasher.from_settings(cfg), cfg, rng or random.SystemRandom())


def deidentify_text(
    text: str,
    spans: Sequence[Span],
    language: str = "fr",
    document_date: date | None = None,
    *,
    profile: str = "dp",
    rng: random.Random | None = None,
    store: PatientStore | None = None,
    settings: Settings | None = None,
    patient_id: str = "local",
    event_id: str = "local",
    locale: str | None = None,
    date_order: str | None = None,
) -> DeidNote:
    """Substitute one text synchronously (``deid redact --profile PROFILE``); ``profile`` is one of
    ``PROFILES``. Not for use inside a running event loop."""
    sub = build_substituter(settings or Settings(), store or InMemoryStore(), rng, profile=profile)
    note = RawNote(event_id=event_id, patient_id=patient_id, language=language,  # type: ignore[arg-type]
                   document_date=document_date, text=text, locale=locale,  # type: ignore[arg-type]
                   date_order=date_order)  # type: ignore[arg-type]
    return asyncio.run(sub.substitute([note], [list(spans)], ModelInfo(name="given", version="0")))[0]
