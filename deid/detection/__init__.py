"""Detection, in one place: the hybrid detector and its ordered post-processing pipeline.

- ``deid.detection.pipeline``: the named steps in their order (``PIPELINE``) and ``combine``;
- ``deid.detection.convention``: the project's span convention (also used to project gold);
- ``deid.detection.plausibility``: the checks on the model's spans;
- ``deid.detection.merge``: the recall-first merge of rule and model spans (the overlap
  primitives it shares with the rules, ``clusters`` and ``resolve``, are in ``deid.spans``);
- ``deid.detection.relabel``: relabelling after the merge (birth dates, hospitals' towns);
- ``deid.detection.hybrid``: ``HybridDetector``, the rules and the model behind one call.

The protocols a recognizer and a detector implement are in ``deid.protocols``.
"""

from deid.detection.hybrid import HybridDetector
from deid.detection.pipeline import PIPELINE, STEP_NAMES, Step, combine, run_pipeline, without
from deid.detection.relabel import tell_birth_dates, tell_hospital_towns

__all__ = [
    "PIPELINE",
    "STEP_NAMES",
    "HybridDetector",
    "Step",
    "combine",
    "run_pipeline",
    "tell_birth_dates",
    "tell_hospital_towns",
    "without",
]
