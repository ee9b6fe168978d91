"""The benchmark's peer: datacontract-cli `test` on the same parquet, in its own virtualenv and process.

datacontract-cli cannot share dc-bridge's environment (its own pins of pydantic, sqlglot, pandas...),
so it gets a virtualenv of its own, made once from `bench/datacontract-cli.txt` (default
`bench/.venv-datacontract-cli`), and runs in a subprocess with that venv's python:
`bench/datacontract_cli_runner.py` starts a Spark session with the bench's master, driver memory and
shuffle partitions, reads the same parquet, registers it as the view the contract's `dataframe`
server reads, and times only `DataContract(...).test()` under its own job group, with the driver
heap sampled as bench/run.py does. Its seconds, Spark jobs and heap are the peer's figures; the
subprocess's wall time (Spark start-up included) is kept as extra fields.

What datacontract-cli 1.2.8 makes of a workload's contract (DCS 1.1, which it converts to ODCS 3):
it runs the presence, type, required, unique, enum, pattern, minimum/maximum, maxLength and SQL
quality checks, each reporting the count it measured; it creates no check from a field's `format`
(the narrow contract's email format is not run). A dc-bridge range is two peer checks (minimum and
maximum), whose counts add up to the range's. Counts are checked against the planted truth like
every other system's, and each check's pass/fail against what the planted data must give.

If the venv cannot be made (no registry), or the runner fails, the system is reported as skipped
with the reason; the benchmark goes on.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "datacontract-cli.txt"
DEFAULT_VENV = HERE / ".venv-datacontract-cli"
RUNNER = HERE / "datacontract_cli_runner.py"
LOG4J = HERE.parent / "dc_bridge" / "log4j2.properties"  # the bench session's logging, for the same quiet driver
SERVER = "bench"

# datacontract-cli's check type -> the suffix of the dc-bridge check id it stands for
CHECK_SUFFIX = {"field_is_present": "exists", "field_type": "type", "field_required": "required",
                "field_unique": "unique", "field_enum": "enum", "field_regex": "pattern",
                "field_minimum": "range", "field_maximum": "range", "field_max_length": "length",
                "field_min_length": "length"}
# dc-bridge checks that count violating rows: with a planted violation they must fail
VIOLATION_SUFFIXES = ("required", "unique", "enum", "pattern", "format", "range", "length")
NOT_EXPRESSED = {"format": "datacontract-cli 1.2.8 creates no check from a field's `format`"}


@dataclass
class PeerRun:
    skipped: str | None = None  # why there are no figures
    seconds: float = 0.0
    spark_jobs: int = 0
    driver_heap_peak_mib: float = 0.0
    counts: dict = field(default_factory=dict)  # dc-bridge check id -> the count the peer reported
    mismatches: list = field(default_factory=list)  # pass/fail that contradicts the planted data
    extra: dict = field(default_factory=dict)  # start-up, wall time, version, coverage


def peer_contract(contract_text: str) -> tuple[str, str]:
    """(the workload's contract with a `dataframe` server added, the model's name = the view it reads).

    The workload contract is DCS 1.1, which datacontract-cli reads (and converts to ODCS); all it
    lacks is a server: a `dataframe` server makes datacontract-cli test the Spark session's table named
    after the model. Nothing else changes."""
    document = yaml.safe_load(contract_text)
    models = list(document["models"])
    if len(models) != 1:
        raise ValueError(f"the peer runs one model per contract, not {models}")
    document = {**{k: v for k, v in document.items() if k != "models"},
                "servers": {SERVER: {"type": "dataframe"}}, "models": document["models"]}
    return yaml.safe_dump(document, sort_keys=False), models[0]


def ensure_venv(venv: Path = DEFAULT_VENV, requirements: Path = REQUIREMENTS, log=print) -> tuple[Path | None, str | None]:
    """(the venv's python, None), or (None, why not). Made once; re-installed when the pins change."""
    python = venv / "bin" / "python"
    stamp = venv / ".bench-requirements.sha256"
    wanted = hashlib.sha256(requirements.read_bytes()).hexdigest()
    if python.exists() and stamp.exists() and stamp.read_text().strip() == wanted:
        return python, None
    started = time.perf_counter()
    install_log = venv / "bench-install.log"
    log(f"  installing datacontract-cli into {venv} (once; log {install_log})")
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True, capture_output=True, text=True)
        with install_log.open("w") as out:
            subprocess.run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "-r", str(requirements)],
                           check=True, stdout=out, stderr=subprocess.STDOUT, timeout=1800)
        subprocess.run([str(python), "-c", "import datacontract.data_contract, ibis, pyspark"],
                       check=True, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as error:
        tail = ""
        if install_log.exists():
            lines = [l for l in install_log.read_text(errors="replace").splitlines() if "is ignored" not in l]
            tail = " | ".join(lines[-3:])
        detail = getattr(error, "stderr", None) or tail or str(error)
        return None, f"datacontract-cli could not be installed into {venv}: {str(detail).strip()[-400:]}"
    stamp.write_text(wanted + "\n")
    log(f"  installed in {time.perf_counter() - started:.0f}s")
    return python, None


def map_checks(checks: list[dict], model: str) -> dict[str, list[dict]]:
    """dc-bridge check id -> the peer's checks that stand for it (SQL rules by their order in the model)."""
    mapped: dict[str, list[dict]] = {}
    quality = 0
    for check in checks:
        if check["type"] == "model_quality_sql":
            mapped.setdefault(f"{model}.quality[{quality}]", []).append(check)
            quality += 1
        elif check["type"] in CHECK_SUFFIX and check["field"]:
            mapped.setdefault(f"{model}.{check['field']}.{CHECK_SUFFIX[check['type']]}", []).append(check)
    return mapped


def count_of(check: dict):
    diagnostics = check.get("diagnostics") or {}
    if check["type"] == "field_unique":  # its value counts duplicated keys; the rows in them are the truth
        return diagnostics.get("failed_rows", check.get("value"))
    return check.get("value")


def compare(checks: list[dict], model: str, check_ids: list[str], truth: dict) -> tuple[dict, list[str], dict]:
    """(counts by dc-bridge id, pass/fail mismatches, coverage) of the peer's checks."""
    mapped = map_checks(checks, model)
    counts, wrong = {}, []
    for check_id, peers in mapped.items():
        values = [count_of(c) for c in peers]
        if values and all(v is not None for v in values):
            counts[check_id] = sum(float(v) for v in values)
        failed = any(c["result"] != "passed" for c in peers)
        violations = check_id.rsplit(".", 1)[-1] in VIOLATION_SUFFIXES and float(truth.get(check_id, 0)) > 0
        if failed != violations or any(c["result"] in ("error", "warning") for c in peers):
            results = ", ".join(f"{c['type']} {c['result']}" + (f" ({c['reason']})" if c["result"] != "passed" else "")
                                for c in peers)
            wrong.append(f"datacontract_cli: {check_id} {results}; planted {'violations' if violations else 'none'}")
    errors = [c for c in checks if c["type"] not in CHECK_SUFFIX and c["type"] not in ("model_quality_sql", "lint")]
    wrong += [f"datacontract_cli: {c['type']} {c['name']!r} {c['result']}: {c['reason']}" for c in errors]
    not_run = [i for i in check_ids if i not in mapped]
    coverage = {"checks_run": len(check_ids) - len(not_run), "checks_not_run": {
        i: NOT_EXPRESSED.get(i.rsplit(".", 1)[-1], "no datacontract-cli check for it") for i in not_run},
        "peer_checks": sum(len(p) for p in mapped.values()),
        "peer_checks_split": sorted(i for i, p in mapped.items() if len(p) > 1),
        "peer_only": sorted(i for i in mapped if i not in check_ids)}
    return counts, wrong, coverage


def run(contract_text: str, data: str, folder: Path, check_ids: list[str], truth: dict, *, master: str,
        driver_memory: str, shuffle_partitions: str, venv: Path = DEFAULT_VENV, log4j: str | None = None,
        timeout: float = 7200) -> PeerRun:
    """Test `data` with datacontract-cli in its own venv and process; never raises for the peer's failures."""
    python, why = ensure_venv(Path(venv))
    if python is None:
        return PeerRun(skipped=why)
    try:
        text, model = peer_contract(contract_text)
    except (ValueError, KeyError, yaml.YAMLError) as error:
        return PeerRun(skipped=f"no contract for datacontract-cli: {error}")
    contract = folder / f"datacontract-cli-{model}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.yaml"
    contract.write_text(text)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYSPARK_PYTHON"] = env["PYSPARK_DRIVER_PYTHON"] = str(python)  # not dc-bridge's, which the bench set
    command = [str(python), str(RUNNER), "--contract", str(contract), "--data", data, "--view", model,
               "--master", master, "--driver-memory", driver_memory, "--shuffle-partitions", str(shuffle_partitions)]
    log4j = log4j or (str(LOG4J) if LOG4J.exists() else None)
    if log4j:
        command += ["--log4j", log4j]
    started = time.perf_counter()
    # its own process group, so that a timeout ends its Spark JVM too
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=folder,
                          start_new_session=True) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return PeerRun(skipped=f"datacontract-cli did not finish within {timeout:.0f}s")
    wall = time.perf_counter() - started
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if process.returncode != 0 or not lines:
        tail = " | ".join(stderr.strip().splitlines()[-3:])
        return PeerRun(skipped=f"datacontract-cli runner failed (exit {process.returncode}): {tail[-500:]}")
    try:
        report = json.loads(lines[-1])
    except json.JSONDecodeError as error:
        return PeerRun(skipped=f"datacontract-cli runner printed no report: {error}")
    counts, wrong, coverage = compare(report["checks"], model, check_ids, truth)
    extra = {"peer_startup_seconds": report["startup_seconds"], "peer_process_seconds": round(wall, 2),
             "version": report["version"], "ibis": report["ibis"], "pyspark": report["pyspark"],
             "result": report["result"], "peer_log_warnings": report["warnings"][:10], **coverage}
    return PeerRun(seconds=report["seconds"], spark_jobs=report["spark_jobs"],
                   driver_heap_peak_mib=report["driver_heap_peak_mib"], counts=counts, mismatches=wrong, extra=extra)
