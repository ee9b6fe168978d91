"""The compiled files' writers (dc_bridge/engines/compiled_text.py) against the general ones they stand in for.

    .venv/bin/python -m bench.compiled_text

On bench/lint_speed.py's 200-model contract (2,000 checks), in CPU seconds in one process: the GX suites'
text (`indented_json` vs `json.dumps(indent=2, ensure_ascii=False)`), the SodaCL documents' text (`block_yaml`
vs PyYAML's SafeRepresenter with the same `|` rule for text), all compiled files' rendering, and lint +
compile + rendering as `dc-bridge compile` does it. Each pair is timed twice in turn, the best time of each
kept. Both writers must write the same bytes; the script says so first.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import yaml

from bench.lint_speed import many_models_contract
from dc_bridge import compiler
from dc_bridge.contract.lint import lint_file
from dc_bridge.engines import compiled_text
from dc_bridge.engines.gx import translate as gx_translate
from dc_bridge.engines.soda import translate as soda_translate


class _General(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
    """The representer of every value, with block_yaml's one rule for text."""


_General.add_representer(str, lambda dumper, text: dumper.represent_scalar(
    "tag:yaml.org,2002:str", text, style="|" if "\n" in text else None))
_OURS = (compiled_text._json, soda_translate.block_yaml)


def _use_general() -> None:
    def refuse(value: object, newline: str) -> str:
        raise compiled_text._NotJson  # indented_json then writes with json.dumps

    compiled_text._json = refuse
    soda_translate.block_yaml = lambda document: yaml.dump(document, Dumper=_General, sort_keys=False, allow_unicode=True,
                                                           width=10_000)


def _use_ours() -> None:
    compiled_text._json, soda_translate.block_yaml = _OURS


def _best(action, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.process_time()
        action()
        times.append(time.process_time() - started)
    return min(times)


def main() -> None:
    path = Path(tempfile.mkdtemp(prefix="dcb-bench-")) / "many_models.yaml"
    path.write_text(many_models_contract(), encoding="utf-8")
    out = Path(tempfile.mkdtemp(prefix="dcb-bench-"))
    compiled = compiler.compile_contract(lint_file(path).contract)
    ours = compiler.rendered(compiled, out)
    _use_general()
    general = compiler.rendered(compiled, out)
    _use_ours()
    print("same bytes:", ours == general)

    def gx_text():
        for suite in compiled.artifacts["gx"].values():
            gx_translate.suite_text(suite, compiled.meta)

    def soda_text():
        for document in compiled.artifacts["soda"].values():
            soda_translate.sodacl_text(document, compiled.meta)

    figures = [("GX suites", gx_text, 15), ("SodaCL documents", soda_text, 15),
               ("rendering", lambda: compiler.rendered(compiled, out), 10),
               ("lint + compile + rendering", lambda: compiler.rendered(compiler.compile_contract(lint_file(path).contract), out), 7)]
    for name, action, repeat in figures:
        best_ours = best_general = float("inf")
        for _ in range(2):
            _use_ours()
            best_ours = min(best_ours, _best(action, repeat))
            _use_general()
            best_general = min(best_general, _best(action, repeat))
        _use_ours()
        print(f"{name:28s} ours {best_ours:.3f} s   general {best_general:.3f} s   {best_general / best_ours:.2f}x")


if __name__ == "__main__":
    main()
