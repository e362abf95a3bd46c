"""The ``deid`` subcommands that run the streaming shell: ``worker``, ``demo``, ``mllp``.

They live here, with the worker, so that the library (``deid/``) never imports ``worker`` or
``aiokafka``. The ``deid`` command finds them through the ``deid.commands`` entry-point group
(``pyproject.toml``), read with ``importlib.metadata``: each entry point is a
``register(subparsers)`` function, exactly like the built-in subcommand modules of ``deid.cli``.
Heavy imports stay inside the handlers so that ``deid --help`` answers at once.
"""
