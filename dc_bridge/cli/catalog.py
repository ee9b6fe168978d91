"""`dc-bridge register`, `registrations` and `init`: contracts in a catalog's namespace, beside their tables,
and contracts generated from tables.

Thin wrappers like every command: dc_bridge/catalog/ writes and reads the records, dc_bridge/generate/
writes contracts. The catalog and
namespace come from the options, else from the project configuration (config.py). `check-version
--against-registered` and `drift --catalog` (cli/evolution.py) open catalogs through `open_catalog` here.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Iterator

import click

from dc_bridge import config
from dc_bridge.cli.options import spark_session, with_settings, with_variables, with_verbosity
from dc_bridge.outcomes import EXIT_FINDINGS, EXIT_OK, EXIT_UNREADABLE
from dc_bridge.report.finding_formats import FORMATTERS


def register(group: click.Group) -> None:
    """Add the commands to the `dc-bridge` group (called at the end of cli/__init__.py)."""
    for command in (register_command, registrations_command, init_command):
        group.add_command(command)


CATALOG = click.option("--catalog", "catalog_spec", metavar="iceberg[:NAME]|spark",
                       help="The catalog: iceberg (embedded: SQLite + a local warehouse under .dc-bridge/iceberg in the project's folder), "
                            "iceberg:NAME (pyiceberg's catalog NAME: .pyiceberg.yaml, PYICEBERG_CATALOG__NAME__...), or spark "
                            "(the Spark session's catalog). Default: `catalog` in the project configuration.")
NAMESPACE = click.option("--namespace", metavar="NS", help="The namespace (database) the contract's tables live in, e.g. "
                                                           "sales.customer_360. Default: `namespace` in the project configuration.")
MASTER = click.option("--master", help="Spark master URL, for --catalog spark (default: an embedded local session).")
CONF = click.option("--conf", "conf_options", multiple=True, metavar="KEY=VALUE",
                    help="Spark configuration, for --catalog spark (repeatable), e.g. spark.sql.catalogImplementation=hive.")


def resolve(catalog_spec: str | None, namespace: str | None) -> tuple[str, str]:
    """--catalog and --namespace, else the project's; a usage error when neither names one."""
    settings = config.current()
    spec, namespace = catalog_spec or settings.catalog, namespace or settings.namespace
    if not spec:
        raise click.UsageError("give --catalog (iceberg, iceberg:NAME or spark), or `catalog` in the project configuration")
    if not namespace:
        raise click.UsageError("give --namespace NS, or `namespace` in the project configuration")
    from dc_bridge.catalog import parse

    try:
        parse(spec)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    return spec, namespace


@contextlib.contextmanager
def open_catalog(spec: str, master: str | None = None, conf_options: tuple[str, ...] = (), create: bool = False) -> Iterator:
    """The catalog's Store; for `spark` the session `--master` and `--conf` ask for (cli/options.spark_session,
    as `run` starts it); for `iceberg` the embedded catalog of the project (catalog/iceberg.embedded_folder: beside
    the project configuration, never where the command happens to run), created only when `create` (register).
    The store's `note` says why the embedded catalog is where it is when no project configuration decided it.
    CatalogUnavailable when it cannot be reached (CatalogMisconfigured for an iceberg:NAME configured nowhere); Spark
    that cannot start at all (no Java, a master URL it cannot parse or reach) is SparkUnavailable, bad input on every
    command (exit 2), not a catalog's outage."""
    from dc_bridge.catalog import CatalogUnavailable, open_store, parse
    from dc_bridge.catalog.iceberg import embedded_folder
    from dc_bridge.runner.spark_start import SparkUnavailable

    settings = config.current()
    folder, note = embedded_folder(settings.project, settings.start or Path.cwd())
    with contextlib.ExitStack() as stack:
        session = None
        if parse(spec)[0] == "spark":
            try:
                session = stack.enter_context(spark_session(master, conf_options))
            except (click.BadParameter, SparkUnavailable):  # a malformed --conf, Spark that cannot start: bad input
                raise
            except Exception as exc:  # a metastore the session cannot reach while it starts
                from dc_bridge.runner.data import root_cause

                raise CatalogUnavailable(f"spark: the session could not start: {root_cause(exc)}") from None
        store = open_store(spec, folder, session, create)
        store.note = note if spec == "iceberg" else None
        yield store


def namespace_state(store, namespace: str, command: str) -> str | None:
    """None when the namespace exists; else a phrase saying it does not and what is there, for the caller's message.
    A name that is most likely a typo of a namespace that exists (catalog/store.closest) stops the command (exit 2):
    `nothing registered` or `no such table` read from a misspelt namespace would pass what it should check."""
    from dc_bridge.catalog.store import closest, listed

    if store.properties(namespace) is not None:
        return None
    there = store.namespaces()
    typo = closest(namespace, there)
    if typo is not None:
        click.echo(f"dc-bridge {command}: namespace {namespace} does not exist in {store.label}; did you mean {typo}? "
                   f"(namespaces there: {listed(there)}; a new namespace this close to one that exists is refused as a "
                   f"likely typo: create it first, e.g. by registering its first contract)", err=True)
        sys.exit(EXIT_UNREADABLE)
    return f"namespace {namespace} does not exist in {store.label} (namespaces there: {listed(there)})"


def _say_note(store, command: str) -> None:
    if getattr(store, "note", None):
        click.echo("\n".join(prose(f"dc-bridge {command}: note: {store.note}: {store.label}")), err=True)


WIDTH = 80  # as the run summary: what dc-bridge writes keeps to 80 columns, a name or path is never cut


def fitted(key: str, value: str) -> list[str]:
    """`  KEY        VALUE` in lines of at most WIDTH columns: a value too long goes on at its `/` and spaces onto
    lines indented under it (a single part longer than a line stays whole, on its own line)."""
    indent = f"  {key:<10} "
    parts = [part for part in re.split(r"(?<=[/ ])", value) if part]
    lines, line = [], indent
    for part in parts:
        if len(line) + len(part.rstrip()) > WIDTH and line.strip() != key:
            lines.append(line.rstrip())
            line = " " * len(indent)
        line += part
    return [*lines, line.rstrip()]


def short_digest(digest: str) -> str:
    """`sha256:` and the first 12 hex digits: enough to tell two texts or schemas apart on a screen."""
    algorithm, _, hexdigits = digest.partition(":")
    return f"{algorithm}:{hexdigits[:12]}"


def load_clean(contract: str, variables: dict[str, str] | None = None):
    """The linted contract (`variables`: `--var`), or exit 2 with its errors."""
    from dc_bridge.contract.lint import lint_file

    loaded = lint_file(contract, variables)
    errors = [f for f in loaded.findings if f.level == "error"]
    if loaded.contract is None or errors or loaded.kind != loaded.contract.format:
        click.echo(FORMATTERS["text"](errors or loaded.findings, [contract]), err=True)
        click.echo(f"dc-bridge: {contract}: fix the errors above first (a quality-rule library is not registered)", err=True)
        sys.exit(EXIT_UNREADABLE)
    return loaded


@click.command(name="register")
@with_verbosity
@with_settings
@with_variables
@click.argument("contract", type=click.Path(dir_okay=False, path_type=str))
@CATALOG
@NAMESPACE
@MASTER
@CONF
def register_command(contract: str, catalog_spec: str | None, namespace: str | None, master: str | None,
                     conf_options: tuple[str, ...], variables: dict[str, str] | None = None) -> None:
    """Register CONTRACT in a catalog namespace: its record (id, name, version, owner, schema hash, text
    digest, where the text is kept, time in UTC) in the namespace's properties.

    The current version is the highest registered (SemVer): a higher version becomes current and the earlier
    ones stay listed; a lower one is recorded and the current one stays; the same text again changes nothing.
    Exit 0 registered, recorded or unchanged; 1 when the version is registered with another text, or the
    catalog cannot be reached and enforcement.registration is strict (it warns by default); 2 on bad input
    (a version that is no SemVer, an iceberg:NAME configured nowhere).
    """
    from dc_bridge.catalog import CatalogMisconfigured, CatalogUnavailable
    from dc_bridge.catalog.registry import BadRecord, NotSemVer, VersionConflict, register as register_contract

    settings = config.current()
    if settings.level("registration") == "off":
        click.echo(f"dc-bridge register: skipped ({settings.source('registration')})")
        sys.exit(EXIT_OK)
    spec, namespace = resolve(catalog_spec, namespace)
    loaded = load_clean(contract, variables)
    text = Path(contract).read_bytes()
    try:
        with open_catalog(spec, master, conf_options, create=True) as store:
            _say_note(store, "register")
            done = register_contract(store, namespace, loaded.contract, text)
            status_note = _record_status(store, namespace, done.record, text)
            # the tables carry the current version: one recorded below it leaves them as they are
            tagged = (_tag_tables(store, namespace, loaded.contract, done.record)
                      if done.changed and done.current.version == done.record.version else [])
    except VersionConflict as exc:
        click.echo(f"dc-bridge register: {exc}", err=True)
        sys.exit(EXIT_FINDINGS)
    except (NotSemVer, BadRecord, CatalogMisconfigured) as exc:  # bad input, never the soft failure of an outage
        click.echo(f"dc-bridge register: {contract} was not registered: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    except CatalogUnavailable as exc:
        strict = settings.level("registration") == "strict"
        click.echo(f"dc-bridge register: {'error' if strict else 'warning'}: the catalog cannot be reached, "
                   f"{contract} was not registered: {exc} ({settings.source('registration')})", err=True)
        sys.exit(EXIT_FINDINGS if strict else EXIT_OK)
    click.echo("\n".join(registered_lines(contract, done, store.label, namespace, tagged)))
    if status_note:
        click.echo("\n".join(prose(f"dc-bridge register: note: {status_note}")), err=True)


def _record_status(store, namespace: str, record, text: bytes) -> str | None:
    """The text's `status` as the version's first state (catalog/lifecycle.py `record_start`); a note when it is not."""
    import yaml

    from dc_bridge.catalog.lifecycle import record_start, text_status

    return record_start(store, namespace, record.id, record.version, text_status(yaml.safe_load(text)))


def registered_lines(contract: str, done, label: str, namespace: str, tagged: list[str]) -> list[str]:
    """What `register` says: one line of what happened, then one fitted line per fact (WIDTH columns)."""
    record, current = done.record, done.current
    if not done.changed:
        head = f"{contract}: {record.id} {record.version} is registered with this text already; nothing changed"
    elif current.version != record.version:
        head = (f"{contract}: recorded {record.id} {record.version} in the audit trail; {current.version} stays current "
                f"(the current version only moves forward)")
    else:
        head = (f"{contract}: registered {record.id} {record.version} "
                + (f"(replaces {done.previous.version}, which stays listed)" if done.previous else "(first registration)"))
    facts = [("catalog", label), ("namespace", namespace), ("schema", short_digest(record.schema_hash)),
             ("text", f"{short_digest(record.text_digest)} at {record.location}")]
    if tagged:
        facts.append(("tables", f"properties set on {', '.join(tagged)}"))
    return [*prose(head), *(line for key, value in facts for line in fitted(key, value))]


def prose(text: str) -> list[str]:
    """A sentence in lines of WIDTH columns, never cutting a word, a name or a path."""
    return textwrap.wrap(text, WIDTH, subsequent_indent="    ", break_long_words=False, break_on_hyphens=False)


def _tag_tables(store, namespace: str, contract, record) -> list[str]:
    """Each model's table, where the catalog keeps table properties (the Spark catalog) and the table exists."""
    properties = {"dc-bridge.contract.id": record.id, "dc-bridge.contract.version": record.version,
                  "dc-bridge.contract.schema-hash": record.schema_hash}
    return [f"{namespace}.{model.physical_name or model.name}" for model in contract.models
            if store.tag_table(namespace, model.physical_name or model.name, properties)]


@click.command(name="registrations")
@with_verbosity
@with_settings
@CATALOG
@NAMESPACE
@MASTER
@CONF
@click.option("--contract", "contract_id", help="Only this contract id.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: one line per registered version; json: the registration records as data.")
def registrations_command(catalog_spec: str | None, namespace: str | None, master: str | None, conf_options: tuple[str, ...],
                          contract_id: str | None, output_format: str) -> None:
    """List the contracts registered in a namespace: each one's current version and every earlier one.

    Exit 0, or 2 when the catalog cannot be reached or is configured nowhere, or the namespace is most likely a typo.
    """
    from dc_bridge.catalog import CatalogMisconfigured, CatalogUnavailable
    from dc_bridge.catalog.registry import BadRecord, current_versions, history

    spec, namespace = resolve(catalog_spec, namespace)
    try:
        with open_catalog(spec, master, conf_options) as store:
            _say_note(store, "registrations")
            missing = namespace_state(store, namespace, "registrations")
            properties = store.properties(namespace)
            listed = {k: v for k, v in current_versions(properties).items() if contract_id in (None, k)}
    except (CatalogUnavailable, BadRecord) as exc:
        what = "" if isinstance(exc, (CatalogMisconfigured, BadRecord)) else "the catalog cannot be reached: "
        click.echo(f"dc-bridge registrations: {what}{exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    from dc_bridge.catalog.lifecycle import life, utc_now

    now = utc_now()
    try:
        report = {cid: {"current": version,
                        "versions": [{**json.loads(r.to_json()), "lifecycle": life(properties, cid, r.version, now).as_dict(now)}
                                     for r in history(properties, cid)]}
                  for cid, version in listed.items()}
    except BadRecord as exc:
        click.echo(f"dc-bridge registrations: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    if output_format == "json":
        click.echo(json.dumps({"catalog": spec, "catalog_label": store.label, "namespace": namespace, "contracts": report},
                              indent=2, ensure_ascii=False))
        return
    if not report:
        for line in prose(missing or f"no contract{f' {contract_id}' if contract_id else ''} is registered in "
                                     f"{store.label} namespace {namespace}"):
            click.echo(line)
    for cid, entry in report.items():
        click.echo(f"{cid} {entry['current']} (current, {life_words(entry['versions'][-1]['lifecycle'])})")
        for version in reversed(entry["versions"]):
            mark = "*" if version["version"] == entry["current"] else " "
            owner = f"owner {version['owner']}" if version["owner"] else "no owner"
            click.echo(f"  {mark} {version['version']}  {version['registered_at']}  {owner}  {short_digest(version['schema_hash'])}"
                       f"  {version['lifecycle']['state']}")


def life_words(lifecycle: dict) -> str:
    """A version's state as `registrations` says it: `deprecated, sunset 2027-03-31T00:00:00Z in 114 days, successor X`."""
    words = lifecycle["state"] + (" (its sunset date passed)" if lifecycle["by_date"] else "")
    if lifecycle["state"] == "deprecated":
        words += f", sunset {lifecycle['sunset']} in {lifecycle['days_to_sunset']} days"
    if lifecycle["successor"] and lifecycle["state"] in ("deprecated", "sunset"):
        words += f", successor {lifecycle['successor']}"
    return words


def registered_baseline(new_spec: str, catalog_spec: str | None, namespace: str | None, variables: dict[str, str] | None = None,
                        master: str | None = None, conf_options: tuple[str, ...] = ()):
    """(the registered version, NEW) for `check-version --against-registered`, as versioning.Version objects
    whose files are named `CATALOG:NAMESPACE/ID@VERSION`. Exits 0 when nothing is registered (the first
    version is always valid), 2 when the baseline cannot be read or its digest does not match: a version
    check against nothing would pass every bump."""
    import tempfile

    from dc_bridge.catalog import CatalogMisconfigured, CatalogUnavailable
    from dc_bridge.catalog.records import DigestMismatch
    from dc_bridge.catalog.registry import current_versions, registered
    from dc_bridge.catalog.store import listed as listed_names
    from dc_bridge.contract.evolution.versioning import Version, load_version
    from dc_bridge.contract.reading.load import load_contract

    spec, namespace = resolve(catalog_spec, namespace)
    new = load_version(new_spec, variables=variables)
    if new.result.contract is None:
        return new, new  # check-version reports why NEW cannot be read
    contract_id = new.result.contract.id
    try:
        with open_catalog(spec, master, conf_options) as store:
            _say_note(store, "check-version")
            missing = namespace_state(store, namespace, "check-version")
            found = None if missing else registered(store, namespace, contract_id)
            others = [] if missing else sorted(current_versions(store.properties(namespace)))
    except CatalogMisconfigured as exc:
        click.echo(f"dc-bridge check-version: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    except (CatalogUnavailable, DigestMismatch, ValueError) as exc:
        click.echo(f"dc-bridge check-version: the registered version of {contract_id} cannot be used as the baseline: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    if found is None:
        where = missing or (f"no version of {contract_id} is registered in {store.label} namespace {namespace} "
                            f"(registered there: {listed_names(others)})")
        click.echo(f"{new_spec}: {where}: the first registration has no baseline, {new.result.contract.version} is valid")
        sys.exit(EXIT_OK)
    record, text = found
    click.echo("\n".join(prose(f"dc-bridge check-version: the baseline is {record.id} {record.version} (current, registered "
                               f"{record.registered_at}) in {store.label} namespace {namespace}")), err=True)
    label = f"{spec}:{namespace}/{record.id}@{record.version}"
    with tempfile.TemporaryDirectory(prefix="dc-bridge-registered-") as folder:
        file = Path(folder) / ("registered.yaml")
        file.write_bytes(text)
        result = load_contract(str(file), variables)
    baseline = Version(label, result, {str(file): label})
    baseline.result.findings[:] = baseline.shown(result.findings)
    return baseline, new


def drift_in_catalog(contract, catalog_spec: str | None, namespace: str | None, strict: bool, master: str | None,
                     conf_options: tuple[str, ...]) -> list:
    """`drift --catalog`: the findings of catalog/drift.py, or exit 2 when the catalog cannot be reached."""
    from dc_bridge.catalog import CatalogMisconfigured, CatalogUnavailable
    from dc_bridge.catalog.drift import catalog_drift
    from dc_bridge.contract.findings import Finding

    spec, namespace = resolve(catalog_spec, namespace)
    try:
        with open_catalog(spec, master, conf_options) as store:
            _say_note(store, "drift")
            missing = namespace_state(store, namespace, "drift")
            click.echo("\n".join(prose(f"dc-bridge drift: the tables of namespace {namespace} in {store.label}")), err=True)
            if missing:  # no table can be there: each model's is not there yet, said once for the namespace
                return [Finding("DCB304", model.source.file, model.source.path,
                                f"table `{namespace}.{model.physical_name or model.name}` of model `{model.name}` does not "
                                f"exist: {missing}; its drift check is skipped (the first run creates it)",
                                line=model.source.line, expected=f"namespace {namespace}", found="no such namespace")
                        for model in contract.models]
            return catalog_drift(contract, store, namespace, strict=strict)
    except CatalogUnavailable as exc:
        what = "" if isinstance(exc, CatalogMisconfigured) else "the catalog cannot be reached: "
        click.echo(f"dc-bridge drift: {what}{exc}", err=True)
        sys.exit(EXIT_UNREADABLE)


def sensitive_columns(explicit: str) -> dict[str, set[str]]:
    """model -> the columns of the --merge contract whose values no output may show (plan/sensitive.py's rule, as
    a run applies it): `init --profile` proposes no rule and writes no evidence that holds their values. A contract
    that cannot be read is a DataError: which of its fields are sensitive cannot be told."""
    from dc_bridge.contract.reading.load import load_contract
    from dc_bridge.plan.sensitive import sensitive_paths
    from dc_bridge.runner.data import DataError

    loaded = load_contract(explicit)
    if loaded.contract is None:
        errors = "; ".join(f"{f.path}: {f.message}" for f in loaded.findings if f.level == "error")[:500]
        raise DataError(f"--merge {explicit} cannot be read as a contract ({errors}), so --profile cannot tell which of "
                        f"its fields are pii or sensitive: fix it, or leave out --profile")
    return sensitive_paths(loaded.contract)


class _SampleRows(click.ParamType):
    """`--sample-rows`: a positive number of rows, or `all`."""

    name = "ROWS|all"

    def convert(self, value, param, ctx):
        if value is None or isinstance(value, int):
            return value
        if str(value).strip().lower() == "all":
            return None
        if not str(value).strip().isdigit() or int(value) < 1:
            self.fail(f"{value!r} is not a number of rows: give a positive whole number, or `all`", param, ctx)
        return int(value)


@click.command(name="init")
@with_verbosity
@click.option("--from", "sources", multiple=True, required=True, metavar="SOURCE",
              help="What to generate the contract from, one model each (repeatable): PATH[:FORMAT] (a path Spark reads), "
                   "table:DB.TABLE (the Spark catalog) or iceberg:NS.TABLE (an Iceberg catalog, see --catalog).")
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=str), help="The contract file to write.")
@click.option("--overwrite", is_flag=True, help="Replace --out when it exists (refused otherwise).")
@click.option("--id", "contract_id", help="The contract's id (default: --name, else the first model's name).")
@click.option("--name", help="The contract's name (default: the id).")
@click.option("--version", "version", default="1.0.0", show_default=True, help="The contract's version.")
@click.option("--standard", type=click.Choice(["3.1", "3.2"]), default="3.1", show_default=True, help="The ODCS version to write.")
@click.option("--merge", "explicit", type=click.Path(dir_okay=False, exists=True, path_type=str),
              help="An explicit ODCS contract laid over the generated one key by key: its keys win and none is lost.")
@click.option("--profile", is_flag=True, help="Also propose quality rules from the data (null rates, small value sets, "
                                               "ranges, candidate keys), each marked proposed with its evidence.")
@click.option("--sample-rows", type=_SampleRows(), default=100_000, show_default=True,
              help="With --profile: profile the first ROWS rows read, or `all` rows.")
@click.option("--catalog", "catalog_spec", metavar="iceberg[:NAME]",
              help="The Iceberg catalog of iceberg: sources (default: `catalog` in the project configuration, else the embedded one).")
@MASTER
@CONF
@with_settings
def init_command(sources: tuple[str, ...], out: str, overwrite: bool, contract_id: str | None, name: str | None, version: str,
                 standard: str, explicit: str | None, profile: bool, sample_rows: int | None, catalog_spec: str | None,
                 master: str | None, conf_options: tuple[str, ...]) -> None:
    """Write an ODCS contract generated from tables or files: every model and field with its logical and
    physical type, required from non-nullability, nested structs, arrays and maps kept; it lints clean.

    Exit 0 written, 1 when the written contract has lint errors (after --merge), 2 on bad input, a source
    that cannot be read, or an --out that exists without --overwrite.
    """
    import yaml

    from dc_bridge.cli.outputs import Input, check_file, write_text
    from dc_bridge.contract.lint import lint_file
    from dc_bridge.generate import contract_document
    from dc_bridge.generate.merge import lost_keys, merge
    from dc_bridge.generate.profile import add_proposals
    from dc_bridge.generate.sources import generated_servers, iceberg_sample, iceberg_schema, parse_source, read_frame
    from dc_bridge.runner.data import DataError

    if Path(out).exists() and not overwrite:
        click.echo(f"dc-bridge init: {out} exists; nothing was written (add --overwrite to replace it)", err=True)
        sys.exit(EXIT_UNREADABLE)
    spec = catalog_spec or (config.current().catalog if (config.current().catalog or "").startswith("iceberg") else None) or "iceberg"
    try:
        from dc_bridge.catalog import parse

        try:
            kind = parse(spec)[0]
        except ValueError as exc:
            raise click.BadParameter(str(exc)) from None
        if kind != "iceberg":
            raise click.BadParameter(f"--catalog {spec}: init's --catalog is the Iceberg catalog of iceberg: sources; "
                                     f"a Spark catalog table is --from table:DB.TABLE (with --master and --conf for its session)")
        parsed = [parse_source(source) for source in sources]
        # --out is never an input, nor inside a data folder, nor around one (paths.py's rule), checked before Spark starts
        check_file("--out", out, [Input(source.location.path, f"the data of --from {source.spec}", glob=any(ch in source.location.path for ch in "*?["))
                                  for source in parsed if source.kind == "path"] + ([Input(explicit, "the --merge contract")] if explicit else []),
                   written="the contract", create=False)
        models = [source.model for source in parsed]
        if len(set(models)) != len(models):
            raise DataError(f"two sources would be the same model ({', '.join(models)}); give each its own table or file name")
        if explicit:
            merged_over = yaml.safe_load(Path(explicit).read_text(encoding="utf-8"))
            if not isinstance(merged_over, dict) or "apiVersion" not in merged_over:
                raise DataError(f"--merge {explicit}: not an ODCS contract (a mapping with apiVersion)")
        hidden = sensitive_columns(explicit) if explicit and profile else {}
        with contextlib.ExitStack() as stack:
            # one session, as `run` starts it, for every source Spark reads and for profiling; an Iceberg table's
            # schema alone needs none
            spark = (stack.enter_context(spark_session(master, conf_options))
                     if profile or any(source.kind != "iceberg" for source in parsed) else None)
            schemas, frames = {}, {}
            for source in parsed:
                if source.kind == "iceberg":
                    with open_catalog(spec) as store:
                        schemas[source.model], table = iceberg_schema(source, lambda: store)
                    if profile:
                        frames[source.model] = iceberg_sample(table, schemas[source.model], sample_rows, spark)
                    continue
                frame = read_frame(source, spark)
                schemas[source.model], frames[source.model] = frame.schema, frame
            document = contract_document(schemas, id=contract_id or name or models[0], name=name, version=version, standard=standard,
                                         sources={source.model: source.spec for source in parsed},
                                         servers=generated_servers(parsed, out, config.current().project or Path.cwd().resolve()))
            if profile:
                add_proposals(document, frames, sample_rows, hidden)
    except (DataError, click.BadParameter) as exc:
        click.echo(f"dc-bridge init: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    except Exception as exc:  # CatalogUnavailable, a Spark error reading a table
        from dc_bridge.catalog import CatalogUnavailable
        from dc_bridge.runner.data import root_cause

        if not isinstance(exc, CatalogUnavailable) and type(exc).__name__ not in ("AnalysisException", "Py4JJavaError"):
            raise
        click.echo(f"dc-bridge init: {root_cause(exc)}", err=True)
        sys.exit(EXIT_UNREADABLE)
    if explicit:
        result = merge(document, merged_over)
        missing = lost_keys(merged_over, result)
        assert not missing, f"the merge lost {missing}"  # merge.py keeps every explicit key by construction
        document = result
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    write_text("--out", out, yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=120))
    fields = sum(len(model.get("properties", [])) for model in document.get("schema", []))
    proposed = sum(1 for model in document.get("schema", []) for prop in model.get("properties", [])
                   for rule in prop.get("quality", []) if "proposed" in (rule.get("tags") or []))
    errors = [f for f in lint_file(out).findings if f.level == "error"]
    click.echo(f"{out}: {len(document.get('schema', []))} model(s), {fields} top-level field(s)"
               + (f", {proposed} proposed rule(s) from {'every row' if sample_rows is None else f'the first {sample_rows} rows'}" if profile else "")
               + (f", merged with {explicit}" if explicit else "") + ("; lint: clean" if not errors else f"; lint: {len(errors)} error(s)"))
    if errors:
        click.echo(FORMATTERS["text"](errors, [out]), err=True)
        sys.exit(EXIT_FINDINGS)


def _retired(store, entries) -> list[str]:
    """The labels of the entries whose version the registry says is retired (catalog/lifecycle.py)."""
    from dc_bridge.catalog.lifecycle import life, utc_now

    now, properties = utc_now(), {}
    for entry in entries:
        properties.setdefault(entry.namespace, store.properties(entry.namespace))
    return [entry.label for entry in entries
            if life(properties[entry.namespace], entry.record.id, entry.record.version, now).state == "retired"]


def registered_runs(catalog_spec: str | None, namespaces: tuple[str, ...], pattern: str | None, folder: Path,
                    session, variables: dict[str, str] | None = None) -> tuple[str, list[tuple[str, object]], set[str]]:
    """`run --registered`: (the catalog, [(NS/ID@VERSION, its ReadContract, or its Refusal)], the labels of
    those read from the catalog's tables), for every contract registered in `namespaces` (default: the project's)
    whose id matches `pattern` (catalog/fleet.py). `session`: the run's SessionOnFirstNeed, which `--catalog spark`
    reads the registrations through. Exit 2 when the catalog cannot be read, a namespace is most likely a typo, or
    nothing is registered."""
    from dc_bridge.catalog import CatalogMisconfigured, CatalogUnavailable, open_store, parse
    from dc_bridge.catalog.fleet import read_registered, registered_contracts
    from dc_bridge.catalog.iceberg import embedded_folder
    from dc_bridge.catalog.registry import BadRecord
    from dc_bridge.catalog.store import listed
    from dc_bridge.runner.pipeline import Refused

    try:  # `run` reads only what it needs of the project configuration: here, its catalog, namespace and folder
        settings = config.load()
    except config.ConfigError as exc:
        click.echo(f"dc-bridge: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    spec = catalog_spec or settings.catalog
    namespaces = namespaces or ((settings.namespace,) if settings.namespace else ())
    if not spec:
        raise click.UsageError("--registered: give --catalog (iceberg, iceberg:NAME or spark), or `catalog` in the project configuration")
    if not namespaces:
        raise click.UsageError("--registered: give --namespace NS (repeatable), or `namespace` in the project configuration")
    try:
        kind = parse(spec)[0]
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    embedded, note = embedded_folder(settings.project, Path.cwd())
    try:
        store = open_store(spec, embedded, session.get()[0] if kind == "spark" else None)
        store.note = note if spec == "iceberg" else None
        _say_note(store, "run")
        absent = [why for why in (namespace_state(store, namespace, "run") for namespace in namespaces) if why]
        for why in absent:
            click.echo("\n".join(prose(f"dc-bridge run: {why}")), err=True)
        entries = registered_contracts(store, list(namespaces), pattern)
        retired = _retired(store, entries)
    except (CatalogUnavailable, BadRecord) as exc:
        what = "" if isinstance(exc, (CatalogMisconfigured, BadRecord)) else "the catalog cannot be reached: "
        click.echo(f"dc-bridge run: {what}{exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    if retired:
        entries = [entry for entry in entries if entry.label not in retired]
        click.echo("\n".join(prose(f"dc-bridge run: skipped {len(retired)} retired contract(s): {listed(retired)} (the "
                                    f"registry says their current version is retired)")), err=True)
    if not entries:
        click.echo(f"dc-bridge run: nothing to run: no contract{f' matching {pattern}' if pattern else ''} is registered in "
                   f"{store.label} namespace(s) {listed(list(namespaces))}", err=True)
        sys.exit(EXIT_UNREADABLE)
    runs, tables = [], set()
    root = settings.project or Path.cwd().resolve()
    for entry in entries:
        if entry.text is None:  # refused: an error under the registered id and version, as its runs are named
            runs.append((entry.label, Refused(entry.label, entry.refused or "refused", entry.record.id, entry.record.version)))
            continue
        read, from_tables = read_registered(entry, folder, root, spec, variables)
        runs.append((entry.label, read))
        if from_tables:
            tables.add(entry.label)
    return spec, runs, tables
