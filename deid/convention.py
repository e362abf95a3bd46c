"""Old home of the span convention, kept so that existing imports work: see ``deid.detection.convention``."""

from deid.detection.convention import conform, conform_span

__all__ = ["conform", "conform_span"]
