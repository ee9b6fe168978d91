"""`dc-bridge gx init`: a contract as the objects of a GX 1.x file-context project, which a team then
runs with plain GX. The objects, how a re-run updates them and the result formats are in
engines/gx/project.py; this module compiles the contract, writes them into the project and says
what a team needs to run them (checkpoint names, suite parameters, the temp views foreign keys read).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from dc_bridge.compiler import Compiled, compile_for_run
from dc_bridge.contract.model import Contract
from dc_bridge.contract.sql import view_name
from dc_bridge.engines.gx.project import RESULT_FORMATS, Change, ProjectConflict, sync, unstorable
from dc_bridge.engines.gx.translate import freshness_parameter


@dataclass
class InitReport:
    project: Path
    changes: list[Change] = field(default_factory=list)
    checkpoints: dict[str, str] = field(default_factory=dict)     # model -> checkpoint name
    views: dict[str, str] = field(default_factory=dict)           # model -> temp view a foreign key reads
    parameters: dict[str, str] = field(default_factory=dict)      # suite parameter -> what it holds
    left_out: dict[str, str] = field(default_factory=dict)        # check id -> why it has no expectation


def init_project(contract: str | Path | Contract, project_dir: str | Path = ".", result_format: str = "summary",
                 variables: Mapping[str, str] | None = None) -> InitReport:
    """Create or update the GX project under `project_dir` (GX puts it in `project_dir/gx`); `variables`:
    the contract's ODCS 3.2 `${NAME}` values (`--var`)."""
    import dc_bridge.engines.gx.run  # noqa: F401  (GX analytics off before GX is imported)
    import great_expectations as gx

    compiled = compile_for_run(contract, variables)
    unfit = unstorable(suite["name"] for suite in compiled.suites.values())
    if unfit:  # before GX creates anything: it would write such a suite outside the project, or raise
        raise ProjectConflict("; ".join(unfit) + "; give the contract an id without leading, trailing or doubled dots "
                              "and without `/` or `\\`")
    context = gx.get_context(mode="file", project_root_dir=str(project_dir))
    report = InitReport(project=Path(context.root_directory), left_out=dict(compiled.invalid))
    report.changes = sync(context, compiled.plan.contract_id, compiled.suites, RESULT_FORMATS[result_format],
                          spark_session=_quiet_session)
    report.checkpoints = {model: suite["name"] for model, suite in compiled.suites.items()}
    report.views = {model: view_name(compiled.plan.contract_id, model) for model in compiled.suites}
    report.parameters = expectation_parameters(compiled)
    return report


def expectation_parameters(compiled: Compiled) -> dict[str, str]:
    """The run-time suite parameters a checkpoint needs (`expectation_parameters=`), with what each holds."""
    # as Python a user can paste: naive local time is how PySpark hands GX the column's max
    return {freshness_parameter(check): f"datetime.now() - timedelta(seconds={check.params.max_age.total_seconds():g}), "
            f"the oldest allowed max({check.column}) (for a date column: its date())"
            for check in compiled.plan.checks if check.kind == "freshness" and check.model in compiled.suites}


@contextmanager
def _quiet_session():
    """GX starts a Spark session to test a new Spark data source: let it find a quiet one (UI off,
    logs at ERROR) instead of building its own, and stop it again if this call started it."""
    from dc_bridge.runner.data import get_session

    spark, created = get_session()
    try:
        yield
    finally:
        if created:
            spark.stop()
