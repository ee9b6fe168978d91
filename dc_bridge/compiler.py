"""Contract -> Compiled: the plan, each engine's artifact per model, and the coverage (which engine
runs which check, and why not), in one translation of each check by each engine.

The artifacts are written as `expectation_suites/<contract>/<model>.json` and
`soda_checks/<contract>/<model>.yml` (each engine's `CompiledFiles` says where and as what text).
Serialisation is deterministic (fixed key order, fixed formatting), so re-compiling an unchanged
contract rewrites byte-identical files and a stale committed file shows up as a diff.

A run compiles like `compile` except that checks with a check-local lint error (a bad regex, refused
SQL: `Kind.local_lint_codes`) stay in the plan as `error` but get no engine artifact; any other lint
error stops it (`ContractError`). `fold_gx`, `fold_soda` and `gx init` compile the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dc_bridge.contract.findings import Finding
from dc_bridge.contract.lint import lint_file, semantic_findings
from dc_bridge.contract.model import Contract
from dc_bridge.engines.engine import Unsupported
from dc_bridge.engines.registry import ENGINES
from dc_bridge.plan.build import build_plan
from dc_bridge.plan.checks import CHECK_LOCAL_CODES, CheckPlan, kind_of


class ContractError(Exception):
    """The contract has lint errors that change what runs; carries the findings."""

    def __init__(self, findings: list[Finding]):
        super().__init__("; ".join(f"{f.file}:{f.line or ''} {f.code} {f.message}" for f in findings[:5]))
        self.findings = findings


@dataclass(frozen=True)
class Compiled:
    contract: Contract
    plan: CheckPlan
    # engine -> model -> the engine's artifact (a GX suite, a SodaCL document); engines without files have none
    artifacts: dict[str, dict[str, Any]]
    # check id -> engine -> None when the engine runs the check, else why it does not
    coverage: dict[str, dict[str, str | None]]
    # the contract's identity as the compiled files name it
    meta: dict[str, Any]
    # check id -> the check-local lint error that keeps it from running (it is `error` in a run)
    invalid: dict[str, str]

    @property
    def suites(self) -> dict[str, dict]:
        return self.artifacts["gx"]

    @property
    def sodacl(self) -> dict[str, dict]:
        return self.artifacts["soda"]

    def runs_in(self, check_id: str) -> list[str]:
        """The engines that run a check (of every engine, selected or not)."""
        return [engine for engine, reason in self.coverage[check_id].items() if reason is None]


def compile_contract(contract: Contract, invalid: dict[str, str] | None = None, plan: CheckPlan | None = None) -> Compiled:
    """Plan and translate. Checks in `invalid` (id -> reason) stay in the plan but get no engine
    artifact: a run leaves out checks it already knows cannot run (an invalid regex would break Soda's fused query)."""
    plan = plan or build_plan(contract)
    invalid = invalid or {}
    meta = contract_meta(contract)
    coverage: dict[str, dict[str, str | None]] = {}
    forms: dict[str, dict[str, list]] = {name: {model: [] for model in plan.models} for name in ENGINES}
    for check in plan.checks:
        coverage[check.id] = {}
        for name, engine in ENGINES.items():
            form = engine.translate(check, plan.contract_id)
            coverage[check.id][name] = form.reason if isinstance(form, Unsupported) else None
            if not isinstance(form, Unsupported) and check.id not in invalid and check.model in forms[name]:
                forms[name][check.model].append(form)
    artifacts = {name: {model: engine.assemble(plan.contract_id, model, forms[name][model], meta) for model in plan.models}
                 for name, engine in ENGINES.items() if engine.assemble is not None}
    return Compiled(contract, plan, artifacts, coverage, meta, dict(invalid))


def contract_meta(contract: Contract) -> dict[str, Any]:
    return {"contract_id": contract.id, "contract_version": contract.version, "title": contract.title,
            "owner": contract.owner, "contract_file": display_path(contract.file)}


def load_for_run(contract: str | Path | Contract) -> tuple[Contract, list[Finding]]:
    """The contract and its check-local errors; any other lint error stops the run (ContractError)."""
    if isinstance(contract, Contract):  # not linted as a file, but a refused query or regex must still be `error`
        return contract, [f for f in semantic_findings(contract) if f.level == "error" and f.code in CHECK_LOCAL_CODES]
    result = lint_file(contract)
    errors = [f for f in result.findings if f.level == "error"]
    stopping = [f for f in errors if f.code not in CHECK_LOCAL_CODES]
    if result.contract is None or stopping:
        raise ContractError(stopping or result.findings)
    return result.contract, errors


def invalid_checks(plan: CheckPlan, findings: list[Finding]) -> dict[str, str]:
    """check id -> the lint message that keeps it from running."""
    invalid: dict[str, str] = {}
    for finding in findings:
        for check in plan.checks:
            same_place = finding.file == check.source.file and (
                finding.path == check.source.path or finding.path.startswith(check.source.path + "."))
            if same_place and finding.code in kind_of(check).local_lint_codes:
                invalid.setdefault(check.id, f"{finding.code} {finding.message}")
    return invalid


def compile_for_run(contract: str | Path | Contract) -> Compiled:
    """The contract compiled as `dc-bridge run` compiles it (see the module docstring)."""
    loaded, local_errors = load_for_run(contract)
    plan = build_plan(loaded)
    return compile_contract(loaded, invalid=invalid_checks(plan, local_errors), plan=plan)


def display_path(file: str) -> str:
    """The contract path as written into compiled files: relative to the working directory when
    inside it, so `./contracts/x.yaml` and `contracts/x.yaml` compile to the same bytes."""
    path = Path(file).resolve()
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


def directory_name(contract_id: str) -> str:
    """A contract id as a portable folder name (`urn:datacontract:checkout:orders` -> `urn_datacontract_checkout_orders`)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", contract_id).strip("_") or "contract"


def file_name(model: str) -> str:
    return re.sub(r"[^\w.-]+", "_", model).strip("_") or "model"


def rendered(compiled: Compiled, out: Path) -> dict[Path, str]:
    """Every compiled file's path under `out` and its exact text."""
    folder = directory_name(compiled.contract.id)
    files = {}
    for name, per_model in compiled.artifacts.items():
        kind = ENGINES[name].files
        for model, artifact in per_model.items():
            files[out / kind.folder / folder / f"{file_name(model)}{kind.suffix}"] = kind.text(artifact, compiled.meta)
    return files


def write(files: dict[Path, str]) -> list[Path]:
    """Write files whose text changed; returns the paths written."""
    written = []
    for path, text in files.items():
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
