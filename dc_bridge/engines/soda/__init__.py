"""Soda Core v3: one SodaCL document per model (translate.py), scanned on the model's temp view
(run.py). This is Soda's one wiring point."""

from __future__ import annotations

from dc_bridge.contract.sql import view_name
from dc_bridge.engines.engine import CompiledFiles, Engine
from dc_bridge.engines.soda.translate import assemble_document, sodacl_text, translate_check


def _run(spark, frames, compiled, model, now):
    from dc_bridge.engines.soda.run import run_soda  # Soda is imported only when a run needs it

    text = sodacl_text(compiled.artifacts["soda"][model], compiled.meta)
    return run_soda(spark, frames[model], text, view_name(compiled.plan.contract_id, model), compiled.plan.for_model(model), now=now)


def _preload():
    from dc_bridge.engines.soda.run import preload

    preload()


ENGINE = Engine(name="soda", translate=translate_check, assemble=assemble_document,
                files=CompiledFiles(folder="soda_checks", suffix=".yml", text=sodacl_text), run=_run, preload=_preload)
