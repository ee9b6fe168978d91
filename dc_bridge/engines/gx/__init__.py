"""Great Expectations (GX 1.x): one expectation suite per model (translate.py), validated on the
model's DataFrame in an ephemeral context (run.py). This is GX's one wiring point. The suites as the
objects of a GX project (project.py) serve `gx init` and the Data Docs site, not the engine."""

from __future__ import annotations

from dc_bridge.engines.engine import CompiledFiles, Engine
from dc_bridge.engines.gx.translate import assemble_suite, suite_text, translate_check


def _run(spark, frames, compiled, model, now):
    from dc_bridge.engines.gx.run import run_gx  # GX is imported only when a run needs it

    return run_gx(spark, frames[model], compiled.artifacts["gx"][model], compiled.plan.for_model(model), now)


def _preload():
    from dc_bridge.engines.gx.run import preload

    preload()


ENGINE = Engine(name="gx", translate=translate_check, assemble=assemble_suite,
                files=CompiledFiles(folder="expectation_suites", suffix=".json", text=suite_text), run=_run, preload=_preload)
