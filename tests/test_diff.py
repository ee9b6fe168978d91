"""Contract evolution: every rule of `dc-bridge diff` as one pair of contracts, with the classification
of each change and the version bump the pair needs; then semantic versions, `check-version` (files and
git revisions) and the command line.

Each case is (name, OLD, NEW, expected changes as {(kind, code, path)}, required bump). The YAML of
each side is written inline; `dcs(...)` and `odcs(...)` wrap the fragment that matters in the same
contract (id `urn:datacontract:shop:orders`, one model `orders`), so a DCS side and an ODCS side
differ only where the case says.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from textwrap import dedent, indent

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.contract.evolution.algebra import is_safe_widening
from dc_bridge.contract.evolution.diff import diff, notes, required_bump
from dc_bridge.contract.reading.load import load_contract
from dc_bridge.contract.evolution.versioning import SemVer, bump_level, check_version, load_version


def _block(text: str, spaces: int) -> str:
    return indent(dedent(text).strip("\n") + "\n", " " * spaces) if text.strip() else ""


def dcs(fields: str, *, top: str = "", models: str = "", model: str = "", version: str = "1.0.0") -> str:
    """A DCS contract: `fields` under models.orders.fields, `model` under models.orders, `models` beside orders, `top` at the top."""
    return (f"dataContractSpecification: 1.1.0\nid: urn:datacontract:shop:orders\ninfo:\n  title: Orders\n  version: {version}\n"
            + _block(top, 0) + "models:\n  orders:\n" + _block(model, 4) + "    fields:\n" + _block(fields, 6) + _block(models, 2))


def odcs(properties: str, *, top: str = "", objects: str = "", obj: str = "", version: str = "1.0.0") -> str:
    """An ODCS contract: `properties` of schema object orders, `obj` on that object, `objects` after it, `top` at the top."""
    return (f"apiVersion: v3.0.2\nkind: DataContract\nid: urn:datacontract:shop:orders\nname: Orders\nversion: {version}\nstatus: active\n"
            + _block(top, 0) + "schema:\n  - name: orders\n" + _block(obj, 4) + "    properties:\n" + _block(properties, 6) + _block(objects, 2))


def odcs32(properties: str, **parts: str) -> str:
    """An ODCS 3.2 contract, as `odcs` builds it."""
    return odcs(properties, **parts).replace("apiVersion: v3.0.2", "apiVersion: v3.2.0", 1)


B, N, P = "breaking", "non-breaking", "patch"

ID = "order_id: {type: string}"
ODCS_ID = "- {name: order_id, logicalType: string}"
FRESH_4H = "servicelevels:\n  freshness: {threshold: PT4H, timestampField: orders.ts}"
TS = "ts: {type: timestamp}"
ODCS_TS = "- {name: ts, logicalType: timestamp}"
CUSTOMERS = "- name: customers\n  properties:\n    - {name: id, logicalType: string}"
RELATIONSHIP = "relationships:\n  - {id: %s, from: orders.order_id, to: customers.id}"
NULLS = "quality:\n  - {metric: nullValues, unit: percent, mustBeLessOrEqualTo: %s}"

CASES = [
    # --- nothing changed, or only the way it is written -----------------------------------------
    ("identical DCS", dcs(ID), dcs(ID), set(), "none"),
    ("DCS rewritten in ODCS with the same meaning", dcs("order_id: {type: string, required: true}\namount: {type: long}"),
     odcs("- {name: order_id, logicalType: string, required: true}\n- {name: amount, logicalType: integer, physicalType: bigint}"),
     set(), "none"),
    ("DCS int is ODCS integer", dcs("n: {type: int}"), odcs("- {name: n, logicalType: integer}"), set(), "none"),
    ("enum reordered", dcs("s: {type: string, enum: [a, b]}"), dcs("s: {type: string, enum: [b, a]}"), set(), "none"),
    ("version bump alone", dcs(ID), dcs(ID, version="2.0.0"), set(), "none"),
    # --- models and fields ----------------------------------------------------------------------
    ("model removed", dcs(ID, models="customers:\n  fields:\n    id: {type: string}"), dcs(ID), {(B, "DCB200", "customers")}, "major"),
    ("model added (ODCS)", odcs(ODCS_ID), odcs(ODCS_ID, objects="- name: customers\n  properties:\n    - {name: id, logicalType: string}"),
     {(N, "DCB210", "customers")}, "minor"),
    ("optional field added", dcs(ID), dcs(ID + "\nnote: {type: string}"), {(N, "DCB210", "orders.note")}, "minor"),
    ("required field added (ODCS)", odcs(ODCS_ID), odcs(ODCS_ID + "\n- {name: note, logicalType: string, required: true}"),
     {(B, "DCB203", "orders.note")}, "major"),
    ("field removed (ODCS -> DCS)", odcs(ODCS_ID + "\n- {name: note, logicalType: string}"), dcs(ID), {(B, "DCB201", "orders.note")}, "major"),
    ("field renamed is removed plus added", dcs(ID + "\nnote: {type: string}"), dcs(ID + "\nremark: {type: string}"),
     {(B, "DCB201", "orders.note"), (N, "DCB210", "orders.remark")}, "major"),
    ("optional made required", dcs("order_id: {type: string}"), dcs("order_id: {type: string, required: true}"),
     {(B, "DCB203", "orders.order_id.required")}, "major"),
    ("required made optional (ODCS)", odcs("- {name: order_id, logicalType: string, required: true}"), odcs(ODCS_ID),
     {(N, "DCB212", "orders.order_id.required")}, "minor"),
    # --- types: safe widenings and the rest -----------------------------------------------------
    ("int -> long", dcs("n: {type: int}"), dcs("n: {type: long}"), {(N, "DCB211", "orders.n.type")}, "minor"),
    ("physical int -> bigint (ODCS)", odcs("- {name: n, logicalType: integer, physicalType: int}"),
     odcs("- {name: n, logicalType: integer, physicalType: bigint}"), {(N, "DCB211", "orders.n.type")}, "minor"),
    ("long -> int narrows", dcs("n: {type: long}"), dcs("n: {type: int}"), {(B, "DCB202", "orders.n.type")}, "major"),
    ("DCS long -> ODCS integer without physical type", dcs("n: {type: long}"), odcs("- {name: n, logicalType: integer}"),
     {(B, "DCB202", "orders.n.type")}, "major"),
    ("string -> integer", dcs("n: {type: string}"), dcs("n: {type: integer}"), {(B, "DCB202", "orders.n.type")}, "major"),
    ("float -> double", dcs("x: {type: float}"), dcs("x: {type: double}"), {(N, "DCB211", "orders.x.type")}, "minor"),
    ("double -> float", dcs("x: {type: double}"), dcs("x: {type: float}"), {(B, "DCB202", "orders.x.type")}, "major"),
    ("int -> double", dcs("x: {type: int}"), dcs("x: {type: double}"), {(N, "DCB211", "orders.x.type")}, "minor"),
    ("long -> double loses precision", dcs("x: {type: long}"), dcs("x: {type: double}"), {(B, "DCB202", "orders.x.type")}, "major"),
    ("decimal(10,2) -> decimal(12,2)", dcs("x: {type: decimal, precision: 10, scale: 2}"), dcs("x: {type: decimal, precision: 12, scale: 2}"),
     {(N, "DCB211", "orders.x.type")}, "minor"),
    ("decimal(10,2) -> decimal(12,4)", dcs("x: {type: decimal, precision: 10, scale: 2}"), dcs("x: {type: decimal, precision: 12, scale: 4}"),
     {(N, "DCB211", "orders.x.type")}, "minor"),
    ("decimal(10,2) -> decimal(10,4) loses integer digits", dcs("x: {type: decimal, precision: 10, scale: 2}"),
     dcs("x: {type: decimal, precision: 10, scale: 4}"), {(B, "DCB202", "orders.x.type")}, "major"),
    ("int -> decimal(10,0)", dcs("x: {type: int}"), dcs("x: {type: decimal, precision: 10, scale: 0}"), {(N, "DCB211", "orders.x.type")}, "minor"),
    ("int -> decimal(9,0) does not fit", dcs("x: {type: int}"), dcs("x: {type: decimal, precision: 9, scale: 0}"),
     {(B, "DCB202", "orders.x.type")}, "major"),
    ("date -> timestamp_ntz", dcs("d: {type: date}"), dcs("d: {type: timestamp_ntz}"), {(N, "DCB211", "orders.d.type")}, "minor"),
    ("date -> timestamp (time zone)", dcs("d: {type: date}"), dcs("d: {type: timestamp}"), {(B, "DCB202", "orders.d.type")}, "major"),
    ("timestamp -> string", dcs("d: {type: timestamp}"), dcs("d: {type: string}"), {(B, "DCB202", "orders.d.type")}, "major"),
    ("integer -> number (ODCS)", odcs("- {name: n, logicalType: integer}"), odcs("- {name: n, logicalType: number}"),
     {(N, "DCB211", "orders.n.type")}, "minor"),
    ("number -> integer (ODCS)", odcs("- {name: n, logicalType: number}"), odcs("- {name: n, logicalType: integer}"),
     {(B, "DCB202", "orders.n.type")}, "major"),
    ("a type where there was none", dcs("n: {description: a number}"), dcs("n: {description: a number, type: int}"),
     {(B, "DCB204", "orders.n.type")}, "major"),
    # --- constraints ----------------------------------------------------------------------------
    ("pattern added", dcs("c: {type: string}"), dcs("c: {type: string, pattern: '^A'}"), {(B, "DCB204", "orders.c.pattern")}, "major"),
    ("pattern changed", dcs("c: {type: string, pattern: '^A'}"), dcs("c: {type: string, pattern: '^B'}"),
     {(B, "DCB204", "orders.c.pattern")}, "major"),
    ("pattern removed (ODCS)", odcs("- {name: c, logicalType: string, logicalTypeOptions: {pattern: '^A'}}"),
     odcs("- {name: c, logicalType: string}"), {(N, "DCB213", "orders.c.pattern")}, "minor"),
    ("format added", dcs("e: {type: string}"), dcs("e: {type: string, format: email}"), {(B, "DCB204", "orders.e.format")}, "major"),
    ("enum value removed", dcs("s: {type: string, enum: [open, shipped, cancelled]}"), dcs("s: {type: string, enum: [open, shipped]}"),
     {(B, "DCB204", "orders.s.enum")}, "major"),
    ("enum value added (DCS -> ODCS)", dcs("s: {type: string, enum: [open]}"), odcs("- {name: s, logicalType: string, enum: [open, shipped]}"),
     {(N, "DCB213", "orders.s.enum")}, "minor"),
    ("enum value swapped", dcs("s: {type: string, enum: [open, shipped]}"), dcs("s: {type: string, enum: [open, returned]}"),
     {(B, "DCB204", "orders.s.enum")}, "major"),
    ("enum added", dcs("s: {type: string}"), dcs("s: {type: string, enum: [open]}"), {(B, "DCB204", "orders.s.enum")}, "major"),
    ("enum dropped", dcs("s: {type: string, enum: [open]}"), dcs("s: {type: string}"), {(N, "DCB213", "orders.s.enum")}, "minor"),
    ("minLength raised", dcs("c: {type: string, minLength: 2}"), dcs("c: {type: string, minLength: 3}"), {(B, "DCB204", "orders.c.length")}, "major"),
    ("maxLength raised", dcs("c: {type: string, maxLength: 10}"), dcs("c: {type: string, maxLength: 20}"), {(N, "DCB213", "orders.c.length")}, "minor"),
    ("length window moved", dcs("c: {type: string, minLength: 2, maxLength: 10}"), dcs("c: {type: string, minLength: 1, maxLength: 8}"),
     {(B, "DCB204", "orders.c.length")}, "major"),
    ("minimum raised", dcs("n: {type: int, minimum: 0}"), dcs("n: {type: int, minimum: 1}"), {(B, "DCB204", "orders.n.range")}, "major"),
    ("maximum raised (ODCS)", odcs("- {name: n, logicalType: integer, logicalTypeOptions: {maximum: 10}}"),
     odcs("- {name: n, logicalType: integer, logicalTypeOptions: {maximum: 100}}"), {(N, "DCB213", "orders.n.range")}, "minor"),
    ("minimum made exclusive", dcs("n: {type: int, minimum: 0}"), dcs("n: {type: int, exclusiveMinimum: 0}"), {(B, "DCB204", "orders.n.range")}, "major"),
    ("earliest date moved back", dcs("d: {type: date, minimum: '2020-01-01'}"), dcs("d: {type: date, minimum: '2019-01-01'}"),
     {(N, "DCB213", "orders.d.range")}, "minor"),
    ("unique added", dcs("c: {type: string}"), dcs("c: {type: string, unique: true}"), {(B, "DCB204", "orders.c.unique")}, "major"),
    ("unique removed (ODCS)", odcs("- {name: c, logicalType: string, unique: true}"), odcs("- {name: c, logicalType: string}"),
     {(N, "DCB213", "orders.c.unique")}, "minor"),
    ("primary key added", dcs(ID), dcs("order_id: {type: string, primaryKey: true}"), {(B, "DCB204", "orders.primaryKey")}, "major"),
    ("composite key reordered is the same key", odcs("- {name: a, logicalType: string, primaryKey: true, primaryKeyPosition: 1}\n"
                                                     "- {name: b, logicalType: string, primaryKey: true, primaryKeyPosition: 2}"),
     odcs("- {name: a, logicalType: string, primaryKey: true, primaryKeyPosition: 2}\n- {name: b, logicalType: string, primaryKey: true, primaryKeyPosition: 1}"),
     set(), "none"),
    ("foreign key added", dcs(ID + "\ncustomer_id: {type: string}", models="customers:\n  fields:\n    id: {type: string}"),
     dcs(ID + "\ncustomer_id: {type: string, references: customers.id}", models="customers:\n  fields:\n    id: {type: string}"),
     {(B, "DCB204", "orders.foreignKey")}, "major"),
    ("column renamed with physicalName (ODCS)", odcs("- {name: order_id, logicalType: string, physicalName: order_id}"),
     odcs("- {name: order_id, logicalType: string, physicalName: id}"), {(B, "DCB208", "orders.order_id.physicalName")}, "major"),
    ("table renamed with physicalName (ODCS)", odcs(ODCS_ID), odcs(ODCS_ID, obj="physicalName: orders_v2"),
     {(B, "DCB208", "orders.physicalName")}, "major"),
    # --- nested fields --------------------------------------------------------------------------
    ("nested field removed", dcs("customer:\n  type: object\n  fields:\n    id: {type: string}\n    email: {type: string}"),
     dcs("customer:\n  type: object\n  fields:\n    id: {type: string}"), {(B, "DCB201", "orders.customer.email")}, "major"),
    ("nested optional field added (ODCS)", odcs("- name: customer\n  logicalType: object\n  properties:\n    - {name: id, logicalType: string}"),
     odcs("- name: customer\n  logicalType: object\n  properties:\n    - {name: id, logicalType: string}\n    - {name: tier, logicalType: string}"),
     {(N, "DCB210", "orders.customer.tier")}, "minor"),
    ("nested field made required (ODCS)", odcs("- name: customer\n  logicalType: object\n  properties:\n    - {name: id, logicalType: string}"),
     odcs("- name: customer\n  logicalType: object\n  properties:\n    - {name: id, logicalType: string, required: true}"),
     {(B, "DCB203", "orders.customer.id.required")}, "major"),
    ("array items string -> integer", dcs("tags: {type: array, items: {type: string}}"), dcs("tags: {type: array, items: {type: integer}}"),
     {(B, "DCB202", "orders.tags.items.type")}, "major"),
    ("array items int -> long", dcs("ids: {type: array, items: {type: int}}"), dcs("ids: {type: array, items: {type: long}}"),
     {(N, "DCB211", "orders.ids.items.type")}, "minor"),
    # --- classification and PII -----------------------------------------------------------------
    ("PII marking removed", dcs("email: {type: string, pii: true}"), dcs("email: {type: string}"), {(B, "DCB207", "orders.email.pii")}, "major"),
    ("PII marking added", dcs("email: {type: string}"), dcs("email: {type: string, pii: true}"), {(N, "DCB216", "orders.email.pii")}, "minor"),
    ("classification lowered", dcs("email: {type: string, classification: restricted}"), dcs("email: {type: string, classification: internal}"),
     {(B, "DCB207", "orders.email.classification")}, "major"),
    ("classification raised", dcs("email: {type: string, classification: internal}"), dcs("email: {type: string, classification: confidential}"),
     {(N, "DCB216", "orders.email.classification")}, "minor"),
    ("classification removed", dcs("email: {type: string, classification: confidential}"), dcs("email: {type: string}"),
     {(B, "DCB207", "orders.email.classification")}, "major"),
    ("unknown classifications cannot be ranked", dcs("email: {type: string, classification: gold}"), dcs("email: {type: string, classification: silver}"),
     {(B, "DCB207", "orders.email.classification")}, "major"),
    ("ODCS pii classification removed", odcs("- {name: email, logicalType: string, classification: pii}"), odcs("- {name: email, logicalType: string}"),
     {(B, "DCB207", "orders.email.pii"), (B, "DCB207", "orders.email.classification")}, "major"),
    # --- quality rules --------------------------------------------------------------------------
    ("quality rule added (ODCS)", odcs("- {name: email, logicalType: string}"),
     odcs("- name: email\n  logicalType: string\n  " + NULLS.replace("\n", "\n  ") % 1), {(B, "DCB205", "orders.email.quality[nullValues]")}, "major"),
    ("quality rule removed (ODCS)", odcs("- name: email\n  logicalType: string\n  " + NULLS.replace("\n", "\n  ") % 1),
     odcs("- {name: email, logicalType: string}"), {(N, "DCB214", "orders.email.quality[nullValues]")}, "minor"),
    ("completeness 99% -> 95% relaxes", odcs("- name: email\n  logicalType: string\n  " + NULLS.replace("\n", "\n  ") % 1),
     odcs("- name: email\n  logicalType: string\n  " + NULLS.replace("\n", "\n  ") % 5), {(N, "DCB214", "orders.email.quality[nullValues]")}, "minor"),
    ("completeness 95% -> 99% tightens", odcs("- name: email\n  logicalType: string\n  " + NULLS.replace("\n", "\n  ") % 5),
     odcs("- name: email\n  logicalType: string\n  " + NULLS.replace("\n", "\n  ") % 1), {(B, "DCB205", "orders.email.quality[nullValues]")}, "major"),
    ("row count minimum lowered", odcs(ODCS_ID, obj="quality:\n  - {metric: rowCount, mustBeGreaterThan: 100}"),
     odcs(ODCS_ID, obj="quality:\n  - {metric: rowCount, mustBeGreaterThan: 10}"), {(N, "DCB214", "orders.quality[rowCount]")}, "minor"),
    ("between window moved", dcs(ID, model="quality:\n  - {type: sql, query: 'SELECT COUNT(*) FROM {model}', mustBeBetween: [1, 10]}"),
     dcs(ID, model="quality:\n  - {type: sql, query: 'SELECT COUNT(*) FROM {model}', mustBeBetween: [5, 20]}"), {(B, "DCB205", "orders.quality[sql]")}, "major"),
    ("unit rows -> percent", odcs(ODCS_ID, obj="quality:\n  - {metric: nullValues, mustBeLessThan: 5}"),
     odcs(ODCS_ID, obj="quality:\n  - {metric: nullValues, unit: percent, mustBeLessThan: 5}"), {(B, "DCB205", "orders.quality[nullValues]")}, "major"),
    ("severity error -> warning", odcs(ODCS_ID, obj="quality:\n  - {metric: rowCount, mustBeGreaterThan: 1}"),
     odcs(ODCS_ID, obj="quality:\n  - {metric: rowCount, mustBeGreaterThan: 1, severity: warning}"), {(N, "DCB214", "orders.quality[rowCount]")}, "minor"),
    ("text rule added is documentation", dcs(ID), dcs(ID, model="quality:\n  - {type: text, description: Orders are never deleted.}"),
     {(P, "DCB220", "orders.quality[text]")}, "patch"),
    ("same SQL rule in DCS and ODCS placeholders", dcs(ID, model="quality:\n  - {type: sql, query: 'SELECT COUNT(*) FROM {model}', mustBeGreaterThan: 0}"),
     odcs(ODCS_ID, obj="quality:\n  - {type: sql, query: 'SELECT COUNT(*) FROM ${table}', mustBeGreaterThan: 0}"), set(), "none"),
    ("SQL query changed is a new rule", dcs(ID, model="quality:\n  - {type: sql, query: 'SELECT COUNT(*) FROM {model}', mustBeGreaterThan: 0}"),
     dcs(ID, model="quality:\n  - {type: sql, query: 'SELECT MAX(1) FROM {model}', mustBeGreaterThan: 0}"),
     {(N, "DCB214", "orders.quality[sql]"), (B, "DCB205", "orders.quality[sql]")}, "major"),
    ("rule with the same id measures something else", odcs(ODCS_ID, obj="quality:\n  - {id: q1, metric: rowCount, mustBeGreaterThan: 1}"),
     odcs(ODCS_ID, obj="quality:\n  - {id: q1, type: sql, query: 'SELECT 1', mustBe: 1}"), {(B, "DCB205", "orders.quality[q1]")}, "major"),
    ("valid value removed from invalidValues", odcs("- name: s\n  logicalType: string\n  quality:\n    - {metric: invalidValues, arguments: {validValues: [a, b]}}"),
     odcs("- name: s\n  logicalType: string\n  quality:\n    - {metric: invalidValues, arguments: {validValues: [a]}}"),
     {(B, "DCB205", "orders.s.quality[invalidValues]")}, "major"),
    ("quality rule description changed", odcs(ODCS_ID, obj="quality:\n  - {metric: rowCount, mustBeGreaterThan: 1, description: a}"),
     odcs(ODCS_ID, obj="quality:\n  - {metric: rowCount, mustBeGreaterThan: 1, description: b}"), {(P, "DCB220", "orders.quality[rowCount].description")}, "patch"),
    ("custom GX rule changed", dcs(ID, model="quality:\n  - {type: custom, engine: great-expectations, specification: {type: expect_table_row_count_to_be_between, kwargs: {min_value: 1}}}"),
     dcs(ID, model="quality:\n  - {type: custom, engine: great-expectations, specification: {type: expect_table_row_count_to_be_between, kwargs: {min_value: 5}}}"),
     {(N, "DCB214", "orders.quality[custom gx]"), (B, "DCB205", "orders.quality[custom gx]")}, "major"),
    # --- service levels -------------------------------------------------------------------------
    ("freshness 4h -> 8h relaxes (DCS)", dcs(TS, top=FRESH_4H), dcs(TS, top=FRESH_4H.replace("PT4H", "PT8H")),
     {(B, "DCB206", "servicelevels.freshness")}, "major"),
    ("freshness 8h -> 4h strengthens (ODCS)", odcs(ODCS_TS, top="slaProperties:\n  - {property: freshness, value: 8, unit: h, element: orders.ts}"),
     odcs(ODCS_TS, top="slaProperties:\n  - {property: freshness, value: 4, unit: h, element: orders.ts}"), {(N, "DCB215", "servicelevels.freshness")}, "minor"),
    ("freshness PT4H (DCS) is 4 h (ODCS)", dcs(TS, top=FRESH_4H),
     odcs(ODCS_TS, top="slaProperties:\n  - {property: freshness, value: 4, unit: h, element: orders.ts}"), set(), "none"),
    ("availability 99.9% -> 99.0% (DCS -> ODCS)", dcs(ID, top="servicelevels:\n  availability: {percentage: 99.9%}"),
     odcs(ODCS_ID, top="slaProperties:\n  - {property: availability, value: 99.0, unit: percent}"), {(B, "DCB206", "servicelevels.availability")}, "major"),
    ("availability raised", dcs(ID, top="servicelevels:\n  availability: {percentage: 99.0%}"), dcs(ID, top="servicelevels:\n  availability: {percentage: 99.95%}"),
     {(N, "DCB215", "servicelevels.availability")}, "minor"),
    ("errorRate allowed higher", odcs(ODCS_ID, top="slaProperties:\n  - {property: errorRate, value: 1, unit: percent}"),
     odcs(ODCS_ID, top="slaProperties:\n  - {property: errorRate, value: 5, unit: percent}"), {(B, "DCB206", "servicelevels.errorRate")}, "major"),
    ("errorRate lowered", odcs(ODCS_ID, top="slaProperties:\n  - {property: errorRate, value: 5, unit: percent}"),
     odcs(ODCS_ID, top="slaProperties:\n  - {property: errorRate, value: 0.5, unit: percent}"), {(N, "DCB215", "servicelevels.errorRate")}, "minor"),
    ("retention shortened", dcs(TS, top="servicelevels:\n  retention: {period: P1Y, timestampField: orders.ts}"),
     dcs(TS, top="servicelevels:\n  retention: {period: P6M, timestampField: orders.ts}"), {(B, "DCB206", "servicelevels.retention")}, "major"),
    ("retention lengthened", dcs(TS, top="servicelevels:\n  retention: {period: P1Y, timestampField: orders.ts}"),
     dcs(TS, top="servicelevels:\n  retention: {period: P2Y, timestampField: orders.ts}"), {(N, "DCB215", "servicelevels.retention")}, "minor"),
    ("latency added", odcs(ODCS_TS), odcs(ODCS_TS, top="slaProperties:\n  - {property: latency, value: 1, unit: d, element: orders.ts}"),
     {(N, "DCB215", "servicelevels.latency")}, "minor"),
    ("freshness removed", dcs(TS, top=FRESH_4H), dcs(TS), {(B, "DCB206", "servicelevels.freshness")}, "major"),
    ("freshness measured on another column", dcs(TS + "\nts2: {type: timestamp}", top=FRESH_4H),
     dcs(TS + "\nts2: {type: timestamp}", top=FRESH_4H.replace("orders.ts", "orders.ts2")), {(B, "DCB206", "servicelevels.freshness.element")}, "major"),
    ("dataQuality objective lowered (ODCS)",
     odcs(ODCS_ID, obj="quality:\n  - {id: rc, metric: rowCount, mustBeGreaterThan: 1}",
          top="slaProperties:\n  - {property: dataQuality, id: dq, value: 99, unit: percent, relationships: [{type: relatesTo, to: orders.quality.rc}]}"),
     odcs(ODCS_ID, obj="quality:\n  - {id: rc, metric: rowCount, mustBeGreaterThan: 1}",
          top="slaProperties:\n  - {property: dataQuality, id: dq, value: 95, unit: percent, relationships: [{type: relatesTo, to: orders.quality.rc}]}"),
     {(N, "DCB214", "dataQuality[dq]")}, "minor"),
    # --- servers and the contract itself --------------------------------------------------------
    ("server removed", dcs(ID, top="servers:\n  prod: {type: s3, location: 's3://b/orders'}"), dcs(ID), {(B, "DCB208", "servers.prod")}, "major"),
    ("server added", dcs(ID), dcs(ID, top="servers:\n  prod: {type: s3, location: 's3://b/orders'}"), {(N, "DCB210", "servers.prod")}, "minor"),
    ("server location changed", dcs(ID, top="servers:\n  prod: {type: s3, location: 's3://b/orders'}"),
     dcs(ID, top="servers:\n  prod: {type: s3, location: 's3://c/orders'}"), {(B, "DCB208", "servers.prod.location")}, "major"),
    ("server description changed", dcs(ID, top="servers:\n  prod: {type: s3, location: 's3://b/o', description: a}"),
     dcs(ID, top="servers:\n  prod: {type: s3, location: 's3://b/o', description: b}"), {(P, "DCB220", "servers.prod.description")}, "patch"),
    ("contract id changed", dcs(ID), dcs(ID).replace("urn:datacontract:shop:orders", "urn:datacontract:shop:orders-v2"), {(B, "DCB208", "id")}, "major"),
    # --- documentation --------------------------------------------------------------------------
    ("contract description changed", dcs(ID), dcs(ID).replace("  title: Orders\n", "  title: Orders\n  description: All orders.\n"),
     {(P, "DCB220", "description")}, "patch"),
    ("model description changed (ODCS)", odcs(ODCS_ID, obj="description: a"), odcs(ODCS_ID, obj="description: b"), {(P, "DCB220", "orders.description")}, "patch"),
    ("field description changed", dcs("order_id: {type: string, description: a}"), dcs("order_id: {type: string, description: b}"),
     {(P, "DCB220", "orders.order_id.description")}, "patch"),
    ("field tags changed", dcs("order_id: {type: string, tags: [a]}"), dcs("order_id: {type: string, tags: [a, b]}"),
     {(P, "DCB220", "orders.order_id.tags")}, "patch"),
    ("field examples changed", dcs("order_id: {type: string, examples: ['A1']}"), dcs("order_id: {type: string, examples: ['A2']}"),
     {(P, "DCB220", "orders.order_id.examples")}, "patch"),
    ("contract links changed", dcs(ID, top="links:\n  docs: https://a.example"), dcs(ID, top="links:\n  docs: https://b.example"),
     {(P, "DCB220", "links")}, "patch"),
    ("ODCS authoritative definitions added", odcs(ODCS_ID),
     odcs("- name: order_id\n  logicalType: string\n  authoritativeDefinitions: [{type: businessDefinition, url: 'https://x.example'}]"),
     {(P, "DCB220", "orders.order_id.authoritativeDefinitions")}, "patch"),
    # --- ODCS 3.2: computed properties and relationship ids -------------------------------------
    ("ODCS 3.2 column becomes a measure", odcs32(ODCS_ID + "\n- {name: total, logicalType: number}"),
     odcs32(ODCS_ID + "\n- {name: total, logicalType: number, semanticType: measure, transformLogic: SUM(amount)}"),
     {(B, "DCB201", "orders.total.semanticType")}, "major"),
    ("ODCS 3.2 measure becomes a column", odcs32(ODCS_ID + "\n- {name: total, logicalType: number, semanticType: measure}"),
     odcs32(ODCS_ID + "\n- {name: total, logicalType: number}"), {(N, "DCB210", "orders.total.semanticType")}, "minor"),
    ("ODCS 3.2 measure becomes a dimension", odcs32(ODCS_ID + "\n- {name: region, logicalType: string, semanticType: measure}"),
     odcs32(ODCS_ID + "\n- {name: region, logicalType: string, semanticType: dimension}"),
     {(P, "DCB220", "orders.region.semanticType")}, "patch"),
    ("ODCS 3.2 relationship id renamed", odcs32(ODCS_ID, objects=CUSTOMERS, obj=RELATIONSHIP % "orders_customer"),
     odcs32(ODCS_ID, objects=CUSTOMERS, obj=RELATIONSHIP % "order_customer"),
     {(B, "DCB208", "orders.foreignKey(order_id -> customers.id).id")}, "major"),
    ("ODCS 3.2 relationship id given", odcs32(ODCS_ID, objects=CUSTOMERS, obj=RELATIONSHIP.replace("id: %s, ", "")),
     odcs32(ODCS_ID, objects=CUSTOMERS, obj=RELATIONSHIP % "orders_customer"),
     {(P, "DCB220", "orders.foreignKey(order_id -> customers.id).id")}, "patch"),
    # --- several at once: the most serious decides the bump -------------------------------------
    ("patch and non-breaking need MINOR", dcs("order_id: {type: string, description: a}"),
     dcs("order_id: {type: string, description: b}\nnote: {type: string}"),
     {(P, "DCB220", "orders.order_id.description"), (N, "DCB210", "orders.note")}, "minor"),
    ("breaking, non-breaking and patch need MAJOR", dcs("order_id: {type: string, description: a}\ns: {type: string, enum: [a, b]}"),
     dcs("order_id: {type: string, description: b, required: true}\ns: {type: string, enum: [a, b, c]}"),
     {(P, "DCB220", "orders.order_id.description"), (B, "DCB203", "orders.order_id.required"), (N, "DCB213", "orders.s.enum")}, "major"),
]


def _write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def _changes(tmp_path: Path, old: str, new: str):
    before, after = load_contract(_write(tmp_path, "old.yaml", old)), load_contract(_write(tmp_path, "new.yaml", new))
    for side in (before, after):
        errors = [f"{f.code} {f.path}: {f.message}" for f in side.findings if f.level == "error"]
        assert side.contract is not None and not errors, errors
    return diff(before.contract, after.contract, notes(before.documents + after.documents))


def test_the_table_covers_at_least_sixty_pairs_in_both_standards():
    assert len(CASES) >= 60
    mixed = [c for c in CASES if c[1].startswith("dataContract") != c[2].startswith("dataContract")]
    assert len(mixed) >= 4
    assert len({c[0] for c in CASES}) == len(CASES), "case names must be unique"


@pytest.mark.parametrize(("name", "old", "new", "expected", "bump"), CASES, ids=[c[0] for c in CASES])
def test_change_is_classified(tmp_path, name, old, new, expected, bump):
    changes = _changes(tmp_path, old, new)
    found = {(c.kind, c.code, c.path) for c in changes}
    assert found == expected, "\n".join(f"{c.kind} {c.code} {c.path}: {c.message}" for c in changes) or "no changes"
    assert required_bump(changes) == bump


def test_change_carries_old_and_new_values_and_points_at_the_new_file(tmp_path):
    changes = _changes(tmp_path, dcs("s: {type: string, enum: [open, shipped, cancelled]}"), dcs("s: {type: string, enum: [open, shipped]}"))
    (change,) = changes
    assert (change.old, change.new) == (["open", "shipped", "cancelled"], ["open", "shipped"])
    assert change.message == "`orders.s` enum removed ['cancelled']"
    assert change.source.file.endswith("new.yaml") and change.source.path == "models.orders.fields.s" and change.source.line == 9
    finding = change.finding()
    assert (finding.code, finding.level, finding.message) == ("DCB204", "warning", "breaking: `orders.s` enum removed ['cancelled']")


def test_freshness_message_names_both_values(tmp_path):
    (change,) = _changes(tmp_path, dcs(TS, top=FRESH_4H), dcs(TS, top=FRESH_4H.replace("PT4H", "PT8H")))
    assert change.message == "service level freshness relaxed: PT4H -> PT8H"
    assert (change.old, change.new) == ("PT4H", "PT8H")


def test_completeness_message_speaks_of_completeness(tmp_path):
    rule = "- name: email\n  logicalType: string\n  " + NULLS.replace("\n", "\n  ")
    (change,) = _changes(tmp_path, odcs(rule % 1), odcs(rule % 5))
    assert change.message == ("`orders.email` quality rule `nullValues`: nullValues <= 1% (completeness >= 99%) -> "
                              "nullValues <= 5% (completeness >= 95%)")


@pytest.mark.parametrize(("old", "new", "safe"), [
    ("int", "bigint", True), ("tinyint", "smallint", True), ("smallint", "double", True), ("bigint", "double", False),
    ("float", "double", True), ("double", "float", False), ("decimal(5,2)", "decimal(7,2)", True), ("decimal(5,2)", "decimal(5,3)", False),
    ("decimal(5,2)", "decimal", False), ("decimal(5,2)", "number", True), ("bigint", "decimal(20,0)", True), ("bigint", "decimal(19,0)", False),
    ("string", "int", False), ("int", "string", False), ("date", "timestamp_ntz", True), ("timestamp", "timestamp_ntz", False),
])
def test_safe_widenings(old, new, safe):
    assert is_safe_widening(old, new) is safe


# ---------------------------------------------------------------------------------------------
# semantic versions and check-version


@pytest.mark.parametrize(("old", "new", "level"), [
    ("1.2.3", "2.0.0", "major"), ("1.2.3", "1.3.0", "minor"), ("1.2.3", "1.2.4", "patch"), ("1.2.3", "1.2.3", "none"),
    ("1.2.3", "1.2.2", "backwards"), ("1.2.3", "2.0.0-rc.1", "major"), ("v1.0.0", "1.0.1+build.7", "patch"), ("0.9.0", "0.10.0", "minor"),
])
def test_bump_level(old, new, level):
    assert bump_level(SemVer.parse(old), SemVer.parse(new)) == level


@pytest.mark.parametrize("text", ["1.0", "1", "latest", "1.0.0.0", "01.0.0"])
def test_not_a_semantic_version(text):
    assert SemVer.parse(text) is None


# (old contract, new contract, version findings expected: [(code, message)])
VERSION_CASES = [
    ("breaking needs MAJOR", dcs(ID + "\nnote: {type: string}"), dcs(ID, version="1.1.0"),
     [("DCB230", "version 1.0.0 -> 1.1.0 is a MINOR bump, but 1 breaking change(s) need a MAJOR bump: field `orders.note` removed")]),
    ("breaking with MAJOR passes", dcs(ID + "\nnote: {type: string}"), dcs(ID, version="2.0.0"), []),
    ("non-breaking with MINOR passes", dcs(ID), dcs(ID + "\nnote: {type: string}", version="1.1.0"), []),
    ("non-breaking with PATCH fails", dcs(ID), dcs(ID + "\nnote: {type: string}", version="1.0.1"),
     [("DCB230", "version 1.0.0 -> 1.0.1 is a PATCH bump, but 1 non-breaking change(s) need a MINOR bump: optional field `orders.note` added")]),
    ("freshness 4h -> 8h without MAJOR fails", dcs(TS, top=FRESH_4H), dcs(TS, top=FRESH_4H.replace("PT4H", "PT8H"), version="1.1.0"),
     [("DCB230", "version 1.0.0 -> 1.1.0 is a MINOR bump, but 1 breaking change(s) need a MAJOR bump: "
                 "service level freshness relaxed: PT4H -> PT8H")]),
    ("description only with PATCH passes", dcs("order_id: {type: string, description: a}"),
     dcs("order_id: {type: string, description: b}", version="1.0.1"), []),
    ("description only without a bump fails", dcs("order_id: {type: string, description: a}"), dcs("order_id: {type: string, description: b}"),
     [("DCB230", "version 1.0.0 -> 1.0.0 is the same version, but 1 patch change(s) need a PATCH bump: "
                 "`orders.order_id` description: 'a' -> 'b'")]),
    ("no change, no bump passes", dcs(ID), dcs(ID), []),
    ("a bigger bump than needed passes", dcs(ID), dcs(ID, version="3.0.0"), []),
    ("backwards fails", dcs(ID, version="1.2.0"), dcs(ID, version="1.1.9"), [("DCB230", "version 1.2.0 -> 1.1.9 goes backwards")]),
    ("unquoted 1.0 is no semantic version", dcs(ID).replace("version: 1.0.0", "version: 1.0"), dcs(ID),
     [("DCB231", "1.0 is not a semantic version (MAJOR.MINOR.PATCH)")]),
]


@pytest.mark.parametrize(("name", "old", "new", "expected"), VERSION_CASES, ids=[c[0] for c in VERSION_CASES])
def test_check_version(tmp_path, name, old, new, expected):
    before, after = load_contract(_write(tmp_path, "old.yaml", old)), load_contract(_write(tmp_path, "new.yaml", new))
    changes = diff(before.contract, after.contract)
    findings = check_version(before, after, changes)
    assert [(f.code, f.message) for f in findings] == expected


def test_check_version_points_at_the_version_line(tmp_path):
    before, after = load_contract(_write(tmp_path, "old.yaml", odcs(ODCS_ID + "\n- {name: x, logicalType: string}"))), \
        load_contract(_write(tmp_path, "new.yaml", odcs(ODCS_ID, version="1.0.1")))
    (finding,) = check_version(before, after, diff(before.contract, after.contract))
    assert (finding.path, finding.line, finding.expected, finding.found) == ("version", 5, "2.0.0 or later", "1.0.1")


# pre-releases (docs/evolution.md): from a pre-release to its release is that release's bump; a breaking change
# needs a new MAJOR number whatever pre-releases came before: [(code, message, expected)]
PRE_RELEASE_CASES = [
    ("rc to its MINOR release with a non-breaking change", dcs(ID), dcs(ID + "\nnote: {type: string}", version="1.1.0"), "1.1.0-rc.1", []),
    ("rc to its MINOR release with a breaking change", dcs(ID + "\nnote: {type: string}"), dcs(ID, version="1.1.0"), "1.1.0-rc.1",
     [("DCB230", "version 1.1.0-rc.1 -> 1.1.0 is a MINOR bump, but 1 breaking change(s) need a MAJOR bump: field `orders.note` removed",
       "2.0.0 or later")]),
    ("rc to the next rc of a MAJOR release with a breaking change", dcs(ID + "\nnote: {type: string}"), dcs(ID, version="2.0.0-rc.2"),
     "2.0.0-rc.1", []),
    ("rc to its MAJOR release with a breaking change", dcs(ID + "\nnote: {type: string}"), dcs(ID, version="2.0.0"), "2.0.0-rc.1", []),
    ("a release to its own rc goes backwards", dcs(ID), dcs(ID, version="1.1.0-rc.1"), "1.1.0",
     [("DCB230", "version 1.1.0 -> 1.1.0-rc.1 goes backwards", "1.1.0 or later")]),
    ("build metadata is no bump", dcs("order_id: {type: string, description: a}"),
     dcs("order_id: {type: string, description: b}", version="1.0.0+build.2"), "1.0.0+build.1",
     [("DCB230", "version 1.0.0+build.1 -> 1.0.0+build.2 is the same version, but 1 patch change(s) need a PATCH bump: "
                 "`orders.order_id` description: 'a' -> 'b'", "1.0.1 or later")]),
]


@pytest.mark.parametrize(("name", "old", "new", "old_version", "expected"), PRE_RELEASE_CASES, ids=[c[0] for c in PRE_RELEASE_CASES])
def test_check_version_with_pre_releases(tmp_path, name, old, new, old_version, expected):
    old = old.replace("version: 1.0.0", f"version: {old_version}", 1)
    before, after = load_contract(_write(tmp_path, "old.yaml", old)), load_contract(_write(tmp_path, "new.yaml", new))
    findings = check_version(before, after, diff(before.contract, after.contract))
    assert [(f.code, f.message, f.expected) for f in findings] == expected


# ---------------------------------------------------------------------------------------------
# the command line


def test_cli_diff_text(tmp_path):
    old, new = _write(tmp_path, "old.yaml", dcs(TS, top=FRESH_4H)), _write(tmp_path, "new.yaml", dcs(TS, top=FRESH_4H.replace("PT4H", "PT8H")))
    result = CliRunner().invoke(main, ["diff", str(old), str(new)])
    assert result.exit_code == 0, result.output
    assert f"{new}:7: warning DCB206 at servicelevels.freshness: breaking: service level freshness relaxed: PT4H -> PT8H" in result.output
    assert result.output.rstrip().endswith("1 change(s): 1 breaking, 0 non-breaking, 0 patch; required version bump: MAJOR")


@pytest.mark.parametrize(("fail_on", "exit_code"), [(None, 0), ("breaking", 0), ("non-breaking", 1), ("patch", 1)])
def test_cli_diff_fail_on(tmp_path, fail_on, exit_code):
    old, new = _write(tmp_path, "old.yaml", dcs(ID)), _write(tmp_path, "new.yaml", dcs(ID + "\nnote: {type: string}"))
    result = CliRunner().invoke(main, ["diff", str(old), str(new)] + (["--fail-on", fail_on] if fail_on else []))
    assert result.exit_code == exit_code, result.output


def test_cli_diff_json_lists_changes_with_kind_and_values(tmp_path):
    old, new = _write(tmp_path, "old.yaml", dcs("n: {type: int}")), _write(tmp_path, "new.yaml", odcs("- {name: n, logicalType: integer, physicalType: bigint}"))
    result = CliRunner().invoke(main, ["diff", "--format", "json", str(old), str(new)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["required_bump"] == "minor"
    assert report["changes"] == [{"kind": "non-breaking", "code": "DCB211", "path": "orders.n.type", "old": "int", "new": "bigint",
                                  "message": "`orders.n` type int -> bigint (a safe widening)", "file": str(new), "line": 10}]
    assert report["findings"][0]["code"] == "DCB211" and report["findings"][0]["severity"] == "info"


def test_cli_diff_sarif(tmp_path):
    old, new = _write(tmp_path, "old.yaml", dcs(ID + "\nnote: {type: string}")), _write(tmp_path, "new.yaml", dcs(ID))
    result = CliRunner().invoke(main, ["diff", "--format", "sarif", str(old), str(new)])
    (run,) = json.loads(result.output)["runs"]
    assert [r["ruleId"] for r in run["results"]] == ["DCB201"]
    assert run["results"][0]["level"] == "warning"


def test_cli_diff_unreadable_contract_exits_2(tmp_path):
    new = _write(tmp_path, "new.yaml", dcs(ID))
    result = CliRunner().invoke(main, ["diff", str(tmp_path / "missing.yaml"), str(new)])
    assert result.exit_code == 2
    assert "DCB001" in result.output


def test_cli_check_version_files(tmp_path):
    old, new = _write(tmp_path, "old.yaml", dcs(ID + "\nnote: {type: string}")), _write(tmp_path, "new.yaml", dcs(ID, version="1.0.1"))
    result = CliRunner().invoke(main, ["check-version", str(old), str(new)])
    assert result.exit_code == 1, result.output
    assert (f"{new}:5: error DCB230 at info.version: version 1.0.0 -> 1.0.1 is a PATCH bump, but 1 breaking change(s) need a MAJOR bump: "
            "field `orders.note` removed") in result.output
    assert "expected 2.0.0 or later; found 1.0.1" in result.output
    assert f"{new}:7: info DCB201 at models.orders: breaking: field `orders.note` removed" in result.output
    assert result.output.rstrip().endswith("version 1.0.0 -> 1.0.1: PATCH bump: NOT ENOUGH")
    new.write_text(dcs(ID, version="2.0.0"), encoding="utf-8")
    result = CliRunner().invoke(main, ["check-version", "--format", "json", str(old), str(new)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (report["ok"], report["bump"], report["required_bump"]) == (True, "major", "major")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git repository with contracts/orders.yaml at 1.0.0 (its field type from definitions.yaml), committed on `main`."""
    repo = tmp_path / "repo"
    (repo / "contracts").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "test@example.com")
    _git(repo, "config", "user.name", "test")
    _write(repo / "contracts", "definitions.yaml", "definitions:\n  amount: {type: int}\n")
    _write(repo / "contracts", "orders.yaml", dcs(ID + "\namount: {$ref: 'definitions.yaml#/definitions/amount'}\nnote: {type: string}"))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "orders 1.0.0")
    monkeypatch.chdir(repo)
    return repo


def test_cli_check_version_against_a_git_revision(repo):
    # the working copy removes `note` and widens `amount` in the referenced definitions file
    _write(repo / "contracts", "definitions.yaml", "definitions:\n  amount: {type: long}\n")
    _write(repo / "contracts", "orders.yaml", dcs(ID + "\namount: {$ref: 'definitions.yaml#/definitions/amount'}", version="1.1.0"))
    result = CliRunner().invoke(main, ["check-version", "main:contracts/orders.yaml", "contracts/orders.yaml"])
    assert result.exit_code == 1, result.output
    assert ("contracts/orders.yaml:5: error DCB230 at info.version: version 1.0.0 -> 1.1.0 is a MINOR bump, but 1 breaking change(s) "
            "need a MAJOR bump: field `orders.note` removed") in result.output
    # the old `amount` came from definitions.yaml as committed (int), not from the working copy (long)
    assert "`orders.amount` type int -> bigint (a safe widening)" in result.output
    _write(repo / "contracts", "orders.yaml", dcs(ID + "\namount: {$ref: 'definitions.yaml#/definitions/amount'}", version="2.0.0"))
    result = CliRunner().invoke(main, ["check-version", "main:contracts/orders.yaml", "contracts/orders.yaml"])
    assert result.exit_code == 0, result.output
    assert result.output.rstrip().endswith("version 1.0.0 -> 2.0.0: MAJOR bump: ok")


def test_cli_diff_between_two_revisions_names_them(repo):
    _write(repo / "contracts", "orders.yaml", dcs(ID + "\namount: {$ref: 'definitions.yaml#/definitions/amount'}", version="2.0.0"))
    _git(repo, "commit", "-q", "-am", "orders 2.0.0 without note")
    result = CliRunner().invoke(main, ["diff", "--format", "json", "HEAD~1:contracts/orders.yaml", "HEAD:contracts/orders.yaml"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["files"] == ["HEAD~1:contracts/orders.yaml", "HEAD:contracts/orders.yaml"]
    assert [(c["code"], c["file"]) for c in report["changes"]] == [("DCB201", "HEAD:contracts/orders.yaml")]
    assert [f["file"] for f in report["findings"]] == ["HEAD:contracts/orders.yaml"]


def test_git_revision_relative_to_the_current_folder(repo, monkeypatch):
    monkeypatch.chdir(repo / "contracts")
    version = load_version("HEAD:./orders.yaml")
    assert version.result.contract is not None, version.result.findings
    assert version.label == "HEAD:./orders.yaml"
    assert version.result.contract.model("orders").field("amount").logical_type == "integer"


def test_findings_in_a_git_revision_name_the_revision(repo):
    _write(repo / "contracts", "orders.yaml", dcs(ID + "\nbad: {type: strng}"))
    _git(repo, "commit", "-q", "-am", "a typo")
    version = load_version("HEAD:contracts/orders.yaml")
    assert [(f.code, f.file) for f in version.result.findings] == [("DCB110", "HEAD:contracts/orders.yaml")]


@pytest.mark.parametrize("spec", ["nosuchbranch:contracts/orders.yaml", "main:contracts/missing.yaml"])
def test_cli_check_version_bad_revision_exits_2(repo, spec):
    result = CliRunner().invoke(main, ["check-version", spec, "contracts/orders.yaml"])
    assert result.exit_code == 2, result.output
    assert f"{spec}: error DCB232" in result.output
