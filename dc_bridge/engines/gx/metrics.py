"""How the bridge's GX runs compute their Spark metrics: some of GX's metric functions registered anew
the way GX registers its own (a metric provider class, the registry's `register_metric`), and the
bundled aggregation in compiled passes, so that a validation of the compiled suite runs no query
twice and none it does not read. The suite is unchanged, and so is every number GX reports; importing
this module installs the metrics (`in_compiled_passes` is per data source).

- `unexpected_rows_query.row_count`: GX computes it with a `count()` of the query beside
  `unexpected_rows_query.table`, the same query's first 200 rows (`MAX_RESULT_RECORDS`), which every
  `unexpected_rows_expectation` also asks for: each query ran twice (a scalar SQL check's whole
  subquery, a full pass). Here the count waits for the rows and is their number when fewer than 200
  came back (all of them); only a query with more rows is counted as before.
- `unexpected_rows_query.table`: GX's own rows, except inside a bridge run (`batch_view`): GX registers the
  batch of every `{batch}` query as the session's one temp view `tmp_view`, so two validations side by side
  (contracts run in parallel, runner/fleet.py) would read each other's batch; here each validation's batch
  is a view of a name of its own. And a row PySpark cannot hold (a timestamp of year 1: `year 0 is out of
  range`, tests/test_edges.py) no longer fails the expectation, and with it the count taken from the rows:
  the same first rows are fetched again as Spark's text of each value. Outside a bridge run GX's own
  function, and its error, stand.
- `<map metric>.unexpected_values` (the failing values a result lists): a result format that lists none
  (the bridge's: not COMPLETE, `partial_unexpected_count` 0) still had Spark plan and run the failing
  rows' query with `limit(0)`, once per column map expectation; its answer, the empty list, is given here
  without a query. Any other result format runs GX's own function.
- the engine of the bridge's data source computes GX's bundled aggregation in passes Spark compiles
  (`in_compiled_passes`), as the native engine does.
- `column_values.unique.unexpected_count`: GX counts the rows of the repeated values after a window
  over the column. Inside a bridge run (`collecting_keys`) the same job also counts the distinct
  repeated values and takes the smallest and largest, which the failing-value samples would
  otherwise compute in a window of their own (runner/samples.py): the bridge's GX run reports them
  as the native engine and Soda do (run.py). Outside one, GX's own function runs.
- `column_values.value_length.between.condition`: GX's condition depends on a metric of the lengths
  (`column_values.value_length.map`), so its graph resolves it a level after every other column map
  condition and counts it in a full pass of its own. Here it takes the dependencies of every column
  map condition and computes the lengths in place with GX's own map function: the same expression,
  counted in the one bundled aggregation.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import logging
import uuid
from collections.abc import Iterator

from great_expectations.core.metric_domain_types import MetricDomainTypes
from great_expectations.execution_engine import SparkDFExecutionEngine
from great_expectations.expectations.metrics.column_map_metrics.column_value_lengths import (
    ColumnValuesValueLength,
)
from great_expectations.expectations.metrics.column_map_metrics.column_values_unique import (
    ColumnValuesUnique,
)
from great_expectations.expectations.metrics.map_metric_provider.column_map_metric_provider import (
    ColumnMapMetricProvider,
)
from great_expectations.expectations.metrics.map_metric_provider.column_map_condition_auxilliary_methods import (
    _spark_column_map_condition_values,
)
from great_expectations.expectations.metrics.map_metric_provider.column_pair_map_condition_auxilliary_methods import (
    _spark_column_pair_map_condition_values,
)
from great_expectations.expectations.metrics.map_metric_provider.map_condition_auxilliary_methods import (
    _spark_map_condition_unexpected_count_value,
)
from great_expectations.expectations.metrics.map_metric_provider.multicolumn_map_condition_auxilliary_methods import (
    _spark_multicolumn_map_condition_values,
)
from great_expectations.expectations.metrics.metric_provider import metric_value
from great_expectations.expectations.metrics.query_metrics.query_row_count.unexpected_rows_query_row_count import (
    UnexpectedRowsQueryRowCount,
)
from great_expectations.expectations.metrics.query_metrics.query_table.query_table import (
    MAX_RESULT_RECORDS,
)
from great_expectations.expectations.metrics.query_metrics.query_table.unexpected_rows_query_table import (
    UnexpectedRowsQueryTable,
)
from great_expectations.expectations.registry import (
    _registered_metrics,
    register_metric,
)
from great_expectations.validator.metric_configuration import MetricConfiguration

from dc_bridge.engines.spark_conditions import AGGREGATES_PER_PASS

_ROWS = "unexpected_rows_query.table"
_UNIQUE_COUNT = "column_values.unique.unexpected_count"
_LENGTH_CONDITION = "column_values.value_length.between.condition"
_LENGTHS = "column_values.value_length.map"

# column -> (distinct repeated values, smallest, largest), filled by the uniqueness count of the
# validation running in this thread; None outside a bridge run
_KEYS: contextvars.ContextVar[dict | None] = contextvars.ContextVar("dc_bridge_gx_keys", default=None)
# the temp view the `{batch}` queries of the validation running in this thread read; None outside a bridge run
_BATCH: contextvars.ContextVar[str | None] = contextvars.ContextVar("dc_bridge_gx_batch_view", default=None)


# GX's registry warns of each provider replaced, which is the point here: quiet while this module registers
_REGISTRY_LOG = logging.getLogger("great_expectations.expectations.registry")
_LEVEL = _REGISTRY_LOG.level
_REGISTRY_LOG.setLevel(logging.ERROR)


class UnexpectedRowsFetched(UnexpectedRowsQueryTable):
    """`unexpected_rows_query.table` on Spark: GX's own first rows, or inside a bridge run, when PySpark
    cannot hold one of their values, the same rows as Spark's text of each value."""

    @metric_value(engine=SparkDFExecutionEngine)
    def _spark(cls, execution_engine, metric_domain_kwargs: dict, metric_value_kwargs: dict, metrics: dict,
               runtime_configuration: dict) -> list[dict]:
        view = _BATCH.get()
        if view is None:  # outside a bridge run: QueryTable's own Spark function (the registry calls it with the class as `cls`)
            return UnexpectedRowsQueryTable._spark(cls=cls, execution_engine=execution_engine, metric_domain_kwargs=metric_domain_kwargs,
                                                   metric_value_kwargs=metric_value_kwargs, metrics=metrics,
                                                   runtime_configuration=runtime_configuration)
        # as QueryTable's function, with the batch as this validation's own view
        batch, _, _ = execution_engine.get_compute_domain(metric_domain_kwargs, domain_type=MetricDomainTypes.TABLE)
        batch.createOrReplaceTempView(view)
        rows = execution_engine.spark.sql(cls._format_query(cls._get_query_from_metric_value_kwargs(metric_value_kwargs), batch=view))
        if metric_value_kwargs.get("fetch_all", False) is False:
            rows = rows.limit(MAX_RESULT_RECORDS)
        try:
            return [row.asDict() for row in rows.collect()]
        except (ValueError, OverflowError):  # PySpark's conversion of a value: `year 0 is out of range`
            pass
        names = rows.columns
        # by position: a query's columns may share a name
        as_text = rows.toDF(*(f"_{i}" for i in range(len(names))))
        as_text = as_text.select(*(as_text[f"_{i}"].cast("string") for i in range(len(names))))
        return [dict(zip(names, row)) for row in as_text.collect()]


class UnexpectedRowsCountedOnce(UnexpectedRowsQueryRowCount):
    """`unexpected_rows_query.row_count` on Spark from the rows `unexpected_rows_query.table` fetched."""

    @classmethod
    def _get_evaluation_dependencies(cls, metric: MetricConfiguration, configuration=None, execution_engine=None,
                                     runtime_configuration=None) -> dict:
        dependencies = super()._get_evaluation_dependencies(metric=metric, configuration=configuration, execution_engine=execution_engine,
                                                            runtime_configuration=runtime_configuration)
        if isinstance(execution_engine, SparkDFExecutionEngine):
            # the same domain and query as the expectation's own `.table` metric: one node of the graph
            dependencies[_ROWS] = MetricConfiguration(_ROWS, metric.metric_domain_kwargs, metric.metric_value_kwargs)
        return dependencies

    @metric_value(engine=SparkDFExecutionEngine)
    def _spark(cls, execution_engine, metric_domain_kwargs: dict, metric_value_kwargs: dict, metrics: dict,
               runtime_configuration: dict) -> int:
        rows = metrics.get(_ROWS)
        if isinstance(rows, list) and len(rows) < MAX_RESULT_RECORDS:
            return len(rows)  # the query returned all its rows: their number is the count
        # QueryRowCount's own Spark function
        return UnexpectedRowsQueryRowCount._spark(cls=cls, execution_engine=execution_engine, metric_domain_kwargs=metric_domain_kwargs,
                                                  metric_value_kwargs=metric_value_kwargs, metrics=metrics,
                                                  runtime_configuration=runtime_configuration)


def _unique_count(cls, execution_engine, metric_domain_kwargs: dict, metric_value_kwargs: dict, metrics: dict, **kwargs) -> int:
    """GX's count of the rows whose value repeats (`_spark_map_condition_unexpected_count_value`), with
    the distinct repeated values and the smallest and largest in the same aggregation when collecting."""
    found = _KEYS.get()
    if found is None:
        return _spark_map_condition_unexpected_count_value(cls, execution_engine, metric_domain_kwargs, metric_value_kwargs,
                                                           metrics, **kwargs)
    from pyspark.sql import functions as F

    condition, compute_domain_kwargs, accessor_domain_kwargs = metrics["unexpected_condition"]
    records = execution_engine.get_domain_records(domain_kwargs=dict(**compute_domain_kwargs, **accessor_domain_kwargs))
    # as GX's function: the window condition as a column first, then the rows that fail it
    repeated = records.withColumn("__unexpected", condition).filter(F.col("__unexpected") == True)
    column = F.col(accessor_domain_kwargs["column"])
    row = repeated.agg(F.count(F.lit(1)), F.count_distinct(column), F.min(column), F.max(column)).first()
    found[accessor_domain_kwargs["column"]] = (int(row[1]), row[2], row[3])
    return int(row[0])


def _value_length_condition(cls, execution_engine, metric_domain_kwargs: dict, metric_value_kwargs: dict, metrics: dict,
                            runtime_configuration: dict):
    """GX's condition of value lengths on Spark, over the lengths its map function gives, computed here
    instead of read from a metric of their own."""
    provider = {"execution_engine": execution_engine, "metric_domain_kwargs": metric_domain_kwargs, "metrics": metrics,
                "runtime_configuration": runtime_configuration}
    # both GX's own registered functions (the registry calls them with the class as `cls`)
    lengths = ColumnValuesValueLength._spark_function(cls=ColumnValuesValueLength, metric_value_kwargs={}, **provider)
    return ColumnValuesValueLength._spark(cls=ColumnValuesValueLength, metric_value_kwargs=metric_value_kwargs,
                                          **{**provider, "metrics": {**metrics, _LENGTHS: lengths}})


# ColumnMapMetricProvider: the dependencies of every column map condition (the table's columns, types and
# row count), without ColumnValuesValueLength's on the lengths' metric
register_metric(metric_name=_LENGTH_CONDITION, metric_domain_keys=ColumnValuesValueLength.condition_domain_keys,
                metric_value_keys=ColumnValuesValueLength.condition_value_keys, execution_engine=SparkDFExecutionEngine,
                metric_class=ColumnMapMetricProvider, metric_provider=_value_length_condition,
                metric_fn_type=ColumnValuesValueLength._spark.metric_fn_type)

register_metric(metric_name=_UNIQUE_COUNT, metric_domain_keys=ColumnValuesUnique.condition_domain_keys,
                metric_value_keys=ColumnValuesUnique.condition_value_keys, execution_engine=SparkDFExecutionEngine, metric_class=ColumnValuesUnique,
                metric_provider=_unique_count, metric_fn_type=_spark_map_condition_unexpected_count_value.metric_fn_type)


def _none_asked(values_fn):
    """GX's Spark function of a map metric's `unexpected_values`, answering without a query when the
    result format lists no value: the empty list `limit(0)` would collect."""
    @functools.wraps(values_fn)
    def values(cls, execution_engine, metric_domain_kwargs: dict, metric_value_kwargs: dict, metrics: dict, **kwargs) -> list:
        result_format = metric_value_kwargs.get("result_format") or {}
        if result_format.get("result_format") != "COMPLETE" and result_format.get("partial_unexpected_count") == 0:
            return []
        return values_fn(cls, execution_engine, metric_domain_kwargs, metric_value_kwargs, metrics, **kwargs)
    return values


_VALUES_FUNCTIONS = {fn: _none_asked(fn) for fn in (_spark_column_map_condition_values, _spark_column_pair_map_condition_values,
                                                    _spark_multicolumn_map_condition_values)}
# every map metric GX has registered so far (its core ones, imported with it); the registry has no public listing
for _name, _definition in list(_registered_metrics.items()):
    _class, _function = _definition.get("providers", {}).get(SparkDFExecutionEngine.__name__, (None, None))
    if _name.endswith(".unexpected_values") and _function in _VALUES_FUNCTIONS:
        register_metric(metric_name=_name, metric_domain_keys=_definition["metric_domain_keys"],
                        metric_value_keys=_definition["metric_value_keys"], execution_engine=SparkDFExecutionEngine,
                        metric_class=_class, metric_provider=_VALUES_FUNCTIONS[_function], metric_fn_type=_function.metric_fn_type)
_REGISTRY_LOG.setLevel(_LEVEL)


def in_compiled_passes(engine: SparkDFExecutionEngine) -> None:
    """Have `engine` (the bridge's own data source's) compute a bundle of aggregate metrics in passes of
    at most AGGREGATES_PER_PASS columns. GX puts every column map count of a table in one aggregation,
    which past 100 fields Spark runs without whole-stage code generation: with 500 checks GX's pass
    cost more than twice the floor's (docs/benchmarks.md), the cost growing faster than the checks."""
    whole = engine.resolve_metric_bundle

    def in_passes(metric_fn_bundle) -> dict:
        bundle, resolved = list(metric_fn_bundle), {}
        for start in range(0, len(bundle), AGGREGATES_PER_PASS):
            resolved.update(whole(metric_fn_bundle=bundle[start:start + AGGREGATES_PER_PASS]))
        return resolved

    engine.resolve_metric_bundle = in_passes


@contextlib.contextmanager
def batch_view() -> Iterator[str]:
    """Within the block, this thread's `{batch}` queries read the batch as a temp view of a name of its own,
    yielded for the caller to drop: two validations side by side never read each other's batch."""
    name = f"dc_bridge_batch_{uuid.uuid4().hex}"
    token = _BATCH.set(name)
    try:
        yield name
    finally:
        _BATCH.reset(token)


@contextlib.contextmanager
def collecting_keys() -> Iterator[dict]:
    """Within the block, this thread's uniqueness counts also record column -> (distinct repeated
    values, smallest, largest) in the dict yielded."""
    found: dict = {}
    token = _KEYS.set(found)
    try:
        yield found
    finally:
        _KEYS.reset(token)
