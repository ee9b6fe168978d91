"""The compiled artifacts run as a user runs them, outside dc-bridge, against a run of dc-bridge.

`assert_plain_engines_fold_as_a_run(spark, contract_path, frames, folder)`: `dc-bridge compile` writes the
contract's SodaCL and GX suites under `folder`; the SodaCL runs in a plain Soda Core scan of the session
(Soda's own Spark DataFrame data source), the suites in a plain GX validation with the run's clock
parameters (engines/gx/run.py `clock_parameters`, what `dc-bridge gx init` tells a user to pass) and the
COMPLETE result format (`gx init --result-format complete`: under SUMMARY a failed SQL metric's value is
not in GX's result, docs/gx-project.md); each is
folded (`dc_bridge.fold_soda`, `dc_bridge.fold_gx`) and must give every check the outcome and number of
`dc_bridge.run` with that engine alone on the same DataFrames. A check judged against the clock differs
only in its age (the runs are seconds apart), so its number is not compared.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from click.testing import CliRunner


def assert_plain_engines_fold_as_a_run(spark, contract_path: Path, frames: dict, folder: Path, lacking: frozenset[str] = frozenset()) -> None:
    """`lacking`: models whose data lacks a column of the contract. A plain Soda scan's query that reads it
    fails, so there every check of that query is `error` where a run, which leaves the missing column's
    checks out of what it sends, counts the rest (and says `failed` for the missing column's own checks);
    GX raises on each expectation of the missing column (`error`). An `error` is all a difference may
    be, never another pass or fail."""
    from great_expectations.core import ExpectationSuite

    import dc_bridge
    from dc_bridge.cli import main
    from dc_bridge.compiler import compile_contract, safe_name
    from dc_bridge.contract.reading.load import load_contract
    from dc_bridge.contract.sql import view_name
    from dc_bridge.engines.gx.run import clock_parameters
    from dc_bridge.plan.checks import kind_of

    compiled = CliRunner().invoke(main, ["compile", str(contract_path), "--out", str(folder)], catch_exceptions=False)
    assert compiled.exit_code == 0, compiled.output
    contract = load_contract(contract_path).contract
    stem = safe_name(contract.id, "contract")  # the contract's folder, as compile names it
    plan = compile_contract(contract).plan
    clock = {check.id for check in plan.checks if kind_of(check).clock}
    views = {view_name(contract.id, name): frame for name, frame in frames.items()}
    for view, frame in views.items():
        frame.createOrReplaceTempView(view)
    try:
        scans = [plain_soda_scan(spark, (folder / "soda_checks" / stem / f"{safe_name(name, 'model')}.yml").read_text())
                 for name in frames]
        validated = [plain_gx_batch(frame).validate(
                         ExpectationSuite(**json.loads((folder / "expectation_suites" / stem / f"{safe_name(name, 'model')}.json").read_text())),
                         expectation_parameters=clock_parameters(frame, plan.for_model(name), datetime.now().astimezone()),
                         result_format="COMPLETE")
                     for name, frame in frames.items()]
    finally:
        for view in views:
            spark.catalog.dropTempView(view)
    for engine, folded in (("soda", dc_bridge.fold_soda(scans, contract)), ("gx", dc_bridge.fold_gx(validated, contract))):
        run = dc_bridge.run(contract, dataframes=frames, spark=spark, engines=[engine], samples=False)
        ran = {c.check_id: (c.outcome, None if c.check_id in clock else c.observed) for c in run.checks()}
        plain = {c.check_id: (c.outcome, None if c.check_id in clock else c.observed) for c in folded.checks()}
        models = {c.check_id: model.name for model in run.models for c in model.checks}
        differ = {k for k in set(ran) | set(plain) if ran.get(k) != plain.get(k)
                  and not (models.get(k) in lacking and plain.get(k, ("",))[0] == "error")}
        assert not differ, f"{contract_path.name}, {engine}: " + ", ".join(
            f"{k} run {ran.get(k)} plain {plain.get(k)}" for k in sorted(differ))


def plain_soda_scan(spark, sodacl: str):
    """`sodacl` executed in a Soda Core scan of the session as a user writes one (Soda's own Spark
    DataFrame data source, not dc-bridge's); its tables are the session's views."""
    from soda.scan import Scan

    import dc_bridge.engines.soda.run  # noqa: F401  (Soda telemetry off, as in every dc-bridge run)

    scan = Scan()
    scan.set_data_source_name("spark_df")  # before the SodaCL, or its checks bind to no data source
    scan.add_spark_session(spark, data_source_name="spark_df")
    scan.add_sodacl_yaml_str(sodacl)
    scan.execute()
    return scan


def plain_gx_batch(frame):
    """A GX batch of the whole `frame` in an ephemeral context, as a user's own validation gets one."""
    import great_expectations as gx

    return (gx.get_context(mode="ephemeral").data_sources.add_spark("plain").add_dataframe_asset("frame")
            .add_batch_definition_whole_dataframe("whole").get_batch(batch_parameters={"dataframe": frame}))
