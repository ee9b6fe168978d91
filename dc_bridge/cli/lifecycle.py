"""`dc-bridge lifecycle`: move a registered version forward in its life (catalog/lifecycle.py keeps the chain).

A thin wrapper like every command: the catalog and namespace come as for `register` (cli/catalog.py `resolve`,
`open_catalog`). Exit 0 moved; 1 when another writer moved the version out of the same state first (nothing
written); 2 when the transition is refused (backwards, skipping, a sunset not in the future, a successor not
registered or at its end, a namespace or contract not there, a catalog configured nowhere or not reachable).
"""

from __future__ import annotations

import sys

import click

from dc_bridge.cli.catalog import CATALOG, CONF, MASTER, NAMESPACE, fitted, open_catalog, prose, resolve
from dc_bridge.cli.options import with_settings, with_verbosity
from dc_bridge.outcomes import EXIT_FINDINGS, EXIT_UNREADABLE


def register(group: click.Group) -> None:
    """Add `lifecycle` to the `dc-bridge` group (called at the end of cli/__init__.py)."""
    group.add_command(lifecycle_command)


@click.command(name="lifecycle")
@with_verbosity
@with_settings
@click.argument("contract_ref", metavar="ID[@VERSION]")
@click.option("--to", "to", required=True, metavar="STATE",
              help="The state to move to: draft, active, deprecated, sunset or retired (one step forward).")
@click.option("--sunset", metavar="DATE", help="With --to deprecated (required there): when it ends, an ISO 8601 date "
                                                 "(its start, UTC) or a time with its offset.")
@click.option("--successor", metavar="ID@VERSION", help="With --to deprecated: the registered version to move to.")
@click.option("--reason", metavar="TEXT", help="Why, kept in the audit trail.")
@CATALOG
@NAMESPACE
@MASTER
@CONF
def lifecycle_command(contract_ref: str, to: str, sunset: str | None, successor: str | None, reason: str | None,
                      catalog_spec: str | None, namespace: str | None, master: str | None, conf_options: tuple[str, ...]) -> None:
    """Move a registered version of a contract to its next state in its life.

    The version is ID@VERSION, or the current one for ID alone. The states: proposed or draft -> active ->
    deprecated (with a sunset date) -> sunset -> retired, each move recorded with its time and reason. A
    deprecated version is sunset from its date on without a move.

    Exit 0 moved, 1 another writer moved it first (nothing written), 2 refused (nothing written).
    """
    from dc_bridge.catalog import CatalogMisconfigured, CatalogUnavailable
    from dc_bridge.catalog.lifecycle import LifecycleRefused, LostRace, Request, move, shown, split_ref
    from dc_bridge.catalog.registry import BadRecord

    spec, namespace = resolve(catalog_spec, namespace)
    contract_id, version = split_ref(contract_ref)
    request = Request(contract_id, version, to.strip().lower(), reason, sunset, successor)
    try:
        with open_catalog(spec, master, conf_options) as store:
            done = move(store, namespace, request)
    except (LifecycleRefused, BadRecord, CatalogMisconfigured) as exc:
        _refused(contract_ref, str(exc), EXIT_UNREADABLE)
    except LostRace as exc:
        _refused(contract_ref, str(exc), EXIT_FINDINGS)
    except CatalogUnavailable as exc:
        _refused(contract_ref, f"the catalog cannot be reached: {exc}", EXIT_UNREADABLE)
    head = f"{done.id} {done.version}: {done.from_state} -> {done.to}"
    facts = [("catalog", store.label), ("namespace", namespace), ("at", done.at), ("reason", shown(done.reason))]
    if done.sunset:
        facts.append(("sunset", done.sunset))
    if done.successor:
        facts.append(("successor", done.successor))
    click.echo("\n".join([*prose(head), *(line for k, v in facts for line in fitted(k, v))]))


def _refused(ref: str, why: str, code: int) -> None:
    click.echo("\n".join(prose(f"dc-bridge lifecycle: {ref}: nothing was written: {why}")), err=True)
    sys.exit(code)


def registered_place(spec: str, label: str, read) -> tuple[str | None, str | None]:
    """(catalog, namespace) of a `run --registered` contract labelled `NS/ID@VERSION` (catalog/fleet.py `Registered.label`)."""
    contract = read.result.contract
    tail = f"/{contract.id}@{contract.version}" if contract is not None else None
    return (spec, label[: -len(tail)]) if tail and label.endswith(tail) else (None, None)


def for_run(read, spec: str | None = None, namespace: str | None = None, allow_retired: bool = False,
            known: dict | None = None):
    """A run's LifecycleVerdict for the contract `read` (a runner/pipeline.py ReadContract): its version's state in the
    project's catalog and namespace (`spec` and `namespace`: those `run --registered` read it from). None when no catalog and
    namespace are configured, the catalog is `spark` (a run reads no Spark catalog for it), or the version is not
    registered there; a catalog that cannot be reached is a warning and None. A retired version is a DataError (the
    run's exit 2) unless `allow_retired`. `known`: the namespaces one command read already ((catalog, folder,
    namespace) -> (store, properties)), filled here: a fleet reads each namespace's lifecycle once, as it reads the
    registrations once, not once per contract."""
    from pathlib import Path

    from dc_bridge import config
    from dc_bridge.catalog import CatalogUnavailable, open_store, parse
    from dc_bridge.catalog.iceberg import embedded_folder
    from dc_bridge.catalog.lifecycle import life, run_finding, text_status, utc_now
    from dc_bridge.catalog.registry import BadRecord, history
    from dc_bridge.contract.evolution.versioning import SemVer
    from dc_bridge.runner.data import DataError

    contract = read.result.contract
    settings = config.current()  # the contract's project (cli/options.py in_project)
    spec, namespace = spec or settings.catalog, namespace or settings.namespace
    if contract is None or not spec or not namespace or parse(spec)[0] == "spark":
        return None
    try:
        folder = embedded_folder(settings.project, settings.start or Path.cwd())[0]
        key = (spec, str(folder), namespace)
        if known is not None and key in known:
            store, properties = known[key]
        else:
            store = open_store(spec, folder)
            properties = store.properties(namespace)
            if known is not None:
                known[key] = (store, properties)
        wanted = SemVer.parse(contract.version or "")
        version = next((r.version for r in history(properties, contract.id)
                        if wanted is not None and SemVer.parse(r.version) == wanted), None)
        if version is None:
            return None
        now = utc_now()
        current = life(properties, contract.id, version, now)
    except (CatalogUnavailable, BadRecord) as exc:
        click.echo("\n".join(prose(f"dc-bridge run: warning: the lifecycle of {contract.id} {contract.version} cannot be "
                                   f"read: {exc}")), err=True)
        return None
    documents = read.result.documents
    status = text_status(documents[0].data) if documents else None
    where = f"{store.label} namespace {namespace}"
    found = run_finding(current, settings.level("lifecycle"), where, now, status)
    if current.state == "retired" and not allow_retired:
        raise DataError(f"{contract.id} {version} is retired in {where} ({found.message}): it is not run; "
                        f"--allow-retired runs it anyway")
    return found


def deprecation_refusal(before, changes, catalog_spec: str | None, namespace: str | None, master: str | None,
                        conf_options: tuple[str, ...]) -> str | None:
    """`check-version --against-registered` with `[tool.dc-bridge.lifecycle] deprecation-window`: why NEW's breaking
    changes may not replace the registered version `before` (a LoadResult) yet, one line per change, or None (no window,
    no breaking change, or the registered version deprecated long enough ago). Exit 2 when the catalog cannot be read."""
    from dc_bridge import config
    from dc_bridge.catalog import CatalogUnavailable
    from dc_bridge.catalog.lifecycle import breaking_wait, life, utc_now
    from dc_bridge.catalog.registry import BadRecord

    window = config.current().deprecation_window
    breaking = [change for change in changes if change.bump == "major"]
    if window is None or not breaking or before.contract is None:
        return None
    contract = before.contract
    spec, namespace = resolve(catalog_spec, namespace)
    try:
        with open_catalog(spec, master, conf_options) as store:
            now = utc_now()
            current = life(store.properties(namespace), contract.id, contract.version, now)
    except (CatalogUnavailable, BadRecord) as exc:
        click.echo(f"dc-bridge check-version: the lifecycle of {contract.id} {contract.version} cannot be read: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    why = breaking_wait(current, f"{contract.id} {contract.version}", window, now)
    if why is None:
        return None
    return "\n".join([f"breaking change(s) wait for the consumers of {contract.id} {contract.version} "
                      f"(lifecycle.deprecation-window in {config.current().file}): {why}",
                      *(f"  {change.path}: {change.message}: needs that wait" for change in breaking)])
