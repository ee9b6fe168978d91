"""The compiled files: `expectation_suites/<contract>/<model>.json` and `soda_checks/<contract>/<model>.yml`.

Serialisation is deterministic (fixed key order, fixed formatting), so re-compiling an unchanged
contract rewrites byte-identical files and a stale committed file shows up as a diff.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from dc_bridge.plan.checks import CheckPlan
from dc_bridge.contract.model import Contract
from dc_bridge.plan.build import build_plan
from dc_bridge.engines.gx import translate as gx_translate
from dc_bridge.engines.soda import translate as soda_translate


@dataclass(frozen=True)
class Compiled:
    contract: Contract
    plan: CheckPlan
    suites: dict[str, dict]
    sodacl: dict[str, dict]


def compile_contract(contract: Contract, exclude: frozenset[str] = frozenset(), plan: CheckPlan | None = None) -> Compiled:
    """Plan and translate. Checks in `exclude` (ids) stay in the plan but get no engine artifact:
    a run leaves out checks it already knows cannot run (an invalid regex would break Soda's fused query)."""
    plan = plan or build_plan(contract)
    runnable = replace(plan, checks=tuple(check for check in plan.checks if check.id not in exclude))
    meta = {"contract_id": contract.id, "contract_version": contract.version, "title": contract.title,
            "owner": contract.owner, "contract_file": display_path(contract.file)}
    return Compiled(contract, plan, gx_translate.build_suites(runnable, meta), soda_translate.build_sodacl(runnable))


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


def suite_text(suite: dict) -> str:
    return json.dumps(suite, indent=2, ensure_ascii=False) + "\n"


class _SodaDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
    """Block style, multi-line strings as `|` blocks, so the SodaCL reads like hand-written SodaCL."""


def _str_representer(dumper: yaml.SafeDumper, value: str):
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_SodaDumper.add_representer(str, _str_representer)


def sodacl_text(document: dict, contract: Contract) -> str:
    header = f"# Compiled by dc-bridge from {display_path(contract.file)} ({contract.id} {contract.version}). Do not edit.\n"
    return header + yaml.dump(document, Dumper=_SodaDumper, sort_keys=False, allow_unicode=True, width=10_000)


def rendered(compiled: Compiled, out: Path) -> dict[Path, str]:
    """Every compiled file's path under `out` and its exact text."""
    folder = directory_name(compiled.contract.id)
    files = {}
    for model, suite in compiled.suites.items():
        files[out / "expectation_suites" / folder / f"{file_name(model)}.json"] = suite_text(suite)
    for model, document in compiled.sodacl.items():
        files[out / "soda_checks" / folder / f"{file_name(model)}.yml"] = sodacl_text(document, compiled.contract)
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
