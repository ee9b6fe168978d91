"""Lint and compile speed on two large contracts, and the JSON-schema validators compared on them.

    .venv/bin/python -m bench.lint_speed                 # everything below, about a minute
    .venv/bin/python -m bench.lint_speed --write bench/contracts   # only write the two contracts

The contracts are generated, deterministically, by the functions below:

- *nested*: ODCS v3.1.0, one schema object whose properties are 26 objects nested 4 levels deep
  (2 at the top, 3 under each of those, 3 under each of those) holding 500 properties in all, each
  with the types, `required` and an example, as an importer writes them; no quality rules (102 KB,
  the shape of the JSON importer's 88 KB contract of issue 15).
- *many models*: DCS 1.1.0, 200 models of 10 fields, every field with one SQL quality rule (2,000),
  the same text on every field, the way a generator writes them.

What is timed, in CPU seconds (on a shared machine wall time measures the neighbours), each the best of
`--repeat` runs in one process (the first run is reported apart as `cold`: it pays for imports and for
compiling the schema):

- `validation[jsonschema]` / `validation[jsonschema_rs]`: only the JSON-schema validation of the
  parsed document (`iter_errors` over the whole contract), with each library's validator built once.
- `lint`: `lint_file` as `dc-bridge lint` runs it (parse, normalise, schema, unknown keys, rules);
  `lint[jsonschema]` the same with the Python `jsonschema` in place of jsonschema-rs (as lint was before).
- `lint+compile`: what `dc-bridge compile` does per file: one `lint_file`, then `compile_contract`
  and the rendering of every file (nothing is written).
- `process[lint]` / `process[compile]`: the whole `dc-bridge lint` / `dc-bridge compile --check`
  command in a fresh process, interpreter start-up and imports included.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TYPES = [("string", "varchar(255)"), ("integer", "bigint"), ("number", "double"), ("boolean", "boolean"),
         ("date", "date"), ("timestamp", "timestamp")]
EXAMPLES = {"string": "'example text'", "integer": "42", "number": "3.5", "boolean": "true", "date": "'2024-01-31'",
            "timestamp": "'2024-01-31T12:00:00Z'"}


def nested_contract() -> str:
    """ODCS v3.1.0: 26 object properties nested 4 levels deep, 500 properties in all, no quality rules."""
    lines = ["apiVersion: v3.1.0", "kind: DataContract", "id: urn:bench:nested-import", "name: Nested import",
             "version: 1.0.0", "status: active", "description:", "  purpose: A contract written by a JSON importer.",
             "schema:", "  - name: events", "    physicalName: events", "    logicalType: object",
             "    physicalType: table", "    description: One record per event, as imported from a JSON document.",
             "    properties:"]
    counter = iter(range(10_000))
    objects = [0]

    def scalar(indent: str, name: str) -> None:
        number = next(counter)
        logical, physical = TYPES[number % len(TYPES)]
        lines.extend([
            f"{indent}- name: {name}",
            f"{indent}  logicalType: {logical}",
            f"{indent}  physicalType: {physical}",
            f"{indent}  required: {'true' if number % 3 == 0 else 'false'}",
            f"{indent}  examples: [{EXAMPLES[logical]}]",
        ])

    def obj(indent: str, name: str, depth: int) -> None:
        index = objects[0]
        objects[0] += 1
        next(counter)
        lines.extend([f"{indent}- name: {name}", f"{indent}  logicalType: object", f"{indent}  physicalType: struct",
                      f"{indent}  description: The {name.replace('_', ' ')} part of the record.", f"{indent}  properties:"])
        inner = indent + "    "
        for leaf in range(18 + (1 if index < 6 else 0)):  # 26 objects x 18 + 6 = 474 leaves, + 26 objects = 500
            scalar(inner, f"{name}_field_{leaf}")
        if depth < 3:
            for child in range(3):
                obj(inner, f"{name}_part_{child}", depth + 1)

    for top in range(2):
        obj("      ", f"section_{top}", 1)
    assert objects[0] == 26 and next(counter) == 500, (objects[0],)
    return "\n".join(lines) + "\n"


def many_models_contract(models: int = 200, fields: int = 10) -> str:
    """DCS 1.1.0: `models` models of `fields` fields, every field with the same SQL quality rule."""
    lines = ["dataContractSpecification: 1.1.0", "id: urn:bench:many-models",
             "info: {title: Many models, version: 1.0.0, owner: Bench}",
             "servers:", "  local: {type: local, format: parquet, path: './data/{model}.parquet'}", "models:"]
    for m in range(models):
        lines += [f"  model_{m:03d}:", f"    description: Model {m}.", "    type: table", "    fields:"]
        for f in range(fields):
            kind = ["string", "long", "double", "timestamp", "boolean"][f % 5]
            lines += [f"      field_{f}:", f"        type: {kind}", f"        description: Field {f} of model {m}.",
                      f"        required: {'true' if f == 0 else 'false'}"]
            if f == 0:
                lines.append("        unique: true")
            if kind == "string":
                lines.append("        maxLength: 100")
            lines += ["        quality:", "          - type: sql", "            description: no more than 1% nulls",
                      "            query: SELECT COUNT(*) FROM {model} WHERE {field} IS NULL",
                      "            mustBeLessThan: 100"]
    return "\n".join(lines) + "\n"


CONTRACTS = {"nested": ("nested-500.odcs.yaml", nested_contract), "many_models": ("many-models-200.dcs.yaml", many_models_contract)}


def write_contracts(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, (file, make) in CONTRACTS.items():
        paths[name] = folder / file
        paths[name].write_text(make(), encoding="utf-8")
    return paths


def _best(action, repeat: int) -> tuple[float, float]:
    """(cold, best warm) seconds of `action()`: CPU seconds of this process, which other work on a shared
    machine does not inflate as it does wall time (all of it is single-threaded)."""
    started = time.process_time()
    action()
    cold = time.process_time() - started
    warm = min(timeit.repeat(action, number=1, repeat=repeat, timer=time.process_time)) if repeat else cold
    return cold, warm


def _validation(path: Path, library: str, repeat: int) -> tuple[float, float, int]:
    from dc_bridge.contract.lint import schema as lint_schema
    from dc_bridge.contract.reading.load import load_contract

    result = load_contract(path)
    standard = "dcs" if result.kind == "dcs" else "odcs"
    version = result.contract.spec_version
    key = (standard, ".".join(version.lstrip("v").split(".")[:2]))
    data = lint_schema._for_schema(result.documents[0].data, standard)
    schema = lint_schema._schema(*key)
    if library == "jsonschema":
        import jsonschema
        build = lambda: jsonschema.validators.validator_for(schema)(schema)  # noqa: E731
    else:
        import jsonschema_rs
        build = lambda: jsonschema_rs.validator_for(schema)  # noqa: E731
    validator = build()
    errors = len(list(validator.iter_errors(data)))
    cold, warm = _best(lambda: list(validator.iter_errors(data)), repeat)
    compile_seconds = min(timeit.repeat(build, number=1, repeat=3, timer=time.process_time))
    return compile_seconds, warm, errors


def _jsonschema_errors(standard: str, prefix: str, data):
    """Lint's schema errors as the Python `jsonschema` gives them (what lint used before jsonschema-rs)."""
    import jsonschema

    from dc_bridge.contract.lint import schema as lint_schema

    schema = lint_schema._schema(standard, prefix)
    validator = jsonschema.validators.validator_for(schema)(schema)
    return [lint_schema.SchemaError(e.validator, tuple(e.absolute_path), e.message, e.validator_value, e.instance)
            for e in validator.iter_errors(data)]


def _lint(path: Path, repeat: int, library: str = "jsonschema_rs") -> tuple[float, float, int]:
    from dc_bridge.contract import lint
    from dc_bridge.contract.lint import schema as lint_schema

    fast = lint_schema.schema_errors
    if library == "jsonschema":
        lint_schema.schema_errors = _jsonschema_errors
    try:
        findings = len(lint.lint_file(path).findings)
        cold, warm = _best(lambda: lint.lint_file(path), repeat)
    finally:
        lint_schema.schema_errors = fast
    return cold, warm, findings


def _lint_compile(path: Path, repeat: int) -> tuple[float, float, int]:
    from dc_bridge import compiler
    from dc_bridge.contract.lint import lint_file

    out = Path(tempfile.mkdtemp(prefix="dcb-bench-"))

    def action():
        loaded = lint_file(path)
        compiled = compiler.compile_contract(loaded.contract)
        return compiler.rendered(compiled, out)

    checks = len(compiler.compile_contract(lint_file(path).contract).plan.checks)
    cold, warm = _best(action, repeat)
    return cold, warm, checks


def _process(args: list[str], cwd: Path) -> float:
    """CPU seconds (user + system) of one whole command in a fresh process."""
    exe = ROOT / ".venv" / "bin" / "dc-bridge"
    before = os.times()
    subprocess.run([str(exe), *args], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", help="only write the generated contracts into this folder")
    parser.add_argument("--repeat", type=int, default=5, help="warm runs per figure (the best is reported)")
    parser.add_argument("--libraries", default="jsonschema_rs,jsonschema",
                        help="validators to time alone (jsonschema on the nested contract takes about a minute)")
    parser.add_argument("--processes", type=int, default=3, help="whole-process runs per command (the best is reported)")
    parser.add_argument("--json", help="write the figures here as JSON")
    args = parser.parse_args(argv)
    if args.write:
        for name, path in write_contracts(Path(args.write)).items():
            print(f"{name}: {path} ({path.stat().st_size / 1024:.0f} KB)")
        return 0
    folder = Path(tempfile.mkdtemp(prefix="dcb-lint-speed-"))
    paths = write_contracts(folder)
    figures: dict[str, dict] = {}
    for name, path in paths.items():
        row: dict = {"kb": round(path.stat().st_size / 1024)}
        for library in filter(None, args.libraries.split(",")):
            slow = library == "jsonschema" and name == "nested"
            build, seconds, errors = _validation(path, library, 0 if slow else args.repeat)
            row[f"validation[{library}]"] = {"seconds": round(seconds, 4), "build_seconds": round(build, 4), "errors": errors}
        cold, warm, findings = _lint(path, args.repeat)
        row["lint"] = {"cold": round(cold, 4), "seconds": round(warm, 4), "findings": findings}
        if "jsonschema" in args.libraries.split(","):
            slow = name == "nested"
            cold, warm, findings = _lint(path, 0 if slow else args.repeat, "jsonschema")
            row["lint[jsonschema]"] = {"seconds": round(warm, 4), "findings": findings}
        cold, warm, checks = _lint_compile(path, args.repeat)
        row["lint+compile"] = {"cold": round(cold, 4), "seconds": round(warm, 4), "checks": checks}
        if args.processes:
            row["process[lint]"] = round(min(_process(["lint", str(path)], folder) for _ in range(args.processes)), 3)
            row["process[compile]"] = round(min(_process(["compile", "--check", "--out", str(folder / "out"), str(path)], folder)
                                               for _ in range(args.processes)), 3)
        figures[name] = row
        print(name, json.dumps(row, indent=1), flush=True)
    for name, row in figures.items():
        slow, fast = row.get("validation[jsonschema]"), row.get("validation[jsonschema_rs]")
        if slow and fast and fast["seconds"]:
            print(f"{name}: validation jsonschema / jsonschema_rs = {slow['seconds'] / fast['seconds']:.0f}x")
        if "lint[jsonschema]" in row:
            print(f"{name}: lint with jsonschema / with jsonschema_rs = {row['lint[jsonschema]']['seconds'] / row['lint']['seconds']:.1f}x")
    if args.json:
        Path(args.json).write_text(json.dumps({"python": sys.version.split()[0], "cpus": os.cpu_count(), "figures": figures}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
