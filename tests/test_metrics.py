"""Prometheus metrics of a run (issue 39, docs/monitoring.md, dc_bridge/report/prometheus.py).

- The exposition of contracts and checks with hostile ids (quotes, backslashes, newlines, unicode, very
  long) read back by prometheus-client's own parser and by `promtool check metrics`: every label value as
  it was, no label injected, no series lost.
- Targets refused before anything runs (exit 2), the series limit, the textfile written whole.
- A real Pushgateway (Debian's `prometheus-pushgateway`, started here on a loopback port): two contracts
  pushed at the same time are both there; a rerun replaces its own group and drops the checks it no
  longer has; an unreachable gateway is a warning.
- End to end with real servers (Debian's `prometheus`, `prometheus-pushgateway`, `prometheus-alertmanager`,
  `prometheus-node-exporter`): a failing contract's run pushes its metrics and writes its textfile;
  Prometheus scrapes the Pushgateway and node_exporter's textfile collector (the file-based exposition),
  the documented alert rules (docs/examples/monitoring/dc-bridge-alerts.yml, loaded as they are) fire, and
  Alertmanager, routed by the documented route, delivers them to a webhook this test serves on loopback,
  naming the contract and the failed check; a passing run of the same contract resolves them.

Servers are started by this test as processes of its own (loopback ports, temporary folders, 1 s scrape and
evaluation intervals) and killed after; where a package is missing the test skips and says which.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from prometheus_client.parser import text_string_to_metric_families

from dc_bridge.outcomes import ALL
from dc_bridge.report import prometheus
from dc_bridge.report.prometheus import SERIES_LIMIT, MetricsError, Targets, TooManySeries, exposition, publish
from dc_bridge.verdict import CheckVerdict, ModelVerdict, ObjectiveVerdict, Verdict

ROOT = Path(__file__).resolve().parent.parent
ALERTS = ROOT / "docs" / "examples" / "monitoring" / "dc-bridge-alerts.yml"
ROUTE = ROOT / "docs" / "examples" / "monitoring" / "alertmanager.yml"
PROMETHEUS = ROOT / "docs" / "examples" / "monitoring" / "prometheus.yml"
DOC = ROOT / "docs" / "monitoring.md"

HOSTILE = ['urn:x:"quoted"', "back\\slash\\", "new\nline", "ünïcødé 名前 🚀", "a/b c", "}{,=", 'x="y",z="w"', "", "L" * 5000]


def check(check_id: str, model: str, outcome: str = "passed", **more) -> CheckVerdict:
    return CheckVerdict(check_id=check_id, model=model, kind=more.pop("kind", "not_null"), columns=["c"], outcome=outcome,
                        severity=more.pop("severity", "error"), source={}, **more)


def verdict(contract_id: str, checks: list[CheckVerdict], outcome: str | None = None, **more) -> Verdict:
    from dc_bridge.outcomes import worst

    outcome = outcome or worst([c.outcome for c in checks])
    models = {}
    for c in checks:
        models.setdefault(c.model, []).append(c)
    return Verdict(contract_id=contract_id, contract_version=more.pop("version", "1.0.0"), contract_file="c.yaml", outcome=outcome,
                   counts={o: sum(c.outcome == o for c in checks) for o in ALL},
                   models=[ModelVerdict(name=m, outcome=worst([c.outcome for c in cs]), counts={}, checks=cs) for m, cs in models.items()],
                   engines=["spark"], engine_seconds={"spark": 0.5}, started_at="2026-01-02T03:04:05+00:00", seconds=1.25, **more)


def samples(text: str) -> list:
    return [s for family in text_string_to_metric_families(text) for s in family.samples]


# --- the exposition ---------------------------------------------------------------------------------------

def hostile_verdicts() -> list[Verdict]:
    from dc_bridge.contract.model import Threshold

    found = []
    for number, name in enumerate(HOSTILE):
        checks = [check(name, name, "failed", observed=3, unit="rows"),
                  check(f"{name}#pct", name, "warning", observed=12.5, unit="percent", severity="warning"),
                  check(f"{name}#fresh", name, "passed", kind="freshness", observed=30, unit="seconds",
                        threshold=Threshold(operator="<=", value=3600)),
                  check(f"{name}#rows", name, "passed", kind="row_count", observed=7, unit="rows", dataset_metric="rowCount")]
        slo = ObjectiveVerdict(objective_id=name, outcome="passed", value=99.0, target=95.0, expected=None, source={})
        found.append(verdict(f"{name}|{number}", checks, objectives=[slo], version=name))
    return found


def test_hostile_ids_read_back_exactly_by_prometheus_client():
    verdicts = hostile_verdicts()
    text = exposition(verdicts)
    read = samples(text)
    for v in verdicts:
        mine = [s for s in read if s.labels.get("contract") == v.contract_id]
        assert {s.labels["version"] for s in mine} == {v.contract_version}
        outcomes = {s.labels["outcome"]: s.value for s in mine if s.name == "dc_bridge_contract_outcome"}
        assert outcomes == {o: float(o == v.outcome) for o in ALL}
        for c in v.checks():
            states = {s.labels["outcome"]: s.value for s in mine
                      if s.name == "dc_bridge_check_outcome" and s.labels["check"] == c.check_id}
            assert states == {o: float(o == c.outcome) for o in ALL}, c.check_id
            labels = {s.name: s.labels for s in mine if s.labels.get("check") == c.check_id and s.name.startswith("dc_bridge_check_observed")}
            assert list(labels.values()) == [{"contract": v.contract_id, "version": v.contract_version, "model": c.model,
                                              "check": c.check_id, "kind": c.kind, "severity": c.severity}]
        by_name = {s.name: s.value for s in mine if s.name not in ("dc_bridge_check_outcome", "dc_bridge_contract_outcome",
                                                                     "dc_bridge_contract_checks")}
        assert by_name["dc_bridge_check_observed_ratio"] == pytest.approx(0.125)
        assert by_name["dc_bridge_freshness_age_seconds"] == 30 and by_name["dc_bridge_freshness_limit_seconds"] == 3600
        assert by_name["dc_bridge_model_rows"] == 7
        assert by_name["dc_bridge_slo_ratio"] == pytest.approx(0.99) and by_name["dc_bridge_slo_target_ratio"] == pytest.approx(0.95)
        assert "dc_bridge_last_success_timestamp_seconds" not in by_name  # the run failed
    # nothing but the declared label names, on every sample: no label was injected through a value
    allowed = {"contract", "version", "model", "check", "kind", "severity", "outcome", "engine", "slo"}
    assert all(set(s.labels) <= allowed for s in read)
    assert len(read) == sum(_expected_series(v) for v in verdicts)


def _expected_series(v: Verdict) -> int:
    """The series a verdict's metrics hold, counted from the verdict as docs/monitoring.md's table lists them."""
    checks = v.checks()
    per_contract = 2 * len(ALL) + 2 + (v.exit_code() == 0) + 2 * len(v.engines)
    per_check = len(ALL) * len(checks) + sum(c.observed is not None for c in checks)
    extras = sum(c.kind == "row_count" for c in checks) + 2 * sum(c.kind == "freshness" for c in checks) + 2 * len(v.objectives)
    return per_contract + per_check + extras


def test_a_passing_run_writes_its_success_time():
    passing = verdict("urn:ok", [check("c", "m", "passed")])
    found = {s.name: s.value for s in samples(exposition([passing]))}
    assert found["dc_bridge_last_success_timestamp_seconds"] == found["dc_bridge_run_timestamp_seconds"] == 1767323045.0


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool (Debian's `prometheus` package) is not installed")
def test_promtool_reads_the_hostile_exposition(tmp_path):
    target = tmp_path / "hostile.prom"
    prometheus.write_file(target, hostile_verdicts())
    done = subprocess.run(["promtool", "check", "metrics"], input=target.read_bytes(), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == b"" and done.stderr.strip() == b""  # no lint finding either (names, units, help)
    assert [p.name for p in tmp_path.iterdir()] == ["hostile.prom"]  # the temporary file was renamed, none is left


def test_over_the_series_limit_the_contract_level_metrics_replace_the_last_run(tmp_path):
    """A contract over the limit still says its outcome (its last run's must not stand: issue 48), without its check
    series; the other contracts of the file keep all of theirs."""
    big = verdict("urn:big", [check(f"c{i}", "m", "failed", observed=i, unit="rows") for i in range(SERIES_LIMIT // len(ALL))])
    small = verdict("urn:small", [check("s", "m", "passed")])
    with pytest.raises(TooManySeries, match=r"urn:big.*over the limit of 10,000"):
        prometheus.registry([big])
    kept = tmp_path / "m.prom"
    kept.write_text(exposition([verdict("urn:big", [check("c0", "m", "passed")])]))  # an earlier, passing run's
    problems = publish([big, small], Targets(file=str(kept)))
    assert len(problems) == 1 and "over the limit of 10,000" in problems[0] and "only its contract-level metrics" in problems[0]
    found = samples(kept.read_text())
    assert {s.labels["contract"]: s.labels["outcome"] for s in found if s.name == "dc_bridge_contract_outcome" and s.value == 1} == {
        "urn:big": "failed", "urn:small": "passed"}
    assert {s.labels["contract"] for s in found if s.name == "dc_bridge_check_outcome"} == {"urn:small"}
    assert {s.labels["contract"]: s.value for s in found if s.name == "dc_bridge_contract_checks" and s.labels["outcome"] == "failed"}[
        "urn:big"] == SERIES_LIMIT // len(ALL)
    assert [p.name for p in tmp_path.iterdir()] == ["m.prom"]


# --- targets refused before anything runs -----------------------------------------------------------------

BAD_URLS = {"ftp://gateway:9091": "its scheme is not http or https", "gateway:9091": "its scheme is not http or https",
            "http://": "it names no host", "http://gw:9091/?x=1": "it has a query or fragment",
            "http://gw:99999": "is not a URL", "http://gw:0": "its port is 0", "http://gw:9091/a b": "space or control"}


@pytest.mark.parametrize("url", BAD_URLS)
def test_a_malformed_push_url_is_exit_2_before_the_contract_is_read(url, tmp_path):
    from dc_bridge.cli import main

    # the contract does not exist: had the run gone further than its options, the message would be about it
    result = CliRunner().invoke(main, ["run", str(tmp_path / "missing.yaml"), "--metrics-push", url])
    assert result.exit_code == 2, result.output
    assert f"--metrics-push {url!r}: " in result.output or f"--metrics-push {url!r} is not a URL" in result.output
    assert BAD_URLS[url] in result.output and "Traceback" not in result.output


def test_a_metrics_file_that_is_an_input_or_a_folder_is_exit_2(tmp_path):
    from dc_bridge.cli import main

    contract = tmp_path / "c.yaml"
    contract.write_text((ROOT / "contracts" / "orders.yaml").read_text())
    before = contract.read_bytes()
    runs = {str(contract): "is the contract", str(tmp_path): "is a directory"}  # the folder: click's own check of the option
    for path, said in runs.items():
        result = CliRunner().invoke(main, ["run", str(contract), "--metrics-file", path])
        assert result.exit_code == 2 and said in result.output and "Traceback" not in result.output, result.output
    assert contract.read_bytes() == before
    out = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["run", str(contract), "--output", "json", "--output-file", str(out), "--metrics-file", str(out)])
    assert result.exit_code == 2 and "two outputs of this command would replace each other" in result.output, result.output


def test_a_contract_that_cannot_be_checked_is_published_as_error_under_its_id(tmp_path):
    """Its data unreadable, or its file in error: the run exits 2 and its metrics say `error` under the contract's id,
    replacing the group of its last good run (which would otherwise keep saying `passed`)."""
    from dc_bridge.cli import main

    contract = tmp_path / "orders.yaml"
    contract.write_text(E2E_CONTRACT, encoding="utf-8")
    broken = ROOT / "tests" / "broken" / "dcs_min_length_not_integer.yaml"
    runs = {yaml.safe_load(E2E_CONTRACT)["id"]: [str(contract), "--data", f"orders={tmp_path / 'missing.parquet'}"],
            yaml.safe_load(broken.read_text())["id"]: [str(broken)]}
    for contract_id, args in runs.items():
        out = tmp_path / "m.prom"
        result = CliRunner().invoke(main, ["run", *args, "--engines", "spark", "--metrics-file", str(out)])
        assert result.exit_code == 2, result.output
        found = {s.labels["outcome"]: s.value for s in samples(out.read_text()) if s.name == "dc_bridge_contract_outcome"
                 and s.labels["contract"] == contract_id}
        assert found == {o: float(o == "error") for o in ALL}, out.read_text()


def test_the_python_api_and_the_guard_refuse_bad_targets_before_spark(tmp_path):
    import dc_bridge

    with pytest.raises(MetricsError, match=r"metrics_push= 'gw:1': its scheme"):
        dc_bridge.run(tmp_path / "missing.yaml", metrics_push="gw:1")
    with pytest.raises(MetricsError, match=r"metrics_file= .* is a folder"):
        dc_bridge.run(tmp_path / "missing.yaml", metrics_file=tmp_path)
    with pytest.raises(MetricsError, match=r"push= 'http://'"):
        dc_bridge.metrics(verdict("urn:x", [check("c", "m")]), push="http://")
    with pytest.raises(MetricsError, match=r"metrics_push="):
        dc_bridge.streaming.guard(tmp_path / "c.yaml", "m", sink=str(tmp_path / "s"), log=str(tmp_path / "l"), metrics_push="x")
    with pytest.raises(ValueError, match=r"sink=.* holds metrics_file=.*the metrics file each a path of its own"):
        dc_bridge.streaming.guard(tmp_path / "c.yaml", "m", sink=str(tmp_path / "s"), log=str(tmp_path / "l"),
                                  metrics_file=str(tmp_path / "s" / "m.prom"))


# --- real servers ----------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def need(*binaries: str) -> None:
    missing = [b for b in binaries if shutil.which(b) is None]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (Debian's packages of the same names; .ci/run installs them)")


def get(url: str, timeout: float = 5) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read()


def wait_for(what: str, probe, seconds: float = 60, every: float = 0.25):
    """Call `probe` until it returns something true (bounded in time); fail naming what did not happen."""
    deadline, last = time.monotonic() + seconds, None
    while time.monotonic() < deadline:
        try:
            found = probe()
        except OSError as exc:
            found, last = None, exc
        if found:
            return found
        time.sleep(every)
    pytest.fail(f"{what} did not happen within {seconds:.0f} s (last error: {last})")


@contextmanager
def server(name: str, args: list[str], port: int, folder: Path):
    """A server binary on a loopback port, its output in a file, killed when the block ends."""
    log = (folder / f"{name}.log").open("wb")
    process = subprocess.Popen([shutil.which(name), *args], stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for(f"{name} ready on port {port}", lambda: process.poll() is None and get(f"http://127.0.0.1:{port}/-/ready") is not None
                 if name != "prometheus-node-exporter" else get(f"http://127.0.0.1:{port}/metrics"), seconds=60)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.kill()
        process.wait(timeout=30)
        log.close()


@contextmanager
def pushgateway(folder: Path):
    port = free_port()
    # in memory only: Debian's build persists to /var/lib/prometheus/pushgateway.data unless told otherwise
    with server("prometheus-pushgateway", [f"--web.listen-address=127.0.0.1:{port}", "--persistence.file="], port, folder) as url:
        yield url


def pushed(gateway: str) -> list:
    return [s for s in samples(get(f"{gateway}/metrics").decode()) if s.name.startswith("dc_bridge_")]


def test_two_contracts_pushed_at_once_keep_their_groups_and_a_rerun_replaces_its_own(tmp_path):
    need("prometheus-pushgateway")
    a_id, b_id = "urn:team/a 'one'", 'b "two"\nü'
    first_a = verdict(a_id, [check("kept", "m", "failed", observed=2, unit="rows"), check("removed", "m", "passed")])
    first_b = verdict(b_id, [check("b1", "n", "passed")])
    with pushgateway(tmp_path) as gateway:
        problems: list = []
        threads = [threading.Thread(target=lambda v=v: problems.extend(publish(v, Targets(push=gateway)))) for v in (first_a, first_b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert problems == []
        found = pushed(gateway)
        assert {s.labels["contract"] for s in found} == {a_id, b_id}
        assert {s.labels["job"] for s in found} == {"dc-bridge"}
        assert {s.labels["check"] for s in found if s.labels["contract"] == a_id and "check" in s.labels} == {"kept", "removed"}
        before_b = sorted((s.name, sorted(s.labels.items()), s.value) for s in found if s.labels["contract"] == b_id)

        rerun = verdict(a_id, [check("kept", "m", "passed", observed=0, unit="rows")])
        assert publish(rerun, Targets(push=gateway)) == []
        found = pushed(gateway)
        mine = [s for s in found if s.labels["contract"] == a_id]
        assert {s.labels["check"] for s in mine if "check" in s.labels} == {"kept"}  # `removed` is gone
        assert {s.labels["outcome"]: s.value for s in mine if s.name == "dc_bridge_contract_outcome"}["passed"] == 1
        assert [s.value for s in mine if s.name == "dc_bridge_check_observed_rows"] == [0]
        assert sorted((s.name, sorted(s.labels.items()), s.value) for s in found if s.labels["contract"] == b_id) == before_b

    # the gateway is gone: a warning naming the contract and the address, nothing raised
    problems = publish(first_a, Targets(push=gateway))
    assert len(problems) == 1 and repr(a_id) in problems[0] and f"not pushed to {gateway}" in problems[0]


def test_the_doc_shows_the_rule_and_route_files_whole():
    blocks = re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert ALERTS.read_text(encoding="utf-8") in blocks
    assert ROUTE.read_text(encoding="utf-8") in blocks
    assert PROMETHEUS.read_text(encoding="utf-8") in blocks


def test_promtool_accepts_the_shipped_prometheus_configuration_with_its_rules():
    """The shipped prometheus.yml as it is, in its folder: promtool reads it and the rules file it names there."""
    need("promtool")
    done = subprocess.run(["promtool", "check", "config", PROMETHEUS.name], cwd=PROMETHEUS.parent, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    rules = sum(len(group["rules"]) for group in yaml.safe_load(ALERTS.read_text(encoding="utf-8"))["groups"])
    assert "SUCCESS: 1 rule files found" in done.stdout and f"SUCCESS: {rules} rules found" in done.stdout


def test_hostile_ids_through_a_real_pushgateway(tmp_path):
    """Each hostile contract id its own group (the grouping key in the URL path, base64 where it holds `/` or a
    space), and every label value read back from the gateway's own exposition as it was pushed."""
    need("prometheus-pushgateway")
    verdicts = hostile_verdicts()
    with pushgateway(tmp_path) as gateway:
        assert publish(verdicts, Targets(push=gateway)) == []
        found = pushed(gateway)
    for v in verdicts:
        mine = [s for s in found if s.labels["contract"] == v.contract_id]
        assert {s.labels["check"] for s in mine if "check" in s.labels} == {c.check_id for c in v.checks()}
        assert {s.labels["version"] for s in mine} == {v.contract_version}
    assert {s.labels["contract"] for s in found} == {v.contract_id for v in verdicts}


# --- end to end: runs, Pushgateway and textfile, Prometheus, the documented rules, Alertmanager, a webhook ------

E2E_CONTRACT = """\
apiVersion: v3.0.2
kind: DataContract
id: 'urn:e2e:"orders"/eu'
version: 1.0.0
status: active
schema:
  - name: orders
    properties:
      - name: order_id
        logicalType: string
        required: true
        unique: true
      - name: amount
        logicalType: number
        required: true
"""


class Webhook:
    """Alertmanager's webhook receiver: every notification's JSON body, kept in order."""

    def __init__(self):
        received = self.received = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                received.append(json.loads(body))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/dc-bridge"
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)

    def alerts(self, status: str) -> list[dict]:
        return [alert for note in list(self.received) for alert in note["alerts"] if alert["status"] == status]

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.http.shutdown()
        self.http.server_close()


class Stack:
    """Pushgateway, node_exporter's textfile collector, Alertmanager and Prometheus, each on a loopback port."""

    def __init__(self, gateway: str, textfile: Path, prometheus: str, webhook: Webhook, alertmanager: str):
        self.gateway, self.textfile, self.prometheus, self.webhook = gateway, textfile, prometheus, webhook
        self.alertmanager = alertmanager

    def suppressed(self, alertname: str, contract_id: str) -> list[dict]:
        """Alertmanager's alerts of that name for the contract that an inhibit rule silences (its API, inhibited ones included)."""
        found = json.loads(get(f"{self.alertmanager}/api/v2/alerts?inhibited=true&silenced=true"))
        return [a for a in found if a["labels"].get("alertname") == alertname and a["labels"].get("contract") == contract_id
                and a["status"]["state"] == "suppressed" and a["status"]["inhibitedBy"]]

    def notified(self, alertname: str, contract_id: str) -> list[dict]:
        return [a for a in self.webhook.alerts("firing") if a["labels"].get("alertname") == alertname and a["labels"].get("contract") == contract_id]

    def query(self, promql: str) -> list[dict]:
        found = json.loads(get(f"{self.prometheus}/api/v1/query?{urllib.parse.urlencode({'query': promql})}"))
        assert found["status"] == "success", found
        return found["data"]["result"]


@contextmanager
def alerting_stack(folder: Path):
    need("prometheus", "prometheus-pushgateway", "prometheus-alertmanager", "prometheus-node-exporter")
    textfile = folder / "textfile"
    textfile.mkdir()
    ports = {name: free_port() for name in ("exporter", "alertmanager", "prometheus")}
    with Webhook() as webhook, pushgateway(folder) as gateway:
        # the documented route, with waits of a second and this test's webhook
        route = yaml.safe_load(ROUTE.read_text(encoding="utf-8"))
        route["route"]["routes"][0].update(group_wait="1s", group_interval="1s", repeat_interval="1h")
        next(r for r in route["receivers"] if r.get("webhook_configs"))["webhook_configs"][0]["url"] = webhook.url
        (folder / "alertmanager.yml").write_text(yaml.safe_dump(route))
        # the documented Prometheus configuration, as shipped but for second-long intervals and this test's ports, beside
        # a copy of the documented rules (its `rule_files` entry is read from its own folder)
        config = yaml.safe_load(PROMETHEUS.read_text(encoding="utf-8"))
        config["global"].update(scrape_interval="1s", evaluation_interval="1s")
        config["alerting"]["alertmanagers"][0]["static_configs"][0]["targets"] = [f"127.0.0.1:{ports['alertmanager']}"]
        targets = {"pushgateway": gateway.split("//")[1], "textfile": f"127.0.0.1:{ports['exporter']}"}
        assert [job["job_name"] for job in config["scrape_configs"]] == list(targets)
        for job in config["scrape_configs"]:
            job["static_configs"][0]["targets"] = [targets[job["job_name"]]]
        (folder / "prometheus.yml").write_text(yaml.safe_dump(config))
        shutil.copy(ALERTS, folder / ALERTS.name)
        exporter = ["--collector.disable-defaults", "--collector.textfile", f"--collector.textfile.directory={textfile}",
                    f"--web.listen-address=127.0.0.1:{ports['exporter']}"]
        manager = [f"--config.file={folder / 'alertmanager.yml'}", f"--storage.path={folder / 'am'}",
                   f"--web.listen-address=127.0.0.1:{ports['alertmanager']}", "--cluster.listen-address="]
        prom = [f"--config.file={folder / 'prometheus.yml'}", f"--storage.tsdb.path={folder / 'tsdb'}",
                f"--web.listen-address=127.0.0.1:{ports['prometheus']}", "--rules.alert.resend-delay=1s"]
        with server("prometheus-node-exporter", exporter, ports["exporter"], folder), \
                server("prometheus-alertmanager", manager, ports["alertmanager"], folder), \
                server("prometheus", prom, ports["prometheus"], folder) as prometheus_url:
            yield Stack(gateway, textfile, prometheus_url, webhook, f"http://127.0.0.1:{ports['alertmanager']}")


def check_alerts(stack: Stack, contract_id: str, check_id: str, status: str) -> list[dict]:
    """The webhook's DataContractCheckFailed alerts of `status` for the contract's check, one per way its metrics
    came (job dc-bridge: the Pushgateway's group; job textfile: node_exporter's textfile collector)."""
    def found():
        alerts = [a for a in stack.webhook.alerts(status) if a["labels"].get("alertname") == "DataContractCheckFailed"
                  and a["labels"].get("contract") == contract_id and a["labels"].get("check") == check_id]
        return alerts if {a["labels"]["job"] for a in alerts} == {"dc-bridge", "textfile"} else None
    return wait_for(f"a {status} DataContractCheckFailed alert for {check_id} from both the Pushgateway and the textfile", found, 90)


def test_a_failing_run_alerts_through_alertmanager_and_a_passing_run_resolves_it(spark, tmp_path):
    from dc_bridge.cli import main

    contract = tmp_path / "orders.yaml"
    contract.write_text(E2E_CONTRACT, encoding="utf-8")
    contract_id = yaml.safe_load(E2E_CONTRACT)["id"]
    bad, good = tmp_path / "bad.parquet", tmp_path / "good.parquet"
    spark.createDataFrame([("1", 10.0), ("2", None)], "order_id string, amount double").write.parquet(str(bad))
    spark.createDataFrame([("1", 10.0), ("2", 20.0)], "order_id string, amount double").write.parquet(str(good))

    with alerting_stack(tmp_path) as stack:
        def run(data: Path, exit_code: int) -> Verdict:
            report = tmp_path / "verdict.json"
            result = CliRunner().invoke(main, ["run", str(contract), "--engines", "spark", "--data", f"orders={data}:parquet",
                                               "--output", "json", "--output-file", str(report), "--metrics-push", stack.gateway,
                                               "--metrics-file", str(stack.textfile / "orders.prom")])
            assert result.exit_code == exit_code, result.output
            assert "metrics: warning" not in result.output, result.output
            return Verdict.model_validate_json(report.read_text())

        failing = run(bad, 1)
        failed = [c.check_id for c in failing.checks() if c.outcome == "failed"]
        assert len(failed) == 1
        firing = check_alerts(stack, contract_id, failed[0], "firing")
        assert all(a["labels"]["model"] == "orders" and a["labels"]["severity"] == "error" and a["labels"]["priority"] == "page"
                   and a["annotations"]["summary"] ==
                   f"Data contract {contract_id}: check {failed[0]} on orders failed" for a in firing)
        # Prometheus answers the doc's questions: every PromQL block runs, and "which contracts fail now" names this one
        for promql in re.findall(r"```promql\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S):
            stack.query(promql)
        failing_now = stack.query('dc_bridge_contract_outcome{outcome=~"failed|error"} == 1')
        assert {(r["metric"]["contract"], r["metric"]["job"]) for r in failing_now} == {(contract_id, "dc-bridge"), (contract_id, "textfile")}
        assert [r["value"][1] for r in stack.query("node_textfile_scrape_error")] == ["0"]
        # one failing check pages once: Prometheus fires DataContractFailed too, and the route's inhibit rule silences it
        assert {r["metric"]["alertname"] for r in stack.query('ALERTS{alertstate="firing"}')} >= {"DataContractCheckFailed", "DataContractFailed"}
        wait_for("DataContractFailed inhibited by the failed check", lambda: stack.suppressed("DataContractFailed", contract_id), 30)
        assert stack.notified("DataContractFailed", contract_id) == []

        passing = run(good, 0)
        assert passing.outcome == "passed"
        check_alerts(stack, contract_id, failed[0], "resolved")
        assert stack.query('dc_bridge_contract_outcome{outcome=~"failed|error"} == 1') == []
        assert {r["metric"]["job"] for r in stack.query("dc_bridge_last_success_timestamp_seconds")} == {"dc-bridge", "textfile"}


def test_the_split_and_each_stream_batch_publish_their_verdict(spark, tmp_path):
    """`dc_bridge.metrics` on a split's verdict, and the streaming guard's function as foreachBatch calls it: each
    batch's verdict replaces the previous batch's file, under the contract's id; with on_failure=stop too."""
    import dc_bridge

    contract = tmp_path / "orders.yaml"
    contract.write_text(E2E_CONTRACT, encoding="utf-8")
    contract_id = yaml.safe_load(E2E_CONTRACT)["id"]
    bad = spark.createDataFrame([("1", 10.0), ("2", None)], "order_id string, amount double")
    good = spark.createDataFrame([("3", 1.0)], "order_id string, amount double")

    def outcome(path: Path) -> str:
        found = [s.labels["outcome"] for s in samples(path.read_text()) if s.name == "dc_bridge_contract_outcome"
                 and s.value == 1 and s.labels["contract"] == contract_id]
        assert len(found) == 1
        return found[0]

    result = dc_bridge.split(contract, "orders", bad)
    try:
        assert dc_bridge.metrics(result.verdict, file=tmp_path / "split.prom") == []
        assert outcome(tmp_path / "split.prom") == result.verdict.outcome == "failed"
    finally:
        result.release()

    metrics = tmp_path / "metrics" / "stream.prom"
    judge = dc_bridge.streaming.guard(contract, "orders", sink=str(tmp_path / "sink"), log=str(tmp_path / "log.jsonl"),
                                      on_failure="stop", metrics_file=str(metrics))
    judge(good, 0)
    assert outcome(metrics) == "passed"
    with pytest.raises(dc_bridge.streaming.GuardStopped):
        judge(bad, 1)
    assert outcome(metrics) == "failed"  # published before the batch stopped the query
    checks = {s.labels["check"] for s in samples(metrics.read_text()) if s.name == "dc_bridge_check_outcome"
              and s.labels["outcome"] == "failed" and s.value == 1}
    assert checks == {c.check_id for c in result.verdict.checks() if c.outcome == "failed"}


def _monitored(contract_id: str, level: str) -> Verdict:
    """A verdict whose checks passed and whose `rows` monitor found an anomaly at `level` (strict: the contract failed)."""
    from dc_bridge.monitors import MonitorVerdict

    check = CheckVerdict(check_id="orders.id.required", model="orders", kind="not_null", columns=["id"], outcome="passed",
                         severity="error", observed=0, unit="rows", source={"file": "c.yaml", "line": 9})
    counts = {o: int(o == "passed") for o in ALL}
    monitor = MonitorVerdict(monitor_id="rows(orders)", metric="rows", model="orders", outcome="anomalous", severity=level, unit="rows",
                             direction="both", observed=41002.0, centre=81800.0, lower=79500.0, upper=84100.0, points=12,
                             sentence="rows 41,002 are below the expected 79,500-84,100 (12 earlier runs)")
    return Verdict(contract_id=contract_id, contract_version="1.0.0", contract_file="c.yaml", outcome="failed" if level == "strict" else "passed",
                   counts=counts, models=[ModelVerdict(name="orders", outcome="passed", counts=counts, checks=[check])], engines=["spark"],
                   started_at="2026-03-02T06:00:00+00:00", seconds=2.0, monitors=[monitor],
                   reason="monitors at strict found an anomaly: rows(orders): ..." if level == "strict" else None)


def test_a_strict_monitor_pages_naming_the_monitor_and_a_warn_one_opens_a_ticket(tmp_path):
    """Through the documented rules, route and Prometheus configuration: a contract failed by a strict monitor pages once,
    as DataContractMonitorFailed naming the monitor (DataContractFailed inhibited); an anomaly at warn is a ticket."""
    import dc_bridge

    strict, warn = "urn:e2e:strict", "urn:e2e:warn"
    with alerting_stack(tmp_path) as stack:
        for verdict in (_monitored(strict, "strict"), _monitored(warn, "warn")):
            assert dc_bridge.metrics(verdict, push=stack.gateway) == []

        def monitor_alerts():
            found = {(a["labels"]["alertname"], a["labels"]["contract"]): a for a in stack.webhook.alerts("firing")}
            wanted = {("DataContractMonitorFailed", strict), ("DataContractMonitorAnomalous", warn)}
            return found if wanted <= set(found) else None
        found = wait_for("the monitors' alerts", monitor_alerts, 90)
        paged = found[("DataContractMonitorFailed", strict)]
        assert paged["labels"]["priority"] == "page" and paged["labels"]["metric"] == "rows"
        assert paged["annotations"]["summary"] == f"Data contract {strict} failed: monitor rows of orders found an anomaly"
        ticket = found[("DataContractMonitorAnomalous", warn)]
        assert ticket["labels"]["priority"] == "ticket"
        assert ticket["annotations"]["summary"] == f"Data contract {warn}: monitor rows of orders is anomalous"
        wait_for("DataContractFailed inhibited by the strict monitor", lambda: stack.suppressed("DataContractFailed", strict), 30)
        assert stack.notified("DataContractFailed", strict) == [] and ("DataContractMonitorFailed", warn) not in found
