"""Custom GX rules reach GX as the user wrote them: kwargs that are not camelCase (`column_A`, `column_B`) are
not rewritten, a column-pair expectation on a field gets no `column` it does not take, camelCase kwargs
(`minValue`) are still read as GX's snake_case. One GX run of every case."""

from __future__ import annotations

import textwrap

import dc_bridge
from dc_bridge.contract.lint import lint_file

CONTRACT = textwrap.dedent("""\
    apiVersion: v3.1.0
    kind: DataContract
    id: pairs
    name: pairs
    version: 1.0.0
    status: draft
    schema:
    - name: pairs
      properties:
      - name: a
        quality:
        - type: custom
          engine: great-expectations
          implementation:
            type: expect_column_pair_values_a_to_be_greater_than_b
            kwargs: {column_A: a, column_B: b}
      - name: b
        quality:
        - type: custom
          engine: great-expectations
          implementation:
            type: expect_column_values_to_be_between
            kwargs: {minValue: 0, maxValue: 10}
      quality:
      - type: custom
        engine: great-expectations
        implementation:
          type: expect_column_pair_values_to_be_equal
          kwargs: {column_A: a, column_B: a}
      - type: custom
        engine: great-expectations
        implementation:
          type: ExpectColumnPairValuesAToBeGreaterThanB
          kwargs: {column_A: a, column_B: b, or_equal: true}
    """)


def test_custom_gx_kwargs_reach_gx_as_written(spark, tmp_path):
    contract = tmp_path / "pairs.yaml"
    contract.write_text(CONTRACT)
    lint = lint_file(str(contract))
    # column_A is snake_case with a capital, not camelCase: only minValue and maxValue are
    assert [f.found for f in lint.findings if f.code == "DCB182"] == ["minValue, maxValue"]
    assert not [f for f in lint.findings if f.level == "error"], lint.findings
    # a > b on rows 1 and 3, a == b on row 2: the strict pair fails one row, or_equal none; b in [0, 10] but 12
    frame = spark.createDataFrame([(5, 1), (3, 3), (9, 12)], "a int, b int")
    verdict = dc_bridge.run(str(contract), dataframes={"pairs": frame}, spark=spark, engines=["gx"], samples=False)
    got = {c.check_id: (c.outcome, c.observed) for c in verdict.checks() if "quality" in c.check_id}
    assert got == {"pairs.a.quality[0]": ("failed", 2), "pairs.b.quality[0]": ("failed", 1),
                   "pairs.quality[0]": ("passed", 0), "pairs.quality[1]": ("failed", 1)}, got
