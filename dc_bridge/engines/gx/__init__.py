"""Great Expectations (GX 1.x): one expectation suite per model (translate.py), validated on the
model's DataFrame in an ephemeral context (run.py). This is GX's one wiring point: the rest of
dc-bridge uses GX through what this package exports, never its modules. Beside the `Engine`: the
suites as the objects of a GX project (project.py: `dc-bridge gx init`), the Data Docs site of a
run (data_docs.py), and checkpoint results produced outside dc-bridge (external.py: `fold_gx`).
GX itself is imported only where those need it, so lint and compile never pay for it."""

from __future__ import annotations

from dc_bridge.engines.engine import CompiledFiles, Engine
from dc_bridge.engines.gx.external import reader as read_external
from dc_bridge.engines.gx.translate import GX_SPARK_TYPES, SEVERITY, assemble_suite, suite_name, suite_text, translate_check

# GX_SPARK_TYPES and SEVERITY: GX's spellings of Spark types and severities, which dc_bridge/importing reads backwards
__all__ = ["ENGINE", "GX_SPARK_TYPES", "SEVERITY", "RESULT_FORMATS", "Change", "ProjectConflict", "build_data_docs", "data_docs_pages",
           "expectation_parameters", "file_context", "suite_name", "sync", "unstorable"]

# exports of project.py and data_docs.py (with run.py under them), imported on first use: compile and lint reach
# this package through the registry and need none of them (a fifth of a `dc-bridge compile` process's imports)
_LAZY = {"RESULT_FORMATS": ("project", "RESULT_FORMATS"), "Change": ("project", "Change"),
         "ProjectConflict": ("project", "ProjectConflict"), "expectation_parameters": ("project", "expectation_parameters"),
         "file_context": ("project", "file_context"), "sync": ("project", "sync"), "unstorable": ("project", "unstorable"),
         "build_data_docs": ("data_docs", "build_site"), "data_docs_pages": ("data_docs", "validation_pages")}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from dc_bridge.engines.gx import data_docs, project

    module, attribute = _LAZY[name]
    value = getattr({"project": project, "data_docs": data_docs}[module], attribute)
    globals()[name] = value
    return value


def _run(spark, frames, compiled, model, now):
    from dc_bridge.engines.gx.run import run_gx  # GX is imported only when a run needs it

    return run_gx(spark, frames[model], compiled.artifacts["gx"][model], compiled.plan.for_model(model), now)


def _preload():
    from dc_bridge.engines.gx.run import preload

    preload()


ENGINE = Engine(name="gx", translate=translate_check, assemble=assemble_suite,
                files=CompiledFiles(folder="expectation_suites", suffix=".json", text=suite_text), run=_run, preload=_preload,
                read_external=read_external, library="great-expectations")
