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
    """Move a registered version of a contract (default: its current one) to its next state: proposed or draft
    -> active -> deprecated (with a sunset date) -> sunset -> retired, each move recorded with its time and
    reason. A deprecated version is sunset from its date on without a move.

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
