"""The console as a new user and a CI log see it (docs/reports.md, "The console summary"; docs/cli.md, "Verbosity").

- Snapshots of `dc-bridge run` at 80 and 200 columns, on a real run of the bundled orders contract with
  planted violations (in process, on the suite's session): the summary, the findings, the checks not run
  and why, and what the `(contract)` row is. Times are the only thing normalised. After a deliberate
  change to the console, rewrite the snapshots with `DC_BRIDGE_SNAPSHOTS=update pytest tests/test_console.py`.
- No line is wider than the console, and no model name, contract id or check id is cut, at any width a
  name fits in.
- Every option of every command has a help text; the root `--help` lists each command's description whole.
- Spark prints no log-level banner and no warnings unless asked (`-v`), and the Python API quiets the
  warnings of its own SQL on a caller's session without changing the caller's log level.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from rich.console import Console

import dc_bridge
from dc_bridge.cli import main
from dc_bridge.report.verdict_formats import print_console
from dc_bridge.runner import verbosity
from dc_bridge.verdict import CheckVerdict, ModelVerdict, Verdict

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
ORDER = "6513270e-269e-4d37-b2a7-4de452e6b438"
WINDOW_EXEC = "org.apache.spark.sql.execution.window.WindowExec"


@pytest.fixture(scope="module")
def broken_orders(tmp_path_factory):
    """The bundled orders with planted violations: a duplicate id, a bad email, a bad uuid, an orphan line item, a bad sku."""
    folder = tmp_path_factory.mktemp("orders")
    (folder / "orders.csv").write_text(
        "order_id,order_timestamp,order_total,customer_id,customer_email_address,processed_timestamp\n"
        f"{ORDER},2030-09-09T08:00:00Z,1500,1000000001,mary@example.com,2030-09-09T08:45:00Z\n"
        f"{ORDER},2030-09-09T08:30:00Z,3200,1000000002,not-an-email,2030-09-09T09:00:00Z\n"
        "not-a-uuid,2030-09-09T09:00:00Z,2500,1000000003,x@example.com,2030-09-09T09:10:00Z\n"
        "5e0b5b4e-4a5f-4a4e-8f7e-1f0e8c3b9a01,2030-09-09T09:30:00Z,1800,1000000004,y@example.com,2030-09-09T09:40:00Z\n")
    (folder / "line_items.csv").write_text(
        "line_item_id,order_id,sku\n"
        f"LI-1,{ORDER},5901234123457\n"
        "LI-2,00000000-0000-4000-8000-000000000000,4001234567890\n"
        f"LI-3,{ORDER},12-34\n")
    return folder


def run_at(width: int, *args: str) -> tuple[int, str]:
    """`dc-bridge run ...` in process, on a console of `width` columns and no terminal, as in CI."""
    result = CliRunner(env={"COLUMNS": str(width)}).invoke(main, ["run", *args], catch_exceptions=False)
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def console_runs(spark, broken_orders):
    """width -> (exit code, console text) of one run each, from the repository root (the contract path as a user types it)."""
    before = Path.cwd()
    os.chdir(ROOT)
    try:
        return {width: run_at(width, "contracts/orders.yaml", "--engines", "spark",
                              "--data", f"orders={broken_orders / 'orders.csv'}", "--data", f"line_items={broken_orders / 'line_items.csv'}")
                for width in (80, 200)}
    finally:
        os.chdir(before)


def normalised(text: str) -> str:
    """The console text with its times as `N.Ns`, without colours (FORCE_COLOR in a CI's environment) and
    without trailing spaces (a terminal's console pads lines with them)."""
    plain = re.sub(r"\x1b\[[0-9;]*m", "", re.sub(r"\b\d+\.\ds\b", "N.Ns", text))
    return "\n".join(line.rstrip() for line in plain.splitlines()) + "\n"


@pytest.mark.parametrize("width", [80, 200])
def test_console_snapshot(console_runs, width):
    code, output = console_runs[width]
    assert code == 1, output
    snapshot = SNAPSHOTS / f"console_orders_{width}.txt"
    if os.environ.get("DC_BRIDGE_SNAPSHOTS") == "update":
        snapshot.write_text(normalised(output))
    assert normalised(output) == snapshot.read_text(), f"the console changed; if on purpose, see this module's docstring\n{output}"


@pytest.mark.parametrize("width", [80, 200])
def test_the_real_run_fits_the_console_and_names_every_model_and_check_not_run_whole(console_runs, width):
    _, output = console_runs[width]
    lines = output.splitlines()
    assert max(len(line) for line in lines) <= width
    for name in ("orders", "line_items", "(contract)", "urn:datacontract:checkout:orders-latest"):
        assert any(name in line for line in lines), name
    for check_id in ("orders.customer_email_address.quality[0]", "(contract).retention", "(contract).availability"):
        assert any(f"- {check_id}: " in line for line in lines), check_id
    assert "…" not in output and "..." not in output
    assert "(contract) is the contract as a whole" in output and "not run (6), left out of the verdict:" in output
    # no terminal, as in a CI log or a file: no line carries the blanks rich pads table cells with
    assert [line for line in lines if line != line.rstrip()] == []


def _verdict(models: dict[str, str], contract_id: str = "urn:acme:crm:customer-lifetime-value") -> Verdict:
    """A verdict of a few models with long names: a failed check, a not_executable one, each with its reason."""
    def check(model: str, name: str, outcome: str, reason: str | None) -> CheckVerdict:
        return CheckVerdict(check_id=f"{model}.{name}", model=model, kind="not_null", columns=["id"], outcome=outcome,
                            severity="error", expected="= 0" if outcome == "failed" else None,
                            observed=2 if outcome == "failed" else None, reason=reason, source={"file": "c.yaml", "line": 7})

    built = []
    for model, outcome in models.items():
        checks = [check(model, "customer_identifier.required", outcome, None),
                  check(model, "described_in_words", "not_executable", "a text rule describes quality in words; no engine can run it")]
        counts = {o: sum(c.outcome == o for c in checks) for o in ("passed", "warning", "failed", "error", "not_executable", "skipped")}
        built.append(ModelVerdict(name=model, outcome=outcome, counts=counts, checks=checks))
    total = {o: sum(m.counts[o] for m in built) for o in built[0].counts}
    return Verdict(contract_id=contract_id, contract_version="2.1.0", contract_file="c.yaml", outcome="failed", counts=total,
                   models=built, engines=["spark"], engine_seconds={"spark": 1.25})


@pytest.mark.parametrize("width", [60, 80, 120, 200])
def test_long_names_are_never_cut_and_no_line_is_wider_than_the_console(width):
    models = {"customer_lifetime_value_by_region_and_month": "failed", "orders": "passed",
              "(contract)": "not_executable"}
    verdict = _verdict(models)
    console = Console(width=width, record=True, file=open(os.devnull, "w"), color_system=None)
    print_console(verdict, console)
    text = console.export_text()
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width, text
    names = [*models, verdict.contract_id, *(c.check_id for c in verdict.checks() if c.outcome != "passed")]
    for name in names:
        if len(name) <= width - 8:  # room beside the outcome or the list's dash: whole on one line
            assert any(name in line for line in lines), (name, text)
        assert name in re.sub(r"\s+", "", text), (name, text)
    assert "…" not in text, text


def test_a_name_wider_than_the_console_is_folded_never_dropped():
    verdict = _verdict({"a_model_whose_name_is_longer_than_the_whole_console_is_wide_x": "failed"})
    console = Console(width=40, record=True, file=open(os.devnull, "w"), color_system=None)
    print_console(verdict, console)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 40
    assert "a_model_whose_name_is_longer_than_the_whole_console_is_wide_x" in re.sub(r"\s+", "", text)
    assert "…" not in text


# ---------------------------------------------------------------------------------------------
# help texts


def _commands(command: click.Command, path: tuple[str, ...] = ("dc-bridge",)):
    yield path, command
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _commands(sub, (*path, name))


def test_every_option_of_every_command_has_a_help_text():
    missing = [f"{' '.join(path)} {param.opts[0]}" for path, command in _commands(main) for param in command.params
               if isinstance(param, click.Option) and not param.hidden and not (param.help or "").strip()]
    assert missing == []


def test_every_command_that_starts_spark_takes_verbose_and_quiet():
    starts_spark = {" ".join(path) for path, command in _commands(main)
                    if any("--master" in getattr(p, "opts", ()) for p in command.params)} | {"dc-bridge gx init"}
    for path, command in _commands(main):
        if " ".join(path) in starts_spark:
            options = {o for p in command.params for o in getattr(p, "opts", ())}
            assert {"-v", "--verbose", "-q", "--quiet"} <= options, path


def test_run_help_names_reader_options_and_says_what_output_is():
    result = CliRunner(env={"COLUMNS": "80"}).invoke(main, ["run", "--help"])
    flat = " ".join(result.output.split())
    assert "Spark reader option" in flat and "orders=o.json:json,multiLine" in flat
    assert "--output [console|json|junit|sarif|html|oors] The report:" in flat


@pytest.mark.parametrize("group", [(), ("gx",), ("soda",), ("history",)])
def test_group_help_lists_each_command_description_whole(group):
    result = CliRunner(env={"COLUMNS": "80"}).invoke(main, [*group, "--help"])
    assert result.exit_code == 0
    assert "..." not in result.output.split("Commands:")[1]
    command = main
    for name in group:
        command = command.commands[name]
    flat = " ".join(result.output.split())
    for name, sub in command.commands.items():
        first = re.split(r"(?<=[.:;])\s", " ".join(sub.help.split()), maxsplit=1)[0].rstrip(":;")
        # click may break a hyphenated word at the hyphen; the words are all there, in order
        assert first.replace("- ", "-") in flat.replace("- ", "-"), (name, first)
        assert max(len(line) for line in result.output.splitlines()) <= 80


# ---------------------------------------------------------------------------------------------
# verbosity: Spark's log


def _dc_bridge(*commands: list[str]) -> list[subprocess.CompletedProcess]:
    """Each command in a process of its own (a JVM of its own, started by dc-bridge), the processes side by side."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable, "COLUMNS": "80"}
    started = [subprocess.Popen([str(Path(sys.executable).with_name("dc-bridge")), *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT) for args in commands]
    try:
        outputs = [process.communicate(timeout=600) for process in started]
        return [subprocess.CompletedProcess(process.args, process.returncode, *output) for process, output in zip(started, outputs)]
    finally:
        for process in started:
            process.kill()


def test_a_session_dc_bridge_starts_prints_no_banner_and_no_warnings_unless_asked():
    # -v: Spark's warnings (here the window of the bundled contract's gap query), still no banner
    quiet, verbose = _dc_bridge(["run", "contracts/orders.yaml", "--engines", "spark"], ["run", "-v", "contracts/orders.yaml", "--engines", "spark"])
    assert quiet.returncode == 0, quiet.stderr[-3000:]
    assert quiet.stderr == "", quiet.stderr[-3000:]
    assert "contract verdict: passed" in quiet.stdout
    assert verbose.returncode == 0, verbose.stderr[-3000:]
    assert " WARN " in verbose.stderr and "Setting default log level" not in verbose.stderr, verbose.stderr[-3000:]
    assert verbose.stdout == quiet.stdout.replace(_seconds(quiet.stdout), _seconds(verbose.stdout))


def _seconds(text: str) -> str:
    return re.search(r"\(spark [\d.]+s\)", text).group(0)


def test_levels_reach_the_jvm_from_its_first_line():
    # a failed task's loggers (executor, task set) print only with -v: the check's error carries the cause
    for level, jvm, tasks in ((-1, "off", "off"), (0, "error", "off"), (1, "warn", "warn"), (2, "info", "info"), (5, "info", "info")):
        with verbosity.using(level):
            assert verbosity.java_options().endswith(f"-Ddc_bridge.log.level={jvm} -Ddc_bridge.log.tasks={tasks}")
    assert verbosity.current().jvm == "error"  # put back after the command


# the caller's own program: their session at pyspark's default (WARN on the console), dc-bridge's API on it,
# then the caller's own window query; markers on stderr show when the run starts and ends
CALLER = textwrap.dedent("""
    import sys
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    import dc_bridge
    print("RUN STARTS", file=sys.stderr, flush=True)
    verdict = dc_bridge.run("contracts/orders.yaml", spark=spark, engines=("spark",))
    print("RUN ENDS", verdict.outcome, file=sys.stderr, flush=True)
    spark.sql("SELECT id, LAG(id) OVER (ORDER BY id) FROM range(3)").collect()
    print("CALLER DONE", file=sys.stderr, flush=True)
""")


def test_the_api_quiets_its_own_window_warnings_on_a_callers_session_and_puts_the_level_back(tmp_path):
    script = tmp_path / "caller.py"
    script.write_text(CALLER)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    during = done.stderr.split("RUN STARTS", 1)[1].split("RUN ENDS", 1)
    assert "WindowExec" not in during[0], during[0][-3000:]
    # the caller's own window query warns as before: their log level is theirs
    assert "WindowExec" in during[1].split("CALLER DONE")[0], done.stderr[-3000:]


def test_the_quieted_logger_is_put_back_as_the_caller_had_it(spark):
    log4j = spark.sparkContext._jvm.org.apache.logging.log4j
    configuration = lambda: log4j.LogManager.getContext(False).getConfiguration()  # noqa: E731
    seen = []

    def during(_message: str) -> None:
        seen.append(log4j.LogManager.getLogger(WINDOW_EXEC).getLevel().toString())

    # no level of its own: none again afterwards
    dc_bridge.run(str(ROOT / "contracts" / "orders.yaml"), spark=spark, engines=("spark",), progress=during)
    assert seen and set(seen) == {"ERROR"}
    assert configuration().getLoggerConfig(WINDOW_EXEC).getName() != WINDOW_EXEC
    # a level of the caller's own: that level again afterwards
    log4j.core.config.Configurator.setLevel(WINDOW_EXEC, log4j.Level.WARN)
    try:
        seen.clear()
        dc_bridge.run(str(ROOT / "contracts" / "orders.yaml"), spark=spark, engines=("spark",), progress=during)
        assert seen and set(seen) == {"ERROR"}
        assert log4j.LogManager.getLogger(WINDOW_EXEC).getLevel().toString() == "WARN"
    finally:
        configuration().removeLogger(WINDOW_EXEC)
        log4j.LogManager.getContext(False).updateLoggers()


def test_gx_projects_dc_bridge_writes_run_checkpoints_without_progress_bars(tmp_path, capfd):
    """`gx init`'s project turns GX's own `progress_bars` off; a plain GX validation in it prints no bar."""
    import great_expectations as gx
    import pandas as pd
    from great_expectations.data_context.types.base import ProgressBarsConfig

    from dc_bridge.engines.gx import file_context

    context = file_context(tmp_path)
    assert "progress_bars:\n  globally: false\n  metric_calculations: false" in (tmp_path / "gx" / "great_expectations.yml").read_text()
    suite = context.suites.add(gx.ExpectationSuite(name="s", expectations=[
        gx.expectations.ExpectColumnValuesToNotBeNull(column="id"), gx.expectations.ExpectColumnValuesToBeUnique(column="id")]))
    batch = context.data_sources.add_pandas("p").add_dataframe_asset("a").add_batch_definition_whole_dataframe("w")
    capfd.readouterr()
    result = gx.get_context(mode="file", project_root_dir=str(tmp_path)).validation_definitions.add(
        gx.ValidationDefinition(name="v", data=batch, suite=suite)).run(batch_parameters={"dataframe": pd.DataFrame({"id": [1, 2]})})
    assert result.success
    assert "Calculating Metrics" not in capfd.readouterr().err
    # a project that sets them keeps its choice
    context.variables.progress_bars = ProgressBarsConfig(globally=True, metric_calculations=True)
    context.variables.save()
    assert file_context(tmp_path).variables.progress_bars["globally"] is True
