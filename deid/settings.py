"""The one settings object, read from the environment (prefix ``DEID_``, nested with ``__``).

Defaults run the embedded setup on one machine. Examples:
``DEID_KAFKA__BOOTSTRAP_SERVERS=kafka:9093``, ``DEID_REDIS__URL=rediss://:pw@redis:6380/0``,
``DEID_HMAC_SECRET=...``, ``DEID_MODEL__DEVICE=cuda``, ``DEID_PRIVACY__EPSILON_PER_NOTE=1.0``.
"""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# No secret ships in the source: a default anyone can read would let them recompute every
# pseudonym. The worker and the MLLP bridge refuse to start without DEID_HMAC_SECRET of at least
# MIN_SECRET_BYTES that looks random (`secret_weakness`); `deid demo` draws a random one per run;
# one-off library and command-line uses (`deid redact FILE`) get a random per-process secret
# (`secret_bytes`), consistent within the process only. See docs/STORE.md (threat model).
MIN_SECRET_BYTES = 32
_process_secret: bytes | None = None


# Secrets that were public at some point (the former development default) or that templates
# suggest, by their SHA-256 (so that the source holds none of them): anyone can recompute the
# pseudonyms made with them.
KNOWN_SECRET_DIGESTS = frozenset({
    "68a031418dba44a6b974ddd1e33be170cf871f15050449f96970c8af2905a4c8",
    "e2186dbdb1bb4193608605e84f33208765b5693b55edd4f730a719a100eeea6f",
    "057ba03d6c44104863dc7361fe4578965d1887360f90a0895882e58a6248fc86",
    "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b",
})
# A secret must look random (issue 33): at least 16 distinct characters and more than one class
# of character. Base64 of 32 random bytes (`openssl rand -base64 32`, 44 characters) holds about 31
# distinct characters and fewer than 16 in about one draw in 10^15. A hex string has at most 16
# distinct characters: 64 hex characters (`openssl rand -hex 32`) miss one in about one draw in
# four, so hex is not the recommended form (the refusal says so).
MIN_SECRET_DISTINCT = 16
SECRET_ADVICE = "e.g. `openssl rand -base64 32`"
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def secret_weakness(value: bytes) -> str | None:
    """Why ``value`` (UTF-8) cannot be a random secret, or None: a known default, fewer than
    ``MIN_SECRET_DISTINCT`` distinct characters, or one class of character only (digits, lower
    case, upper case, other)."""
    if hashlib.sha256(value).hexdigest() in KNOWN_SECRET_DIGESTS:
        return "a published default"
    text = value.decode("utf-8", "replace")
    distinct = len(set(text))
    if distinct < MIN_SECRET_DISTINCT:
        hint = "; a hex string has at most 16, use base64" if set(text) <= _HEX_DIGITS else ""
        return f"{distinct} distinct characters, at least {MIN_SECRET_DISTINCT} are required{hint}"
    classes = sum(any(f(c) for c in text) for f in (str.isdigit, str.islower, str.isupper,
                                                    lambda c: not c.isalnum()))
    if classes < 2:
        return "one class of character only"
    return None


class SecretNotSet(ValueError):
    """``DEID_HMAC_SECRET`` is missing or too short where a stable secret is required."""


def _random_process_secret() -> bytes:
    global _process_secret
    if _process_secret is None:
        _process_secret = secrets.token_urlsafe(32).encode("ascii")  # passes secret_weakness
    return _process_secret


class KafkaSettings(BaseModel):
    bootstrap_servers: str = "127.0.0.1:9092"
    security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = "PLAINTEXT"
    sasl_mechanism: Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"] | None = None
    sasl_username: str | None = None
    sasl_password: SecretStr | None = None
    ssl_cafile: Path | None = None
    ssl_certfile: Path | None = None
    ssl_keyfile: Path | None = None
    consumer_group: str = "deid-worker"
    topic_raw_notes: str = "raw-notes"
    topic_raw_hl7: str = "raw-hl7"
    topic_deid_notes: str = "deid-notes"
    topic_deid_hl7: str = "deid-hl7"
    topic_dead_letter: str = "deid-dlq"
    publish_hl7: bool = False
    # Consumer group tuning (worker). Defaults suit a real cluster; tests lower them.
    client_id: str = "deid-worker"
    auto_offset_reset: Literal["earliest", "latest"] = "earliest"
    session_timeout_ms: int = 30_000
    heartbeat_interval_ms: int = 3_000
    rebalance_timeout_ms: int = 60_000
    max_poll_interval_ms: int = 300_000
    request_timeout_ms: int = 40_000
    linger_ms: int = 5
    max_request_size: int = 4 * 1024 * 1024
    # Readiness (worker): a metadata request every probe_interval_s on a connection of its own,
    # each bounded by min(probe_timeout_s, probe_interval_s); /readyz answers 503 after
    # probe_failures_unready failures in a row or that many intervals without an answer (docs/WORKER.md).
    probe_interval_s: float = 5.0
    probe_timeout_s: float = 5.0
    probe_failures_unready: int = 3


class RedisSettings(BaseModel):
    # None selects the in-memory store (embedded default, one process only) unless mode is
    # "sentinel" (which finds the master through `sentinels`).
    url: str | None = None
    # single: one server at `url`. cluster: Redis Cluster, `url` names any node (the others are
    # discovered; keys are hash-tagged per patient, so each script touches one slot). sentinel:
    # the master named `sentinel_master`, found through `sentinels` ("host:port,host:port"); `url`
    # then only carries the master's credentials, database and TLS scheme (e.g. rediss://:pw@/0).
    mode: Literal["single", "cluster", "sentinel"] = "single"
    sentinels: str | None = None
    sentinel_master: str = "deid"
    sentinel_password: SecretStr | None = None
    ssl_ca_certs: Path | None = None
    socket_timeout_s: float = 2.0
    max_retries: int = 5
    retry_backoff_s: float = 0.1
    retry_backoff_max_s: float = 5.0
    # Retention: memo entries of a patient expire after this many days without a note (0 = never).
    patient_ttl_days: int = 0
    # Namespace of every key; a new HMAC secret gets a new prefix (e.g. "deid:e2"), see docs/STORE.md.
    key_prefix: str = "deid"


class ModelSettings(BaseModel):
    # None selects the shipped default model.
    path: Path | None = None
    device: Literal["auto", "cpu", "cuda"] = "auto"
    # Weights of the torch path. auto: bfloat16 on a CPU with AMX (bf16 matrix tiles; 3x ONNX int8
    # there), float32 elsewhere, a GPU included (half precision was measured slower for this small
    # encoder on an H100). docs/BENCHMARKS.md, deid/ner/runtime.py.
    dtype: Literal["auto", "float32", "float16", "bfloat16"] = "auto"
    cpu_int8: bool = False
    # auto: torch on a GPU and on a CPU with AMX (bf16), else ONNX Runtime (int8) when installed.
    backend: Literal["auto", "torch", "onnx"] = "auto"
    onnx_int8: bool = True  # int8 dynamic quantization on the ONNX path (dev F1 in docs/BENCHMARKS.md)
    # CPU threads of the model (the ONNX session's, or torch's for the process); None: the cores
    # this process may use.
    threads: int | None = None
    # Operating threshold on P(PHI) = 1 - P(O) of a word's first subword; lower finds more PHI.
    # "model": the threshold the model's directory records (``deid_min_phi_prob`` in its
    # config.json), else the most probable tag; a threshold belongs to the model it was chosen for
    # (the shipped 8-layer model records 0.1, chosen on the dev sets: docs/BENCHMARKS.md, "The
    # shipped model since 2026-11-25"; the former 12-layer model's was 0.3). A number overrides it;
    # None: the most probable tag.
    min_phi_prob: float | Literal["model"] | None = "model"
    max_tokens_per_batch: int = 8192
    # On a GPU: windows packed end to end without padding, in half precision (dtype auto) under
    # flash attention's variable-length kernel (deid/ner/packed.py; issue 36), gpu_tokens_per_batch
    # real tokens a pass. False: the padded path, float32 (TF32) by default.
    gpu_packing: bool = True
    gpu_tokens_per_batch: int = 32768
    window_tokens: int = 256
    # Tokens two neighbouring windows share (windows end at line or sentence starts when one is
    # near, deid.ner.text.make_aligned_windows). 8 feeds 20 % fewer tokens than 64 on MEDDOCAN
    # dev (906 per note, not 1,132) with official strict F1 0.9605 against 0.9608 and the same
    # token and English relaxed recall (issue 32); 16 to 48 each missed 4-6 more English spans.
    window_stride: int = 8
    enabled: bool = True  # False: rules only


class ConceptsSettings(BaseModel):
    # Concept mentions (drugs, chemicals, proteins; issue 20) in the de-identified event: off by
    # default, on by setting. The head is trained on Spanish (PharmaCoNER): only notes whose
    # language is listed are tagged (e.g. DEID_CONCEPTS__LANGUAGES='["es","fr"]' to try others).
    enabled: bool = False
    languages: list[Literal["fr", "es", "en"]] = ["es"]  # pydantic copies the default per instance
    # None: the de-identification model's directory (model.path, else the shipped model).
    path: Path | None = None


class DetectionSettings(BaseModel):
    """What the detector counts as PHI where annotation guidelines differ."""

    # Languages whose relatives named by a kinship word alone ("su madre", "la familia") are PHI:
    # MEDDOCAN's guideline (``deid eval`` sets "es" for a MEDDOCAN corpus). Empty by default: under
    # HIPAA and the realistic corpus's guideline a kinship word names no one.
    kinship_words_phi: list[Literal["fr", "es", "en"]] = []


class BatchSettings(BaseModel):
    max_events: int = 32
    max_wait_ms: int = 200
    max_text_chars: int = 200_000
    # On SIGTERM the batch in flight is drained; if the store stays down it is abandoned
    # (uncommitted, so redelivered) after this many seconds.
    shutdown_grace_s: float = 30.0
    # The whole-note detection deadline (issue 33): rules, model and merge steps check it and stop
    # (deid.protocols.deadline); the note is dead-lettered (reason detection_timeout); 0 = no limit. 6 s keeps
    # the bound, a note published or dead-lettered within 10 s of being read, with 4 s for
    # collecting, decoding, one forward pass past the deadline, substituting a note at the size
    # limit (a note that makes its deadline is still substituted: ~1-3 s at 200k characters on 2
    # cores), publishing and committing.
    detect_timeout_s: float = 6.0
    # Detect the next batch while the current one is substituted, published and committed (a
    # batch is still substituted only after the one before it is committed). Off: one batch at
    # a time, start to end.
    overlap_detection: bool = True


# Privacy settings that did nothing and were removed; setting one is an error, not a no-op.
REMOVED_PRIVACY_SETTINGS = ("place_k", "place_radius_km")


class PrivacySettings(BaseModel):
    # Budget spent by one note's noisy releases, split over its distinct new values.
    epsilon_per_note: float = 1.0
    # Cap on one patient's total spend across all notes.
    patient_cap: float = 20.0
    # "dp" and "interval" both run the per-patient timeline (docs/PRIVACY.md: order kept, noise in
    # each expression's unit); "interval" is kept as a name for configurations of the first build.
    date_strategy: Literal["dp", "interval", "shift", "placeholder"] = "dp"
    place_strategy: Literal["exponential", "geo", "random", "placeholder"] = "exponential"
    # Optional per-category weights of the split (e.g. {"DATE": 2, "LOC": 1}); uniform when empty.
    category_weights: dict[str, float] = Field(default_factory=dict)
    # What a value refused at the patient's cap becomes: its placeholder. (The first build's
    # "generalize" printed the true year: a release nobody paid for. It is gone.)
    exhausted_fallback: Literal["placeholder"] = "placeholder"

    @model_validator(mode="before")
    @classmethod
    def _no_removed_setting(cls, data: Any) -> Any:
        """``place_radius_km`` and ``place_k`` were ignored since issue 16 and are gone: the
        exponential mechanism's candidates are the true town's region or state, fixed before the
        town is seen ("within a radius, the k nearest" depended on the true place and voided the
        bound). A configuration that still sets one is refused, not silently ignored."""
        if isinstance(data, dict):
            removed = sorted(k for k in REMOVED_PRIVACY_SETTINGS if k in data)
            if removed:
                env = ", ".join(f"DEID_PRIVACY__{k.upper()}" for k in removed)
                raise ValueError(f"privacy.{', privacy.'.join(removed)} removed (ignored since issue 16: "
                                 f"places are drawn within the true town's region); unset {env}")
        return data


class HttpSettings(BaseModel):
    host: str = "0.0.0.0"
    port: int = 6066


class MllpSettings(BaseModel):
    host: str = "0.0.0.0"
    port: int = 2575
    tls_certfile: Path | None = None
    tls_keyfile: Path | None = None
    patient_id_authority: str | None = None  # PID-3 assigning authority to key on; None = first
    # Largest message accepted (larger: AR message_too_large). At start the bridge lowers it to
    # what the raw-hl7 topic (max.message.bytes) and the producer (kafka.max_request_size) take.
    max_message_bytes: int = Field(default=4 * 1024 * 1024, gt=0)
    max_connections: int = Field(default=64, gt=0)  # connections beyond are closed at once
    idle_timeout_s: float = Field(default=60.0, gt=0)  # no frame started or finished this long: closed
    frame_timeout_s: float = Field(default=30.0, gt=0)  # a frame unfinished this long: dropped, closed


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DEID_", env_nested_delimiter="__", extra="ignore")

    # None: not configured (see MIN_SECRET_BYTES above); never a default value.
    hmac_secret: SecretStr | None = None
    default_language: Literal["fr", "es", "en"] = "fr"
    # Order of numeric dates per feed locale when an event does not say (en-US month first,
    # the others day first), e.g. {"en-GB": "dmy"}.
    date_orders: dict[str, Literal["dmy", "mdy"]] = Field(default_factory=dict)
    # The feed's locale per note language when an event does not name one (HL7 feeds never do):
    # dates are read and written in its order and places drawn from its country, e.g.
    # DEID_LOCALES='{"en": "en-GB"}' for a UK hospital. Default: fr-FR, es-ES, en-US.
    locales: dict[Literal["fr", "es", "en"], Literal["fr-FR", "es-ES", "en-US", "en-GB"]] = Field(
        default_factory=dict)
    # An English note with no locale, in a feed whose DEID_LOCALES does not name one for English:
    # en-GB or en-US read from its text (deid.locales: dates, postcodes, NHS numbers, spellings),
    # en-US when the text says too little. false: en-US for every such note, as before.
    locale_from_text: bool = True

    @field_validator("locales")
    @classmethod
    def _locale_speaks_the_language(cls, value: dict[str, str]) -> dict[str, str]:
        wrong = sorted(lang for lang, loc in value.items() if not loc.startswith(lang + "-"))
        if wrong:
            raise ValueError(f"a locale must be of its language (for {', '.join(wrong)})")
        return value
    # Substitution profile (docs/PRIVACY.md): "dp" (timeline dates, derived ages, DP places),
    # "random" (shifted dates, ages under 90 kept), "safe-harbor" (HIPAA: year only, 90+), "placeholder".
    profile: Literal["dp", "random", "safe-harbor", "placeholder"] = "dp"
    # Substitution strategy per fine label or category, overriding the defaults (e.g. {"PER": "placeholder"}).
    strategies: dict[str, str] = Field(default_factory=dict)
    log_level: str = "INFO"

    kafka: KafkaSettings = Field(default_factory=KafkaSettings)
    redis: RedisSettings = Field(default_factory=RedisSettings)
    model: ModelSettings = Field(default_factory=ModelSettings)
    concepts: ConceptsSettings = Field(default_factory=ConceptsSettings)
    detection: DetectionSettings = Field(default_factory=DetectionSettings)
    batch: BatchSettings = Field(default_factory=BatchSettings)
    privacy: PrivacySettings = Field(default_factory=PrivacySettings)
    http: HttpSettings = Field(default_factory=HttpSettings)
    mllp: MllpSettings = Field(default_factory=MllpSettings)

    def secret_bytes(self) -> bytes:
        """The configured secret, else a random one drawn once per process (pseudonyms then
        differ from one process to the next: fine for a one-off run, never for a service)."""
        if self.hmac_secret is None:
            return _random_process_secret()
        return self.hmac_secret.get_secret_value().encode("utf-8")

    def require_secret(self) -> bytes:
        """The configured secret; ``SecretNotSet`` (one line naming the setting) when it is absent,
        shorter than ``MIN_SECRET_BYTES`` or does not look random (``secret_weakness``). Services
        call this before anything else."""
        if self.hmac_secret is None or not self.hmac_secret.get_secret_value():
            raise SecretNotSet(f"DEID_HMAC_SECRET is not set: a secret of at least {MIN_SECRET_BYTES} "
                               f"bytes is required ({SECRET_ADVICE})")
        value = self.secret_bytes()
        if len(value) < MIN_SECRET_BYTES:
            raise SecretNotSet(f"DEID_HMAC_SECRET is too short ({len(value)} bytes): at least "
                               f"{MIN_SECRET_BYTES} bytes are required ({SECRET_ADVICE})")
        weakness = secret_weakness(value)
        if weakness is not None:
            raise SecretNotSet(f"DEID_HMAC_SECRET does not look random ({weakness}): use a fresh random "
                               f"value ({SECRET_ADVICE})")
        return value
