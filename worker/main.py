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

__all__ = ["RULES_ONLY_WARNING", "ConfigError", "check_settings", "configure_logging", "serve"]


class ConfigError(ValueError):
    """A setting that forbids starting (one line for the user, no traceback)."""


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
    """Run until SIGTERM/SIGINT (or ``worker.stop()``): the batch in flight drains, then close.
    The pipeline is ``build_pipeline``'s from the settings unless one is given; ``detector`` and
    ``concept_tagger`` stand in for the models it would load (tests, benches)."""
    check_settings(settings)
    if not settings.model.enabled:
        log.warning(RULES_ONLY_WARNING)
    own_store = store is None
    if store is None:
        from deid.store.factory import open_store

        store = open_store(settings)
    try:
        if pipeline is None:
            # Loading the models is slow and blocking: do it before joining the group, off the loop.
            try:
                pipeline = await asyncio.to_thread(build_pipeline, settings, store, None, detector,
                                                   concept_tagger=concept_tagger)
            except ModelUnavailable as exc:
                raise ConfigError(str(exc)) from None
        if settings.concepts.enabled:
            log.info("concept mentions on for notes in %s (the concept head is Spanish-trained)",
                     ",".join(settings.concepts.languages))
        worker = StreamWorker(settings, pipeline, store)
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
