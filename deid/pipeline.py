"""The journey of one note, in one place: detect, tag concepts, substitute (which renders the
surrogates), place the concepts block, and, for an HL7 message, the de-identified message.

``build_pipeline(settings, store)`` is the one place that wires it from settings (the detector from
``build_detector``, the concept tagger from ``build_concept_tagger``, the substitution engine under
the settings' profile): the worker and every command go through it (a command lays its flags over
the settings first). The pipeline knows no transport: the worker (``worker/stream.py``) runs
``analyse`` in its detection thread under a deadline, awaits ``substitute`` and ``hl7_output``
with its store back-pressure, then ``with_concepts``, and publishes; metrics and logs stay there.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from deid.concepts import Concept, ConceptTagger
from deid.concepts.offsets import concept_mentions
from deid.events import DeidNote, ModelInfo, RawNote
from deid.protocols import Detector
from deid.protocols.deadline import Deadline, detect_within
from deid.settings import Settings
from deid.spans import Span
from deid.store.base import PatientStore


class Substituter(Protocol):
    async def substitute(
        self, notes: Sequence[RawNote], spans: Sequence[Sequence[Span]], model: ModelInfo
    ) -> list[DeidNote]: ...


# One note's concept mentions (offsets into its original text): None where tagging did not run
# (concepts off, language not listed), the exception where the tagger failed on the note.
Found = list[Concept] | BaseException | None


@dataclass(frozen=True)
class Analysis:
    """One note after the detection hop: its PHI spans and its concept mentions (``Found``)."""

    spans: list[Span]
    concepts: Found


class WithConcepts(NamedTuple):
    """A de-identified note with its concepts block placed (or left out, ``failure`` saying why)."""

    note: DeidNote
    withheld: int  # distinct mentions not published because they touch PHI
    failure: BaseException | None  # the tagging or offset failure; the note then has no block


class NotePipeline:
    def __init__(self, settings: Settings, detector: Detector, substituter: Substituter,
                 concept_tagger: ConceptTagger | None = None) -> None:
        self.settings = settings
        self.detector = detector
        self.substituter = substituter
        self.model_info = ModelInfo(name=detector.model_name, version=detector.model_version)
        # Concept mentions (issue 20): only with DEID_CONCEPTS__ENABLED, whatever is passed here.
        self.concept_tagger = concept_tagger if settings.concepts.enabled else None
        self._concept_languages = frozenset(settings.concepts.languages)
        self._concept_model = ModelInfo(
            name=str(getattr(concept_tagger, "model_name", "deid-concepts")),
            version=concept_tagger.model_version if concept_tagger is not None else "")
        # The concept head is trained on Spanish PharmaCoNER unless the tagger says otherwise.
        self._concept_trained_on = [str(x) for x in getattr(concept_tagger, "trained_on", ("es",))]

    # -- sync: run from a worker thread, not the event loop ------------------------------------
    def detect(self, notes: Sequence[RawNote], deadline: Deadline | None = None) -> list[list[Span]]:
        """CPU/GPU bound. Past ``deadline`` it raises ``deid.protocols.deadline.DetectionTimeout``
        at the detector's next check."""
        return detect_within(self.detector, [n.text for n in notes], [n.language for n in notes], deadline)

    def analyse(self, notes: Sequence[RawNote], deadline: Deadline | None = None, *,
                on_tagged: Callable[[float], None] | None = None) -> list[Analysis]:
        """Detection, then concept tagging of the same original texts, in one call so that the
        caller makes one hop to its detection thread (the deadline covers both; the tagger is not
        stopped once started). ``on_tagged`` is told the seconds tagging took when it ran."""
        spans = self.detect(notes, deadline)
        if deadline is not None and self.concept_tagger is not None:
            deadline.check("concepts")
        found = self.tag(notes, on_tagged=on_tagged)
        return [Analysis(s, f) for s, f in zip(spans, found, strict=True)]

    def tag(self, notes: Sequence[RawNote], *, on_tagged: Callable[[float], None] | None = None
            ) -> list[Found]:
        """The concept mentions of the notes whose language is listed (None for the others). A
        failing batch is retried note by note, so one note that breaks the tagger costs only its
        own mentions; the exception stands for them."""
        found: list[Found] = [None] * len(notes)
        tagger = self.concept_tagger
        idx = [i for i, n in enumerate(notes) if n.language in self._concept_languages]
        if tagger is None or not idx:
            return found
        t0 = time.perf_counter()
        try:
            got = tagger.tag([notes[i].text for i in idx])
            if len(got) != len(idx):
                raise ValueError("one concept list per text")
            for i, cs in zip(idx, got, strict=True):
                found[i] = list(cs)
        except Exception:
            for i in idx:
                try:
                    one = tagger.tag([notes[i].text])
                    if len(one) != 1:
                        raise ValueError("one concept list per text") from None
                    found[i] = list(one[0])
                except Exception as exc:
                    found[i] = exc
        finally:
            if on_tagged is not None:
                on_tagged(time.perf_counter() - t0)
        return found

    def with_concepts(self, note: RawNote, spans: Sequence[Span], out: DeidNote, found: Found
                      ) -> WithConcepts:
        """``out`` with its ``concepts`` block when the note was tagged: offsets moved onto the
        de-identified text, mentions touching PHI withheld. A tagging (or offset) failure returns
        the note without the block rather than failing it: the de-identified note is the product
        and concepts an optional extra; ``failure`` says what broke (the caller counts it)."""
        if found is None:
            return WithConcepts(out, 0, None)
        if not isinstance(found, BaseException):
            try:
                block = concept_mentions(note.text, spans, out, found, self._concept_model,
                                         self._concept_trained_on)
            except Exception as exc:
                found = exc
            else:
                withheld = len({(c.start, c.end, c.type) for c in found}) - len(block.mentions)
                return WithConcepts(out.model_copy(update={"concepts": block}), max(withheld, 0), None)
        return WithConcepts(out, 0, found)

    # -- async: the store is awaited ------------------------------------------------------------
    async def substitute(self, notes: Sequence[RawNote], spans: Sequence[Sequence[Span]]) -> list[DeidNote]:
        """Surrogates (or placeholders) rendered into each note; may raise ``StoreUnavailable``."""
        return await self.substituter.substitute(notes, spans, self.model_info)

    async def hl7_output(self, message: bytes, note: RawNote, out: DeidNote) -> bytes:
        """The de-identified HL7 message for ``message``, already read into ``note`` and
        de-identified into ``out``: its identity fields get surrogates from the same per-patient
        memo as the text (one more ``substitute`` call, which may raise ``StoreUnavailable``)."""
        from deid.hl7 import deid_hl7_for_record

        return await deid_hl7_for_record(message, note, out.text, self.settings, self.substituter,
                                         self.model_info)

    async def process(self, notes: Sequence[RawNote]) -> list[DeidNote]:
        """The whole text journey in one call, for a caller with no deadline and no transport
        (blocks the loop while detecting): notes whose concepts failed come back without them."""
        analysed = self.analyse(notes)
        outs = await self.substitute(notes, [a.spans for a in analysed])
        return [self.with_concepts(n, a.spans, out, a.concepts).note
                for n, a, out in zip(notes, analysed, outs, strict=True)]


# The one "no model" warning: the worker logs it, the command line prints it (issue 16: running
# without the model must never look like a full de-identification).
RULES_ONLY_WARNING = ("RULES ONLY (no model): person and hospital names are NOT detected and pass "
                      "through in clear, nor is other free-text PHI; use this only for tests or for "
                      "notes known to hold no names")


class ModelUnavailable(RuntimeError):
    """A model the settings name (detector or concept head) is not there or does not load (one
    line, no note text)."""


def build_detector(settings: Settings) -> Detector:
    """The one constructor of the detector, for the worker and every command: the rules merged
    with the token classifier ``settings.model`` describes (its path, else the shipped model, on
    its backend and threshold), or the rules alone when ``model.enabled`` is false. A command line
    lays its flags over the settings first (``deid.cli._detector.detector_settings``)."""
    from deid.detection import HybridDetector
    from deid.rules import RuleDetector

    kinship_phi = frozenset(settings.detection.kinship_words_phi)
    if not settings.model.enabled:
        return HybridDetector(RuleDetector(), None, kinship_phi=kinship_phi)
    from deid.ner import DEFAULT_MODEL_DIR, load_detector_from_settings

    path = settings.model.path or DEFAULT_MODEL_DIR
    if not (path / "config.json").is_file():
        raise ModelUnavailable(f"no model at {path} (expected a token-classification directory with "
                               "config.json)")
    try:
        model = load_detector_from_settings(settings.model, path)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise ModelUnavailable(f"cannot load the model at {path}: {type(exc).__name__}") from None
    return HybridDetector(RuleDetector(), model, kinship_phi=kinship_phi)


def build_concept_tagger(settings: Settings) -> ConceptTagger | None:
    """The concept tagger when ``concepts.enabled`` (None otherwise): the concept head of
    ``concepts.path``, else of the de-identification model (``model.path``, else the shipped one).
    Asked for and not loadable is ``ModelUnavailable``: nothing runs without it."""
    if not settings.concepts.enabled:
        return None
    try:
        from deid.concepts.tagger import ConceptsUnavailable, load_concept_tagger
    except ImportError:
        raise ModelUnavailable("DEID_CONCEPTS__ENABLED is set but concept extraction is not available "
                               "in this installation") from None
    path = settings.concepts.path or settings.model.path
    try:
        return load_concept_tagger(path)
    except ConceptsUnavailable:
        raise ModelUnavailable("DEID_CONCEPTS__ENABLED is set but the model has no concept head "
                               "(DEID_CONCEPTS__PATH names another model)") from None
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise ModelUnavailable(f"DEID_CONCEPTS__ENABLED is set but the concept tagger did not load: "
                               f"{type(exc).__name__}") from None


def build_pipeline(
    settings: Settings, store: PatientStore, rng: random.Random | None = None,
    detector: Detector | None = None, *, concept_tagger: ConceptTagger | None = None,
) -> NotePipeline:
    """The one constructor of the note pipeline: ``build_detector`` (unless a detector is given),
    ``build_concept_tagger`` (unless a tagger is given; only with ``concepts.enabled``) and
    ``deid.substitution.build_substituter`` under the settings' profile. Slow (it loads models):
    call it off the event loop."""
    from deid.substitution import build_substituter

    det = detector if detector is not None else build_detector(settings)
    tagger = concept_tagger if concept_tagger is not None else build_concept_tagger(settings)
    return NotePipeline(settings, det, build_substituter(settings, store, rng), tagger)
