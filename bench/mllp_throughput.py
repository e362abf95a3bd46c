"""MLLP bridge throughput and ACK latency through a real Tansu broker, plus the pure HL7 costs.

    .venv/bin/python bench/mllp_throughput.py [--messages 2000] [--connections 1 4 16]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

from deid.hl7 import build_deid_hl7, identity_values, mapping_lookup, parse_note, to_raw_note
from deid.settings import KafkaSettings, Settings
from worker.mllp import KafkaSink, MllpBridge
from worker.mllp_client import MllpClient, ack_code
from worker.services.broker import TansuBroker, create_topics

SAMPLE = Path(__file__).resolve().parent.parent / "tests" / "hl7" / "samples" / "oru_r01_fr.hl7"


def pure(n: int) -> tuple[float, float]:
    payload = SAMPLE.read_bytes()
    t0 = time.perf_counter()
    for _ in range(n):
        to_raw_note(parse_note(payload))
    t1 = time.perf_counter()
    parsed = parse_note(payload)
    lookup = mapping_lookup({})
    for _ in range(n):
        identity_values(parsed.message)
        build_deid_hl7(parsed, parsed.text, lookup)
    t2 = time.perf_counter()
    return n / (t1 - t0), n / (t2 - t1)


async def bridge_run(bootstrap: str, total: int, connections: int) -> tuple[float, list[float]]:
    topic = f"bench-{connections}-{time.monotonic_ns()}"
    await create_topics(bootstrap, [topic])
    settings = Settings(kafka=KafkaSettings(bootstrap_servers=bootstrap, topic_raw_hl7=topic))
    sink = KafkaSink(settings)
    await sink.start()
    bridge = MllpBridge(settings, sink)
    await bridge.start("127.0.0.1", 0)
    payload = SAMPLE.read_bytes()
    latencies: list[float] = []

    async def one_connection(count: int) -> None:
        async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
            for _ in range(count):
                t = time.perf_counter()
                ack = await client.send(payload)
                latencies.append(time.perf_counter() - t)
                assert ack_code(ack) == "AA"

    t0 = time.perf_counter()
    await asyncio.gather(*(one_connection(total // connections) for _ in range(connections)))
    elapsed = time.perf_counter() - t0
    await bridge.close()
    await sink.stop()
    return len(latencies) / elapsed, latencies


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=2000)
    ap.add_argument("--connections", type=int, nargs="+", default=[1, 4, 16])
    args = ap.parse_args()
    parse_rate, scrub_rate = pure(1000)
    print(f"pure: parse+RawNote {parse_rate:,.0f} msg/s; "
          f"identity_values+build_deid_hl7 {scrub_rate:,.0f} msg/s")
    with TansuBroker() as broker:
        for c in args.connections:
            rate, lat = asyncio.run(bridge_run(broker.bootstrap_servers, args.messages, c))
            lat.sort()
            p50 = statistics.median(lat) * 1e3
            p99 = lat[int(len(lat) * 0.99) - 1] * 1e3
            print(f"bridge, {c:>2} connection(s): {rate:,.0f} msg/s, ACK latency p50 {p50:.2f} ms, "
                  f"p99 {p99:.2f} ms ({len(lat)} messages)")


if __name__ == "__main__":
    main()
