"""`dc_bridge.airflow`: contracts checked as an Airflow 3 task (docs/orchestrators.md, the `airflow` extra).

`DcBridgeOperator` runs its contracts as `dc-bridge run` does, through the same runner (runner/pipeline.py `check`, one
run per contract, one Spark session for several): the project's configuration found from the contracts, the history and
Prometheus metrics as the run writes them, a contract that cannot be checked an `error` verdict of its own while the
others go on. The verdict, as `run --output json` prints it (an object, a list of them for several contracts), is the
task's XCom `return_value`, also when the task fails; the console report goes to the task's log; the task fails as
`run --fail-on` exits non-zero. Airflow's OpenLineage integration (apache-airflow-providers-openlineage) gets the checked
datasets with their data quality assertions and metrics (report/openlineage.py `input_datasets`) from
`get_openlineage_facets_on_complete`, which it also calls when the task failed.

The arguments are checked when the DAG file is parsed, with the runner's own checks (runner/options.py `RunOptions`,
runner/data.py `parse_data_option`): a wrong one is an import error of the DAG naming the task, never a failed run.
Templated arguments (`contracts`, `data`, `where`, `history`, `vars`) are checked again once rendered.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dc_bridge.extras import MissingExtra, missing_message

try:
    from airflow.sdk import BaseOperator
    from airflow.sdk.exceptions import AirflowException
except ModuleNotFoundError as exc:  # the `airflow` extra is not installed: say which extra, not a bare traceback
    raise MissingExtra(missing_message(exc)) from None

from dc_bridge import config
from dc_bridge.engines.registry import DEFAULT_ENGINES
from dc_bridge.outcomes import FAIL_ON
from dc_bridge.runner.data import DataError, DataLocation, parse_location
from dc_bridge.runner.options import RunOptions
from dc_bridge.runner.timeouts import DEFAULT_SECONDS

__all__ = ["DcBridgeOperator"]


def _templated(value: Any) -> bool:
    """A value Airflow renders before the task runs: checked once rendered, not at parse time."""
    return isinstance(value, str) and "{{" in value


def _contract_files(contracts: Any) -> list[str]:
    files = [contracts] if isinstance(contracts, (str, Path)) else list(contracts) if isinstance(contracts, Sequence) else None
    if not files or not all(isinstance(file, (str, Path)) and str(file) for file in files):
        raise ValueError(f"contracts={contracts!r}: give a contract file, or a list of them")
    return [str(file) for file in files]


def _engines(engines: Any) -> tuple[str, ...] | None:
    """None (the project's `engines`, else gx,soda, as `run` without --engines), "gx,soda" as --engines writes it, or a list."""
    if engines is None:
        return None
    names = engines.split(",") if isinstance(engines, str) else list(engines) if isinstance(engines, Sequence) else None
    if names is None or not all(isinstance(name, str) for name in names):
        raise ValueError(f"engines={engines!r}: give engine names, as a list or comma-separated (gx, soda, spark)")
    return tuple(name.strip() for name in names if name.strip())


def _data(data: Any, files: list[str]) -> dict[str, DataLocation]:
    """`data`: model -> PATH[:FORMAT[,OPTION[=VALUE]]...], as `--data MODEL=...` writes it, read by the same parser."""
    if data is None:
        return {}
    if not isinstance(data, Mapping) or not all(isinstance(k, str) and isinstance(v, (str, Path)) for k, v in data.items()):
        raise ValueError(f"data={data!r}: give a mapping of model name to PATH[:FORMAT] (what --data MODEL=PATH takes)")
    if data and len(files) > 1:
        raise ValueError(f"data= belongs to one contract, and {len(files)} were given: give each contract that needs data= "
                         f"a task of its own")
    try:
        return {model: parse_location(str(path), f"data[{model!r}]", given_by="data[MODEL]=") for model, path in data.items()
                if not _templated(str(path))}
    except DataError as exc:
        raise ValueError(str(exc)) from None


def _mapping(name: str, value: Any) -> dict[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError(f"{name}={value!r}: give a mapping of names to text values")
    return dict(value)


class DcBridgeOperator(BaseOperator):
    """Check data contracts on Spark with dc-bridge, as `dc-bridge run CONTRACT...` does.

    :param contracts: a contract file, or a list of them (one session for all; `data` needs a single contract)
    :param data: model -> PATH[:FORMAT[,OPTION[=VALUE]]...] to read instead of the contract's server (`--data`)
    :param engines: "gx,soda", or a list of gx, soda, spark (default: the project's `engines`, else gx and soda)
    :param fail_on: "failed" (the task fails on a failed or error verdict) or "warning" (on warnings too): `--fail-on`
    :param master: the Spark master, e.g. an `sc://host:15002` Spark Connect URL (default: a session the task starts
        in its own process, or the one already running there); `conf`: Spark configuration for a session it starts
    :param server, where, samples, timeout, history, metrics_push, metrics_file, vars: as `dc_bridge.run`'s keywords
        of those names (`--server`, `--where`, ... of `dc-bridge run`)
    """

    template_fields: Sequence[str] = ("contracts", "data", "where", "history", "vars")
    ui_color = "#d9ecf2"

    def __init__(self, *, contracts: str | Sequence[str], data: Mapping[str, str] | None = None,
                 engines: str | Sequence[str] | None = None, fail_on: str = "failed", server: str | None = None,
                 where: str | None = None, master: str | None = None, conf: Mapping[str, str] | None = None,
                 samples: bool = True, timeout: float | None = DEFAULT_SECONDS, history: str | None = None,
                 metrics_push: str | None = None, metrics_file: str | None = None, vars: Mapping[str, str] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        try:
            if fail_on not in FAIL_ON:
                raise ValueError(f"fail_on={fail_on!r}: choose one of {', '.join(FAIL_ON)} (what `dc-bridge run --fail-on` takes)")
            files = _contract_files(contracts)
            chosen = _engines(engines)
            # the runner's own checks of what is known now: engines, the time limit, a `where` not templated, the data
            RunOptions(engines=DEFAULT_ENGINES if chosen is None else chosen, timeout=timeout, where=None if _templated(where) else where,
                       data=_data(data, files), conf=_mapping("conf", conf))
            _mapping("vars", vars)
        except ValueError as exc:
            raise ValueError(f"DcBridgeOperator(task_id={self.task_id!r}): {exc}") from None
        self.contracts, self.data, self.engines, self.fail_on = contracts, data, chosen, fail_on
        self.server, self.where, self.master, self.conf, self.samples, self.timeout = server, where, master, conf, samples, timeout
        self.history, self.metrics_push, self.metrics_file, self.vars = history, metrics_push, metrics_file, vars
        self._verdicts: list = []  # this execution's, for the OpenLineage integration

    def execute(self, context) -> Any:
        from dc_bridge.report import verdict_formats

        verdicts = self._check()
        self._verdicts = verdicts
        shown = verdicts if len(verdicts) > 1 else verdicts[0]
        self.log.info("dc-bridge verdict:\n%s", _console(shown, self.fail_on))
        value = json.loads(verdict_formats.as_json(shown))
        code = max(verdict.exit_code(self.fail_on) for verdict in verdicts)
        if code:
            if self.do_xcom_push:  # the verdict is there for what runs after a failure too
                context["ti"].xcom_push(key="return_value", value=value)
            worst = "; ".join(f"{' '.join(filter(None, (v.contract_id, v.contract_version)))}: {v.outcome}" for v in verdicts
                              if v.exit_code(self.fail_on))
            raise AirflowException(f"dc-bridge: {worst} (fail_on={self.fail_on!r}; exit code {code} of `dc-bridge run`)")
        return value

    def _check(self) -> list:
        """One verdict per contract, in the order given, as `dc-bridge run` makes them."""
        from dc_bridge.history import is_table, open_history
        from dc_bridge.monitors import monitor_settings
        from dc_bridge.report.prometheus import Targets, publish
        from dc_bridge.runner.pipeline import SessionOnFirstNeed, read_contract, shared_ids

        files = _contract_files(self.contracts)  # rendered now
        settings, notice = config.contracts_project(files)
        if notice:
            self.log.info(notice)
        with config.using(settings.for_running()):
            engines = self.engines if self.engines is not None else tuple(config.current().engines or DEFAULT_ENGINES)
            several = len(files) > 1
            metrics = Targets(push=self.metrics_push, file=self.metrics_file, words=("metrics_push=", "metrics_file="))
            options = RunOptions(engines=engines, server=self.server, data=_data(self.data, files), where=self.where,
                                 master=None if several else self.master, conf=None if several else self.conf,
                                 samples=self.samples, timeout=self.timeout, vars=_mapping("vars", self.vars) or {},
                                 history=self.history, metrics_file=self.metrics_file,
                                 monitors=monitor_settings(config.current()) if self.history else None)
            reads = shared_ids([read_contract(file, options.vars) for file in files])
            recorded = open_history(self.history) if self.history and not is_table(self.history) else None
            session = SessionOnFirstNeed(self.master, self.conf, engines) if several else None
            try:
                verdicts = [self._one(file, read, options, session, recorded) for file, read in zip(files, reads)]
            finally:
                if session is not None:
                    session.stop()
        for problem in publish(verdicts, metrics) if metrics else ():
            self.log.warning("metrics: %s", problem)
        return verdicts

    def _one(self, file: str, read, options: RunOptions, session, recorded):
        """One contract's verdict; one that cannot be checked is an `error` verdict, said in every channel (`check`)."""
        from dc_bridge.compiler import ContractError
        from dc_bridge.report.finding_formats import FORMATTERS
        from dc_bridge.runner.pipeline import check, unchecked

        ended: list = []
        options = replace(options, now=datetime.now(timezone.utc))
        try:
            return check(read, options, spark=session, history=recorded, on_unchecked=ended.append)
        except Exception as exc:  # this contract's error: the others go on, and the task fails with exit code 2's outcome
            self.log.error("dc-bridge run: %s", FORMATTERS["text"](exc.findings, [file]) if isinstance(exc, ContractError)
                           else f"{file}: {type(exc).__name__}: {exc}")
            return ended[0] if ended else unchecked(read, exc, options)

    def get_openlineage_facets_on_complete(self, task_instance):
        """The checked datasets, each with its data quality assertions and metrics, for Airflow's OpenLineage integration
        (which calls this on failure too, there being no `get_openlineage_facets_on_failure`)."""
        from airflow.providers.openlineage.extractors import OperatorLineage

        from dc_bridge.report.openlineage import input_datasets

        return OperatorLineage(inputs=[dataset for verdict in self._verdicts for dataset in input_datasets(verdict)])


def _console(shown, fail_on: str) -> str:
    """The console report as `dc-bridge run` prints it to a file (no colours, 120 columns), for the task's log."""
    from rich.console import Console

    from dc_bridge.report import verdict_formats

    console = Console(file=io.StringIO(), width=120, color_system=None, force_terminal=False)
    if isinstance(shown, list):
        verdict_formats.print_console_many(shown, console, fail_on)
    else:
        verdict_formats.print_console(shown, console)
    return "\n".join(line.rstrip() for line in console.file.getvalue().splitlines())
