"""Prometheus metrics of one worker, in their own registry (several workers can share a process in
tests). Labels are closed sets (stage, reason, partition): never an id or a value from a note."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)


class WorkerMetrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        r = self.registry
        self.events_in = Counter("deid_events_in", "Input records consumed", registry=r)
        self.events_out = Counter("deid_events_out", "De-identified notes published", registry=r)
        self.dead_lettered = Counter("deid_events_dead_lettered", "Records sent to the dead-letter topic",
                                     ["reason"], registry=r)
        self.batch_size = Histogram("deid_batch_size", "Records per batch", buckets=_BATCH_BUCKETS,
                                    registry=r)
        self.stage_seconds = Histogram("deid_stage_seconds", "Per-batch latency of each stage",
                                       ["stage"], buckets=_LATENCY_BUCKETS, registry=r)
        self.note_seconds = Histogram("deid_note_seconds", "Record consumed to output acknowledged",
                                      buckets=_LATENCY_BUCKETS, registry=r)
        self.ner_tokens = Counter("deid_ner_tokens", "Estimated tokens through the detection stage",
                                  registry=r)
        self.ner_tokens_per_s = Gauge("deid_ner_tokens_per_second",
                                      "Detection throughput of the last batch (estimated tokens)", registry=r)
        self.budget_exhaustions = Counter("deid_budget_exhaustions",
                                          "Notes whose patient budget was exhausted (fallback used)",
                                          registry=r)
        self.dates_out_of_window = Counter(
            "deid_dates_out_of_window",
            "Dates in the text outside 1850 .. document date + 30 years, placeholdered off the timeline",
            registry=r)
        self.store_errors = Counter("deid_store_errors", "Store unavailable while substituting (retried)",
                                    registry=r)
        self.publish_errors = Counter("deid_publish_errors", "Failed publish attempts (retried)", registry=r)
        self.commits = Counter("deid_commits", "Offset commits", registry=r)
        self.commit_failures = Counter("deid_commit_failures", "Commits refused (rebalance)", registry=r)
        self.rebalances = Counter("deid_rebalances", "Partition revocations", registry=r)
        self.assigned_partitions = Gauge("deid_assigned_partitions", "Partitions currently assigned",
                                         registry=r)
        self.consumer_lag = Gauge("deid_consumer_lag",
                                  "Highwater minus position, best effort (some brokers report it wrong)",
                                  ["partition"], registry=r)
        self.broker_reachable = Gauge("deid_broker_reachable",
                                      "1 while the broker answers the readiness metadata probe", registry=r)
        self.broker_probe_failures = Counter("deid_broker_probe_failures",
                                             "Failed broker metadata probes", registry=r)
        # Concept extraction (issue 20), when DEID_CONCEPTS__ENABLED.
        self.concept_mentions = Counter("deid_concept_mentions", "Concept mentions published",
                                        ["type"], registry=r)
        self.concept_mentions_withheld = Counter(
            "deid_concept_mentions_withheld", "Concept mentions not published: they touch a PHI span",
            registry=r)
        self.concept_failures = Counter(
            "deid_concept_failures", "Notes published without concepts: tagging or offsets failed",
            registry=r)
        self.concept_tag_seconds = Histogram("deid_concept_tag_seconds", "Concept tagging time per batch",
                                             buckets=_LATENCY_BUCKETS, registry=r)
        for stage in ("decode", "detect", "substitute", "publish", "commit"):
            self.stage_seconds.labels(stage)
