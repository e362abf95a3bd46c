"""Real-time de-identification of clinical notes: detection, substitution, privacy accounting.

The library has no Kafka and no network at import; the streaming shell lives in ``worker``.
"""

__version__ = "0.1.0"
