"""Old home of the recall-first merge, kept so that existing imports work: see ``deid.detection.merge``."""

from deid.detection.merge import Chooser, clusters, longest, merge, resolve

__all__ = ["Chooser", "clusters", "longest", "merge", "resolve"]
