"""The translator corpus (issue 3): one small contract per element of the mapping tables, DCS and ODCS.

`GOLDEN` is the reviewed translation of every file in `tests/translate_corpus/`: per check, in plan
order, `(check id, kind, GX expectation type, SodaCL check line)`. `None` means the engine does not
run the check (with the reason in `compile --explain`); a tuple means the check became several Soda
checks. A changed row is a changed meaning: read the compiled files before updating one.

The other tests hold for the corpus and for the bundled contracts: GX 1.x loads every suite and every
expectation names its check; Soda Core v3 parses every SodaCL document without a warning, one parsed
check per item, each named by its check id; the SQL fragments Soda builds from our values are valid
Spark SQL; compiling is byte-for-byte deterministic; the committed artifacts are not stale.
No Spark here: everything runs on the compiled files.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import great_expectations as gx  # slow to import: once per module
import pytest
import sqlglot
from click.testing import CliRunner
from great_expectations.expectations.metrics.query_metric_provider import QueryMetricProvider
from soda.data_sources.spark_data_source import SparkSQLBase
from soda.scan import Scan

from dc_bridge.plan import checks as c
from dc_bridge.compiler import Compiled, compile_contract
from dc_bridge.engines.engine import Unsupported
from dc_bridge.engines.gx.translate import suite_text
from dc_bridge.engines.soda.translate import sodacl_text
from dc_bridge.cli import main
from dc_bridge.contract.findings import CONFORMANCE_CODES
from dc_bridge.contract.lint import lint_file
from dc_bridge.contract.formats import FORMATS
from dc_bridge.contract.sql import view_name
from dc_bridge.contract.types import PHYSICAL_TYPES, SPARK_TYPES
from dc_bridge.engines.gx import translate as gx_translate
from dc_bridge.engines.soda import translate as soda_translate

ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = ROOT / "tests" / "translate_corpus"
CORPUS = sorted(CORPUS_DIR.glob("*.yaml"))
BUNDLED = sorted((ROOT / "contracts").glob("*.yaml"))

Row = tuple  # (check id, kind, GX expectation type | None, SodaCL check line | tuple of lines | None)


GOLDEN: dict[str, list[Row]] = {
    # DCS custom GX check in `specification`, written with the GX 0.x key `expectation_type` (a lint warning)
    'dcs_custom_gx.yaml': [
        ('orders.amount.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.amount.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('orders.amount.quality[0]', 'custom_gx', 'expect_column_mean_to_be_between', None),
        ('orders.quality[0]', 'custom_gx', 'expect_table_row_count_to_be_between', None),
    ],
    # DCS custom Soda check as raw SodaCL text
    'dcs_custom_soda.yaml': [
        ('orders.amount.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.amount.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('orders.quality[0]', 'custom_soda', None, 'avg(amount) between 10 and 500'),
    ],
    # DCS `enum`: a plain list of values (numbers, and a value with a quote: Soda cannot carry it, so a query of our own)
    'dcs_enum.yaml': [
        ('orders.status.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.status.enum', 'in_set', 'expect_column_values_to_be_in_set', 'invalid_count(status) = 0'),
        ('orders.priority.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.priority.enum', 'in_set', 'expect_column_values_to_be_in_set', 'invalid_count(priority) = 0'),
        ('orders.salutation.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.salutation.enum', 'in_set', 'expect_column_values_to_be_in_set', 'dcb_orders_salutation_enum = 0'),
    ],
    # DCS exclusiveMinimum / exclusiveMaximum as numbers (JSON Schema draft 6+)
    'dcs_exclusive.yaml': [
        ('measurements.ratio.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('measurements.ratio.range', 'value_between', 'expect_column_values_to_be_between', 'dcb_measurements_ratio_range = 0'),
        ('measurements.weight.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('measurements.weight.range', 'value_between', 'expect_column_values_to_be_between', 'dcb_measurements_weight_range = 0'),
    ],
    # DCS `format`: every standard format is one regex, shared by both engines
    'dcs_formats.yaml': [
        ('contacts.email.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('contacts.email.format', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(email) = 0'),
        ('contacts.homepage.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('contacts.homepage.format', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(homepage) = 0'),
        ('contacts.contact_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('contacts.contact_id.format', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(contact_id) = 0'),
        ('contacts.birthday.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('contacts.birthday.format', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(birthday) = 0'),
        ('contacts.updated_at.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('contacts.updated_at.format', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(updated_at) = 0'),
        ('contacts.ip4.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('contacts.ip4.format', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(ip4) = 0'),
        ('contacts.ip6.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('contacts.ip6.format', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(ip6) = 0'),
    ],
    # DCS minLength / maxLength: inclusive, one check per field
    'dcs_length.yaml': [
        ('customers.customer_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('customers.customer_id.length', 'length_between', 'expect_column_value_lengths_to_be_between', 'invalid_count(customer_id) = 0'),
        ('customers.nickname.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('customers.nickname.length', 'length_between', 'expect_column_value_lengths_to_be_between', 'invalid_count(nickname) = 0'),
        ('customers.country.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('customers.country.length', 'length_between', 'expect_column_value_lengths_to_be_between', 'invalid_count(country) = 0'),
    ],
    # DCS minimum / maximum: inclusive bounds
    'dcs_min_max.yaml': [
        ('orders.quantity.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.quantity.range', 'value_between', 'expect_column_values_to_be_between', 'invalid_count(quantity) = 0'),
        ('orders.discount.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        # a bound that is no integer: GX and Soda would compare it as a double, so the bridge's exact query in both
        ('orders.discount.range', 'value_between', 'unexpected_rows_expectation', 'dcb_orders_discount_range = 0'),
        ('orders.total.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.total.range', 'value_between', 'expect_column_values_to_be_between', 'invalid_count(total) = 0'),
    ],
    # DCS `pattern`: a search, unanchored unless it says ^/$
    'dcs_pattern.yaml': [
        ('products.sku.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('products.sku.pattern', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(sku) = 0'),
        ('products.code.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('products.code.pattern', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(code) = 0'),
    ],
    # DCS model-level composite `primaryKey`; one of its fields already says `required`
    'dcs_primary_key_composite.yaml': [
        ('line_items.order_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('line_items.order_id.required', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(order_id) = 0'),
        ('line_items.line_no.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('line_items.line_no.required', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(line_no) = 0'),
        ('line_items.primary_key', 'unique_combination', 'expect_compound_columns_to_be_unique', 'dcb_line_items_primary_key = 0'),
    ],
    # DCS field-level `primaryKey: true` (single column): not null and unique
    'dcs_primary_key_field.yaml': [
        ('orders.order_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.order_id.required', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(order_id) = 0'),
        ('orders.primary_key', 'unique', 'expect_column_values_to_be_unique', 'dcb_orders_primary_key = 0'),
    ],
    # DCS names that need quoting in SQL: space, dot, dash, reserved word, unicode
    'dcs_quoted_names.yaml': [
        ('order lines.line id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('order lines.line id.required', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(`line id`) = 0'),
        ('order lines.unit.price.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('order lines.unit.price.range', 'value_between', 'expect_column_values_to_be_between', 'invalid_count(`unit.price`) = 0'),
        ('order lines.item-code.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('order lines.item-code.pattern', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(`item-code`) = 0'),
        ('order lines.select.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('order lines.select.unique', 'unique', 'expect_column_values_to_be_unique', 'dcb_order_lines_select_unique = 0'),
        ('order lines.größe.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('order lines.größe.enum', 'in_set', 'expect_column_values_to_be_in_set', 'invalid_count(`größe`) = 0'),
        ('order lines.größe.quality[0]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_order_lines_größe_quality_0 = 0'),
    ],
    # DCS `references: model.field` -> a foreign key (an anti join against the referenced model's view)
    'dcs_references.yaml': [
        ('orders.order_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.order_id.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('line_items.order_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('line_items.order_id.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('line_items.order_id.foreign_key', 'foreign_key', 'unexpected_rows_expectation', 'dcb_line_items_order_id_foreign_key = 0'),
    ],
    # DCS `required: true` -> not_null; a field without `type` gets only the exists check
    'dcs_required.yaml': [
        ('orders.order_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.order_id.required', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(order_id) = 0'),
        ('orders.note.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
    ],
    # DCS servicelevels: freshness, latency (source -> processed) and retention become checks
    'dcs_servicelevels.yaml': [
        ('orders.order_timestamp.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.order_timestamp.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('orders.processed_timestamp.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.processed_timestamp.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        # availability is judged by dc-bridge over the run history (--history), never by an engine
        ('(contract).availability', 'availability', None, None),
        ('orders.freshness', 'freshness', 'expect_column_max_to_be_between', 'freshness(order_timestamp)'),
        ('orders.latency', 'latency', 'unexpected_rows_expectation', 'dcb_orders_latency = 0'),
        ('orders.retention', 'retention', 'expect_column_values_to_be_between', 'dcb_orders_retention = 0'),
    ],
    # DCS latency and retention with more than six significant digits of seconds: thresholds are written exactly
    'dcs_servicelevels_exact.yaml': [
        ('events.event_time.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.event_time.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('events.loaded_at.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.loaded_at.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('events.latency', 'latency', 'unexpected_rows_expectation', 'dcb_events_latency = 0'),
        ('events.retention', 'retention', 'expect_column_values_to_be_between', 'dcb_events_retention = 0'),
    ],
    # DCS `config.sparkType`: an exact Spark type, checked in both engines
    'dcs_spark_type.yaml': [
        ('payments.amount.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        # GX compares a decimal's class only: its precision and scale by a query of the bridge's
        ('payments.amount.type', 'column_type', ('expect_column_values_to_be_of_type', 'unexpected_rows_expectation'), 'schema'),
        ('payments.payment_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('payments.payment_id.type', 'column_type', 'expect_column_values_to_be_of_type', 'schema'),
        ('payments.count.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('payments.count.type', 'column_type', 'expect_column_values_to_be_of_type', 'schema'),
    ],
    # DCS sql rule whose SQL has braces of its own (a regex quantifier): GX fills queries with str.format
    'dcs_sql_braces.yaml': [
        ('customers.zip.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('customers.zip.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('customers.zip.quality[0]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_customers_zip_quality_0 = 0'),
    ],
    # DCS sql rule naming the model's table literally: the engines run it on their own view
    'dcs_sql_literal_table.yaml': [
        ('orders.order_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.order_id.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('orders.quality[0]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_orders_quality_0 > 5'),
        ('orders.quality[1]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_orders_quality_1 = 0'),
    ],
    # DCS sql rules with each placeholder spelling: {model} {table} {field} {column}
    'dcs_sql_placeholders.yaml': [
        ('orders.amount.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.amount.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('orders.amount.quality[0]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_orders_amount_quality_0 = 0'),
        ('orders.amount.quality[1]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_orders_amount_quality_1 <= 10'),
    ],
    # DCS text rules describe quality in words: no engine check, listed with the reason
    'dcs_text_rule.yaml': [
        ('orders.email.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.email.quality[0]', 'not_executable', None, None),
        ('orders.quality[0]', 'not_executable', None, None),
    ],
    # DCS threshold operators, DCS spellings; mustBeBetween / mustNotBeBetween include their bounds (DCS)
    'dcs_thresholds.yaml': [
        ('orders.order_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.order_id.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('orders.quality[0]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_orders_quality_0 = 10'),
        ('orders.quality[1]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_orders_quality_1 != 0'),
        ('orders.quality[2]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_orders_quality_2 > 5'),
        ('orders.quality[3]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_orders_quality_3 >= 6'),
        ('orders.quality[4]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_orders_quality_4 < 1000'),
        ('orders.quality[5]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_orders_quality_5 <= 999'),
        ('orders.quality[6]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_orders_quality_6 between [1 and 100]'),
        ('orders.quality[7]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_orders_quality_7 not between [200 and 300]'),
        ('orders.quality[8]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_orders_quality_8 between (2.5 and 12]'),
        ('orders.quality[9]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_orders_quality_9 < 1234567.5'),
        ('orders.quality[10]', 'sql_metric', 'unexpected_rows_expectation', 'dcb_orders_quality_10 < 0.00001'),
    ],
    # DCS logical types -> a set of compatible Spark types (GX only: Soda's schema check takes one type)
    'dcs_types.yaml': [
        ('events.name.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.name.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('events.count.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.count.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('events.big.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.big.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('events.amount.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.amount.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('events.happened_at.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.happened_at.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('events.day.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.day.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('events.flag.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.flag.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
    ],
    # DCS `unique: true` -> unique (rows whose non-null value occurs more than once)
    'dcs_unique.yaml': [
        ('customers.email.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('customers.email.unique', 'unique', 'expect_column_values_to_be_unique', 'dcb_customers_email_unique = 0'),
    ],
    # ODCS 3.0 wrote exclusiveMinimum / exclusiveMaximum as flags on minimum / maximum
    'odcs30_exclusive_flags.yaml': [
        ('measurements.ratio.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('measurements.ratio.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('measurements.ratio.range', 'value_between', 'expect_column_values_to_be_between', 'dcb_measurements_ratio_range = 0'),
    ],
    # ODCS 3.0 library rules written with the older rule: names
    'odcs30_rule_names.yaml': [
        ('orders.order_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.order_id.quality[0]', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(order_id) = 0'),
        ('orders.order_id.quality[1]', 'unique', 'expect_column_values_to_be_unique', 'dcb_orders_order_id_quality_1 < 2'),
        ('orders.status.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.status.quality[0]', 'in_set', 'expect_column_values_to_be_in_set', 'invalid_count(status) = 0'),
        ('orders.quality[0]', 'row_count', 'expect_table_row_count_to_be_between', 'row_count > 0'),
    ],
    # ODCS custom GX check with implementation as a mapping (GX 1.x spelling)
    'odcs_custom_gx_mapping.yaml': [
        ('orders.amount.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('amount_mean', 'custom_gx', 'expect_column_mean_to_be_between', None),
        ('row_count_gx', 'custom_gx', 'expect_table_row_count_to_be_between', None),
    ],
    # ODCS custom GX check as a YAML string, with camelCase kwargs and CamelCase type (as in the ODCS docs)
    'odcs_custom_gx_string.yaml': [
        ('orders.amount.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('gx_text', 'custom_gx', 'expect_column_values_to_be_between', None),
    ],
    # ODCS custom Soda checks in Soda's data-contract form (type: ...)
    'odcs_custom_soda_contract.yaml': [
        ('orders.order_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('soda_no_dups', 'custom_soda', None, 'duplicate_count(order_id) = 0'),
        ('orders.tenant_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('soda_dup_pct', 'custom_soda', None, 'duplicate_percent(tenant_id, order_id) < 1'),
        ('soda_rows', 'custom_soda', None, 'row_count > 0'),
    ],
    # ODCS custom Soda check as a mapping, with and without the `checks for` header
    'odcs_custom_soda_mapping.yaml': [
        ('orders.amount.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('soda_map', 'custom_soda', None, 'max(amount) < 1000000'),
        ('soda_header', 'custom_soda', None, ('min(amount) >= 0', 'missing_count(amount) = 0')),
    ],
    # ODCS custom Soda check as raw SodaCL text (with and without a configuration block)
    'odcs_custom_soda_raw.yaml': [
        ('orders.amount.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('soda_avg', 'custom_soda', None, 'avg(amount) between 10 and 500'),
        ('soda_dup', 'custom_soda', None, 'duplicate_count(amount) < 3'),
    ],
    # ODCS contract using the DCS operator spellings: both spellings are accepted in both formats
    'odcs_dcs_operator_spelling.yaml': [
        ('orders.amount.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('amount_nulls_ge', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(amount) >= 0'),
        ('amount_nulls_le', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(amount) <= 5'),
        ('sql_between', 'sql_metric', 'unexpected_rows_expectation', 'dcb_sql_between between (1 and 100)'),
    ],
    # ODCS duplicateValues on a property (no arguments) and on the object with one and with several arguments.properties
    'odcs_duplicate_values.yaml': [
        ('orders.order_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.order_id.quality[0]', 'unique', 'expect_column_values_to_be_unique', 'dcb_orders_order_id_quality_0 = 0'),
        ('orders.tenant_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.order_no.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('dup_order_id', 'unique', 'expect_column_values_to_be_unique', 'dcb_dup_order_id <= 3'),
        ('dup_tenant_order', 'unique_combination', 'expect_compound_columns_to_be_unique', 'dcb_dup_tenant_order = 0'),
        ('dup_pct', 'unique_combination', 'expect_compound_columns_to_be_unique', 'dcb_dup_pct < 0.5'),
    ],
    # ODCS 3.2 enum as a list of {value: ...} objects
    'odcs_enum_values.yaml': [
        ('orders.status.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.status.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('orders.status.enum', 'in_set', 'expect_column_values_to_be_in_set', 'invalid_count(status) = 0'),
    ],
    # ODCS logicalTypeOptions exclusiveMinimum / exclusiveMaximum as numbers (3.1+)
    'odcs_exclusive.yaml': [
        ('measurements.ratio.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('measurements.ratio.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('measurements.ratio.range', 'value_between', 'expect_column_values_to_be_between', 'dcb_measurements_ratio_range = 0'),
        ('measurements.weight.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('measurements.weight.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('measurements.weight.range', 'value_between', 'expect_column_values_to_be_between', 'dcb_measurements_weight_range = 0'),
    ],
    # ODCS composite foreign key: from / to lists of the same length
    'odcs_fk_composite.yaml': [
        ('products.tenant_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('products.product_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.tenant_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.product_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.tenant_id_product_id.foreign_key', 'foreign_key', 'unexpected_rows_expectation', 'dcb_orders_tenant_id_product_id_foreign_key = 0'),
    ],
    # ODCS property-level foreign key (the property is the implicit `from`)
    'odcs_fk_property.yaml': [
        ('customers.customer_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.customer_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.customer_id.foreign_key', 'foreign_key', 'unexpected_rows_expectation', 'dcb_orders_customer_id_foreign_key = 0'),
    ],
    # ODCS schema-level foreign key (explicit from / to, shorthand table.column)
    'odcs_fk_schema.yaml': [
        ('customers.id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.customer_ref.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.customer_ref.foreign_key', 'foreign_key', 'unexpected_rows_expectation', 'dcb_orders_customer_ref_foreign_key = 0'),
    ],
    # ODCS logicalTypeOptions.format, every standard format
    'odcs_formats.yaml': [
        ('contacts.email.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('contacts.email.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('contacts.email.format', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(email) = 0'),
        ('contacts.homepage.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('contacts.homepage.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('contacts.homepage.format', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(homepage) = 0'),
        ('contacts.contact_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('contacts.contact_id.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('contacts.contact_id.format', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(contact_id) = 0'),
        ('contacts.birthday.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('contacts.birthday.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('contacts.birthday.format', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(birthday) = 0'),
        ('contacts.updated_at.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('contacts.updated_at.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('contacts.updated_at.format', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(updated_at) = 0'),
        ('contacts.ip4.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('contacts.ip4.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('contacts.ip4.format', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(ip4) = 0'),
        ('contacts.ip6.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('contacts.ip6.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('contacts.ip6.format', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(ip6) = 0'),
    ],
    # ODCS invalidValues with a pattern, as a percent
    'odcs_invalid_values_pattern.yaml': [
        ('customers.zip.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('customers.zip.quality[0]', 'regex', 'expect_column_values_to_match_regex', 'invalid_percent(zip) < 2'),
    ],
    # ODCS invalidValues with validValues
    'odcs_invalid_values_valid.yaml': [
        ('orders.status.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('status_valid', 'in_set', 'expect_column_values_to_be_in_set', 'invalid_count(status) = 0'),
    ],
    # ODCS logicalTypeOptions minLength / maxLength
    'odcs_length.yaml': [
        ('customers.customer_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('customers.customer_id.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('customers.customer_id.length', 'length_between', 'expect_column_value_lengths_to_be_between', 'invalid_count(customer_id) = 0'),
    ],
    # ODCS logicalType -> compatible Spark types (GX only)
    'odcs_logical_types.yaml': [
        ('events.name.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.name.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('events.count.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.count.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('events.amount.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.amount.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('events.happened_at.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.happened_at.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('events.day.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.day.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('events.flag.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.flag.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('events.tags.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.tags.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('events.payload.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('events.payload.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
    ],
    # ODCS logicalTypeOptions minimum / maximum (inclusive)
    'odcs_min_max.yaml': [
        ('orders.quantity.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.quantity.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('orders.quantity.range', 'value_between', 'expect_column_values_to_be_between', 'invalid_count(quantity) = 0'),
    ],
    # ODCS missingValues: nulls plus the listed missing values (a value with a quote needs a query of our own in Soda)
    'odcs_missing_values.yaml': [
        ('customers.phone.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('customers.phone.quality[0]', 'not_null', 'unexpected_rows_expectation', 'missing_count(phone) < 5'),
        ('customers.surname.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('surname_missing', 'not_null', 'unexpected_rows_expectation', 'dcb_surname_missing = 0'),
    ],
    # ODCS library metric nullValues: default threshold (none allowed), an explicit count, and a percent
    'odcs_null_values.yaml': [
        ('customers.email.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('customers.email.quality[0]', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(email) = 0'),
        ('customers.email.quality[1]', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(email) < 10'),
        ('email_nulls_pct', 'not_null', 'expect_column_values_to_not_be_null', 'missing_percent(email) <= 1'),
    ],
    # ODCS logicalTypeOptions.pattern
    'odcs_pattern.yaml': [
        ('products.sku.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('products.sku.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('products.sku.pattern', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(sku) = 0'),
    ],
    # ODCS property physicalName is the column: primary keys, foreign keys, duplicateValues arguments and SLA elements use it too
    'odcs_physical_names.yaml': [
        ('customers.cust_no.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('customers.cust_no.required', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(cust_no) = 0'),
        ('customers.primary_key', 'unique', 'expect_column_values_to_be_unique', 'dcb_customers_primary_key = 0'),
        ('orders.ord_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.ord_id.required', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(ord_id) = 0'),
        ('orders.cust_no.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.upd_ts.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.upd_ts.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('orders.primary_key', 'unique', 'expect_column_values_to_be_unique', 'dcb_orders_primary_key = 0'),
        ('orders.cust_no.foreign_key', 'foreign_key', 'unexpected_rows_expectation', 'dcb_orders_cust_no_foreign_key = 0'),
        ('order_customer_dups', 'unique_combination', 'expect_compound_columns_to_be_unique', 'dcb_order_customer_dups = 0'),
        ('orders.freshness', 'freshness', 'expect_column_max_to_be_between', 'freshness(upd_ts)'),
    ],
    # ODCS physicalType: an exact Spark type, in both engines; a type Spark does not know falls back to the logical type
    'odcs_physical_type.yaml': [
        ('payments.payment_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('payments.payment_id.type', 'column_type', 'expect_column_values_to_be_of_type', 'schema'),
        ('payments.amount.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        # GX compares a decimal's class only: its precision and scale by a query of the bridge's
        ('payments.amount.type', 'column_type', ('expect_column_values_to_be_of_type', 'unexpected_rows_expectation'), 'schema'),
        ('payments.count.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('payments.count.type', 'column_type', 'expect_column_values_to_be_of_type', 'schema'),
        ('payments.rate.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('payments.rate.type', 'column_type', 'expect_column_values_to_be_of_type', 'schema'),
        ('payments.created_at.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('payments.created_at.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
    ],
    # ODCS composite primary key: columns ordered by primaryKeyPosition, not by property order
    'odcs_primary_key_composite.yaml': [
        ('line_items.line_no.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('line_items.order_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('line_items.sku.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('line_items.order_id.required', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(order_id) = 0'),
        ('line_items.line_no.required', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(line_no) = 0'),
        ('line_items.primary_key', 'unique_combination', 'expect_compound_columns_to_be_unique', 'dcb_line_items_primary_key = 0'),
    ],
    # ODCS single-column primary key (primaryKey + primaryKeyPosition 1); the property is also required
    'odcs_primary_key_single.yaml': [
        ('orders.order_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.order_id.required', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(order_id) = 0'),
        ('orders.status.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.primary_key', 'unique', 'expect_column_values_to_be_unique', 'dcb_orders_primary_key = 0'),
    ],
    # ODCS names that need quoting: space, dot, dash, reserved word, unicode; physicalName is the column
    'odcs_quoted_names.yaml': [
        ('Kunden Daten.first name.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('Kunden Daten.first name.required', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(`first name`) = 0'),
        ('Kunden Daten.amount.eur.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('Kunden Daten.amount.eur.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('Kunden Daten.amount.eur.range', 'value_between', 'expect_column_values_to_be_between', 'dcb_kunden_daten_amount_eur_range = 0'),
        ('Kunden Daten.zip-code.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('Kunden Daten.zip-code.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('Kunden Daten.zip-code.pattern', 'regex', 'expect_column_values_to_match_regex', 'invalid_count(`zip-code`) = 0'),
        ('Kunden Daten.order.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('Kunden Daten.order.required', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(`order`) = 0'),
        ('Kunden Daten.order.unique', 'unique', 'expect_column_values_to_be_unique', 'dcb_kunden_daten_order_unique = 0'),
        ('Kunden Daten.straße.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('Kunden Daten.straße.required', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(`straße`) = 0'),
        ('straße_valid', 'in_set', 'expect_column_values_to_be_in_set', 'invalid_count(`straße`) = 0'),
        ('straße_sql', 'sql_metric', 'unexpected_rows_expectation', 'dcb_straße_sql = 0'),
    ],
    # ODCS required: true -> not_null
    'odcs_required.yaml': [
        ('orders.order_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.order_id.required', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(order_id) = 0'),
        ('orders.comment.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
    ],
    # ODCS rowCount with every operator, ODCS spellings; mustBeBetween / mustNotBeBetween exclude their bounds (ODCS)
    'odcs_row_count.yaml': [
        ('orders.order_id.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('rc_eq', 'row_count', 'expect_table_row_count_to_equal', 'row_count = 100'),
        ('rc_ne', 'row_count', 'unexpected_rows_expectation', 'row_count != 0'),
        ('rc_gt', 'row_count', 'expect_table_row_count_to_be_between', 'row_count > 5'),
        ('rc_ge', 'row_count', 'expect_table_row_count_to_be_between', 'row_count >= 6'),
        ('rc_lt', 'row_count', 'expect_table_row_count_to_be_between', 'row_count < 1000'),
        ('rc_le', 'row_count', 'expect_table_row_count_to_be_between', 'row_count <= 999'),
        ('rc_between', 'row_count', 'expect_table_row_count_to_be_between', 'row_count between (10 and 20)'),
        ('rc_not_between', 'row_count', 'unexpected_rows_expectation', 'row_count not between (10 and 20)'),
        ('rc_range', 'row_count', 'expect_table_row_count_to_be_between', 'row_count between (10 and 20]'),
    ],
    # ODCS severity: warning (and info): a violation warns, in Soda through `warn`, in GX through the expectation severity
    'odcs_severity.yaml': [
        ('orders.email.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('email_nulls_warn', 'not_null', 'expect_column_values_to_not_be_null', 'missing_count(email)'),
        ('orders.amount.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('amount_sql_info', 'sql_metric', 'unexpected_rows_expectation', 'dcb_amount_sql_info'),
        ('rows_warn', 'row_count', 'expect_table_row_count_to_be_between', 'row_count'),
    ],
    # ODCS slaProperties: freshness / latency / retention with value + unit and element (and slaDefaultElement)
    'odcs_sla.yaml': [
        ('orders.created_at.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.created_at.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('orders.updated_at.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('orders.updated_at.type', 'column_type', 'expect_column_values_to_be_in_type_list', None),
        ('orders.freshness', 'freshness', 'expect_column_max_to_be_between', 'freshness(updated_at)'),
        ('orders_latency', 'freshness', 'expect_column_max_to_be_between', 'freshness(updated_at)'),
        ('orders.retention', 'retention', 'expect_column_values_to_be_between', 'dcb_orders_retention = 0'),
        ('orders.frequency', 'frequency', 'unexpected_rows_expectation', 'dcb_orders_frequency <= 86400'),
        # availability is judged over the run history: kept, never left out, run by no engine
        ('(contract).availability', 'availability', None, None),
    ],
    # ODCS sql rule naming the table by its physicalName and by its logical name
    'odcs_sql_literal_table.yaml': [
        ('orders.amount.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('by_physical_name', 'sql_metric', 'unexpected_rows_expectation', 'dcb_by_physical_name < 10000'),
        ('by_name', 'sql_metric', 'unexpected_rows_expectation', 'dcb_by_name >= 0'),
    ],
    # ODCS sql placeholders: ${table} ${column} ${object} ${property} and {object} {property}
    'odcs_sql_placeholders.yaml': [
        ('orders.amount.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('neg_dollar_table_column', 'sql_metric', 'unexpected_rows_expectation', 'dcb_neg_dollar_table_column = 0'),
        ('neg_dollar_object_property', 'sql_metric', 'unexpected_rows_expectation', 'dcb_neg_dollar_object_property = 0'),
        ('neg_object_property', 'sql_metric', 'unexpected_rows_expectation', 'dcb_neg_object_property = 0'),
    ],
    # ODCS text rules: no engine check, listed with the reason
    'odcs_text_rule.yaml': [
        ('orders.email.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('email_words', 'not_executable', None, None),
        ('orders.quality[0]', 'not_executable', None, None),
    ],
    # ODCS unique: true -> unique
    'odcs_unique.yaml': [
        ('customers.email.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('customers.email.unique', 'unique', 'expect_column_values_to_be_unique', 'dcb_customers_email_unique = 0'),
    ],
    # ODCS unit: percent on count metrics: the metric is a share of all rows
    'odcs_unit_percent.yaml': [
        ('customers.email.exists', 'column_exists', 'expect_column_to_exist', 'schema'),
        ('email_missing_pct', 'not_null', 'unexpected_rows_expectation', 'missing_percent(email) < 5'),
        ('email_dup_pct', 'unique', 'expect_column_values_to_be_unique', 'dcb_email_dup_pct <= 1'),
        ('email_valid_pct', 'in_set', 'expect_column_values_to_be_in_set', 'invalid_percent(email) between (0 and 10)'),
    ],
}


# ---------------------------------------------------------------------------------------------
# helpers


@functools.cache
def compiled(path: Path) -> Compiled | None:
    """The compiled contract (None for a shared quality-rule library); lint must find no error but of conformance alone."""
    result = lint_file(path)
    errors = [f"{f.code} {f.path}: {f.message}" for f in result.findings if f.level == "error" and f.code not in CONFORMANCE_CODES]
    assert not errors, errors
    if result.kind == "library":
        return None
    assert result.contract is not None
    return compile_contract(result.contract)


def _one(values: list | None):
    if values is None:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def _translated(engine, check, comp: Compiled):
    """An engine's form of a check, or None where the engine does not run it."""
    made = engine.translate_check(check, comp.plan.contract_id)
    return None if isinstance(made, Unsupported) else made


def translation_rows(comp: Compiled) -> list[Row]:
    rows = []
    for check in comp.plan.checks:
        expectations = _translated(gx_translate, check, comp)
        soda_items = _translated(soda_translate, check, comp)
        rows.append((check.id, check.kind,
                     _one(None if expectations is None else [e["type"] for e in expectations]),
                     _one(None if soda_items is None else [next(iter(item)) for item in soda_items])))
    return rows


def _contracts(paths: list[Path]) -> list[Compiled]:
    return [comp for comp in map(compiled, paths) if comp is not None]


ALL = CORPUS + BUNDLED
IDS = [p.relative_to(ROOT).as_posix() for p in ALL]


def _gx_queries(comp: Compiled):
    for suite in comp.artifacts["gx"].values():
        for expectation in suite["expectations"]:
            if expectation["type"] == "unexpected_rows_expectation":
                yield expectation["meta"]["dc_bridge"]["check_id"], expectation["kwargs"]["unexpected_rows_query"]


def _soda_items(comp: Compiled):
    """(check, SodaCL check line, configuration) for every Soda check of the contract."""
    for check in comp.plan.checks:
        for item in _translated(soda_translate, check, comp) or []:
            line, config = next(iter(item.items()))
            yield check, line, config or {}


# ---------------------------------------------------------------------------------------------
# the golden table


def test_corpus_and_golden_table_name_the_same_files():
    assert sorted(p.name for p in CORPUS) == sorted(GOLDEN)
    assert len(CORPUS) >= 40
    assert {p.name.split("_")[0] for p in CORPUS} >= {"dcs", "odcs"}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_translation_matches_golden_table(name):
    assert translation_rows(compiled(CORPUS_DIR / name)) == GOLDEN[name]


# ---------------------------------------------------------------------------------------------
# GX


@pytest.mark.parametrize("path", ALL, ids=IDS)
def test_gx_suites_load_and_every_expectation_names_its_check(path):
    comp = compiled(path)
    if comp is None:
        pytest.skip("a shared quality-rule library compiles where it is imported")
    for model, suite in comp.artifacts["gx"].items():
        loaded = gx.ExpectationSuite(**json.loads(suite_text(suite)))
        assert len(loaded.expectations) == len(suite["expectations"])
        named = [e.meta["dc_bridge"]["check_id"] for e in loaded.expectations]
        expected = {check.id for check in comp.plan.for_model(model)
                    if _translated(gx_translate, check, comp) is not None}
        assert set(named) == expected
        for expectation in loaded.expectations:
            assert expectation.meta["dc_bridge"]["model"] == model


@pytest.mark.parametrize("path", ALL, ids=IDS)
def test_gx_queries_survive_gx_placeholder_formatting(path):
    """GX fills `unexpected_rows_query` with `str.format`: every brace of our own SQL must come through."""
    comp = compiled(path)
    if comp is None:
        pytest.skip("library")
    for check_id, query in _gx_queries(comp):
        filled = QueryMetricProvider._format_query(query, batch="(BATCH)")
        assert "(BATCH)" in filled, check_id
        assert filled == query.replace("{batch}", "(BATCH)").replace("{{", "{").replace("}}", "}"), check_id
        sqlglot.parse_one(filled, read="spark")


def test_gx_keeps_braces_of_the_contract_sql():
    comp = compiled(CORPUS_DIR / "dcs_sql_braces.yaml")
    (_, query), = _gx_queries(comp)
    assert "RLIKE '^[0-9]{5}$'" in QueryMetricProvider._format_query(query, batch="(BATCH)")


def test_gx_type_names_are_the_pyspark_classes_of_every_spark_type_the_type_table_names():
    """GX_SPARK_TYPES is written out (compile does not import pyspark); pyspark's own classes check it."""
    from pyspark.sql import types as T

    named = {t for types in SPARK_TYPES.values() for t in types} | set(PHYSICAL_TYPES.values())
    assert named - set(gx_translate.GX_SPARK_TYPES) == set()
    for simple, name in gx_translate.GX_SPARK_TYPES.items():
        cls = getattr(T, name)
        sample = cls(T.StringType()) if cls is T.ArrayType else cls(T.StringType(), T.StringType()) if cls is T.MapType else cls()
        # a varchar or char column reads as a string column: GX sees StringType
        assert sample.simpleString().split("(")[0].split("<")[0] == ("string" if simple in ("varchar", "char") else simple)


# ---------------------------------------------------------------------------------------------
# Soda


def _parsed_soda_checks(text: str) -> tuple[list[str], list[str]]:
    """Parse SodaCL as Soda Core v3 does (parsing happens in add_sodacl_yaml_str): (check names, problems)."""
    scan = Scan()
    scan.set_data_source_name("spark_df")
    scan.add_sodacl_yaml_str(text)
    problems = [f"{log.level.name}: {log.message}" for log in scan._logs.logs if log.level.name in ("ERROR", "WARNING")]
    names = []
    for data_source in scan._sodacl_cfg.data_source_scan_cfgs.values():
        for table in data_source.tables_cfgs.values():
            for partition in table.partition_cfgs:
                names += [check.name for check in partition.check_cfgs]
                for column in partition.column_checks_cfgs.values():
                    names += [check.name for check in column.check_cfgs]
    return names, problems


@pytest.mark.parametrize("path", ALL, ids=IDS)
def test_sodacl_parses_in_soda_core_and_every_check_is_named_by_its_id(path):
    comp = compiled(path)
    if comp is None:
        pytest.skip("library")
    for model, document in comp.artifacts["soda"].items():
        names, problems = _parsed_soda_checks(sodacl_text(document, comp.meta))
        assert not problems
        (header, items), = document.items()
        assert header == f"checks for {view_name(comp.plan.contract_id, model)}"
        assert len(names) == len(items), "Soda dropped a check"
        expected = {check.id for check in comp.plan.for_model(model)
                    if _translated(soda_translate, check, comp) is not None}
        assert set(names) == expected


_COLUMN_METRIC = re.compile(r"^(missing|invalid|duplicate)_(count|percent)\((?P<column>`(?:[^`]|``)+`|[^)]*)\)")
_PLAIN_COLUMN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|`(?:[^`]|``)+`")
# Spark's ANSI SQL reserved words (spark.sql.ansi.enforceReservedKeywords)
_RESERVED = set("""
    all and any as authorization both case cast check collate column constraint create cross current_date current_time
    current_timestamp current_user distinct else end escape except false fetch filter for foreign from full grant group
    having in inner intersect into is join lateral leading left natural not null offset on only or order outer overlaps
    primary references right select session_user some table then time to trailing union unique unknown user using when
    where with""".split())


@pytest.mark.parametrize("path", ALL, ids=IDS)
def test_soda_writes_values_spark_sql_can_carry(path):
    """Soda v3 pastes the column, `valid regex`, `valid values` and `missing values` into its Spark SQL
    without quoting or escaping them. Spark 3.5 rejects a bare `größe` (and, with ANSI keywords, a bare
    `order`), and a quote in a value or regex ends the SQL string: so columns are plain ASCII identifiers
    or backticked, and no quote reaches Soda."""
    comp = compiled(path)
    if comp is None:
        pytest.skip("library")
    for check, line, config in _soda_items(comp):
        if isinstance(check.params, c.CustomSoda):
            continue  # verbatim
        metric = _COLUMN_METRIC.match(line)
        if metric:
            column = metric["column"]
            assert _PLAIN_COLUMN.fullmatch(column), (check.id, column)
            assert column.lower() not in _RESERVED, (check.id, column)
        for key in ("valid values", "missing values"):
            for value in config.get(key, []):
                assert not (isinstance(value, str) and ("'" in value or value.endswith("\\"))), (check.id, value)
        if "valid regex" in config:
            regex = config["valid regex"]
            # the SQL Soda's Spark data source builds for an invalid count
            fragment = SparkSQLBase.expr_regexp_like(None, "c", SparkSQLBase.escape_regex(None, regex))
            sqlglot.parse_one(f"SELECT COUNT(CASE WHEN NOT (c IS NULL) AND NOT ({fragment}) THEN 1 END) FROM t", read="spark")
        for key, value in config.items():
            if key.endswith(" query"):
                sqlglot.parse_one(value, read="spark")


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_soda_regex_means_the_same_as_the_contract_regex(name):
    pattern = FORMATS[name]
    soda = soda_translate.soda_regex(pattern)
    assert "'" not in soda
    samples = ["o'brien@example.com", "a@b.co", "no at sign", "https://x.org/a?b=1", "2024-02-30", "2024-02-03T10:00:00Z",
               "123e4567-e89b-12d3-a456-426614174000", "10.0.0.256", "192.168.1.1", "::1", "fe80::1", "'"]
    for sample in samples:
        assert bool(re.search(pattern, sample)) == bool(re.search(soda, sample)), sample


def test_soda_regex_turns_every_quote_into_an_escape():
    # an escaped backslash becomes \x5c too: Soda's doubling would leave `\\\` (see test_engine_counts)
    assert soda_translate.soda_regex(r"^O'Br\'ien\\'$") == r"^O\x27Br\x27ien\x5c\x27$"
    for sample in ["O'Br'ien\\'", "OBrien"]:
        pattern = r"^O'Br\'ien\\'$"
        assert bool(re.search(pattern, sample)) == bool(re.search(soda_translate.soda_regex(pattern), sample))


# ---------------------------------------------------------------------------------------------
# what the queries say


def test_sql_placeholders_and_literal_table_names_become_each_engines_table():
    placeholders = re.compile(r"\$?\{(model|table|field|column|object|property)\}")
    for comp in _contracts(CORPUS):
        gx_queries = dict(_gx_queries(comp))
        for check, line, config in _soda_items(comp):
            if not isinstance(check.params, c.SqlMetric):
                continue
            soda_query = next(v for k, v in config.items() if k.endswith(" query"))
            gx_query = gx_queries[check.id]
            view = view_name(comp.plan.contract_id, check.model)
            assert f"FROM {view}" in soda_query and "FROM {batch}" in gx_query, check.id
            for query in (soda_query, gx_query):
                assert not placeholders.search(query), (check.id, query)
                assert not re.search(r"FROM (orders|Orders|sales_orders_v2)\b", query), (check.id, query)
            if check.column:
                assert f"`{check.column}`" in soda_query and f"`{check.column}`" in gx_query, check.id


def test_between_bounds_follow_each_standard():
    dcs = {cid: q for cid, q in _gx_queries(compiled(CORPUS_DIR / "dcs_thresholds.yaml"))}
    # the threshold holds where `(...)` is true: compared exactly, else (a decimal comparison that overflows) as doubles
    assert "NOT (COALESCE((v >= 1 AND v <= 100), " in dcs["orders.quality[6]"]
    assert "NOT (COALESCE(NOT (v >= 200 AND v <= 300), " in dcs["orders.quality[7]"]
    odcs = dict(_gx_queries(compiled(CORPUS_DIR / "odcs_dcs_operator_spelling.yaml")))
    assert "NOT (COALESCE((v > 1 AND v < 100), " in odcs["sql_between"]
    rows = {row[0]: row for row in GOLDEN["odcs_row_count.yaml"]}
    suite = compiled(CORPUS_DIR / "odcs_row_count.yaml").artifacts["gx"]["orders"]
    between = next(e for e in suite["expectations"] if e["meta"]["dc_bridge"]["check_id"] == "rc_between")
    assert between["kwargs"] == {"min_value": 11, "max_value": 19}
    assert rows["rc_between"][3] == "row_count between (10 and 20)"


def test_durations_are_written_exactly():
    comp = compiled(CORPUS_DIR / "dcs_servicelevels_exact.yaml")
    # GX's retention cut-off is a run-time parameter (the run's clock minus the period): its text for a checkpoint
    from dc_bridge.engines.gx import expectation_parameters

    gx_queries = {**dict(_gx_queries(comp)), "events.retention": " ".join(expectation_parameters(comp.plan.checks, comp.artifacts["gx"]).values())}
    soda = {check.id: next(v for k, v in config.items() if k.endswith(" query")) for check, _, config in _soda_items(comp)
            if check.kind in ("latency", "retention")}
    # P12DT12H30M15S = 1081815 s, P1Y1DT1H1M = 31626060 s (a year is 365 days)
    for check_id, seconds in (("events.latency", "1081815"), ("events.retention", "31626060")):
        assert re.search(rf"[ =-]{seconds}(\.0)?\b", gx_queries[check_id]), gx_queries[check_id]
        assert re.search(rf"[ -]{seconds}(\.0)?\b", soda[check_id]), soda[check_id]


def test_physical_names_are_the_columns_of_keys_relationships_and_service_levels():
    comp = compiled(CORPUS_DIR / "odcs_physical_names.yaml")
    columns = {check.id: check.columns for check in comp.plan.checks}
    assert columns["customers.primary_key"] == ("cust_no",)
    assert columns["orders.primary_key"] == ("ord_id",)
    assert columns["order_customer_dups"] == ("ord_id", "cust_no")
    assert columns["orders.freshness"] == ("upd_ts",)
    key = next(check for check in comp.plan.checks if check.kind == "foreign_key")
    assert key.columns == ("cust_no",) and key.params.to_columns == ("cust_no",)


def test_custom_soda_checks_keep_their_configuration_but_take_the_check_id_as_name():
    comp = compiled(CORPUS_DIR / "odcs_custom_soda_raw.yaml")
    items = {check.id: (line, config) for check, line, config in _soda_items(comp)}
    assert items["soda_dup"] == ("duplicate_count(amount) < 3", {"samples limit": 0, "name": "soda_dup"})
    comp = compiled(CORPUS_DIR / "odcs_custom_soda_mapping.yaml")
    assert [config["name"] for check, _, config in _soda_items(comp) if check.id == "soda_map"] == ["soda_map"]


def test_custom_gx_checks_are_gx_1x_expectations():
    suite = compiled(CORPUS_DIR / "odcs_custom_gx_string.yaml").artifacts["gx"]["orders"]
    custom = next(e for e in suite["expectations"] if e["meta"]["dc_bridge"]["check_id"] == "gx_text")
    assert custom["kwargs"] == {"column": "amount", "min_value": 0, "max_value": 1000}
    suite = compiled(CORPUS_DIR / "dcs_custom_gx.yaml").artifacts["gx"]["orders"]
    mean = next(e for e in suite["expectations"] if e["meta"]["dc_bridge"]["check_id"] == "orders.amount.quality[0]")
    assert mean["kwargs"] == {"min_value": 10, "max_value": 500, "column": "amount"}
    suite = compiled(CORPUS_DIR / "odcs_custom_gx_mapping.yaml").artifacts["gx"]["orders"]
    row_count = next(e for e in suite["expectations"] if e["meta"]["dc_bridge"]["check_id"] == "row_count_gx")
    assert row_count["meta"]["owner"] == "checkout"


# ---------------------------------------------------------------------------------------------
# compile: deterministic files, committed artifacts, --explain


def _compile_in_subprocess(out: Path, files: list[str], hash_seed: str) -> None:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run([sys.executable, "-c", "from dc_bridge.cli import main; main()", "compile", *files, "--out", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_compile_is_deterministic(tmp_path):
    """Two runs in separate processes (different hash seeds, so set order differs) write the same bytes."""
    files = [p.relative_to(ROOT).as_posix() for p in ALL]
    _compile_in_subprocess(tmp_path / "a", files, "1")
    _compile_in_subprocess(tmp_path / "b", files, "4242")
    first, second = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    models = sum(len(comp.plan.models) for comp in _contracts(ALL))
    assert len(first) == 2 * models
    assert first.keys() == second.keys()
    assert [name for name in first if first[name] != second[name]] == []


def test_committed_artifacts_of_the_bundled_contracts_are_not_stale(monkeypatch):
    monkeypatch.chdir(ROOT)
    contracts = [p.relative_to(ROOT).as_posix() for p in BUNDLED]
    result = CliRunner().invoke(main, ["compile", *contracts, "--check"])
    assert result.exit_code == 0, result.output


def test_explain_lists_text_rules_with_their_reason_and_custom_checks_in_their_engine(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    files = ["tests/translate_corpus/dcs_text_rule.yaml", "tests/translate_corpus/odcs_custom_gx_mapping.yaml",
             "tests/translate_corpus/odcs_custom_soda_raw.yaml"]
    result = CliRunner().invoke(main, ["compile", *files, "--out", str(tmp_path), "--explain"])
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line for line in result.output.splitlines() if line.startswith("    ")}

    def engines_and_reason(check_id: str) -> tuple[str, str, str | None]:
        match = re.fullmatch(r"\s+(\S+)\s+(\S+)\s+(\S+)(?:\s+\((.*)\))?", lines[check_id])
        assert match, lines[check_id]
        return match[2], match[3], match[4]

    text = "a text rule describes quality in words; no engine can run it"
    assert engines_and_reason("orders.quality[0]") == ("not_executable", "none", text)
    assert engines_and_reason("orders.email.quality[0]") == ("not_executable", "none", text)
    assert engines_and_reason("row_count_gx") == ("custom_gx", "gx", "a custom GX check runs in GX only")
    assert engines_and_reason("amount_mean") == ("custom_gx", "gx", "a custom GX check runs in GX only")
    assert engines_and_reason("soda_avg") == ("custom_soda", "soda", "a custom Soda check runs in Soda only")
    assert engines_and_reason("orders.amount.exists") == ("column_exists", "gx+soda", None)
    assert "2 produce no engine check" in result.output
