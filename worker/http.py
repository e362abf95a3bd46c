"""/livez, /readyz and /metrics on ``settings.http`` (aiohttp)."""

from __future__ import annotations

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from worker.logs import REGISTRY as LOG_REGISTRY
from worker.stream import StreamWorker


def build_app(worker: StreamWorker) -> web.Application:
    async def livez(_: web.Request) -> web.Response:
        alive = worker.running
        return web.Response(text="ok\n" if alive else "stopped\n", status=200 if alive else 503)

    async def readyz(_: web.Request) -> web.Response:
        ok, why = await worker.ready()
        return web.Response(text=why + "\n", status=200 if ok else 503)

    async def metrics(_: web.Request) -> web.Response:
        # the worker's own metrics, then the process-wide log counters (worker.logs)
        body = generate_latest(worker.metrics.registry) + generate_latest(LOG_REGISTRY)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    app = web.Application()
    app.router.add_get("/livez", livez)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics)
    return app


async def start_http(worker: StreamWorker, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Serve on ``host:port`` (0 = any free port); returns the runner and the bound port."""
    runner = web.AppRunner(build_app(worker), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = port
    sockets = getattr(site._server, "sockets", None)
    if sockets:
        bound = int(sockets[0].getsockname()[1])
    return runner, bound
