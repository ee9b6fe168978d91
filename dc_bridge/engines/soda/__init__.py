"""Soda Core v3: one SodaCL document per model (translate.py), scanned on the model's temp view
(run.py). This is Soda's one wiring point: the rest of dc-bridge uses Soda through what this package
exports, never its modules. Beside the `Engine`: the name of the data source a scan of the compiled
SodaCL uses (`dc-bridge soda config`), and scans run outside dc-bridge (external.py: `fold_soda`).
Soda itself is imported only where those need it, so lint and compile never pay for it."""

from __future__ import annotations

from dc_bridge.contract.sql import view_name
from dc_bridge.engines.engine import CompiledFiles, Engine
from dc_bridge.engines.soda.external import reader as read_external
from dc_bridge.engines.soda.translate import DATA_SOURCE, assemble_document, sodacl_text, translate_check

__all__ = ["DATA_SOURCE", "ENGINE"]


def _run(spark, frames, compiled, model, now):
    from dc_bridge.engines.soda.run import run_soda  # Soda is imported only when a run needs it

    text = sodacl_text(compiled.artifacts["soda"][model], compiled.meta)
    return run_soda(spark, frames[model], text, view_name(compiled.plan.contract_id, model), compiled.plan.for_model(model), now=now)


def _preload():
    from dc_bridge.engines.soda.run import preload

    preload()


ENGINE = Engine(name="soda", translate=translate_check, assemble=assemble_document,
                files=CompiledFiles(folder="soda_checks", suffix=".yml", text=sodacl_text), run=_run, preload=_preload,
                read_external=read_external, library="soda-core")
