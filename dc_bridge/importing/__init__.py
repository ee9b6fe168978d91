"""Other tools' checks carried into one ODCS contract: `dc-bridge import gx:PATH soda:PATH dbt:PATH --out FILE`.

Import is a front end beside the contract readers and `init`'s generation, never inside engines/. Each source
reader (gx.py, soda.py, dbt.py) reads its files into `Carried` items (model.py): one per source check, saying what
it became (a field property, a quality rule, a custom engine rule, or refused with the reason), through a mapping
table per source. assemble.py lays them into one ODCS document (one model per dataset, the same rule from two
sources once, conflicts listed); report.py is the import report (console table and JSON). Nothing is dropped:
every source check is one row of the report.
"""

from __future__ import annotations

import importlib

from dc_bridge.importing.model import Carried, ImportInputError, SourceCheck

# SOURCE prefix -> the module whose `read(path) -> list[Carried]` reads it (imported when a source names it)
READERS = {"gx": "dc_bridge.importing.gx", "soda": "dc_bridge.importing.soda", "dbt": "dc_bridge.importing.dbt"}


def read_source(spec: str) -> list[Carried]:
    """`gx:PATH`, `soda:PATH` or `dbt:PATH` read by its reader; ImportInputError for an unknown prefix."""
    prefix, sep, path = spec.partition(":")
    if not sep or prefix not in READERS or not path:
        raise ImportInputError(f"{spec}: a source is gx:PATH, soda:PATH or dbt:PATH (a GX suite or project, a SodaCL "
                               f"check file, a dbt schema.yml or manifest.json)")
    return importlib.import_module(READERS[prefix]).read(path)


__all__ = ["Carried", "ImportInputError", "READERS", "SourceCheck", "read_source"]
