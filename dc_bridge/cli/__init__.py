"""The `dc-bridge` command line. Each command is a thin wrapper over the pipeline's functions."""

from __future__ import annotations

import inspect
import re
import sys

import click

from dc_bridge.outcomes import EXIT_FINDINGS, EXIT_OK, EXIT_UNREADABLE, FAIL_ON

from dc_bridge import __version__
from dc_bridge.cli import catalog, evolution, importing, integrations, lifecycle, outputs, quarantine
from dc_bridge.cli import history as history_commands  # `run` has a --history option of that name
from dc_bridge.cli import monitor as monitor_commands
from dc_bridge.cli.options import (DATA_METAVAR, READER_HELP, Group, collector_paused, conf_pairs, default_engines, in_project,
                                   report_console, run_enforce, with_settings, with_variables, with_verbosity)
from dc_bridge.report.finding_formats import FORMATTERS
from dc_bridge.runner.timeouts import DEFAULT_SECONDS

_UNREADABLE_CODES = {"DCB001", "DCB002", "DCB006"}
# a missing-data hint where `run` refuses --data (runner/options.py `elsewhere`): several contracts, a registered fleet
_ELSEWHERE = {"several": "run this contract on its own with --data {model}=PATH to read it from elsewhere",
              "registered": "a registered text's relative path is read from the project's folder: put the data there, or "
                            "register a version whose server names where it is"}


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dc-bridge")
def main() -> None:
    """Check data contracts (DCS 1.x, ODCS 3.x) with Great Expectations and Soda on Spark."""


def command() -> None:
    """`dc-bridge` as a process of its own (pyproject.toml's script): `main`, told that the process is the command's
    (cli/options.py `collector_paused`)."""
    from dc_bridge.cli import options

    options.own_process()
    main()


@main.command()
@with_settings
@with_variables
@click.argument("contracts", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=str))
@click.option("--format", "output_format", type=click.Choice(sorted(FORMATTERS)), default="text", show_default=True,
              help="Output format; sarif is SARIF 2.1.0 for code-scanning tools.")
@click.option("--output-file", type=click.Path(dir_okay=False, writable=True), help="Write the report here instead of stdout.")
def lint(contracts: tuple[str, ...], output_format: str, output_file: str | None, variables: dict[str, str]) -> None:
    """Validate contracts against their standard's schema and dc-bridge's rules.

    Exit 0 when no errors (warnings allowed), 1 when errors were found, 2 when a file could not be read.
    """
    from dc_bridge.contract.lint import lint_file

    results = []
    for path in contracts:
        with collector_paused():
            results.append(lint_file(path, variables))
    findings = [f for result in results for f in result.findings]
    report = FORMATTERS[output_format](findings, list(contracts))
    if output_file:
        outputs.check_file("--output-file", output_file,
                           [i for path, result in zip(contracts, results) for i in outputs.contract_inputs(path, result)])
        outputs.write_text("--output-file", output_file, report + "\n")
    else:
        click.echo(report)
    if any(f.code in _UNREADABLE_CODES for f in findings if f.file in contracts):
        sys.exit(EXIT_UNREADABLE)
    sys.exit(EXIT_FINDINGS if any(f.level == "error" for f in findings) else EXIT_OK)


@main.command(name="compile")
@in_project
@with_variables
@click.argument("contracts", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=str))
@click.option("--out", "out_dir", default=".", show_default=True, type=click.Path(file_okay=False, path_type=str),
              help="Folder under which expectation_suites/ and soda_checks/ are written.")
@click.option("--explain", is_flag=True, help="Also print, per contract element, the check ids produced in each engine.")
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 if a compiled file is missing or stale.")
def compile_command(contracts: tuple[str, ...], out_dir: str, explain: bool, check_only: bool, variables: dict[str, str]) -> None:
    """Compile contracts to GX expectation suites and SodaCL files.

    Exit 0 on success, 1 when --check finds stale files, 2 when a contract has errors that change what runs.
    Errors confined to one check (a bad regex, a reference naming nothing) leave that check out and are
    reported; errors of conformance alone (DCB100) are reported and change nothing.
    """
    from pathlib import Path

    from dc_bridge import compiler
    from dc_bridge.report import explain as explain_report

    # everything is compiled and checked before anything is written: a contract with errors, two
    # models or contracts that would share a file, or a file that is an input stops the command first
    compiled_all, renders, inputs = [], [], []
    for path in contracts:
        with collector_paused():
            loaded, local_errors = _load_or_exit(path, variables)
            inputs += outputs.contract_inputs(path, loaded)
            if loaded.kind == "library":
                compiled_all.append((path, None))
                continue
            plan, invalid = compiler.plan_for_run(loaded.contract, local_errors)
            compiled = compiler.compile_contract(loaded.contract, invalid=invalid, plan=plan)
            try:
                renders.append((path, compiler.rendered(compiled, Path(out_dir))))
            except compiler.OutputError as exc:
                raise outputs.OutputRefused(f"nothing written; {exc}") from None
            compiled_all.append((path, compiled))
    try:
        compiler.merged(renders, Path(out_dir))
    except compiler.OutputError as exc:
        raise outputs.OutputRefused(f"nothing written; {exc}") from None
    if not check_only:
        for create in (False, True):  # every refusal before any folder is created
            outputs.check_folder("--out", out_dir, inputs, owned=(), create=create)  # its files are checked one by one
            for _, files in renders:
                for file in files:
                    outputs.check_file(f"--out {out_dir}: the compiled file", str(file), inputs, written="it",
                                       fix="Choose another --out folder.", create=create)
    files_of = dict(renders)
    stale: list[Path] = []
    for path, compiled in compiled_all:
        if compiled is None:
            click.echo(f"{path}: a shared quality-rule library; its rules compile where a contract imports them")
            continue
        files = files_of[path]
        if check_only:
            stale += [p for p, text in files.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        else:
            try:
                written = compiler.write(files)
            except OSError as exc:
                raise outputs.OutputRefused(f"cannot write under --out {out_dir}: {exc}") from None
            left_out = f" ({len(compiled.invalid)} left out for the errors above)" if compiled.invalid else ""
            click.echo(f"{path}: {len(compiled.plan.checks)} checks{left_out}, {len(files)} files ({len(written)} changed) under {out_dir}")
        if explain:
            click.echo(explain_report.as_text(compiled))
    if stale:
        click.echo("stale or missing compiled files (run `dc-bridge compile`):\n" + "\n".join(f"  {p}" for p in stale), err=True)
        sys.exit(EXIT_FINDINGS)


def _load_or_exit(path: str, variables: dict[str, str]):
    """Load a contract to compile, and its check-local errors. Errors that change what runs stop here, with the
    lint report; errors of conformance alone and check-local ones are reported and compile goes on without the
    checks they concern (compiler.py)."""
    from dc_bridge.compiler import split_errors
    from dc_bridge.contract.lint import lint_file

    result = lint_file(path, variables)
    stopping, local = split_errors(result.findings)
    if result.contract is None or stopping:
        click.echo(FORMATTERS["text"](stopping or result.findings, [path]), err=True)
        sys.exit(EXIT_UNREADABLE)
    if local:
        click.echo(FORMATTERS["text"](local, [path]), err=True)
    conformance = sum(f.level == "error" for f in result.findings) - len(local)
    if conformance:
        click.echo(f"{path}: {conformance} error(s) of conformance (the official schema, the contract's own examples), which compile goes past; "
                   f"`dc-bridge lint` lists them", err=True)
    return result, local


class _TimeLimit(click.ParamType):
    """`--timeout`: a positive number of seconds, or `none` for no limit."""

    name = "seconds"

    def convert(self, value, param, ctx):
        if value is None or isinstance(value, float):
            return value
        if str(value).strip().lower() in ("none", "off"):
            return None
        try:
            seconds = float(value)
        except ValueError:
            seconds = float("nan")
        if not 0 < seconds < float("inf"):
            self.fail(f"{value!r} is not a time limit: give a positive number of seconds, or `none` for no limit", param, ctx)
        return seconds


@main.command(name="run")
@in_project
@with_variables
@with_verbosity
@run_enforce
@click.argument("contracts", nargs=-1, metavar="CONTRACT...")
@click.option("--registered", is_flag=True,
              help="Instead of CONTRACT...: every contract registered in --catalog's --namespace(s), its current version's "
                   "stored text, verified by its digest; a model without a server Spark reads is read from the catalog's table "
                   "(docs/catalogs.md).")
@click.option("--catalog", "catalog_spec", metavar="iceberg[:NAME]|spark",
              help="With --registered: the catalog (default: `catalog` in the project configuration).")
@click.option("--namespace", "namespaces", multiple=True, metavar="NS",
              help="With --registered: a namespace to run (repeatable; default: `namespace` in the project configuration).")
@click.option("--contract", "contract_glob", metavar="GLOB", help="With --registered: only the contracts whose id matches GLOB.")
@click.option("--parallel", type=click.IntRange(1, 64), default=1, show_default=True, metavar="N",
              help="Run N contracts at a time in the one Spark session (each in a FAIR scheduler pool of its own); the "
                   "report keeps the contracts' order.")
@click.option("--engines", help="Engines to run, comma-separated: gx, soda, spark (the native fused engine, fastest). "
                               "Default: `engines` in the project configuration, else gx,soda.")
@click.option("--server", help="The contract server to read data from (default: a local server, else the first readable one).")
@click.option("--data", "data_options", multiple=True, metavar=DATA_METAVAR,
              help=f"Read MODEL from PATH (a file, folder or glob) instead of the server (repeatable). {READER_HELP}")
@click.option("--where", help="One Spark SQL condition over a model's columns, applied before checking, e.g. "
                             "\"order_timestamp >= '2024-01-01'\"; a model without those columns is checked unfiltered "
                             "(the verdict lists it under where_not_applied).")
@click.option("--master", help="Spark master URL (default: an embedded local session).")
@click.option("--conf", "conf_options", multiple=True, metavar="KEY=VALUE", help="Spark configuration (repeatable).")
@click.option("--output", "output_format", type=click.Choice(["console", "json", "junit", "sarif", "html", "oors"]),
              default="console", show_default=True,
              help="The report: a console summary, the whole verdict as JSON, JUnit XML (one test case per check), SARIF "
                   "2.1.0 for code scanning (each problem at its contract line), one "
                   "self-contained HTML page, or oors (Bitol's Open Observability Results Standard: RFC 0018, apiVersion v0.1.0) "
                   "(docs/reports.md); with --output-file, the console summary goes to stderr too.")
@click.option("--output-file", type=click.Path(dir_okay=False, writable=True),
              help="Write the json/junit/sarif/html/oors report here instead of stdout.")
@click.option("--data-docs", type=click.Path(file_okay=False, path_type=str),
              help="Also build a GX Data Docs site of the contract's suites in this folder (a second GX pass).")
@click.option("--fail-on", type=click.Choice(FAIL_ON), default="failed", show_default=True,
              help="Exit 1 on failures only, or on warnings too.")
@click.option("--samples/--no-samples", default=True, show_default=True,
              help="Fetch a few failing values per failed check (never for pii or sensitive fields).")
@click.option("--timeout", type=_TimeLimit(), default=DEFAULT_SECONDS, metavar="SECONDS|none", show_default=True,
              help="Limit each engine's run on each model; on expiry its Spark jobs are cancelled and its checks are errors. "
                   "`none`: no limit.")
@click.option("--side-by-side/--one-by-one", default=True, show_default=True,
              help="Run the selected engines on a model at the same time on one Spark session, or one after the other.")
@click.option("--cache/--no-cache", default=False, show_default=True,
              help="Persist each model's data for the run (memory, spilling to disk) so the source is read once.")
@click.option("--history", type=click.Path(dir_okay=False), metavar="TARGET",
              help="Record each contract's run in this history (a SQLite store, `table:db.name` in the Spark catalog, or a .jsonl "
                   "file; created if missing, never rewritten; docs/history.md) and judge availability and errorRate SLAs over "
                   "the runs it records.")
@click.option("--openlineage", is_flag=True,
              help="Also send one OpenLineage RunEvent per contract (data quality assertions and metrics on its datasets) "
                   "through the transport OpenLineage's own configuration names (openlineage.yml, OPENLINEAGE_URL, ...); "
                   "without one, nothing is sent (docs/reports.md).")
@click.option("--metrics-push", metavar="URL",
              help="Also push each contract's metrics to the Prometheus Pushgateway at URL (http or https), one group per "
                   "contract (job=dc-bridge, contract=ID) replaced by each run; an unreachable gateway is a warning, the "
                   "verdict stands (docs/monitoring.md).")
@click.option("--metrics-file", type=click.Path(dir_okay=False), metavar="PATH",
              help="Also write the contracts' metrics to PATH for node_exporter's textfile collector (name it *.prom), "
                   "replaced whole by each run (docs/monitoring.md).")
@click.option("--explain", is_flag=True,
              help="Also print the run's phases (read, lint, plan, data, translate, each engine per model, fold, ...) "
                   "and how long each took.")
@click.option("--quarantine", "quarantine_path", metavar="PATH",
              help="Split the model's rows by the contract instead of only judging them: write the rows that violate an "
                   "error-severity row-level check here, each with the list of its violations (docs/enforcing.md). "
                   "Needs --valid-output; judged by the native engine unless --engines is given.")
@click.option("--valid-output", metavar="PATH", help="With --quarantine: write the other rows here, with their own columns only.")
@click.option("--model", "split_model", metavar="NAME", help="With --quarantine: the model whose rows are split (needed when the "
                                                             "contract has several).")
@click.option("--split-format", type=click.Choice(quarantine.SPLIT_FORMATS), default="parquet", show_default=True,
              help="With --quarantine: the format both outputs are written in.")
@click.option("--overwrite", is_flag=True, help="With --quarantine: replace outputs that exist (only once the new ones are complete).")
@click.option("--allow-retired", is_flag=True, help="Run a contract whose version the registry says is retired (refused otherwise; "
                                                     "docs/catalogs.md).")
def run_command(contracts, engines, server, data_options, where, master, conf_options, output_format, output_file, fail_on, samples,
                data_docs, timeout, side_by_side, cache, history, openlineage, metrics_push, metrics_file, explain, quarantine_path,
                valid_output, split_model, split_format, overwrite, variables, registered=False, catalog_spec=None, namespaces=(),
                contract_glob=None, parallel=1, enforce_levels=(), allow_retired=False) -> None:
    """Check a contract's data with Great Expectations and Soda and print one verdict.

    Several contracts (files, or globs in quotes) are checked one after the other in one process and
    one Spark session: one verdict each, and the highest of their exit codes; --parallel N checks N
    at a time. With --registered, they are the contracts registered in a catalog's namespaces
    (docs/catalogs.md).

    With --quarantine and --valid-output, one model's rows are split by the contract and written out
    (docs/enforcing.md), with the verdict of the split.

    Exit 0 passed (warnings allowed unless --fail-on warning), 1 failed, 2 error, bad input, or
    nothing evaluated at all.
    """
    import dataclasses
    import functools
    import time
    from datetime import datetime, timezone
    from pathlib import Path

    from rich.text import Text  # contract text (model names) is never markup

    from dc_bridge.report import verdict_formats
    from dc_bridge.compiler import ContractError
    from dc_bridge.runner.fleet import run_all
    from dc_bridge.runner.pipeline import Refused, SessionOnFirstNeed, check, read_contract, shared_ids, unchecked
    from dc_bridge.runner.data import DataError, parse_data_option
    from dc_bridge.history import is_jsonl, is_table, open_history
    from dc_bridge.runner.options import RunOptions
    from dc_bridge.report.prometheus import Targets
    from dc_bridge.verdict import Verdict

    console = report_console(stderr=output_format != "console" and not output_file)
    selected = [e.strip() for e in (engines or default_engines()).split(",") if e.strip()]
    scratch = None  # where the registered texts are read from, removed at the end
    from_tables: set[str] = set()  # registered contracts read from their catalog's tables
    try:
        conf = conf_pairs(conf_options)
        if parallel > 1:  # the contracts' pools share the cores, rather than queueing behind each other's jobs
            conf.setdefault("spark.scheduler.mode", "FAIR")
        if registered:
            import tempfile

            if contracts or quarantine_path:
                raise click.UsageError(f"--registered runs the contracts registered in a catalog: leave out "
                                       f"{'CONTRACT...' if contracts else '--quarantine'}.")
            scratch = tempfile.TemporaryDirectory(prefix="dc-bridge-registered-")
            session = SessionOnFirstNeed(master, conf, selected)
            spec, runs, from_tables = catalog.registered_runs(catalog_spec, namespaces, contract_glob, Path(scratch.name), session,
                                                              variables)
            files, reads = [label for label, _ in runs], [read for _, read in runs]  # a text refused: why, in place of a read
        else:
            for given, option in ((catalog_spec, "--catalog"), (namespaces, "--namespace"), (contract_glob, "--contract")):
                if given:
                    raise click.UsageError(f"{option} belongs to --registered; give it with --registered, or give CONTRACT... alone.")
            if not contracts:
                raise click.UsageError("give CONTRACT... (files, or globs in quotes), or --registered with a catalog.")
            files = contract_files(contracts)
        several = len(files) > 1 or registered
        if several and (data_options or data_docs):
            option = "--data" if data_options else "--data-docs"
            raise click.UsageError(f"{option} belongs to one contract, and {len(files)} were given; run each contract "
                                   f"that needs {option} on its own.")
        data = dict(parse_data_option(option, Path(files[0]).parent) for option in data_options)
        metrics = Targets(push=metrics_push, file=metrics_file)  # a malformed URL or unwritable file: exit 2 before anything runs
        # each contract is read once, here: before Spark starts, a report or site that would replace one of
        # the files it reads, or could not be written after the run, stops the command; the run lints what was read
        if not registered:
            reads = [read_contract(file, variables) for file in files]
        # a quality-rule library has no data of its own: its rules run where a contract imports them
        for file, read in zip(files, reads):
            if not isinstance(read, Refused) and read.result.kind == "library":
                click.echo(f"{file}: a shared quality-rule library; its rules run where a contract imports them", err=True)
        kept = [(file, read) for file, read in zip(files, reads) if isinstance(read, Refused) or read.result.kind != "library"]
        if not kept:
            raise ValueError("nothing to run: every file given is a quality-rule library; run a contract that imports it")
        files, reads = [file for file, _ in kept], [read for _, read in kept]
        several = len(files) > 1 or registered
        # every output held to the rule the run holds it to again (runner/outputs.py), for every contract before any runs
        from dc_bridge.runner.outputs import RunOutputs, lineage_file

        written = RunOutputs(output_file=output_file if output_format != "console" else None, data_docs=data_docs, history=history,
                             metrics_file=metrics_file, openlineage=lineage_file() if openlineage else None)
        for file, read in zip(files, reads):
            if not isinstance(read, Refused):
                outputs.check_run_outputs(read.result, written, data, server, "cli")
        reads = shared_ids(reads)  # two of one id: each refused (its outputs checked above all the same)
        split = quarantine.requested(files, reads[0], quarantine=quarantine_path, valid_output=valid_output, model=split_model,
                                     split_format=split_format, overwrite=overwrite, data=data, server=server, data_docs=data_docs,
                                     history=history)
        if split is not None and not engines:
            selected = list(quarantine.SPLIT_ENGINES)
        # read once for every contract: a file that is not a dc-bridge history stops the run here, not after the first contract
        # (a table in the Spark catalog is opened by each run in its session)
        recorded = open_history(history) if history and not is_table(history) else None
        from dc_bridge.runner.history import History, cut_short_note

        if isinstance(recorded, History) and recorded.cut_short:  # a record a run stopped while writing it, passed over
            click.echo(f"note: {cut_short_note(history, recorded.cut_short)}", err=True)
        # the project's [tool.dc-bridge.monitors] and enforcement.monitors (a run reads no other enforcement level)
        from dc_bridge.config import current as project_settings
        from dc_bridge.monitors import monitor_settings

        monitoring = monitor_settings(project_settings().overridden(dict(enforce_levels))) if history else None
        if recorded is not None and is_jsonl(history) and monitoring.level != "off":
            from dc_bridge.runner.monitoring import jsonl_note

            click.echo(f"note: {jsonl_note(history)}", err=True)  # once, for every contract of the command
        # several contracts share one session, started by the first run that needs Spark (after its lint's
        # first half) and stopped at the end; one contract's run starts (and stops) its own
        if not registered:
            session = SessionOnFirstNeed(master, conf, selected) if several else None
        if session is not None and split is None:  # small files all: the shared session compiles with C1, as one run's
            from dc_bridge.runner.data import embedded
            from dc_bridge.runner.pipeline import small_contracts

            session.small_data = small_contracts(reads, server, embedded(master, conf))
        # the options every contract shares, checked once (a --where that is no expression is the command's bad input)
        shared = RunOptions(engines=tuple(selected), server=server, data=data, where=where, master=None if several else master,
                            conf=None if several else conf, samples=samples, data_docs=data_docs, timeout=timeout,
                            side_by_side=side_by_side, cache=cache, vars=variables, history=history, monitors=monitoring,
                            elsewhere=_ELSEWHERE["registered" if registered else "several"] if several else None,
                            output_file=written.output_file, metrics_file=metrics_file, openlineage=openlineage, spelled="cli")
    except (DataError, ValueError) as exc:
        click.echo(f"dc-bridge run: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    status = None  # the progress line, on a terminal only
    tally = ""  # how far a fleet is (runner/fleet.py Tally)
    lifecycles: dict = {}  # each catalog namespace's lifecycle, read once for every contract (cli/lifecycle.py for_run)

    def say(file: str, message: str) -> None:
        if status is not None:
            status.update(Text(" · ".join(part for part in (tally, f"{file}: {message}" if several else message) if part)))

    def one(file: str, read) -> Verdict:
        """One contract's verdict; a contract that cannot be checked is a verdict of its own (`error`, exit 2), said
        in every channel under the contract's id: `check` records it in the history and hands it over (`ended`)."""
        ended: list[Verdict] = []
        options = dataclasses.replace(shared, progress=lambda message: say(file, message), now=datetime.now(timezone.utc))
        preflight = None
        if file in from_tables:
            from dc_bridge.catalog.fleet import check_iceberg_session

            preflight = functools.partial(check_iceberg_session, spec=spec)
        try:
            from dc_bridge.cli.lifecycle import for_run, registered_place
            from dc_bridge.verdict import with_lifecycle

            # the registry's state of the version: a retired one stops here (DataError), a deprecated one is a note
            found = None if isinstance(read, Refused) else \
                for_run(read, *(registered_place(spec, file, read) if registered else (None, None)), allow_retired=allow_retired,
                        known=lifecycles)
            if split is not None:
                return with_lifecycle(quarantine.split_and_write(read, split, options), found)
            # the run folds the finding in before its history records it
            return check(read, dataclasses.replace(options, lifecycle=found), spark=session, history=recorded,
                         preflight=preflight, on_unchecked=ended.append)
        except Exception as exc:  # an error no run expects too: this contract's error, the others go on
            click.echo(FORMATTERS["text"](exc.findings, [file]) if isinstance(exc, ContractError) else
                       f"dc-bridge run: {file + ': ' if several else ''}{exc}" if isinstance(exc, (DataError, ValueError)) else
                       f"dc-bridge run: {file}: {type(exc).__name__}: {exc}", err=True)
            return ended[0] if ended else unchecked(read, exc, options)

    def done(progress) -> None:
        nonlocal tally
        if several:
            tally = progress.line()
            if status is not None:
                status.update(Text(tally))

    def crashed(index: int, exc: BaseException) -> Verdict:  # an error outside any run (its progress line): the others go on
        click.echo(f"dc-bridge run: {files[index]}: {type(exc).__name__}: {exc}", err=True)
        return unchecked(reads[index], exc, shared)

    # two contracts of one id share their views' names: never run at once (shared_ids refuses them anyway)
    works = [(file if isinstance(read, Refused) or read.result.contract is None else read.result.contract.id,
              lambda file=file, read=read: one(file, read)) for file, read in zip(files, reads)]
    try:
        with _progress(console).status("checking") as status:
            verdicts = run_all(works, parallel, failed=lambda v: v.outcome in ("failed", "error"), on_error=crashed, on_done=done,
                               spark=lambda: session.get()[0] if session is not None else None)
    finally:
        if session is not None:
            session.stop()
        if scratch is not None:
            scratch.cleanup()
    shown = verdicts if several else verdicts[0]
    began = time.perf_counter()
    if output_format == "console":
        if several or not shown.error:  # one contract that could not be checked: its line on standard error said it
            _print_console(shown, console, fail_on)
    else:
        from dc_bridge.report import html

        from dc_bridge.report.oors import as_oors

        text = ((html.as_html_many(shown) if several else html.for_run(shown, data_docs, output_file)) if output_format == "html" else
                verdict_formats.as_json(shown) if output_format == "json" else
                as_oors(shown) if output_format == "oors" else
                verdict_formats.as_sarif(shown, _model_lines(reads)) if output_format == "sarif" else verdict_formats.as_junit(shown))
        if output_file:
            outputs.write_text("--output-file", output_file, text + "\n")
        else:
            click.echo(text)
    if output_file and output_format != "console" and (several or not shown.error):
        _print_console(shown, report_console(stderr=True), fail_on)
    if openlineage:
        _send_lineage(verdicts)
    _send_metrics(verdicts, metrics)
    if explain:  # where the console report went; beside a JSON, JUnit or HTML report on stdout, to stderr
        verdict_formats.print_phases(verdicts, console if output_format == "console" else report_console(stderr=True),
                                     report_seconds=time.perf_counter() - began)
    sys.exit(max(verdict.exit_code(fail_on) for verdict in verdicts))


def _model_lines(reads) -> dict[str, dict[str, int | None]]:
    """Contract file -> model -> the line it is written at: where SARIF puts a model's monitors."""
    from dc_bridge.runner.pipeline import Refused

    return {read.result.file: {model.name: model.source.line for model in read.result.contract.models}
            for read in reads if not isinstance(read, Refused) and read.result.contract is not None}


def _progress(console):
    """Where the line that says what a run is doing goes (rich shows it on a terminal only): nowhere with --quiet."""
    from rich.console import Console

    from dc_bridge.runner import verbosity

    return console if verbosity.level() >= 0 else Console(quiet=True)


def _send_lineage(verdicts) -> None:
    """`--openlineage`: the events, or why none was sent, on standard error; lineage never changes the exit code."""
    from dc_bridge.report.openlineage import LineageNotConfigured, emit

    try:
        click.echo(f"openlineage: {emit(verdicts)}", err=True)
    except LineageNotConfigured as exc:
        click.echo(f"openlineage: {exc}", err=True)
    except Exception as exc:  # the transport's own failure (no server, refused, timeout): the run's verdict stands
        click.echo(f"openlineage: the event could not be sent: {type(exc).__name__}: {exc}", err=True)


def _send_metrics(verdicts, targets) -> None:
    """`--metrics-push`, `--metrics-file`: what could not be published, as warnings on standard error; never the exit code.
    A contract that could not be checked is named by its id (pipeline.py `unchecked`), so its group says `error`
    instead of keeping the outcome of its last good run."""
    from dc_bridge.report.prometheus import publish

    if not targets:
        return
    for problem in publish(verdicts, targets):
        click.echo(f"metrics: warning: {problem}", err=True)


def _print_console(shown, console, fail_on: str) -> None:
    from dc_bridge.report import verdict_formats

    if isinstance(shown, list):
        verdict_formats.print_console_many(shown, console, fail_on)
    else:
        verdict_formats.print_console(shown, console)


def contract_files(arguments: tuple[str, ...]) -> list[str]:
    """The contract files `run` was given: each argument a file, or a glob (quoted, so the shell left
    it) that matches at least one file; each file once, in the order given."""
    import glob
    from pathlib import Path

    files: list[str] = []
    for argument in arguments:
        if Path(argument).is_file() or not glob.has_magic(argument):
            matches = [argument]  # a missing file is reported by the run, with its name
        else:
            matches = sorted(m for m in glob.glob(argument, recursive=True) if Path(m).is_file())
            if not matches:
                raise click.UsageError(f"{argument} matches no contract file; give files, or a glob that matches some.")
        files += [m for m in matches if not any(outputs.same_path(m, f) for f in files)]
    return files


# the subcommand groups, each in its own module, which imports nothing from this one
evolution.register(main)
integrations.register(main)
catalog.register(main)
lifecycle.register(main)
importing.register(main)
history_commands.register(main)
monitor_commands.register(main)


def _listed_whole(group: click.Group) -> None:
    """A group's --help lists each command by the first sentence of its help, whole: click would cut it at
    the width of one line ("Compare the contract's schema with the data's actual..."); a long one wraps."""
    for command in group.commands.values():
        if command.short_help is None and command.help:
            sentence = re.split(r"(?<=[.:;])\s", inspect.cleandoc(command.help), maxsplit=1)[0]
            command.short_help = " ".join(sentence.rstrip(":;").split())
        if isinstance(command, click.Group):
            _listed_whole(command)


_listed_whole(main)
