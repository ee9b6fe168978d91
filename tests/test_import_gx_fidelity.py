"""Fidelity of `dc-bridge import` against GX itself, on suites nobody here wrote (copied from GX's repository:
tests/importing/gx_upstream/NOTICE.md). Each table's suite is run as its users run it, a plain GX 1.x checkpoint
of a validation definition on a Spark DataFrame data source, and the imported contract through dc_bridge.run with
the gx, soda and spark engines in one run; on data that passes and data that fails, every check must have GX's
outcome and, where GX counts unexpected rows, GX's count, in every engine that evaluates it.

Pre-1.0 suites are given to GX 1.x with `expectation_type` spelt `type` (what GX 1.x reads); an expectation GX
1.x cannot build (a kwarg of null, an empty value_set) is GX's error, and the imported check must not pass."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import dc_bridge
from dc_bridge.cli import main

UPSTREAM = Path(__file__).parent / "importing" / "gx_upstream"
BOB_ROSS = "EPISODE string, TITLE string, APPLE_FRAME int"
ROWS = {
    ("bob_ross_warning.json", BOB_ROSS): {
        "passes": [("S01E01", "A WALK IN THE WOODS", 0), ("S01E02", "MT. MCKINLEY", 1), ("S01E03", "EBONY SUNSET", None)],
        "fails": [("S01E01", None, None), (" S01E01", None, None), ("S01E03 ", "WINTER MIST", None)],
    },
    ("visitors_exp.json", "event_type string"): {
        "passes": [("page_load",), ("page_view",), (None,)],
        "fails": [("page_load",), ("click",), ("scroll",)],
    },
}


def plain_checkpoint(suite_file: Path, frame) -> list[tuple[bool | None, int | None]]:
    """(success, unexpected_count) per expectation, in the suite's order, from a plain GX 1.x checkpoint; success
    None where GX cannot build or run the expectation."""
    import great_expectations as gx
    from great_expectations.expectations.expectation_configuration import ExpectationConfiguration

    context = gx.get_context(mode="ephemeral")
    batch = (context.data_sources.add_spark("spark").add_dataframe_asset("table")
             .add_batch_definition_whole_dataframe("whole"))
    raw = json.loads(suite_file.read_text())["expectations"]
    built: dict[int, object] = {}
    for index, item in enumerate(raw):
        try:
            built[index] = ExpectationConfiguration(type=item.get("type") or item["expectation_type"], kwargs=item["kwargs"],
                                                    meta=item.get("meta")).to_domain_obj()
        except Exception:  # GX 1.x refuses to build it: its own error
            continue
    suite = context.suites.add(gx.ExpectationSuite(name="suite", expectations=list(built.values())))
    ids = {expectation.id: index for index, expectation in zip(built, suite.expectations)}
    definition = context.validation_definitions.add(gx.ValidationDefinition(name="vd", data=batch, suite=suite))
    checkpoint = context.checkpoints.add(gx.Checkpoint(name="cp", validation_definitions=[definition], result_format="COMPLETE"))
    result = checkpoint.run(batch_parameters={"dataframe": frame})
    found: dict[int, tuple[bool | None, int | None]] = {index: (None, None) for index in range(len(raw))}
    for run in result.run_results.values():
        for item in run.results:
            raised = item.exception_info.get("raised_exception") if isinstance(item.exception_info, dict) else False
            found[ids[item.expectation_config.id]] = (None if raised else item.success, item.result.get("unexpected_count"))
    return [found[index] for index in range(len(raw))]


def check_ids(contract: dict, report: dict) -> list[str | None]:
    """The dc-bridge check id of each report row (None: refused), from where its rule or property landed."""
    suffix = {"required": "required", "unique": "unique", "physicalType": "type", "logicalType": "type",
              "minimum": "range", "maximum": "range", "exclusiveMinimum": "range", "exclusiveMaximum": "range",
              "minLength": "length", "maxLength": "length"}
    ids, model = [], contract["schema"][0]
    fields = {p["name"]: p for p in model["properties"]}
    used: dict[str, int] = {}
    for row in report["checks"]:
        if row["outcome"] == "refused":
            ids.append(None)
            continue
        name, _, field = row["target"].partition(".")
        holder = fields[field] if field else model
        rules = holder.get("quality", [])
        key = f"{row['target']}.quality"
        if row["check"].startswith("expect_column_to_exist"):
            ids.append(f"{name}.{field}.exists")
        elif rules and used.get(key, 0) < len(rules) and _is_rule(row):
            ids.append(f"{key}[{used.get(key, 0)}]")
            used[key] = used.get(key, 0) + 1
        else:
            props = {**fields[field].get("logicalTypeOptions", {}), **fields[field]}
            ids.append(f"{name}.{field}." + next(suffix[k] for k in props if k in suffix))
    return ids


def _is_rule(row: dict) -> bool:
    return row["outcome"] == "custom" or "mostly" in row["check"] or "row_condition" in row["check"] or not any(
        row["check"].startswith(t) for t in ("expect_column_values_to_not_be_null", "expect_column_values_to_be_unique",
                                            "expect_column_values_to_be_between", "expect_column_value_lengths",
                                            "expect_column_values_to_be_of_type", "expect_column_values_to_be_in_type_list"))


@pytest.mark.parametrize("case", sorted(ROWS), ids=[name for name, _ in sorted(ROWS)])
def test_imported_suite_judges_as_gx(spark, tmp_path, case):
    suite_file, schema = case
    out, report_file = tmp_path / "contract.yaml", tmp_path / "report.json"
    result = CliRunner().invoke(main, ["import", f"gx:{UPSTREAM / suite_file}", "--out", str(out), "--report", str(report_file)])
    assert result.exit_code in (0, 1), result.output
    report = json.loads(report_file.read_text())
    raw = json.loads((UPSTREAM / suite_file).read_text())["expectations"]
    assert len(report["checks"]) == len(raw), "one report row per source expectation"
    import yaml

    contract = yaml.safe_load(out.read_text())
    ids = check_ids(contract, report)
    model = contract["schema"][0]["name"]
    differences, compared = [], set()
    for label, rows in ROWS[case].items():
        frame = spark.createDataFrame(rows, schema)
        plain = plain_checkpoint(UPSTREAM / suite_file, frame)
        verdict = dc_bridge.run(str(out), dataframes={model: frame}, spark=spark, engines=["gx", "soda", "spark"], samples=False)
        checks = {c.check_id: c for c in verdict.checks()}
        for index, (check_id, (success, unexpected)) in enumerate(zip(ids, plain)):
            if check_id is None:
                continue
            check = checks[check_id]
            for engine, got in check.engines.items():
                if got.outcome in ("not_executable", "skipped") or got.error and "does not run" in got.error:
                    continue
                passed = got.outcome in ("passed", "warning") if success is not None else None
                if success is None:
                    same = got.outcome not in ("passed",)
                else:
                    same = (got.outcome == "passed") == success and (unexpected is None or got.unexpected_count in (None, unexpected)
                                                                      and (got.observed is None or check.unit != "rows" or got.observed == unexpected))
                compared.add((label, index, engine, got.outcome, success))
                if not same:
                    differences.append(f"{label} [{index}] {report['checks'][index]['check']} -> {check_id} {engine}: "
                                       f"GX {success, unexpected}, dc-bridge {got.outcome, got.unexpected_count, got.observed} {passed}")
    assert not differences, "\n".join(differences)
    # every carried check was compared on both data sets, and the failing data fails some in GX
    assert {(label, index) for label, index, *_ in compared} == {(label, i) for label in ROWS[case] for i, c in enumerate(ids) if c}
    assert any(label == "fails" and success is False for label, _, _, _, success in compared)


DEFINITIONS = json.loads((UPSTREAM / "test_definitions.json").read_text())
# the rows GX's test definitions do not reach (row_condition with the spark parser, aggregates, row counts, types,
# mostly on the SQL share), written here: each test's expected success is GX's own, from the plain checkpoint
DEFINITIONS.update(json.loads((Path(__file__).parent / "importing" / "gx_cases.json").read_text()))


@pytest.mark.parametrize("kind", sorted(DEFINITIONS))
def test_gx_test_definitions_judge_as_gx(spark, tmp_path, kind):
    """GX's own test definitions of an expectation type: each test's expectation a suite of its own (one model
    each, so two tests' bounds on one column are two checks, not a conflict), all imported as one contract and
    run once; the plain checkpoint of each suite on the same frame is the oracle, and GX agrees with the
    definition's expected success (else the test is GX 1.x's own difference, listed). A test may name its own
    expectation type (a fourth item) and give no expected success (None)."""
    definition = DEFINITIONS[kind]
    columns = list(definition["data"])
    rows = list(zip(*(definition["data"][c] for c in columns)))
    frame = spark.createDataFrame(rows, ", ".join(f"{c} {definition['spark'][c]}" for c in columns))
    folder = tmp_path / "suites"
    folder.mkdir()
    for index, (_, kwargs, _, *own) in enumerate(definition["tests"]):
        expectation = {"type": own[0] if own else kind, "kwargs": kwargs}
        (folder / f"t{index:02d}.json").write_text(json.dumps({"name": f"t{index:02d}", "expectations": [expectation]}))
    out, report_file = tmp_path / "contract.yaml", tmp_path / "report.json"
    result = CliRunner().invoke(main, ["import", f"gx:{folder}", "--out", str(out), "--report", str(report_file)])
    assert result.exit_code in (0, 1), result.output
    report = json.loads(report_file.read_text())
    assert len(report["checks"]) == len(definition["tests"])
    verdict = dc_bridge.run(str(out), dataframes={f"t{i:02d}": frame for i in range(len(definition["tests"]))}, spark=spark,
                            engines=["gx", "soda", "spark"], samples=False)
    by_model: dict[str, list] = {}
    for check in verdict.checks():
        by_model.setdefault(check.model, []).append(check)
    # a field's `exists` check rides along every field property; it is the check only of expect_column_to_exist
    by_model = {model: [c for c in checks if not c.check_id.endswith(".exists")] or checks for model, checks in by_model.items()}
    differences, gx_own = [], []
    for index, (title, kwargs, expected, *_) in enumerate(definition["tests"]):
        (success, unexpected), = plain_checkpoint(folder / f"t{index:02d}.json", frame)
        if expected is not None and success is not expected:
            gx_own.append(f"{title}: GX 1.x says {success}, the definition {expected}")
        row = report["checks"][index]
        if row["outcome"] == "refused":
            continue
        checks = by_model[f"t{index:02d}"]
        assert len(checks) == 1, (title, [c.check_id for c in checks])
        for engine, got in checks[0].engines.items():
            if got.outcome == "not_executable":
                continue
            agrees = got.outcome != "passed" if success is None else (got.outcome == "passed") == success
            counted = unexpected is None or got.unexpected_count is None or got.unexpected_count == unexpected
            if not (agrees and counted):
                differences.append(f"{title} ({row['outcome']}): GX {success, unexpected}, {engine} {got.outcome, got.unexpected_count}")
    assert not differences, "\n".join(differences)
    assert gx_own == GX_1_DIFFERS.get(kind, []), gx_own


# where GX 1.x itself no longer gives what its (pre-1.0) test definition expects
GX_1_DIFFERS: dict[str, list[str]] = {
    # GX 1.x refuses to build the expectation with a value_set of null (pre-1.0 passed it vacuously)
    "expect_column_values_to_be_in_set": ["Vacuously true - empty value_set: GX 1.x says None, the definition True"],
}
