"""Old home of the detection protocols, kept so that existing imports work: see ``deid.protocols``."""

from deid.protocols import Detector, Recognizer

__all__ = ["Detector", "Recognizer"]
