"""Run one worker process: store, pipeline, consumer loop, HTTP endpoints, signal handling."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable

from deid.detect import Detector
from deid.pipeline import NotePipeline, build_pipeline
from deid.settings import DEV_HMAC_SECRET, Settings
from deid.store.base import PatientStore
from worker.http import start_http
from worker.stream import StreamWorker

log = logging.getLogger("deid.worker")


class ConfigError(ValueError):
    """A setting that forbids starting (one line for the user, no traceback)."""


def check_settings(settings: Settings) -> None:
    if settings.hmac_secret.get_secret_value() == DEV_HMAC_SECRET and not settings.allow_dev_secret:
        raise ConfigError("DEID_HMAC_SECRET is the development secret; set a real one "
                          "(or DEID_ALLOW_DEV_SECRET=1 for a local trial)")
    if len(settings.secret_bytes()) < 16:
        raise ConfigError("DEID_HMAC_SECRET must be at least 16 bytes")


def configure_logging(level: str) -> None:
    logging.basicConfig(level=level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s")
    # aiokafka logs payload-free but noisy coordinator chatter at INFO.
    logging.getLogger("aiokafka").setLevel(logging.WARNING)


async def serve(settings: Settings, *, store: PatientStore | None = None,
                pipeline: NotePipeline | None = None, detector: Detector | None = None,
                install_signals: bool = True,
                on_started: Callable[[StreamWorker, int], None] | None = None) -> None:
    """Run until SIGTERM/SIGINT (or ``worker.stop()``): the batch in flight drains, then close."""
    check_settings(settings)
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
