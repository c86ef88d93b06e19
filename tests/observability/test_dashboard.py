"""The observability compose profile and the Grafana dashboard: the YAML parses, every
file it mounts is in the repository, and every metric the dashboard queries is one that
``GET /metrics`` serves."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import yaml
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[2]
PROFILE = "observability"
DASHBOARD = ROOT / "docs/observability/grafana/dashboards/pantheon.json"
_METRIC = re.compile(r"\bpantheon_[a-z_]+\b")
_SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum"), "gauge": ("",)}
USER_MADE = {"docs/observability/pantheon-admin-key"}  # the operator creates it (docs)


def _yaml(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(path.read_text())
    return loaded


def _profile_services() -> dict[str, dict[str, Any]]:
    services: dict[str, dict[str, Any]] = _yaml(ROOT / "docker-compose.yml")["services"]
    return {name: s for name, s in services.items() if PROFILE in s.get("profiles", [])}


def test_the_profile_brings_a_collector_jaeger_prometheus_and_grafana() -> None:
    services = _profile_services()
    assert set(services) == {"otel-collector", "jaeger", "prometheus", "grafana"}
    mounted = [
        volume.split(":")[0].removeprefix("./")
        for service in services.values()
        for volume in service.get("volumes", [])
    ]
    assert mounted
    for source in mounted:
        assert source in USER_MADE or (ROOT / source).exists(), source
    for source in mounted:
        path = ROOT / source
        if path.is_file() and path.suffix in (".yaml", ".yml"):
            assert isinstance(_yaml(path), dict), source


def test_the_collector_exports_every_pipeline_to_a_defined_exporter() -> None:
    config = _yaml(ROOT / "docs/observability/otel-collector.yaml")
    pipeline = config["service"]["pipelines"]["traces"]
    assert set(pipeline["receivers"]) <= set(config["receivers"])
    assert set(pipeline["exporters"]) <= set(config["exporters"])
    assert config["receivers"]["otlp"]["protocols"]["http"]["endpoint"].endswith(":4318")
    scrape = _yaml(ROOT / "docs/observability/prometheus.yml")["scrape_configs"][0]
    compose = _yaml(ROOT / "docker-compose.yml")["services"]
    hosts = {t.split(":")[0] for t in scrape["static_configs"][0]["targets"]}
    assert hosts <= set(compose)


def _served(text: str) -> set[str]:
    return {
        family.name + suffix
        for family in text_string_to_metric_families(text)
        if family.name.startswith("pantheon_")
        for suffix in _SUFFIXES[family.type]
    }


async def test_every_dashboard_query_names_a_metric_that_metrics_serves(
    client: httpx.AsyncClient,
) -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    queried = {name for expr in exprs for name in _METRIC.findall(expr)}
    response = await client.get("/metrics")
    assert response.status_code == 200
    served = _served(response.text)
    assert len(queried) >= 15
    assert queried <= served, sorted(queried - served)
    assert {p["datasource"]["uid"] for p in dashboard["panels"]} == {"prometheus"}
