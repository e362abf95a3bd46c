"""The streaming shell around ``deid``: Kafka consumer/producer loop, health and metrics, launchers
for the embedded broker and Redis used by the embedded default and the integration tests."""
