"""Local services the worker can run itself for the embedded default (broker, Redis)."""
