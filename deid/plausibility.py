"""Old home of the checks on the model's spans, kept so that existing imports work: see
``deid.detection.plausibility``."""

from deid.detection.plausibility import plausible

__all__ = ["plausible"]
