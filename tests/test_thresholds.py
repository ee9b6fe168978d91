"""The one threshold renderer (contract/thresholds.py): each threshold in every syntax that writes one,
side by side, so a difference between the syntaxes is a visible column, not a copy of the logic."""

from __future__ import annotations

import pytest

from dc_bridge.contract.evolution.algebra import WORDS
from dc_bridge.contract.model import Threshold
from dc_bridge.contract.thresholds import NEGATED, negate, render
from dc_bridge.engines.gx.translate import SQL
from dc_bridge.engines.soda.translate import SODACL
from dc_bridge.report.html import _expected, as_html
from dc_bridge.verdict import EXPECTED, CheckVerdict, ModelVerdict, Verdict


def rng(operator: str, low, high, low_inclusive: bool = True, high_inclusive: bool = True) -> Threshold:
    return Threshold(operator=operator, low=low, high=high, low_inclusive=low_inclusive, high_inclusive=high_inclusive)


# threshold, unit | Spark SQL on `v` (GX) | SodaCL | the verdict's `expected` | the diff's words
ROWS = [
    (Threshold(operator="=", value=0), "rows", "v = 0", "= 0", "= 0", "= 0"),
    (Threshold(operator="!=", value=5), "rows", "v <> 5", "!= 5", "!= 5", "!= 5"),
    (Threshold(operator=">", value=5.0), "rows", "v > 5.0", "> 5", "> 5.0", "> 5"),
    (Threshold(operator=">=", value=0.00001), "rows", "v >= 1e-05", ">= 0.00001", ">= 1e-05", ">= 1e-05"),
    (Threshold(operator="<", value=2.5), "percent", "v < 2.5", "< 2.5", "< 2.5%", "< 2.5%"),
    (Threshold(operator="<=", value=31536000.0), "rows", "v <= 31536000.0", "<= 31536000.0", "<= 31536000.0", "<= 31536000"),
    (rng("between", 1, 100), "rows", "(v >= 1 AND v <= 100)", "between [1 and 100]", "between [1, 100]", "between 1 and 100"),
    (rng("between", 2.5, 12, low_inclusive=False), "rows",
     "(v > 2.5 AND v <= 12)", "between (2.5 and 12]", "between (2.5, 12]", "between 2.5 and 12"),
    (rng("between", 1, 5, high_inclusive=False), "percent",
     "(v >= 1 AND v < 5)", "between [1 and 5)", "between [1, 5)%", "between 1% and 5%"),
    (rng("not_between", 10, 20, False, False), "rows",
     "NOT (v > 10 AND v < 20)", "not between (10 and 20)", "not between (10, 20)", "not between 10 and 20"),
    (rng("not_between", 0.00001, 5.0), "percent",
     "NOT (v >= 1e-05 AND v <= 5.0)", "not between [0.00001 and 5]", "not between [1e-05, 5.0]%", "not between 1e-05% and 5%"),
]


@pytest.mark.parametrize(("threshold", "unit", "sql", "sodacl", "expected", "words"), ROWS)
def test_each_syntax_writes_the_threshold_its_own_way(threshold, unit, sql, sodacl, expected, words):
    # SQL and SodaCL carry no unit: the metric they compare is already a count or a percent
    assert render(threshold, SQL, subject="v") == sql
    assert render(threshold, SODACL) == sodacl
    assert render(threshold, EXPECTED, unit) == expected
    assert render(threshold, WORDS, unit) == words


@pytest.mark.parametrize("threshold", [row[0] for row in ROWS])
def test_a_negated_threshold_holds_exactly_where_the_threshold_does_not(threshold):
    assert negate(negate(threshold)) == threshold
    for observed in (-1, 0, 0.00001, 1, 2.5, 5, 10, 12, 15, 20, 100, 31536000):
        assert negate(threshold).holds(observed) != threshold.holds(observed), observed


def test_every_operator_has_a_negation():
    assert set(NEGATED) == set(NEGATED.values()) == {"=", "!=", ">", ">=", "<", "<=", "between", "not_between"}


def test_the_html_report_writes_an_age_in_days_and_hours():
    age = Threshold(operator="<=", value=93600.0)
    check = CheckVerdict(check_id="orders.freshness", model="orders", kind="freshness", columns=["ts"], outcome="passed",
                         severity="error", expected=render(age, EXPECTED), threshold=age, source={})
    assert (check.expected, _expected(check)) == ("<= 93600.0", "&lt;= 1d 2h")


def test_the_html_report_writes_every_threshold_in_seconds_in_days_and_hours():
    """Which numbers are seconds is the kind registry's answer (`Kind.in_seconds`): a frequency's longest gap between
    updates too, not only a freshness age; its observed gap is shown as days and hours with the exact seconds."""
    gap = Threshold(operator="<=", value=90000.0)
    check = CheckVerdict(check_id="orders.frequency", model="orders", kind="frequency", columns=["ts"], outcome="failed",
                         severity="error", expected=render(gap, EXPECTED), threshold=gap, observed=93600.0, source={})
    assert (check.expected, _expected(check)) == ("<= 90000.0", "&lt;= 1d 1h")
    page = as_html(Verdict(contract_id="c", contract_version="1.0.0", contract_file="c.yaml", outcome="failed", counts={},
                           models=[ModelVerdict(name="orders", outcome="failed", counts={}, checks=[check])], engines=[]))
    assert '<td>&lt;= 1d 1h</td><td class="num">1d 2h <span class="small">(93,600 s)</span></td>' in page
