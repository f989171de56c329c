"""The monitoring files hold together: every metric the Grafana dashboard charts is one
/metrics exports, Prometheus scrapes it with the token the compose file hands it, and the
compose file's healthchecks and shared metrics volume are where the docs say."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from django.test import override_settings
from prometheus_client.parser import text_string_to_metric_families

from bots import metrics
from tests.support.servers import ROOT

DASHBOARD = ROOT / "monitoring/grafana/dashboards/arena.json"
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]


def charted_names() -> set[str]:
    exprs = [t["expr"] for p in json.loads(DASHBOARD.read_text())["panels"] for t in p["targets"]]
    return {name for expr in exprs for name in re.findall(r"\barena_[a-z_]+", expr)}


@pytest.mark.django_db(transaction=True)
@override_settings(ARENA_METRICS_TOKEN="t", ARENA_METRICS_INSPECT_SECONDS=0.2)
def test_every_charted_metric_is_exported(client):
    # One of each counted thing, so every family has samples to export.
    metrics.match_recorded(game="pairs", fault_kinds=["timeout"], seconds=3.0)
    metrics.host_failed()
    metrics.validation_decided(seconds=4.0)
    answer = client.get("/metrics", HTTP_AUTHORIZATION="Bearer t")
    exported = {
        sample.name
        for family in text_string_to_metric_families(answer.content.decode())
        for sample in family.samples
    }
    assert charted_names(), "the dashboard charts nothing"
    assert charted_names() <= exported, charted_names() - exported
    fixed = {
        "arena_queue_depth", "arena_matches_finished_total", "arena_match_faults_total",
        "arena_host_failures_total", "arena_validation_seconds_bucket", "arena_workers_alive",
    }  # fmt: skip
    assert fixed <= exported


def test_prometheus_scrapes_web_with_the_token_file_the_compose_service_writes():
    config = yaml.safe_load((ROOT / "monitoring/prometheus.yml").read_text())
    (job,) = config["scrape_configs"]
    assert job["metrics_path"] == "/metrics"
    assert job["static_configs"][0]["targets"] == ["web:8000"]
    token_file = job["authorization"]["credentials_file"]
    assert token_file in " ".join(SERVICES["prometheus"]["command"])
    assert SERVICES["prometheus"]["profiles"] == SERVICES["grafana"]["profiles"] == ["monitoring"]


def test_grafana_is_provisioned_from_files_in_the_repository():
    for volume in SERVICES["grafana"]["volumes"]:
        source = volume.split(":")[0]
        assert (ROOT / source).is_dir(), source
    datasource = yaml.safe_load(
        (ROOT / "monitoring/grafana/provisioning/datasources/prometheus.yml").read_text()
    )["datasources"][0]
    uids = {p["datasource"]["uid"] for p in json.loads(DASHBOARD.read_text())["panels"]}
    assert uids == {datasource["uid"]}


def test_healthchecks_and_the_shared_metrics_volume():
    assert "/healthz" in " ".join(SERVICES["web"]["healthcheck"]["test"])
    for name in ("worker", "service"):
        assert "inspect ping" in " ".join(SERVICES[name]["healthcheck"]["test"])
    for name in ("web", "worker", "service"):
        assert "metrics:/app/var/metrics" in SERVICES[name]["volumes"]
        assert SERVICES[name]["environment"]["PROMETHEUS_MULTIPROC_DIR"] == "/app/var/metrics"
