"""Run one worker process: store, pipeline, consumer loop, HTTP endpoints, signal handling."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable

from deid.detect import Detector
from deid.pipeline import NotePipeline, build_pipeline
from deid.settings import SecretNotSet, Settings
from deid.store.base import PatientStore
from worker.http import start_http
from worker.logs import configure_logging
from worker.stream import StreamWorker

log = logging.getLogger("deid.worker")

RULES_ONLY_WARNING = ("RULES ONLY: the NER model is disabled (DEID_MODEL__ENABLED=false); person "
                      "names, hospitals and other free-text PHI are NOT detected and pass through "
                      "in clear. Use only for tests or with a feed known to hold no names.")

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
                install_signals: bool = True,
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
            pipeline = await asyncio.to_thread(build_pipeline, settings, store, None, detector)
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
