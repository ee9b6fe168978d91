"""`dc-bridge soda config`: what a plain Soda Core v3 scan of the compiled SodaCL on a Spark session needs.

The compiled `soda_checks/<contract>/<model>.yml` files name each model's table as a temp view
(`checks for dcb_orders_adb3e1b7:`; foreign-key checks name the referenced model's view too). A
scan runs them when each model's DataFrame is registered under that view and the scan has a Spark
data source. This writes those names down, with the files' paths, as YAML a user's scan code reads:

    data_source: dc_bridge_spark
    models:
      orders: {view: dcb_orders_adb3e1b7, sodacl: soda_checks/<contract>/orders.yml}

The view names are stable (`sql.view_name`: a hash of contract id and model), so the file stays
valid until the contract's id or models change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import yaml

from dc_bridge import compiler
from dc_bridge.compiler import compile_for_run
from dc_bridge.contract.model import Contract
from dc_bridge.contract.sql import view_name
from dc_bridge.engines import soda


def soda_config(contract: str | Path | Contract, out: str | Path = ".",
                variables: Mapping[str, str] | None = None) -> tuple[dict, list[Path]]:
    """(the config, compiled SodaCL files under `out` that are missing or stale); `variables`: the
    contract's ODCS 3.2 `${NAME}` values (`--var`)."""
    compiled = compile_for_run(contract, variables)
    # the files as `dc-bridge compile` writes them, so a stale one is caught here rather than by a wrong scan
    compiled_files = compiler.rendered(compiled, Path(out))
    paths = {path.stem: path for path in compiled_files if path.parts[-3] == soda.ENGINE.files.folder}
    models = {}
    for model in compiled.artifacts[soda.ENGINE.name]:
        path = paths[compiler.safe_name(model, "model")]
        models[model] = {"view": view_name(compiled.plan.contract_id, model), "sodacl": path.as_posix()}
    stale = [p for p, text in compiled_files.items() if p in paths.values() and (not p.exists() or p.read_text(encoding="utf-8") != text)]
    config = {"contract": compiler.display_path(compiled.contract.file), "contract_id": compiled.plan.contract_id,
              "contract_version": compiled.plan.contract_version, "data_source": soda.DATA_SOURCE, "models": models}
    return config, stale


def config_text(config: dict) -> str:
    header = ("# dc-bridge soda config: register each model's DataFrame as its `view`, add a Spark data source named\n"
              "# `data_source` to the scan, and add the `sodacl` files (docs/soda.md). Written by `dc-bridge soda config`.\n")
    return header + yaml.safe_dump(config, sort_keys=False, allow_unicode=True, width=10_000)
