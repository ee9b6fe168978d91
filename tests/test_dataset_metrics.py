"""A number in an output is what its name says (issue 48, class 7: "a number whose name says something else").

One run on real Spark of a contract with two models: `people`, read whole, with a null check (`nullValues`) and a
missing-values check (`missingValues` "N/A") on two columns, and `events`, which a `--where` slices. OpenLineage's
`nullCount` of a column is PySpark's own count of its nulls, and a column whose check counts "N/A" too gets none
(that number counts more than nulls); `rowCount` (OpenLineage) and `dc_bridge_model_rows` (Prometheus) are a model's
whole rows, so the sliced model has neither, and the whole one has PySpark's count."""

from __future__ import annotations

import json

import pytest
from prometheus_client.parser import text_string_to_metric_families

import dc_bridge
from dc_bridge.report.prometheus import exposition

pytest.importorskip("openlineage.client")

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: counted
version: 1.0.0
status: active
schema:
  - name: people
    quality:
      - {metric: rowCount, mustBeGreaterThan: 0}
    properties:
      - name: nick
        logicalType: string
        quality:
          - {metric: missingValues, arguments: {missingValues: ["N/A"]}, mustBeLessThan: 100}
      - name: email
        logicalType: string
        quality:
          - {metric: nullValues, mustBeLessThan: 100}
  - name: events
    quality:
      - {metric: rowCount, mustBeGreaterThan: 0}
    properties:
      - {name: day, logicalType: integer}
"""


def test_null_counts_and_row_counts_are_what_their_names_say(spark, tmp_path):
    from openlineage.client.serde import Serde

    from dc_bridge.report.openlineage import run_event

    contract = tmp_path / "c.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    people = spark.createDataFrame([("N/A", None), (None, "a@x"), ("N/A", None), ("bo", "b@x"), (None, None)], "nick string, email string")
    events = spark.createDataFrame([(1,), (2,), (3,), (4,)], "day int")
    verdict = dc_bridge.run(contract, dataframes={"people": people, "events": events}, spark=spark, engines=["spark"],
                            where="day >= 3", samples=False)
    assert verdict.where_not_applied.keys() == {"people"}  # people is read whole, events sliced
    nulls = {name: people.where(people[name].isNull()).count() for name in people.columns}  # PySpark's own count
    missing = people.where(people["nick"].isNull() | (people["nick"] == "N/A")).count()
    by_column = {c.columns[0]: c for c in verdict.checks() if c.model == "people" and c.columns}
    assert by_column["nick"].observed == missing != nulls["nick"]  # the check counts "N/A" too: more than nulls

    event = json.loads(Serde.to_json(run_event(verdict)))
    facets = {d["name"]: d["inputFacets"].get("dataQualityMetrics") for d in event["inputs"]}
    assert set(facets) == {"people", "events"}
    assert facets["people"]["rowCount"] == people.count()
    assert {column: m.get("nullCount") for column, m in facets["people"]["columnMetrics"].items()} == {"email": nulls["email"]}
    assert facets["events"] is None  # the slice's 2 rows are not the dataset's rowCount

    rows = {s.labels["model"]: s.value for family in text_string_to_metric_families(exposition([verdict]))
            for s in family.samples if s.name == "dc_bridge_model_rows"}
    assert rows == {"people": people.count()}
