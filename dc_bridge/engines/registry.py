"""The engines dc-bridge runs, in the order a verdict lists them. Adding an engine is one line here
and one folder under engines/ with its wiring in `__init__.py`."""

from __future__ import annotations

from dc_bridge.engines import gx, native, soda
from dc_bridge.engines.engine import Engine

ENGINES: dict[str, Engine] = {engine.name: engine for engine in (gx.ENGINE, soda.ENGINE, native.ENGINE)}
DEFAULT_ENGINES = ("gx", "soda")
