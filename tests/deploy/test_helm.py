"""Render the chart offline with each CI values file, validate it, and check what it promises.

helm-python-sdk renders with Helm's own engine (no binary, no cluster); kubernetes-validate
checks built-in kinds strictly (unknown fields fail) against the oldest and newest Kubernetes
the chart supports; the custom resources (KEDA, prometheus-operator) are checked against the
subsets of their CRD schemas in crd_schemas.json.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

helm = pytest.importorskip("helm_python", reason="helm-python-sdk (dev extra) renders the chart")
kubernetes_validate = pytest.importorskip("kubernetes_validate")
yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "helm" / "deid"
CI_VALUES = sorted((CHART / "ci").glob("*-values.yaml"))
CASES = ["defaults", *(p.name.removesuffix("-values.yaml") for p in CI_VALUES)]
KUBE_VERSIONS = ("1.27", "1.37")  # Chart.yaml kubeVersion floor, newest schemas shipped
RELEASE = "rel"
NAMESPACE = "deid"
SECRET_SETTINGS = {"DEID_HMAC_SECRET", "DEID_REDIS__URL", "DEID_KAFKA__SASL_PASSWORD"}
CRD_SCHEMAS: dict[str, Any] = json.loads((Path(__file__).with_name("crd_schemas.json")).read_text("utf-8"))

Doc = dict[str, Any]


def load_values(case: str) -> dict[str, Any]:
    if case == "defaults":
        return {}
    values = yaml.safe_load((CHART / "ci" / f"{case}-values.yaml").read_text(encoding="utf-8"))
    assert isinstance(values, dict)
    return values


class Rendered:
    """One release's manifests, parsed."""

    def __init__(
        self, case: str, values: dict[str, Any], merged: dict[str, Any], files: dict[str, str]
    ) -> None:
        self.case = case
        self.values = values
        self.merged = merged  # chart defaults overlaid with the values file
        self.notes = next((v for k, v in files.items() if k.endswith("NOTES.txt")), "")
        self.docs: list[Doc] = [
            doc
            for name, text in sorted(files.items())
            if not name.endswith(".txt")
            for doc in yaml.safe_load_all(text)
            if doc
        ]

    def of_kind(self, kind: str) -> list[Doc]:
        return [d for d in self.docs if d["kind"] == kind]

    def one(self, kind: str, component: str | None = None) -> Doc:
        found = [
            d
            for d in self.of_kind(kind)
            if component is None or d["metadata"]["labels"].get("app.kubernetes.io/component") == component
        ]
        assert len(found) == 1, f"{self.case}: expected one {kind} {component or ''}, got {len(found)}"
        return found[0]

    def maybe(self, kind: str, component: str) -> Doc | None:
        found = [
            d
            for d in self.of_kind(kind)
            if d["metadata"]["labels"].get("app.kubernetes.io/component") == component
        ]
        return found[0] if found else None

    def config(self) -> dict[str, str]:
        data = self.one("ConfigMap")["data"]
        assert isinstance(data, dict)
        return data

    def pod_specs(self) -> Iterator[tuple[Doc, Doc]]:
        for deployment in self.of_kind("Deployment"):
            yield deployment, deployment["spec"]["template"]["spec"]


@pytest.fixture(scope="module")
def chart() -> Iterator[Any]:
    with helm.Chart.load(CHART) as loaded:
        yield loaded


@pytest.fixture(scope="module")
def rendered(chart: Any) -> dict[str, Rendered]:
    """Every values file rendered once for the whole module."""
    out = {}
    for case in CASES:
        values = load_values(case)
        files = chart.render(values, name=RELEASE, namespace=NAMESPACE)
        out[case] = Rendered(case, values, chart.merge_values(values), files)
    return out


def container(pod: Doc, name: str) -> Doc:
    return next(c for c in pod["containers"] if c["name"] == name)


# ---- chart-level checks ----


def test_chart_lints_clean_with_every_values_file() -> None:
    for case in CASES:
        report = helm.lint(CHART, load_values(case), strict=True, namespace=NAMESPACE)
        problems = [m for m in report["messages"] if m["severity"] >= 2]
        assert not problems and not report["errors"], (case, problems, report["errors"])


def test_every_ci_values_file_passes_the_values_schema(chart: Any) -> None:
    assert len(CI_VALUES) >= 5
    for case in CASES:
        chart.validate_schema(load_values(case))


@pytest.mark.parametrize(
    "values",
    [
        {"replica": 3},  # top-level typo
        {"worker": {"replicass": 3}},  # nested typo
        {"gpu": {"enabled": "yes"}},  # wrong type
        {"kafka": {"securityProtocol": "SASL_TLS"}},  # not an enum member
        {"config": {"extra": {"DEID_HMAC_SECRET": "inline-secret"}}},  # a secret as a plain setting
        {"config": {"extra": {"DEID_REDIS__URL": "redis://:pw@redis:6379/0"}}},
        {"config": {"extra": {"lowercase": "x"}}},  # not a DEID_* name
        {"hmac": {"existingSecret": ""}},  # the HMAC secret is mandatory
    ],
    ids=lambda v: json.dumps(v)[:40],
)
def test_values_schema_rejects_typos_and_inline_secrets(chart: Any, values: dict[str, Any]) -> None:
    with pytest.raises(helm.HelmValuesError):
        chart.validate_schema(values)


def test_every_schema_property_has_a_documented_default(chart: Any) -> None:
    schema = chart.schema
    defaults = chart.values

    def walk(node: dict[str, Any], value: Any, path: str) -> None:
        if node.get("additionalProperties") is False:
            assert isinstance(value, dict), path
            for key, sub in node["properties"].items():
                if key == "global":
                    continue
                assert key in value, f"{path}{key} has no default in values.yaml"
                walk(sub, value[key], f"{path}{key}.")

    walk(schema, defaults, "")


def test_keda_and_hpa_together_are_refused(chart: Any) -> None:
    with pytest.raises(helm.HelmRenderError, match="mutually exclusive"):
        chart.render({"keda": {"enabled": True}, "hpa": {"enabled": True}}, name=RELEASE, namespace=NAMESPACE)


def test_extra_config_cannot_override_a_chart_managed_setting(chart: Any) -> None:
    with pytest.raises(helm.HelmRenderError, match="DEID_MODEL__DEVICE"):
        chart.render({"config": {"extra": {"DEID_MODEL__DEVICE": "cuda"}}}, name=RELEASE, namespace=NAMESPACE)


def test_more_fixed_replicas_than_partitions_is_refused(chart: Any) -> None:
    # /readyz fails until a partition is assigned: surplus workers would never become ready
    # and would block node drains through the PodDisruptionBudget.
    values = {"worker": {"replicas": 4}, "kafka": {"partitions": 3}}
    with pytest.raises(helm.HelmRenderError, match="partitions"):
        chart.render(values, name=RELEASE, namespace=NAMESPACE)


def test_mutual_tls_without_tls_is_refused(chart: Any) -> None:
    values = {"kafka": {"securityProtocol": "SASL_PLAINTEXT", "tls": {"clientSecret": "c"}}}
    with pytest.raises(helm.HelmRenderError, match="clientSecret"):
        chart.render(values, name=RELEASE, namespace=NAMESPACE)


# ---- every rendered manifest ----


@pytest.mark.parametrize("case", CASES)
def test_manifests_validate_strictly(rendered: dict[str, Rendered], case: str) -> None:
    release = rendered[case]
    assert release.docs
    for doc in release.docs:
        key = f"{doc['apiVersion']}/{doc['kind']}"
        if key in CRD_SCHEMAS:
            schema = {**CRD_SCHEMAS[key], "$defs": CRD_SCHEMAS["$defs"]}
            jsonschema.Draft202012Validator(schema).validate(doc)
            continue
        for version in KUBE_VERSIONS:
            try:
                kubernetes_validate.validate(doc, version, strict=True)
            except kubernetes_validate.ValidationError as exc:
                path = ".".join(str(p) for p in exc.path)
                pytest.fail(
                    f"{case}: {key} {doc['metadata']['name']} invalid for {version}: {path}: {exc.message}"
                )


@pytest.mark.parametrize("case", CASES)
def test_no_secret_value_is_ever_rendered(rendered: dict[str, Rendered], case: str) -> None:
    release = rendered[case]
    assert not release.of_kind("Secret"), "the chart references Secrets, it never creates them"
    assert not SECRET_SETTINGS & set(release.config())
    for _, pod in release.pod_specs():
        for c in pod["containers"]:
            for env in c.get("env", []):
                # Literal values belong in the ConfigMap; env is only for references.
                assert "value" not in env, f"{case}: {env['name']} has a literal value"
                if env["name"] in SECRET_SETTINGS:
                    assert set(env["valueFrom"]) == {"secretKeyRef"}


@pytest.mark.parametrize("case", CASES)
def test_secret_references_are_the_configured_existing_secrets(
    rendered: dict[str, Rendered], case: str
) -> None:
    release = rendered[case]
    worker = container(release.one("Deployment", "worker")["spec"]["template"]["spec"], "worker")
    refs = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in worker["env"]}
    assert refs["DEID_HMAC_SECRET"]["name"] == "deid-hmac"
    assert refs["DEID_REDIS__URL"]["name"] == "deid-redis"
    protocol = release.config()["DEID_KAFKA__SECURITY_PROTOCOL"]
    assert ("DEID_KAFKA__SASL_PASSWORD" in refs) == protocol.startswith("SASL_")
    assert "DEID_ALLOW_DEV_SECRET" not in release.config()  # no dev secret exists to allow


@pytest.mark.parametrize("case", CASES)
def test_configmap_names_only_real_settings(rendered: dict[str, Rendered], case: str) -> None:
    from deid.settings import Settings

    def exists(model: Any, parts: list[str]) -> bool:
        fields = model.model_fields
        head = parts[0].lower()
        if head not in fields:
            return False
        if len(parts) == 1:
            return True
        annotation = fields[head].annotation
        return hasattr(annotation, "model_fields") and exists(annotation, parts[1:])

    for name in rendered[case].config():
        assert name.startswith("DEID_")
        if name == "DEID_CACHE_DIR":  # read from the environment by deid.ner.e5, not a Settings field
            continue
        assert exists(Settings, name.removeprefix("DEID_").split("__")), f"{name} is not a setting"


@pytest.mark.parametrize("case", CASES)
def test_settings_load_from_the_rendered_environment(
    rendered: dict[str, Rendered], case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The container's environment (ConfigMap + secret references) parses into Settings."""
    from deid.settings import Settings

    release = rendered[case]
    for name in [n for n in os.environ if n.startswith("DEID_")]:
        monkeypatch.delenv(name)
    for name, value in release.config().items():
        monkeypatch.setenv(name, value)
    worker = container(release.one("Deployment", "worker")["spec"]["template"]["spec"], "worker")
    for env in worker["env"]:
        monkeypatch.setenv(env["name"], f"placeholder-for-{env['name'].lower()}")
    settings = Settings()
    assert settings.hmac_secret is not None
    assert settings.hmac_secret.get_secret_value() == "placeholder-for-deid_hmac_secret"
    assert settings.redis.url == "placeholder-for-deid_redis__url"
    assert settings.http.port == worker["ports"][0]["containerPort"]
    assert settings.model.device == ("cuda" if case == "gpu" else "cpu")
    if settings.kafka.security_protocol.startswith("SASL_"):
        assert settings.kafka.sasl_username and settings.kafka.sasl_password is not None


@pytest.mark.parametrize("case", CASES)
def test_pods_run_locked_down(rendered: dict[str, Rendered], case: str) -> None:
    release = rendered[case]
    for deployment, pod in release.pod_specs():
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        assert pod["automountServiceAccountToken"] is False
        volumes = {v["name"]: v for v in pod["volumes"]}
        for c in pod["containers"]:
            sc = c["securityContext"]
            assert sc["readOnlyRootFilesystem"] is True
            assert sc["allowPrivilegeEscalation"] is False
            assert sc["runAsNonRoot"] is True and sc["runAsUser"] != 0
            assert sc["capabilities"] == {"drop": ["ALL"]}
            assert sc["seccompProfile"] == {"type": "RuntimeDefault"}
            assert "privileged" not in sc
            # With a read-only root, the only writable places are emptyDirs.
            mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
            for path in ("/tmp", release.config()["DEID_CACHE_DIR"]):
                assert "emptyDir" in volumes[mounts[path]], f"{deployment['metadata']['name']}: {path}"
            for m in c["volumeMounts"]:
                if "secret" in volumes[m["name"]]:
                    assert m.get("readOnly") is True


@pytest.mark.parametrize("case", CASES)
def test_worker_probes_hit_the_worker_endpoints(rendered: dict[str, Rendered], case: str) -> None:
    release = rendered[case]
    pod = release.one("Deployment", "worker")["spec"]["template"]["spec"]
    worker = container(pod, "worker")
    assert worker["args"] == ["worker"]
    ports = {p["name"]: p["containerPort"] for p in worker["ports"]}
    assert str(ports["http"]) == release.config()["DEID_HTTP__PORT"]
    expected = {"startupProbe": "/livez", "livenessProbe": "/livez", "readinessProbe": "/readyz"}
    for probe, path in expected.items():
        assert worker[probe]["httpGet"] == {"path": path, "port": "http"}, probe


def test_probe_paths_are_served_by_the_worker() -> None:
    source = ROOT / "worker" / "http.py"
    if not source.is_file():
        pytest.skip("worker/http.py not written yet")
    text = source.read_text(encoding="utf-8")
    for path in ("/livez", "/readyz", "/metrics"):
        assert f'"{path}"' in text, path


@pytest.mark.parametrize("case", CASES)
def test_selectors_match_the_pods_they_target(rendered: dict[str, Rendered], case: str) -> None:
    release = rendered[case]
    pods = {
        d["metadata"]["labels"]["app.kubernetes.io/component"]: d["spec"]["template"]["metadata"]["labels"]
        for d in release.of_kind("Deployment")
    }
    for d in release.of_kind("Deployment"):
        assert (
            d["spec"]["selector"]["matchLabels"].items()
            <= d["spec"]["template"]["metadata"]["labels"].items()
        )
    selectors = [(s["spec"]["selector"], s) for s in release.of_kind("Service")]
    selectors += [(p["spec"]["selector"]["matchLabels"], p) for p in release.of_kind("PodDisruptionBudget")]
    for selector, obj in selectors:
        component = obj["metadata"]["labels"]["app.kubernetes.io/component"]
        assert selector.items() <= pods[component].items(), obj["metadata"]["name"]
    for svc in release.of_kind("Service"):
        component = svc["metadata"]["labels"]["app.kubernetes.io/component"]
        deployment = release.one("Deployment", component)
        names = {p["name"] for c in deployment["spec"]["template"]["spec"]["containers"] for p in c["ports"]}
        assert {p["targetPort"] for p in svc["spec"]["ports"]} <= names


@pytest.mark.parametrize("case", CASES)
def test_gpu_resources_only_when_asked(rendered: dict[str, Rendered], case: str) -> None:
    release = rendered[case]
    pod = release.one("Deployment", "worker")["spec"]["template"]["spec"]
    worker = container(pod, "worker")
    gpu_wanted = bool(release.values.get("gpu", {}).get("enabled"))
    assert gpu_wanted == (case == "gpu")
    for _, any_pod in release.pod_specs():
        for c in any_pod["containers"]:
            limits = c.get("resources", {}).get("limits", {})
            requests = c.get("resources", {}).get("requests", {})
            asks = "nvidia.com/gpu" in limits or "nvidia.com/gpu" in requests
            assert asks == (gpu_wanted and c["name"] == "worker"), (case, c["name"])
    tolerations = [t.get("key") for t in pod.get("tolerations", [])]
    assert ("nvidia.com/gpu" in tolerations) == gpu_wanted
    assert (release.config()["DEID_MODEL__DEVICE"] == "cuda") == gpu_wanted
    assert worker["image"].endswith("-cuda" if gpu_wanted else "-cpu")
    if gpu_wanted:
        assert worker["resources"]["limits"]["nvidia.com/gpu"] == 1
        assert pod["nodeSelector"]["nvidia.com/gpu.present"] == "true"
        assert "nodeAffinity" in pod["affinity"]


@pytest.mark.parametrize("case", CASES)
def test_one_autoscaler_at_most_and_bounded_by_partitions(rendered: dict[str, Rendered], case: str) -> None:
    release = rendered[case]
    scaled = release.of_kind("ScaledObject")
    hpas = release.of_kind("HorizontalPodAutoscaler")
    assert not (scaled and hpas)
    deployment = release.one("Deployment", "worker")
    # The autoscaler owns the replica count; a fixed one would be reset at every upgrade.
    assert ("replicas" in deployment["spec"]) == (not scaled and not hpas)
    partitions = release.merged["kafka"]["partitions"]
    if scaled:
        spec = scaled[0]["spec"]
        assert spec["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
        assert spec["maxReplicaCount"] <= partitions
        assert spec["maxReplicaCount"] == min(release.merged["keda"]["maxReplicas"], partitions)
        for trigger in spec["triggers"]:
            assert trigger["type"] == "kafka"
            meta = trigger["metadata"]
            assert meta["consumerGroup"] == release.config()["DEID_KAFKA__CONSUMER_GROUP"]
            assert meta["bootstrapServers"] == release.config()["DEID_KAFKA__BOOTSTRAP_SERVERS"]
            assert meta["allowIdleConsumers"] == "false"
            if "authenticationRef" in trigger:
                auth = release.one("TriggerAuthentication")
                assert trigger["authenticationRef"]["name"] == auth["metadata"]["name"]
    if hpas:
        spec = hpas[0]["spec"]
        assert spec["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
        assert spec["maxReplicas"] == min(release.merged["hpa"]["maxReplicas"], partitions)


def test_keda_caps_replicas_at_the_partition_count(rendered: dict[str, Rendered]) -> None:
    spec = rendered["keda"].one("ScaledObject")["spec"]
    assert spec["maxReplicaCount"] == 6  # keda.maxReplicas 20, kafka.partitions 6


def test_keda_authenticates_from_the_same_secrets(rendered: dict[str, Rendered]) -> None:
    auth = rendered["keda"].one("TriggerAuthentication")["spec"]
    params = {r["parameter"]: (r["name"], r["key"]) for r in auth["secretTargetRef"]}
    assert params["password"] == ("deid-worker", "password")
    assert params["username"] == ("deid-worker", "username")
    assert params["ca"] == ("deid-kafka-cluster-ca-cert", "ca.crt")
    trigger = rendered["keda"].one("ScaledObject")["spec"]["triggers"][0]["metadata"]
    assert trigger["sasl"] == "scram_sha512" and trigger["tls"] == "enable"
    assert "password" not in trigger and "username" not in trigger


def by_name(release: Rendered, kind: str, name: str) -> Doc:
    found = [d for d in release.of_kind(kind) if d["metadata"]["name"] == name]
    assert len(found) == 1, f"{release.case}: {kind} {name}"
    return found[0]


@pytest.mark.parametrize("case", CASES)
def test_mllp_objects_only_when_enabled(rendered: dict[str, Rendered], case: str) -> None:
    release = rendered[case]
    enabled = bool(release.values.get("mllp", {}).get("enabled"))
    kinds = ("Deployment", "Service", "PodDisruptionBudget")
    present = [kind for kind in kinds if release.maybe(kind, "mllp") is not None]
    assert present == (list(kinds) if enabled else [])
    if not enabled:
        return
    pod = release.one("Deployment", "mllp")["spec"]["template"]["spec"]
    bridge = container(pod, "mllp")
    assert bridge["args"][0] == "mllp"
    ports = {p["name"]: p["containerPort"] for p in bridge["ports"]}
    assert str(ports["mllp"]) == release.config()["DEID_MLLP__PORT"]
    for probe in ("livenessProbe", "readinessProbe"):
        assert bridge[probe]["tcpSocket"] == {"port": "mllp"}
    assert "nvidia.com/gpu" not in bridge.get("resources", {}).get("limits", {})
    assert bridge["image"].endswith("-cpu")
    # The bridge keys messages by the patient's HMAC pseudonym; it never touches the memo.
    env = {e["name"]: e["valueFrom"] for e in bridge["env"]}
    assert env["DEID_HMAC_SECRET"]["secretKeyRef"]["name"] == "deid-hmac"
    assert "DEID_REDIS__URL" not in env
    service = by_name(release, "Service", f"{RELEASE}-deid-mllp")
    assert service["spec"]["type"] == "LoadBalancer"
    # The load balancer exposes MLLP and nothing else; metrics stay cluster-internal.
    assert [(p["name"], p["port"]) for p in service["spec"]["ports"]] == [("mllp", ports["mllp"])]
    assert service["spec"]["loadBalancerSourceRanges"] == ["10.20.0.0/16"]
    metrics = by_name(release, "Service", f"{RELEASE}-deid-mllp-metrics")
    assert metrics["spec"]["type"] == "ClusterIP"
    assert [p["targetPort"] for p in metrics["spec"]["ports"]] == ["metrics"]
    assert bridge["args"] == ["mllp", "--metrics-port", str(ports["metrics"])]
    assert release.config()["DEID_MLLP__TLS_CERTFILE"].startswith("/etc/deid/mllp-tls/")


@pytest.mark.parametrize("case", CASES)
def test_metrics_are_scrapable(rendered: dict[str, Rendered], case: str) -> None:
    release = rendered[case]
    service = release.one("Service", "worker")
    assert [p["name"] for p in service["spec"]["ports"]] == ["http"]
    monitors = release.of_kind("ServiceMonitor")
    wanted = bool(release.values.get("metrics", {}).get("serviceMonitor", {}).get("enabled"))
    assert len(monitors) == int(wanted)
    if not monitors:
        return
    spec = monitors[0]["spec"]
    selector = spec["selector"]["matchLabels"]
    selected = [s for s in release.of_kind("Service") if selector.items() <= s["metadata"]["labels"].items()]
    scraped = {
        (s["metadata"]["name"], p["name"])
        for s in selected
        for p in s["spec"]["ports"]
        for e in spec["endpoints"]
        if e["port"] == p["name"]
    }
    expected = {(service["metadata"]["name"], "http")}
    if release.maybe("Deployment", "mllp") is not None:
        expected.add((f"{RELEASE}-deid-mllp-metrics", "metrics"))
    assert scraped == expected
    for endpoint in spec["endpoints"]:
        assert endpoint["path"] == "/metrics"
        assert (endpoint["interval"], endpoint["scrapeTimeout"]) == ("30s", "10s")


@pytest.mark.parametrize("case", CASES)
def test_kafka_tls_files_are_mounted_where_the_settings_point(
    rendered: dict[str, Rendered], case: str
) -> None:
    release = rendered[case]
    config = release.config()
    for _, pod in release.pod_specs():
        for c in pod["containers"]:
            mounts = [m["mountPath"] for m in c["volumeMounts"]]
            for key in (
                "DEID_KAFKA__SSL_CAFILE",
                "DEID_KAFKA__SSL_CERTFILE",
                "DEID_KAFKA__SSL_KEYFILE",
                "DEID_REDIS__SSL_CA_CERTS",
            ):
                if key in config and not (key == "DEID_REDIS__SSL_CA_CERTS" and c["name"] == "mllp"):
                    directory = config[key].rsplit("/", 1)[0]
                    assert directory in mounts, (case, c["name"], key)


def test_notes_name_the_secrets_to_create(rendered: dict[str, Rendered]) -> None:
    notes = rendered["defaults"].notes
    for secret in ("deid-hmac", "deid-redis", "deid-worker"):
        assert secret in notes
    assert "noeviction" in notes
    assert "KEDA" in rendered["keda"].notes and "HPA" in rendered["hpa"].notes


@pytest.mark.parametrize("case", CASES)
def test_the_redis_mode_reaches_the_worker_settings(rendered: dict[str, Rendered], case: str) -> None:
    from deid.settings import RedisSettings

    config = rendered[case].config()
    mode = config["DEID_REDIS__MODE"]
    assert mode == ("sentinel" if case == "sentinel" else "single")
    redis = RedisSettings.model_validate({
        "mode": mode, "sentinels": config.get("DEID_REDIS__SENTINELS"),
        "sentinel_master": config.get("DEID_REDIS__SENTINEL_MASTER", "deid")})
    if case == "sentinel":
        from deid.store.redis_client import parse_sentinels

        assert len(parse_sentinels(redis.sentinels)) == 3 and redis.sentinel_master == "deid"
