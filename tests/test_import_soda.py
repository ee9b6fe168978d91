"""`dc-bridge import soda:PATH` without Spark: the mapping table against engines/soda/translate.py (the way back),
every check one report row, and the hostile table (variables, odd dataset names, files that are no SodaCL,
unknown metrics and keys). Fidelity against Soda itself: tests/test_import_soda_fidelity.py."""

from __future__ import annotations

import pytest
import yaml
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.contract.reading.load import load_contract
from dc_bridge.engines.soda.translate import TRANSLATIONS
from dc_bridge.importing import ImportInputError
from dc_bridge.importing.assemble import assemble
from dc_bridge.importing.soda import METRICS, read
from dc_bridge.plan.build import build_plan

# a contract whose checks engines/soda/translate.py writes as Soda's own metrics (not a query of dc-bridge's)
NATIVE = """
apiVersion: v3.1.0
kind: DataContract
id: urn:test:soda-way-back
version: 1.0.0
status: active
schema:
  - name: people
    properties:
      - {name: id, logicalType: integer, required: true}
      - {name: tier, logicalType: string, logicalTypeOptions: {minLength: 2, maxLength: 6}}
      - {name: code, logicalType: string, logicalTypeOptions: {pattern: '^[A-Z]{2}$'}}
      - {name: age, logicalType: integer, logicalTypeOptions: {minimum: 0, maximum: 130}}
      - name: status
        logicalType: string
        quality:
          - {metric: invalidValues, arguments: {validValues: [gold, silver]}, mustBeLessThan: 3}
          - {metric: missingValues, arguments: {missingValues: ['', n/a]}, mustBeLessOrEqualTo: 10, unit: percent}
    quality:
      - {metric: rowCount, mustBeGreaterThan: 5}
"""


def test_every_row_inverts_a_kind_soda_translates():
    for metric, row in METRICS.items():
        for kind in filter(None, (row.inverse_of or "").split(", ")):
            assert kind in TRANSLATIONS, f"{metric}: {kind} is no kind engines/soda/translate.py translates"


def test_the_sodacl_compile_writes_imports_back_to_the_same_checks(tmp_path):
    """The way back: the SodaCL `compile` writes for a contract, imported, plans the same checks (kind, column,
    threshold) as the contract, for every check Soda evaluates with its own metric."""
    contract = tmp_path / "people.yaml"
    contract.write_text(NATIVE)
    out = tmp_path / "compiled"
    result = CliRunner().invoke(main, ["compile", str(contract), "--out", str(out)])
    assert result.exit_code == 0, result.output
    sodacl = next(out.rglob("*.yml"))
    carried = read(str(sodacl))
    # the compiled checks are named by their check ids, and the schema check is Soda's own (custom)
    assert {c.outcome for c in carried if not c.check.text.startswith("schema")} == {"mapped"}, [(c.check.text, c.reason) for c in carried]
    back = tmp_path / "back.yaml"
    back.write_text(yaml.safe_dump(assemble(carried, id="urn:test:back").document, sort_keys=False))

    def checks(path, model):
        loaded = load_contract(str(path))
        plan = build_plan(loaded.contract)
        return sorted((c.kind, c.columns, str(c.threshold), c.unit) for c in plan.checks
                      if c.model == model and c.kind not in ("column_exists", "column_type", "custom_soda"))

    # Soda's `valid min`/`valid max` and lengths come back as SQL rules counting the same rows (docs/importing-soda.md)
    as_sql = {"length_between": "sql_metric", "value_between": "sql_metric"}
    original = sorted((as_sql.get(kind, kind), *rest) for kind, *rest in checks(contract, "people"))
    assert checks(back, carried[0].model) == original and len(original) == 7


def test_every_check_is_one_row_and_nothing_is_silent(tmp_path):
    path = tmp_path / "checks.yml"
    path.write_text("""
variables: {x: 1}
profile columns: {columns: [orders.%]}
checks for orders:
  - row_count > 0
  - missing_count(id) = 0:
      warn: when > 0
      fail: when > 5
  - missing_count(id) = 0:
      invented key: 1
  - mising_count(id) = 0
  - change for row_count < 50
  - anomaly detection for row_count
  - invalid_count(${COLUMN}) = 0:
      valid length: 10
filter orders [daily]:
  where: day = '2024-01-01'
checks for orders [daily]:
  - row_count > 10
  - schema:
      fail: {when required column missing: [id]}
checks for orders [weekly]:
  - row_count > 10
for each dataset T:
  datasets: [orders, "order lines"]
  checks:
    - row_count > 0
for each dataset U:
  datasets: [orders_%]
  checks:
    - row_count > 0
checks for ${DATASET}:
  - row_count > 0
""")
    carried = read(str(path))
    outcomes = [(c.check.location, c.outcome) for c in carried]
    assert outcomes == [
        ("variables", "refused"), ("profile columns", "refused"),
        ("checks for orders[0]", "mapped"), ("checks for orders[1]", "custom"), ("checks for orders[2]", "custom"),
        ("checks for orders[3]", "refused"), ("checks for orders[4]", "refused"), ("checks for orders[5]", "refused"),
        ("checks for orders[6]", "refused"),
        ("checks for orders [daily][0]", "custom"), ("checks for orders [daily][1]", "refused"),
        ("checks for orders [weekly]", "refused"),
        ("for each dataset T: orders[0]", "mapped"), ("for each dataset T: order lines[0]", "mapped"),
        ("for each dataset U", "refused"), ("checks for ${DATASET}[0]", "refused")]
    reasons = {c.check.location: c.reason for c in carried}
    assert "invented key" in reasons["checks for orders[2]"]
    assert "neither a SodaCL metric" in reasons["checks for orders[3]"]
    assert "Soda Cloud" in reasons["checks for orders[4]"]
    assert "${COLUMN}" in reasons["checks for orders[6]"] and "${DATASET}" in reasons["checks for ${DATASET}[0]"]
    assert "[weekly]" in reasons["checks for orders [weekly]"]
    daily = next(c for c in carried if c.check.location == "checks for orders [daily][0]")
    assert yaml.safe_load(daily.rule["implementation"]) == [{"row_count > 10": {"filter": "(day = '2024-01-01')"}}]


@pytest.mark.parametrize("name", ['"order lines"', '"sales.orders"', "\"o'brien\"", '"price$"', '"größe_ü"', "`ticks`"])
def test_dataset_names_become_model_names(tmp_path, name):
    path = tmp_path / "checks.yml"
    path.write_text(f"checks for {name}:\n  - row_count > 0\n  - missing_count(\"a b\") = 0\n", encoding="utf-8")
    carried = read(str(path))
    assert [c.model for c in carried] == [name[1:-1]] * 2
    assert carried[1].field == "a b" and carried[1].properties == {"required": True}
    document = assemble(carried, id="urn:test:names").document
    contract = tmp_path / "contract.yaml"
    contract.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    loaded = load_contract(str(contract))
    assert [f.code for f in loaded.findings if f.level == "error"] == []


@pytest.mark.parametrize("text, says", [
    ("checks for orders: [row_count > 0\n", "is not YAML at line"),
    ("- just\n- a list\n", "is not SodaCL"),
    ("data_source x:\n  type: spark_df\n", "is not SodaCL"),
    ("", "is not SodaCL"),
])
def test_a_file_that_is_no_sodacl_is_an_input_error(tmp_path, text, says):
    path = tmp_path / "checks.yml"
    path.write_text(text)
    with pytest.raises(ImportInputError, match=says) as raised:
        read(str(path))
    assert str(path) in str(raised.value)
    result = CliRunner().invoke(main, ["import", f"soda:{path}", "--out", str(tmp_path / "out.yaml")])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output


def test_binary_file_is_an_input_error(tmp_path):
    path = tmp_path / "checks.yml"
    path.write_bytes(b"\xff\xfe\x00bin")
    with pytest.raises(ImportInputError, match="cannot be read"):
        read(str(path))
