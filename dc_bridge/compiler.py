"""Contract -> Compiled: the plan, each engine's artifact per model, and the coverage (which engine
runs which check, and why not), in one translation of each check by each engine.

The artifacts are written as `expectation_suites/<contract>/<model>.json` and
`soda_checks/<contract>/<model>.yml` (each engine's `CompiledFiles` says where and as what text).
Serialisation is deterministic (fixed key order, fixed formatting), so re-compiling an unchanged
contract rewrites byte-identical files and a stale committed file shows up as a diff. Ids and model
names become file names through `safe_name` alone, so no contract can name a path outside `out`;
two models or contracts that would share a file are an `OutputError`, never a silent overwrite.

Lint is conformance, a run is robustness. `compile`, a run, `fold_gx`, `fold_soda` and `gx init` go on
past two kinds of lint errors: errors of conformance alone (`CONFORMANCE_CODES`: what the official
schema rejects but nothing that runs depends on), and check-local errors (a bad regex, refused SQL, a
reference naming nothing: `Kind.local_lint_codes`), whose check stays in the plan, `error` in a run,
but gets no engine artifact. Any other lint error stops them (`ContractError`).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from dc_bridge.contract.findings import CONFORMANCE_CODES, Finding
from dc_bridge.contract.lint import lint_loaded, lint_patterns, pattern_findings, semantic_findings
from dc_bridge.contract.lint.java_regex import RegexCompiler, java_regex_errors
from dc_bridge.contract.reading.load import LoadResult, load_contract
from dc_bridge.contract.model import Contract, Source
from dc_bridge.engines.engine import Unsupported
from dc_bridge.engines.registry import ENGINES
from dc_bridge.paths import write_whole
from dc_bridge.plan.build import build_plan
from dc_bridge.plan.checks import CHECK_LOCAL_CODES, Check, CheckPlan, NotExecutable, kind_of


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
    # (name, translate, forms per model) looked up once, not once per check and engine (3 x 6,800 in a large contract)
    engines = [(name, engine.translate, forms[name]) for name, engine in ENGINES.items()]
    for check in plan.checks:
        covered = coverage[check.id] = {}
        runs = check.id not in invalid
        for name, translate, per_model in engines:
            form = translate(check, plan.contract_id)
            if isinstance(form, Unsupported):
                covered[name] = form.reason
            else:
                covered[name] = None
                if runs and check.model in per_model:
                    per_model[check.model].append(form)
    artifacts = {name: {model: engine.assemble(plan.contract_id, model, forms[name][model], meta) for model in plan.models}
                 for name, engine in ENGINES.items() if engine.assemble is not None}
    return Compiled(contract, plan, artifacts, coverage, meta, dict(invalid))


def contract_meta(contract: Contract) -> dict[str, Any]:
    return {"contract_id": contract.id, "contract_version": contract.version, "title": contract.title,
            "owner": contract.owner, "contract_file": display_path(contract.file)}


def load_for_run(contract: str | Path | Contract, variables: Mapping[str, str] | None = None,
                 regex_compiler: RegexCompiler = java_regex_errors) -> tuple[Contract, list[Finding]]:
    """The contract (read with the caller's `variables`) and its check-local errors; any other lint error
    but conformance alone stops the run (ContractError)."""
    return lint_for_run(contract if isinstance(contract, Contract) else load_contract(contract, variables), regex_compiler)


def lint_for_run(read: LoadResult | Contract, regex_compiler: RegexCompiler = java_regex_errors,
                 ready: Callable[[Contract], None] | None = None) -> tuple[Contract, list[Finding]]:
    """`load_for_run` of a contract already read: lint, with `regex_compiler` judging its patterns (a run's
    compiles them in its Spark JVM: contract/lint/java_regex.py). In two halves: all that needs no JVM
    first, so that a contract that cannot run is refused before Spark starts for its patterns; then, once
    `ready` (a run's checks of its data sources, before Spark starts too) was called with the contract, the patterns."""
    if isinstance(read, Contract):  # no file to lint, but the rules over the contract hold the same
        loaded, findings = read, semantic_findings(read, None)
    else:
        result = lint_loaded(read, None)
        loaded, findings = result.contract, result.findings
    stopping, _ = split_errors(findings)
    if loaded is None or stopping:
        raise ContractError(stopping or findings)
    if ready is not None:
        ready(loaded)
    if isinstance(read, Contract):
        findings = findings + pattern_findings(read, regex_compiler)
    else:
        findings = lint_patterns(result, regex_compiler).findings
    stopping, local = split_errors(findings)
    if stopping:
        raise ContractError(stopping)
    return loaded, local


def split_errors(findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """(errors that stop compile and run, check-local errors); errors of conformance alone are neither."""
    errors = [f for f in findings if f.level == "error" and f.code not in CONFORMANCE_CODES]
    return [f for f in errors if f.code not in CHECK_LOCAL_CODES], [f for f in errors if f.code in CHECK_LOCAL_CODES]


def invalid_checks(plan: CheckPlan, findings: list[Finding]) -> dict[str, str]:
    """check id -> the lint message that keeps it from running."""
    invalid: dict[str, str] = {}
    for finding in findings:
        for check in plan.checks:
            if _keeps_from_running(finding, check):
                invalid.setdefault(check.id, f"{finding.code} {finding.message}")
    return invalid


def _keeps_from_running(finding: Finding, check: Check) -> bool:
    same_place = finding.file == check.source.file and (
        finding.path == check.source.path or finding.path.startswith(check.source.path + "."))
    return same_place and finding.code in kind_of(check).local_lint_codes


def plan_for_run(contract: Contract, local_errors: list[Finding]) -> tuple[CheckPlan, dict[str, str]]:
    """The plan and its invalid checks. A check-local error where no check could be built (a relationship whose
    `to` names no property is read as no foreign key) becomes a `not_executable` check of its own, invalid too:
    it is `error` in a run rather than missing from the verdict."""
    plan = build_plan(contract)
    invalid = invalid_checks(plan, local_errors)
    taken = {check.id for check in plan.checks}
    unbuilt: list[Check] = []
    for finding in local_errors:
        check_id = finding.path or "(contract)"
        if check_id in taken or any(_keeps_from_running(finding, check) for check in plan.checks):
            continue
        taken.add(check_id)
        reason = f"{finding.code} {finding.message}"
        unbuilt.append(Check(check_id, "(contract)", (), NotExecutable(reason), Source(file=finding.file, path=finding.path, line=finding.line),
                             threshold=None))
        invalid[check_id] = reason
    return (replace(plan, checks=plan.checks + tuple(unbuilt)) if unbuilt else plan), invalid


def compile_for_run(contract: str | Path | Contract, variables: Mapping[str, str] | None = None) -> Compiled:
    """The contract compiled as `dc-bridge run` compiles it (see the module docstring); `variables` as for `load_for_run`."""
    loaded, local_errors = load_for_run(contract, variables)
    plan, invalid = plan_for_run(loaded, local_errors)
    return compile_contract(loaded, invalid=invalid, plan=plan)


def display_path(file: str) -> str:
    """The contract path as written into compiled files: relative to the working directory when
    inside it, so `./contracts/x.yaml` and `contracts/x.yaml` compile to the same bytes."""
    path = Path(file).resolve()
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


class OutputError(ValueError):
    """Compiled files that cannot be written as asked: two models (or two contracts) would share a
    file, or a path would leave the output folder. Nothing has been written when it is raised."""


# Windows device names: `con.json` opens the console there, whatever the extension
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10)), *(f"LPT{i}" for i in range(10))}
_UNSAFE = re.compile(r"[^\w.-]+")
_DOTS = re.compile(r"\.{2,}")
_MAX_NAME_BYTES = 150  # with the suffix, well under the 255 bytes of a file name


def safe_name(text: str, fallback: str) -> str:
    """A contract id or model name as one file or folder name that stays inside its folder: every
    run of characters other than letters, digits, `.`, `_` and `-` becomes `_` (so no separator,
    drive, NUL or space), a run of dots one dot, and then leading and trailing `_` and `.` go (no hidden
    file, no `..` that a web server or a reader takes for the parent folder: `..orders` -> `orders`,
    `a..b` -> `a.b`); what is left empty (`.`, `..`) becomes `fallback`; a Windows device name
    (`con`, `nul.v2`) gets `_` after its stem; a name longer than 150 bytes is cut and ends in a
    hash of the whole. `urn:datacontract:checkout:orders` -> `urn_datacontract_checkout_orders`."""
    name = _DOTS.sub(".", _UNSAFE.sub("_", text)).strip("_.")
    if not name:
        name = fallback
    stem, dot, rest = name.partition(".")
    if stem.upper() in _RESERVED:
        name = f"{stem}_{dot}{rest}"
    if len(name.encode("utf-8")) > _MAX_NAME_BYTES:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        name = name.encode("utf-8")[:_MAX_NAME_BYTES - 13].decode("utf-8", "ignore") + "-" + digest
    return name


def _component_ok(part: str) -> bool:
    return part not in ("", ".", "..") and not any(ch in part for ch in "/\\\0") and not Path(part).is_absolute()


def _clash_key(path: Path, out: Path) -> str:
    """How a file system that ignores case (macOS, Windows) names a compiled file: one key per file."""
    return unicodedata.normalize("NFC", path.relative_to(out).as_posix()).casefold()


def rendered(compiled: Compiled, out: Path) -> dict[Path, str]:
    """Every compiled file's path under `out` and its exact text. Raises `OutputError` when two
    models would be written to one file (names that differ only in characters `safe_name`
    replaces, or in case) or a path would leave `out`."""
    folder = safe_name(compiled.contract.id, "contract")
    files: dict[Path, str] = {}
    owners: dict[str, str] = {}
    for name, per_model in compiled.artifacts.items():
        kind = ENGINES[name].files
        for model, artifact in per_model.items():
            parts = (kind.folder, folder, f"{safe_name(model, 'model')}{kind.suffix}")
            if not all(_component_ok(part) for part in parts):  # safe_name makes this impossible; never trust it blindly
                raise OutputError(f"{compiled.contract.file}: the compiled file {'/'.join(parts)} would leave {out}")
            path = out.joinpath(*parts)
            key = _clash_key(path, out)
            if key in owners and owners[key] != model:
                raise OutputError(f"{compiled.contract.file}: models `{owners[key]}` and `{model}` both compile to {path}, "
                                  f"and one would overwrite the other; rename one of them (a model name becomes a file "
                                  f"name: characters other than letters, digits, `.`, `_` and `-` become `_`, and names "
                                  f"that differ only in case are one file on macOS and Windows)")
            owners[key] = model
            files[path] = kind.text(artifact, compiled.meta)
    return files


def merged(renders: list[tuple[str, dict[Path, str]]], out: Path) -> dict[Path, str]:
    """The files of several contracts compiled in one call (label, files); `OutputError` when two
    contracts would write one file with different text (ids that become the same folder name)."""
    files: dict[Path, str] = {}
    owners: dict[str, tuple[str, Path]] = {}
    for label, paths in renders:
        for path, text in paths.items():
            key = _clash_key(path, out)
            if key in owners and (owners[key][0] != label and files[owners[key][1]] != text):
                raise OutputError(f"{owners[key][0]} and {label} both compile to {path}, and one would overwrite the other "
                                  f"(their ids become the same folder name); give them different ids, or compile them "
                                  f"with different --out folders")
            owners.setdefault(key, (label, path))
            files.setdefault(owners[key][1], text)
    return files


def write(files: dict[Path, str]) -> list[Path]:
    """Write files whose text changed, each whole or not at all (`compile --check` and a run read them back); returns
    the paths written."""
    written = []
    for path, text in files.items():
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, text)
        written.append(path)
    return written
