"""A contract's checks as Dagster asset checks (`dc_bridge.dagster`, docs/orchestrators.md): one `AssetCheckSpec` per
contract check, all of a contract evaluated by one `dc_bridge.run` in one `@multi_asset_check`, its verdict mapped to
Dagster's `AssetCheckResult`s. A thin adapter: no second runner, no Spark pass per check.

Names: a check id becomes a Dagster name (`[A-Za-z0-9_]`, at most NAME_LIMIT characters) by `check_names`, which keeps
the names of one contract apart: two ids that fold to one name (`a.b`, `a_b`), or a long id cut short, get a digest
of the id appended, and a clash that still remains is refused, never a check silently dropped.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import inspect
import re
import unicodedata
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import dagster as dg
from pydantic import PrivateAttr

from dc_bridge.compiler import load_for_run, plan_for_run
from dc_bridge.plan.checks import CONTRACT_MODEL, Check
from dc_bridge.report.verdict_formats import check_text
from dc_bridge.runner.options import RunOptions
from dc_bridge.runner.pipeline import run
from dc_bridge.verdict import CheckVerdict, Verdict

# Dagster's event log indexes a check's name on its first 64 characters (MySQL's prefix of the unique index on
# asset, check name and run): two names alike in them would clash there, so no name is longer
NAME_LIMIT = 64
_DIGEST = 8
_NOT_A_NAME = re.compile(r"[^A-Za-z0-9_]+")
_NAME = re.compile(r"[A-Za-z0-9_]+")

# the contract's severity -> Dagster's; `info` has no level of its own in Dagster, and only ERROR blocks
SEVERITY = {"error": dg.AssetCheckSeverity.ERROR, "warning": dg.AssetCheckSeverity.WARN, "info": dg.AssetCheckSeverity.WARN}
# a check's outcome -> whether Dagster is told it passed, and whether its severity holds (False: WARN, never blocking).
# Not evaluated (not_executable, skipped) is never a pass, and it never blocks either: the verdict does not count it.
OUTCOMES = {"passed": (True, True), "warning": (False, True), "failed": (False, True), "error": (False, True),
            "not_executable": (False, False), "skipped": (False, False)}

# `dc_bridge.run`'s keywords an asset check takes; the session is the resource's, and what starts one goes to SparkResource
_RUN_KEYWORDS = set(inspect.signature(run).parameters) - {"contract", "spark", "master", "conf"}
_RUN_OPTIONS = {f.name for f in dataclasses.fields(RunOptions) if f.init}
_ELSEWHERE = {"spark": "the session comes from the Dagster resource named by `resource_key`",
              "master": "give it to dc_bridge.dagster.SparkResource(master=...)",
              "conf": "give it to dc_bridge.dagster.SparkResource(conf=...)"}


class SparkResource(dg.ConfigurableResource):
    """The Spark session of dc-bridge's asset checks when the code location has none of its own: the active session,
    or one dc-bridge starts (runner/data.py `get_session`: `master`, `conf`), stopped after the step if it started it."""
    master: str | None = None
    conf: dict[str, str] = {}
    _started: Any = PrivateAttr(default=None)

    @property
    def spark_session(self):
        from dc_bridge.runner.data import get_session

        session, created = get_session(self.master, dict(self.conf))
        if created:
            self._started = session
        return session

    def teardown_after_execution(self, context) -> None:
        if self._started is not None:
            self._started.stop()


@dataclasses.dataclass(frozen=True)
class Planned:
    """One contract check as Dagster shows it: its spec, and the check it stands for."""
    check: Check
    spec: dg.AssetCheckSpec


def asset_checks(contract: str | Path, assets: Mapping[str, Any] | None = None, *, name: str | None = None,
                 prefix: str | None = None, resource_key: str = "spark", openlineage: bool = False,
                 **run_options) -> dg.AssetChecksDefinition:
    """The contract's checks as one Dagster `@multi_asset_check`: an `AssetCheckSpec` per check (see `check_specs`),
    all evaluated by one `dc_bridge.run(contract, spark=..., **run_options)` when any of them is selected.

    `assets`: each model's asset key (default: the model's name), see `check_specs`. `name`: the op's name (default:
    the contract's id as a Dagster name). `prefix`: put before every check's name, for a second contract on the
    same asset whose check ids the first has too (Dagster refuses two checks of one name on one asset). `resource_key`: the resource giving the Spark session (a SparkSession, or
    an object with `.spark_session`, as SparkResource and dagster-pyspark's PySparkResource). `run_options`: the
    keywords of `dc_bridge.run` (engines, server, data, where, history, metrics_push, metrics_file, ...), checked now;
    `openlineage=True` sends the verdict's OpenLineage event as `dc-bridge run --openlineage` does."""
    _check_run_options(contract, run_options)
    loaded, planned = _planned(contract, assets, run_options.get("vars"), prefix)
    if not planned:
        raise ValueError(f"{contract}: no check of the contract is on an asset (assets= maps every model to None, or the "
                         f"contract has no check): nothing for Dagster to run")
    op_name = name or dagster_name(loaded.id or Path(contract).stem, limit=NAME_LIMIT)
    by_key = {item.spec.key: item for item in planned}

    @dg.multi_asset_check(specs=[item.spec for item in planned], name=op_name, can_subset=True,
                          required_resource_keys={resource_key}, description=f"dc-bridge: the checks of {contract}")
    def _checks(context) -> Iterator[dg.AssetCheckResult]:  # no annotation: Dagster reads it, and this module's are text
        spark = session_of(getattr(context.resources, resource_key), resource_key)
        verdict = run(contract, spark=spark, **run_options)
        context.log.info(f"dc-bridge: {verdict.contract_id} {verdict.contract_version}: {verdict.outcome} {verdict.counts}")
        if openlineage:
            _send_lineage(verdict, context.log)
        selected = context.selected_asset_check_keys
        yield from check_results(verdict, [by_key[key] for key in by_key if key in selected], context.log)

    return _checks


def check_specs(contract: str | Path, assets: Mapping[str, Any] | None = None,
                vars: Mapping[str, str] | None = None, prefix: str | None = None) -> list[Planned]:
    """One Dagster check per contract check, read without Spark: its name from the check id (`check_names`), its
    description from the contract, `blocking` for severity error, on the asset of its model.

    `assets` maps each model to an asset key: a string (`/` separates a key's parts, as Dagster writes keys), a list
    of parts, an AssetKey, or None to leave the model's checks out (the one run still checks the whole contract, so the
    model's data must be readable). Every model must be mapped (a ValueError names
    the ones that are not, and a name that is no model); the contract's own checks (its service levels, model
    "(contract)") go to the first model's asset unless the mapping names one for "(contract)"."""
    return _planned(contract, assets, vars, prefix)[1]


def check_results(verdict: Verdict, planned: Sequence[Planned], log=None) -> list[dg.AssetCheckResult]:
    """Each planned check's result from the verdict: passed only when its outcome is `passed`; the check's
    severity (warning as WARN), and WARN for a check that was not evaluated; metadata from the verdict's check.
    A planned check the verdict lacks (the contract changed since the definitions were loaded) is not passed."""
    found = {check.check_id: check for model in verdict.models for check in model.checks}
    missing = [item.check.id for item in planned if item.check.id not in found]
    if missing and log is not None:
        log.warning(f"dc-bridge: the verdict has no check {', '.join(missing)}: reload the definitions")
    return [_result(item, found.get(item.check.id)) for item in planned]


def session_of(resource: Any, key: str):
    """The Spark session a resource gives: itself, or its `spark_session` (SparkResource, dagster-pyspark's)."""
    session = getattr(resource, "spark_session", resource)
    if not hasattr(session, "createDataFrame"):
        raise dg.DagsterInvariantViolationError(
            f"the resource `{key}` gives a {type(session).__name__}, not a Spark session: give a SparkSession, "
            f"dc_bridge.dagster.SparkResource(), or a resource with a `spark_session`")
    return session


def dagster_name(text: str, limit: int = NAME_LIMIT) -> str:
    """`text` as a Dagster name: accents folded to ASCII, each run of other characters an underscore, at most `limit`
    characters (a long one cut and given the digest of the whole text); "check" and the digest when nothing is left."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    name = _NOT_A_NAME.sub("_", folded).strip("_")
    return name if name and len(name) <= limit else _with_digest(name or "check", text, limit)


def check_names(ids: Sequence[str]) -> dict[str, str]:
    """Check id -> its Dagster name, distinct for distinct ids (compared without case too, as a case-insensitive
    database would): every id whose name others share gets the digest of the id, except the one spelled as its name.
    A ValueError when names still clash (an id spelled as another's digested name)."""
    names = {check_id: dagster_name(check_id) for check_id in ids}
    shared: dict[str, list[str]] = {}
    for check_id, name in names.items():
        shared.setdefault(name.lower(), []).append(check_id)
    for group in (group for group in shared.values() if len(group) > 1):
        kept = next((check_id for check_id in group if names[check_id] == check_id), None)
        for check_id in group:
            if check_id != kept:
                names[check_id] = _with_digest(names[check_id], check_id, NAME_LIMIT)
    taken: dict[str, str] = {}
    for check_id, name in names.items():
        other = taken.setdefault(name.lower(), check_id)
        if other != check_id:
            raise ValueError(f"checks {other!r} and {check_id!r} both become the Dagster check name {name!r}: "
                             f"rename one of them in the contract")
    return names


def _with_digest(name: str, text: str, limit: int) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:_DIGEST]
    return f"{name[:limit - _DIGEST - 1]}_{digest}"


def _check_run_options(contract: str | Path, run_options: Mapping[str, Any]) -> None:
    for key in run_options:
        if key in _ELSEWHERE:
            raise TypeError(f"dc_bridge.dagster.asset_checks({contract!s}): `{key}` is not a run option here: {_ELSEWHERE[key]}")
        if key not in _RUN_KEYWORDS:
            near = difflib.get_close_matches(key, sorted(_RUN_KEYWORDS), n=1)
            hint = f" (did you mean `{near[0]}`?)" if near else ""
            raise TypeError(f"dc_bridge.dagster.asset_checks({contract!s}): unknown run option `{key}`{hint}; "
                            f"the options are dc_bridge.run's: {', '.join(sorted(_RUN_KEYWORDS))}")
    # checked as dc_bridge.run checks them, now rather than when the first check runs
    values = {key: value for key, value in run_options.items() if key in _RUN_OPTIONS}
    if "engines" in values:
        values["engines"] = tuple(values["engines"])
    RunOptions(**values)


def _planned(contract: str | Path, assets: Mapping[str, Any] | None, vars: Mapping[str, str] | None, prefix: str | None):
    # patterns are compiled by the run, in its Spark JVM; here they only need ids, so no JVM starts to load definitions
    loaded, local_errors = load_for_run(contract, dict(vars or {}), regex_compiler=lambda patterns: [None] * len(patterns))
    plan, _ = plan_for_run(loaded, local_errors)
    keys = _asset_keys(str(contract), [model.name for model in loaded.models], assets)
    named = {f"{prefix}.{check.id}" if prefix else check.id: check.id for check in plan.checks}
    names = {named[text]: name for text, name in check_names(list(named)).items()}
    planned = [Planned(check, dg.AssetCheckSpec(
        names[check.id], asset=keys[check.model], description=_description(check), blocking=check.severity == "error",
        metadata={"dc_bridge/check_id": check.id, "dc_bridge/contract": str(contract)}))
        for check in plan.checks if keys.get(check.model) is not None]
    _refuse_shared_outputs(str(contract), planned)
    return loaded, planned


def _description(check: Check) -> str:
    what = check.description or f"{check.kind} of {', '.join(check.columns) or check.model}"
    return f"{check.id}: {what}"


def _asset_keys(contract: str, models: list[str], assets: Mapping[str, Any] | None) -> dict[str, dg.AssetKey | None]:
    """Model -> its asset key (None: left out), the contract's own checks' included."""
    mapping = dict(assets) if assets is not None else {model: model for model in models}
    unknown = [name for name in mapping if name not in models and name != CONTRACT_MODEL]
    if unknown:
        near = {name: difflib.get_close_matches(name, models, n=1) for name in unknown}
        said = ", ".join(f"`{name}`" + (f" (did you mean `{near[name][0]}`?)" if near[name] else "") for name in unknown)
        raise ValueError(f"{contract}: assets= names {said}, which is no model of the contract; its models: {', '.join(models)}")
    unmapped = [model for model in models if model not in mapping]
    if unmapped:
        raise ValueError(f"{contract}: assets= gives no asset for model(s) {', '.join(unmapped)}: map each model to its asset "
                         f"key, or to None to leave its checks out")
    keys = {model: _asset_key(contract, model, value) for model, value in mapping.items()}
    if CONTRACT_MODEL not in keys and models:
        keys[CONTRACT_MODEL] = keys[models[0]]
    return keys


def _asset_key(contract: str, model: str, value: Any) -> dg.AssetKey | None:
    if value is None:
        return None
    key = (value if isinstance(value, dg.AssetKey) else dg.AssetKey.from_user_string(value) if isinstance(value, str)
           else dg.AssetKey(list(value)))
    # Dagster names a check's output after its asset key: each part must become a Dagster name
    if not _NAME.fullmatch(key.to_python_identifier()):
        raise ValueError(f"{contract}: the asset key {key.to_user_string()!r} of model `{model}` is not one Dagster can name "
                         f"a check's output after (letters, digits, `_`, `-` and `.` in each part; `/` separates parts): "
                         f"give `{model}` a key of such parts in assets=")
    return key


def _refuse_shared_outputs(contract: str, planned: list[Planned]) -> None:
    """Dagster names each check's output `<asset key>_<check name>`: two checks on assets whose keys and names join
    alike (asset `a_b` check `c`, asset `a` check `b_c`) would be one output, which Dagster refuses obscurely."""
    seen: dict[str, Planned] = {}
    for item in planned:
        other = seen.setdefault(item.spec.get_python_identifier(), item)
        if other is not item:
            raise ValueError(f"{contract}: checks {other.check.id!r} (on {other.spec.asset_key.to_user_string()}) and "
                             f"{item.check.id!r} (on {item.spec.asset_key.to_user_string()}) would share Dagster's output "
                             f"name {item.spec.get_python_identifier()!r}: map their models to asset keys that do not")


def _result(item: Planned, check: CheckVerdict | None) -> dg.AssetCheckResult:
    spec = item.spec
    if check is None:
        return dg.AssetCheckResult(asset_key=spec.asset_key, check_name=spec.name, passed=False,
                                   severity=dg.AssetCheckSeverity.WARN,
                                   metadata={"outcome": "missing", "text": f"the run's verdict has no check {item.check.id}"})
    passed, own_severity = OUTCOMES[check.outcome]
    severity = SEVERITY[check.severity] if own_severity else dg.AssetCheckSeverity.WARN
    return dg.AssetCheckResult(asset_key=spec.asset_key, check_name=spec.name, passed=passed, severity=severity,
                               metadata=_metadata(check))


def _metadata(check: CheckVerdict) -> dict[str, Any]:
    unexpected = [result.unexpected_count for result in check.engines.values() if result.unexpected_count is not None]
    metadata: dict[str, Any] = {
        "outcome": check.outcome,
        "check_id": check.check_id,
        "engines": {engine: result.outcome for engine, result in check.engines.items()},
        "samples": len(check.samples),
        "text": check_text(check),
    }
    optional = {"observed": check.observed, "threshold": check.expected, "unit": check.unit if check.observed is not None else None,
                "unexpected_count": unexpected[0] if unexpected else None, "reason": check.reason}
    metadata.update({key: value for key, value in optional.items() if value is not None})
    return metadata


def _send_lineage(verdict: Verdict, log) -> None:
    """`openlineage=True`: the verdict's RunEvent, as `dc-bridge run --openlineage` sends it; lineage never fails the checks."""
    from dc_bridge.report.openlineage import LineageNotConfigured, emit

    try:
        log.info(f"openlineage: {emit([verdict])}")
    except LineageNotConfigured as exc:
        log.warning(f"openlineage: {exc}")
    except Exception as exc:  # the transport's own failure: the checks' results stand
        log.warning(f"openlineage: the event could not be sent: {type(exc).__name__}: {exc}")
