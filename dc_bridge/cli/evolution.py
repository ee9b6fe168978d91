"""`dc-bridge diff`, `check-version` and `drift`: contract evolution and schema drift on the command line.

Thin wrappers, like every command: contract/evolution/diff.py classifies changes, contract/evolution/versioning.py judges
the version and reads old versions from git, runner/drift.py compares schemas. Findings print through
report/finding_formats.py, so text, JSON and SARIF look as they do for `dc-bridge lint`; the JSON of `diff`
and `check-version` adds the changes with their kind and old and new values.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Sequence

import click

from dc_bridge.outcomes import EXIT_FINDINGS, EXIT_OK, EXIT_UNREADABLE

import dc_bridge.cli.outputs as outputs
from dc_bridge import config
from dc_bridge.cli.catalog import CATALOG, CONF, MASTER, NAMESPACE, registered_baseline
from dc_bridge.cli.options import DATA_METAVAR, READER_HELP, conf_pairs, in_project, with_settings, with_variables, with_verbosity
from dc_bridge.contract.findings import Finding
from dc_bridge.report.finding_formats import FORMATTERS

_KIND_ORDER = ("patch", "non-breaking", "breaking")


def register(group: click.Group) -> None:
    """Add the commands to the `dc-bridge` group (called at the end of cli/__init__.py)."""
    for command in (diff_command, check_version_command, drift_command):
        group.add_command(command)


def _emit(text: str, output_file: str | None) -> None:
    if output_file:
        outputs.write_text("--output-file", output_file, text + "\n")
    else:
        click.echo(text)


def _check_output(output_file: str | None, versions) -> None:
    """Refuse an --output-file that is a file either version was read from (outputs.py); a version
    read from git (REV:PATH) is read from a temporary copy, which no output can replace."""
    if output_file:
        inputs = [i for v in versions if v.label == v.result.file for i in outputs.contract_inputs(v.spec, v.result)]
        outputs.check_file("--output-file", output_file, inputs)


def _load_both(old: str, new: str, variables: dict[str, str]):
    """Both versions, or exit 2 with the findings that keep either from being compared."""
    from dc_bridge.contract.evolution.versioning import Version, load_version

    # either may be loaded already: the registered baseline of `check-version --against-registered`
    versions = [spec if isinstance(spec, Version) else load_version(spec, variables=variables) for spec in (old, new)]
    problems = [f for v in versions for f in v.result.findings if f.level == "error"]
    if problems or any(v.result.contract is None for v in versions):
        shown = problems or [f for v in versions for f in v.result.findings]
        click.echo(FORMATTERS["text"](shown, [v.spec for v in versions]), err=True)
        click.echo("fix the contract errors above before comparing versions", err=True)
        sys.exit(EXIT_UNREADABLE)
    return versions


def _compare(old: str, new: str, variables: dict[str, str]):
    from dc_bridge.contract.evolution.diff import diff, notes

    versions = _load_both(old, new, variables)
    before, after = (v.result for v in versions)
    changes = diff(before.contract, after.contract, notes(before.documents + after.documents))
    return versions, changes


def _relabel(versions, findings: Sequence[Finding]) -> list[Finding]:
    for version in versions:
        findings = version.shown(findings)
    return list(findings)


def _report(output_format: str, findings: list[Finding], files: list[str], changes, extra: dict, versions) -> str:
    """The lint report; JSON adds the changes (kind, path, old, new) and `extra`."""
    text = FORMATTERS[output_format](findings, files)
    if output_format != "json":
        return text
    labels = {k: v for version in versions for k, v in version.labels.items()}
    report = json.loads(text)
    report["changes"] = [{**c.to_dict(), "file": labels.get(c.source.file, c.source.file)} for c in changes]
    report.update(extra)
    return json.dumps(report, indent=2, ensure_ascii=False)


def _summary(changes) -> str:
    from dc_bridge.contract.evolution.diff import required_bump

    counts = ", ".join(f"{sum(1 for c in changes if c.kind == kind)} {kind}" for kind in reversed(_KIND_ORDER))
    return f"{len(changes)} change(s): {counts}; required version bump: {required_bump(changes).upper()}"


_FORMAT = click.option("--format", "output_format", type=click.Choice(sorted(FORMATTERS)), default="text", show_default=True,
                       help="Output format; sarif is SARIF 2.1.0 for code-scanning tools.")
_OUTPUT_FILE = click.option("--output-file", type=click.Path(dir_okay=False, writable=True), help="Write the report here instead of stdout.")


@click.command(name="diff")
@in_project
@with_variables
@click.argument("old")
@click.argument("new")
@_FORMAT
@_OUTPUT_FILE
@click.option("--fail-on", type=click.Choice(["breaking", "non-breaking", "patch"]),
              help="Exit 1 when a change of this kind or a more serious one is found.")
def diff_command(old: str, new: str, output_format: str, output_file: str | None, fail_on: str | None,
                 variables: dict[str, str]) -> None:
    """List every change from OLD to NEW, each breaking, non-breaking or patch.

    OLD and NEW are contract files (DCS or ODCS, in any mix); either may be REV:PATH to read it from
    git, e.g. main:contracts/orders.yaml. Exit 0, or 1 with --fail-on when such a change is found;
    2 when a contract cannot be read.
    """
    from dc_bridge.contract.evolution.diff import required_bump

    versions, changes = _compare(old, new, variables)
    _check_output(output_file, versions)
    findings = _relabel(versions, [c.finding() for c in changes])
    files = [v.label for v in versions]
    report = _report(output_format, findings, files, changes, {"required_bump": required_bump(changes)}, versions)
    if output_format == "text":
        report += "\n" + _summary(changes)
    _emit(report, output_file)
    failing = fail_on is not None and any(_KIND_ORDER.index(c.kind) >= _KIND_ORDER.index(fail_on) for c in changes)
    sys.exit(EXIT_FINDINGS if failing else EXIT_OK)


@click.command(name="check-version")
@with_verbosity
@with_settings
@with_variables
@click.argument("old", metavar="[OLD]")
@click.argument("new", metavar="NEW", required=False)
@_FORMAT
@_OUTPUT_FILE
@click.option("--against-registered", is_flag=True,
              help="OLD is the version registered in --catalog --namespace (`dc-bridge register`); give NEW only.")
@CATALOG
@NAMESPACE
@MASTER
@CONF
def check_version_command(old: str, new: str | None, output_format: str, output_file: str | None, against_registered: bool = False,
                          catalog_spec: str | None = None, namespace: str | None = None, master: str | None = None,
                          conf_options: tuple[str, ...] = (), variables: dict[str, str] | None = None) -> None:
    """Fail unless NEW's version bumps OLD's enough for the changes between them.

    Breaking changes need a MAJOR bump, non-breaking ones at least MINOR, documentation at least
    PATCH. OLD may be REV:PATH to read it from git, e.g. main:contracts/orders.yaml, or, with
    --against-registered, the version registered in a catalog (none registered: NEW is valid). Exit 0
    when the bump is enough, 1 when it is not, 2 when a contract or the registered baseline cannot be read.
    """
    from dc_bridge.contract.evolution.diff import required_bump
    from dc_bridge.contract.evolution.versioning import SemVer, bump_level, check_version

    _skip_if_off("version-bump", "check-version")
    if against_registered:
        if new is not None:
            raise click.UsageError("with --against-registered give NEW only: the registered version is OLD")
        old, new = registered_baseline(old, catalog_spec, namespace, variables, master, conf_options)
    elif new is None:
        raise click.UsageError("give OLD and NEW, or NEW with --against-registered")
    versions, changes = _compare(old, new, variables or {})
    _check_output(output_file, versions)
    before, after = (v.result for v in versions)
    verdict = config.enforce(check_version(before, after, changes))  # `warn` makes its errors warnings
    waiting = None
    if against_registered:  # a breaking change to a version consumers were not warned of long enough (docs/catalogs.md)
        from dc_bridge.cli.lifecycle import deprecation_refusal

        waiting = deprecation_refusal(before, changes, catalog_spec, namespace, master, conf_options)
    failed = any(f.level == "error" for f in verdict) or waiting is not None
    # the changes are listed for context; only the version finding decides
    findings = _relabel(versions, verdict + [c.finding(severity="info") for c in changes])
    files = [v.label for v in versions]
    old_v, new_v = SemVer.parse(before.contract.version), SemVer.parse(after.contract.version)
    bump = bump_level(old_v, new_v) if old_v and new_v else None
    extra = {"old_version": before.contract.version, "new_version": after.contract.version, "bump": bump,
             "required_bump": required_bump(changes), "ok": not failed, **({"deprecation_wait": waiting} if waiting else {})}
    report = _report(output_format, findings, files, changes, extra, versions)
    if output_format == "text":
        outcome = "ok" if not verdict else "NOT ENOUGH" if failed else f"NOT ENOUGH (only a warning: {config.current().source('version-bump')})"
        report += (f"\n{_summary(changes)}\nversion {before.contract.version} -> {after.contract.version}: "
                   f"{(bump or 'unknown').upper()} bump: {outcome}") + (f"\n{waiting}" if waiting else "")
    _emit(report, output_file)
    sys.exit(EXIT_FINDINGS if failed else EXIT_OK)


@click.command(name="drift")
@with_verbosity
@with_settings
@with_variables
@click.argument("contract", type=click.Path(dir_okay=False, path_type=str))
@click.option("--data", "data_options", multiple=True, metavar=DATA_METAVAR, help=f"Read MODEL from PATH (repeatable). {READER_HELP}")
@click.option("--server", help="Read the models without --data from this contract server (the default when no --data is given).")
@click.option("--strict", is_flag=True, help="Columns the contract does not describe are errors, not info.")
@click.option("--master", help="Spark master URL (default: an embedded local session).")
@click.option("--conf", "conf_options", multiple=True, metavar="KEY=VALUE", help="Spark configuration (repeatable).")
@CATALOG
@NAMESPACE
@_FORMAT
@_OUTPUT_FILE
def drift_command(contract: str, data_options: tuple[str, ...], server: str | None, strict: bool, master: str | None,
                  conf_options: tuple[str, ...], output_format: str, output_file: str | None, catalog_spec: str | None = None,
                  namespace: str | None = None, variables: dict[str, str] | None = None) -> None:
    """Compare the contract's schema with the data's actual Spark schema, nested fields included.

    With --catalog, each model's table NAMESPACE.<physical name> is read from the catalog's metadata
    (an Iceberg table through pyiceberg, no Spark; a Spark catalog table through the session); a table
    that does not exist yet is info and skipped. A missing column or a type the contract does not allow
    is an error; a column the contract does not describe is info (an error with --strict). Exit 0
    without errors, 1 with, 2 on bad input or a catalog that cannot be reached.
    """
    from dc_bridge.compiler import split_errors
    from dc_bridge.contract.lint import lint_file
    from dc_bridge.runner.drift import schema_drift
    from dc_bridge.runner.data import DataError, get_session, parse_data_option

    _skip_if_off("drift", "drift")
    strict = strict or config.current().extra_columns == "error"  # --strict, or `drift.extra-columns = "error"`
    loaded = lint_file(contract, variables)
    # the errors `run` refuses (compiler.split_errors): conformance alone (DCB100) and an error confined to one
    # check (a bad regex) change nothing of the contract's columns and types, which is all drift compares
    stopping, _ = split_errors(loaded.findings)
    if loaded.contract is None or stopping:
        click.echo(FORMATTERS["text"](stopping or loaded.findings, [contract]), err=True)
        sys.exit(EXIT_UNREADABLE)
    if catalog_spec or namespace:
        from dc_bridge.cli.catalog import drift_in_catalog

        if data_options or server:
            raise click.UsageError("--catalog reads the tables' schemas from the catalog; leave out --data and --server")
        findings = config.enforce(drift_in_catalog(loaded.contract, catalog_spec, namespace, strict, master, conf_options))
        _emit(FORMATTERS[output_format](findings, [contract]), output_file)
        sys.exit(EXIT_FINDINGS if any(f.level == "error" for f in findings) else EXIT_OK)
    spark = created = None
    try:
        data = dict(parse_data_option(option, Path(contract).parent) for option in data_options)
        conf = conf_pairs(conf_options)
        sources = _drift_sources(loaded.contract, data, server)
        if output_file:  # before Spark starts
            inputs = outputs.contract_inputs(contract, loaded) + outputs.data_inputs(loaded.contract, data, server, every_model=False)
            outputs.check_file("--output-file", output_file, inputs)
        frames = {}
        if sources:  # nothing to read: no JVM to start
            spark, created = get_session(master, conf)
            frames = {model: _read(spark, loaded.contract.model(model), source) for model, source in sources.items()}
        findings = config.enforce(schema_drift(loaded.contract, frames, strict=strict))
    except (DataError, click.BadParameter) as exc:
        click.echo(f"dc-bridge drift: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    finally:
        if created:
            spark.stop()
    _emit(FORMATTERS[output_format](findings, [contract]), output_file)
    sys.exit(EXIT_FINDINGS if any(f.level == "error" for f in findings) else EXIT_OK)


def _skip_if_off(validator: str, command: str) -> None:
    """Exit 0 before reading anything when the project turned the validator off (config.py)."""
    settings = config.current()
    if settings.level(validator) == "off":
        click.echo(f"dc-bridge {command}: skipped ({settings.source(validator)})")
        sys.exit(EXIT_OK)


def _drift_sources(contract, data: dict, server_name: str | None) -> dict:
    """model -> where to read it: a DataLocation, or a table name. Models without a source are not read."""
    from dc_bridge.runner.data import DataError, choose_server, server_location

    unknown = set(data) - {m.name for m in contract.models}
    if unknown:
        raise DataError(f"{contract.file} has no model named {', '.join(sorted(unknown))} "
                        f"(models: {', '.join(m.name for m in contract.models)})")
    # --data alone checks just those models; a server is read when named, or when no --data is given
    server = choose_server(contract, server_name) if server_name or not data else None
    sources = {}
    for model in contract.models:
        if model.name in data:
            sources[model.name] = data[model.name]
        elif server is not None:
            sources[model.name] = server_location(contract, server, model)
    return sources


def _read(spark, model, source):
    """The model's data as `run` reads it (runner/data.py `read_location`: as on disk, nothing the files
    do not hold, parquet schemas merged), so drift reports what a run would check."""
    from dc_bridge.runner.data import DataError, read_location, root_cause

    if isinstance(source, str):
        try:
            return spark.table(source)
        except Exception as exc:  # Spark raises AnalysisException and friends
            raise DataError(f"model `{model.name}`: table or view `{source}` cannot be read: {root_cause(exc)}") from None
    return read_location(spark, model, source)
