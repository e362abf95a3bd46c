"""The ``deid`` command. Each subcommand is a module of this package exposing
``register(subparsers)``; it is discovered by name, so adding a command touches no other file.
Commands of other packages (the streaming shell's ``worker``, ``demo``, ``mllp``, in
``worker/cli/``) register through the ``deid.commands`` entry-point group, read with
``importlib.metadata``, so that this library never imports them.

Heavy imports (torch, the model) happen inside the handlers, so ``deid --help`` answers at once.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points

from deid import __version__

PLUGIN_GROUP = "deid.commands"  # entry points: name = "package.module:register"


class CliError(Exception):
    """An error to show the user as one line (bad argument, unreadable file), exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="deid",
        description="De-identify clinical notes (French, Spanish, English): detect PHI with rules and "
        "a transformer model, replace it with consistent, privacy-preserving surrogates.",
    )
    parser.add_argument("--version", action="version", version=f"deid {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    for entry in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: e.name):
        entry.load()(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except CliError as exc:
        print(f"deid {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"deid {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
