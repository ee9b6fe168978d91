"""`dc-bridge history import`, `history prune` and `site`: the verdict history store on the command line
(dc_bridge/history/store.py, docs/history.md). Thin wrappers: the store and the site builder do the work."""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import click

from dc_bridge.contract.durations import parse_duration
from dc_bridge.outcomes import EXIT_OK, EXIT_UNREADABLE

# The store, the site builder and runner/history.py are imported by these commands when they run: the module is
# imported by every `dc-bridge` command, and they (Jinja2, the compiler, the fold) cost a lint or compile process a
# tenth of its CPU.


def register(group: click.Group) -> None:
    """Add the `history` group and `site` to the `dc-bridge` group (called at the end of cli/__init__.py)."""
    group.add_command(history_group)
    group.add_command(site_command)


@click.group(name="history")
def history_group() -> None:
    """The verdict history store of `run --history` (docs/history.md)."""


@history_group.command(name="import")
@click.argument("jsonl", type=click.Path(exists=True, dir_okay=False))
@click.option("--into", "target", required=True, type=click.Path(dir_okay=False), metavar="STORE",
              help="The SQLite history store to add the runs to (created if missing).")
def import_command(jsonl: str, target: str) -> None:
    """Import a JSON Lines history (run --history FILE.jsonl) into a store: once, the file only read."""
    import dc_bridge.cli.outputs as outputs
    from dc_bridge.history import open_store
    from dc_bridge.runner.history import HistoryError, cut_short_note

    outputs.check_file("--into", target, [outputs.Input(jsonl, "the JSON Lines history it imports")], written="the store",
                       fix="Name a store file of its own, e.g. history.db.")
    cut_short: list[int] = []
    try:
        added = open_store(target).import_jsonl(jsonl, cut_short)
    except HistoryError as exc:  # a StoreError too
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    if cut_short:
        click.echo(f"note: {cut_short_note(jsonl, cut_short)}", err=True)
    click.echo(f"imported {added} runs from {jsonl} into {target}" + ("" if added else " (already imported)"))
    sys.exit(EXIT_OK)


@history_group.command(name="prune")
@click.argument("target", type=click.Path(exists=True, dir_okay=False))
@click.option("--older-than", required=True, metavar="DURATION",
              help="Delete the runs that started longer ago than this (e.g. 90d, P6M); the SLAs judge the last 30 days.")
def prune_command(target: str, older_than: str) -> None:
    """Delete old runs from a history store. Never done automatically: retention is yours."""
    from dc_bridge.history import open_store
    from dc_bridge.runner.history import HistoryError

    try:
        older = parse_duration(older_than)  # a duration that does not read stops the command before the store is opened
        pruned = open_store(target, mode="write").prune(older)
    except (HistoryError, ValueError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    click.echo(f"pruned {pruned} runs older than {older_than} from {target}")
    sys.exit(EXIT_OK)


class _RunsOption(click.Option):
    """`site --runs`, whose default is the site builder's own (`DEFAULT_RUNS`), read from it when click needs it
    (the help, a `site` without --runs) rather than when this module is imported."""

    def get_default(self, ctx, call=True):
        from dc_bridge.history.site import DEFAULT_RUNS

        return DEFAULT_RUNS


@click.command(name="site")
@click.option("--history", "target", required=True, type=click.Path(exists=True, dir_okay=False), metavar="STORE",
              help="The SQLite history store of `run --history`.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), metavar="DIR",
              help="The folder to write the site to (index.html, contracts/, assets/).")
@click.option("--runs", cls=_RunsOption, show_default=True, type=click.IntRange(1, 500),
              help="The newest runs each contract page shows.")
def site_command(target: str, out_dir: str, runs: int) -> None:
    """Build a static site of the history: every contract's state, what fails since when, checks, monitors,
    charts, SLOs. Opens offline; a rebuild rewrites only the pages of contracts with new runs."""
    import dc_bridge.cli.outputs as outputs
    from dc_bridge.extras import MissingExtra, require
    from dc_bridge.history import open_store
    from dc_bridge.history.site import OWNED, StoreRefused, build_site, readable_store, site_files
    from dc_bridge.runner.history import HistoryError

    try:
        require("vl_convert")  # the charts' libraries: before anything is read or written
    except MissingExtra as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    # where the site goes, before the store is opened: even a read-only look at a store in WAL mode leaves its
    # -wal and -shm files beside it, and a refused command must leave everything as it was
    outputs.check_folder("--out", out_dir, [outputs.Input(target, "the --history store")], owned=OWNED, create=False)
    for file, mark in site_files(out_dir):
        outputs.check_not_foreign("--out", file, mark, "a file of a dc-bridge site")
    try:
        readable_store(target)
    except StoreRefused as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    try:
        store = open_store(target, mode="read")
        if not store.contracts():
            click.echo(f"the history store {target} holds no runs: nothing to build. Record runs with "
                       f"`dc-bridge run CONTRACT --history {target}`, then build the site again.")
            sys.exit(EXIT_OK)
        outputs.check_folder("--out", out_dir, [], owned=OWNED)
        with tempfile.TemporaryDirectory(prefix="dc-bridge-registered-") as scratch:
            registered = _registered_texts(store, Path(scratch))
            built = build_site(store, out_dir, runs, registered)
    except (HistoryError, OSError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    pages = [page for page in built.written if page.suffix == ".html"]
    kept = f", {built.unchanged} contract{'' if built.unchanged == 1 else 's'} unchanged" if built.unchanged else ""
    click.echo(f"wrote {len(pages)} page{'' if len(pages) == 1 else 's'} to {out_dir}{kept} (open {Path(out_dir) / 'index.html'})")
    sys.exit(EXIT_OK)


# how a run of `run --registered` names its contract in the store, in place of a file: `NS/ID@VERSION`
_LABEL = re.compile(r"^(?P<namespace>[^/]+)/(?P<id>.+)@(?P<version>[^@/]+)$")


def _registered_texts(store, folder: Path) -> dict[str, Path]:
    """`NS/ID@VERSION` -> a file in `folder` holding that registered text, verified against its record, for each
    contract whose runs came from `run --registered` (they recorded the label, not a file): fetched from the project's
    catalog as the run fetched them, so the site shows the title, owner, tags and text of what ran. A text that cannot
    be had is said on stderr, and the page says its text is not shown."""
    from dc_bridge import config
    from dc_bridge.catalog import CatalogUnavailable, open_store, parse
    from dc_bridge.catalog.iceberg import embedded_folder
    from dc_bridge.catalog.records import DigestMismatch, verified_text
    from dc_bridge.catalog.registry import BadRecord, history
    from dc_bridge.compiler import safe_name

    recorded = (store.contract_file(contract_id) for contract_id in store.contracts())
    labels = sorted({file for file in recorded if file and not Path(file).exists() and _LABEL.match(file)})
    if not labels:
        return {}
    settings = config.load()
    spec = settings.catalog or "iceberg"
    if parse(spec)[0] != "iceberg":
        click.echo(f"site: note: the registered texts of {', '.join(labels)} are in a Spark catalog, which the site does not "
                   f"start a session for: their pages show no text", err=True)
        return {}
    found: dict[str, Path] = {}
    try:
        catalog = open_store(spec, embedded_folder(settings.project, Path.cwd())[0])
    except CatalogUnavailable as exc:
        click.echo(f"site: note: the registered texts of {', '.join(labels)} cannot be read: {exc}", err=True)
        return {}
    for label in labels:
        named = _LABEL.match(label)
        try:
            properties = catalog.properties(named["namespace"]) or {}
            record = next((r for r in history(properties, named["id"]) if r.version == named["version"]), None)
            if record is None:
                raise BadRecord(f"{named['id']} {named['version']} is not registered in namespace {named['namespace']}")
            text = verified_text(record, catalog.read_text(record.location, properties))
        except (CatalogUnavailable, BadRecord, DigestMismatch, OSError) as exc:
            click.echo(f"site: note: the registered text of {label} cannot be read: {exc}", err=True)
            continue
        found[label] = folder / f"{safe_name(label, 'contract')}.yaml"
        found[label].write_bytes(text)
    return found
