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

from dc_bridge.compiler import compile_for_run
from dc_bridge.contract.model import Contract
from dc_bridge.contract.sql import view_name
from dc_bridge.engines import gx


@dataclass
class InitReport:
    project: Path
    changes: list[gx.Change] = field(default_factory=list)
    checkpoints: dict[str, str] = field(default_factory=dict)     # model -> checkpoint name
    views: dict[str, str] = field(default_factory=dict)           # model -> temp view a foreign key reads
    parameters: dict[str, str] = field(default_factory=dict)      # suite parameter -> what it holds
    left_out: dict[str, str] = field(default_factory=dict)        # check id -> why it has no expectation


def init_project(contract: str | Path | Contract, project_dir: str | Path = ".", result_format: str = "summary",
                 variables: Mapping[str, str] | None = None) -> InitReport:
    """Create or update the GX project under `project_dir` (GX puts it in `project_dir/gx`); `variables`:
    the contract's ODCS 3.2 `${NAME}` values (`--var`)."""
    compiled = compile_for_run(contract, variables)
    suites = compiled.artifacts[gx.ENGINE.name]
    unfit = gx.unstorable(suite["name"] for suite in suites.values())
    if unfit:  # before GX creates anything: it would write such a suite outside the project, or raise
        raise gx.ProjectConflict("; ".join(unfit) + "; give the contract an id without leading, trailing or doubled dots "
                                 "and without `/` or `\\`")
    context = gx.file_context(project_dir)
    report = InitReport(project=Path(context.root_directory), left_out=dict(compiled.invalid))
    report.changes = gx.sync(context, compiled.plan.contract_id, suites, gx.RESULT_FORMATS[result_format],
                             spark_session=_quiet_session)
    report.checkpoints = {model: suite["name"] for model, suite in suites.items()}
    report.views = {model: view_name(compiled.plan.contract_id, model) for model in suites}
    report.parameters = gx.expectation_parameters(compiled.plan.checks, suites)
    return report


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
