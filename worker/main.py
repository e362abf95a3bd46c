"""Run one worker process: store, pipeline, consumer loop, HTTP endpoints, signal handling."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable

from deid.concepts import ConceptTagger
from deid.pipeline import RULES_ONLY_WARNING, ModelUnavailable, NotePipeline, build_pipeline
from deid.protocols import Detector
from deid.settings import SecretNotSet, Settings
from deid.store.base import PatientStore
from worker.http import start_http
from worker.logs import configure_logging
from worker.stream import StreamWorker

log = logging.getLogger("deid.worker")

__all__ = ["RULES_ONLY_WARNING", "ConfigError", "build_concept_tagger", "check_settings", "configure_logging",
           "serve"]


class ConfigError(ValueError):
    """A setting that forbids starting (one line for the user, no traceback)."""


def build_concept_tagger(settings: Settings) -> ConceptTagger | None:
    """The concept tagger when ``DEID_CONCEPTS__ENABLED`` (None otherwise): the concept head of
    ``concepts.path``, else of the de-identification model (``model.path``, else the shipped one).
    Asked for and not loadable is a ``ConfigError``: the worker does not start without it."""
    if not settings.concepts.enabled:
        return None
    try:
        from deid.concepts.tagger import ConceptsUnavailable, load_concept_tagger
    except ImportError:
        raise ConfigError("DEID_CONCEPTS__ENABLED is set but concept extraction is not available in "
                          "this installation") from None
    path = settings.concepts.path or settings.model.path
    try:
        return load_concept_tagger(path)
    except ConceptsUnavailable:
        raise ConfigError("DEID_CONCEPTS__ENABLED is set but the model has no concept head "
                          "(DEID_CONCEPTS__PATH names another model)") from None
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise ConfigError(f"DEID_CONCEPTS__ENABLED is set but the concept tagger did not load: "
                          f"{type(exc).__name__}") from None


def check_settings(settings: Settings) -> None:
    """Refuse to run without a real secret: there is no default (docs/STORE.md, threat model)."""
    try:
        settings.require_secret()
    except SecretNotSet as exc:
        raise ConfigError(str(exc)) from None


async def serve(settings: Settings, *, store: PatientStore | None = None,
                pipeline: NotePipeline | None = None, detector: Detector | None = None,
                concept_tagger: ConceptTagger | None = None, install_signals: bool = True,
                on_started: Callable[[StreamWorker, int], None] | None = None) -> None:
    """Run until SIGTERM/SIGINT (or ``worker.stop()``): the batch in flight drains, then close."""
    check_settings(settings)
    if not settings.model.enabled:
        log.warning(RULES_ONLY_WARNING)
    own_store = store is None
    if store is None:
        from deid.store.factory import open_store

        store = open_store(settings)
    try:
        if pipeline is None:
            # Loading the model is slow and blocking: do it before joining the group, off the loop.
            try:
                pipeline = await asyncio.to_thread(build_pipeline, settings, store, None, detector)
            except ModelUnavailable as exc:
                raise ConfigError(str(exc)) from None
        if concept_tagger is None and settings.concepts.enabled:
            concept_tagger = await asyncio.to_thread(build_concept_tagger, settings)
        if settings.concepts.enabled:
            log.info("concept mentions on for notes in %s (the concept head is Spanish-trained)",
                     ",".join(settings.concepts.languages))
        worker = StreamWorker(settings, pipeline, store, concept_tagger=concept_tagger)
        loop = asyncio.get_running_loop()
        if install_signals:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, worker.stop)
        # HTTP first: a busy port fails the start before the worker joins the group.
        runner, port = await start_http(worker, settings.http.host, settings.http.port)
        try:
            await worker.start()
            log.info("http on port %d (/livez /readyz /metrics)", port)
            if on_started is not None:
                on_started(worker, port)
            await worker.run()
        finally:
            await runner.cleanup()
            if install_signals:
                for sig in (signal.SIGTERM, signal.SIGINT):
                    loop.remove_signal_handler(sig)
    finally:
        if own_store:
            await store.close()
