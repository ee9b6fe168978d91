"""The GX 1.x expectation types dc-bridge knows, so lint can check custom GX checks without importing GX.

Importing GX takes seconds; lint must not. `tests/test_gx_catalog.py` compares this list with the
registry of the installed GX, so an upgrade that adds or drops an expectation fails the tests.
"""

EXPECTATION_TYPES = frozenset({
    "expect_column_distinct_values_to_be_in_set",
    "expect_column_distinct_values_to_contain_set",
    "expect_column_distinct_values_to_equal_set",
    "expect_column_kl_divergence_to_be_less_than",
    "expect_column_max_to_be_between",
    "expect_column_mean_to_be_between",
    "expect_column_median_to_be_between",
    "expect_column_min_to_be_between",
    "expect_column_most_common_value_to_be_in_set",
    "expect_column_pair_values_a_to_be_greater_than_b",
    "expect_column_pair_values_to_be_equal",
    "expect_column_pair_values_to_be_in_set",
    "expect_column_proportion_of_non_null_values_to_be_between",
    "expect_column_proportion_of_unique_values_to_be_between",
    "expect_column_quantile_values_to_be_between",
    "expect_column_stdev_to_be_between",
    "expect_column_sum_to_be_between",
    "expect_column_to_exist",
    "expect_column_type_to_be",
    "expect_column_unique_value_count_to_be_between",
    "expect_column_value_lengths_to_be_between",
    "expect_column_value_lengths_to_equal",
    "expect_column_value_z_scores_to_be_less_than",
    "expect_column_values_to_be_between",
    "expect_column_values_to_be_dateutil_parseable",
    "expect_column_values_to_be_decreasing",
    "expect_column_values_to_be_in_set",
    "expect_column_values_to_be_in_type_list",
    "expect_column_values_to_be_increasing",
    "expect_column_values_to_be_json_parseable",
    "expect_column_values_to_be_null",
    "expect_column_values_to_be_of_type",
    "expect_column_values_to_be_unique",
    "expect_column_values_to_match_json_schema",
    "expect_column_values_to_match_like_pattern",
    "expect_column_values_to_match_like_pattern_list",
    "expect_column_values_to_match_regex",
    "expect_column_values_to_match_regex_list",
    "expect_column_values_to_match_strftime_format",
    "expect_column_values_to_not_be_in_set",
    "expect_column_values_to_not_be_null",
    "expect_column_values_to_not_be_outliers",
    "expect_column_values_to_not_match_like_pattern",
    "expect_column_values_to_not_match_like_pattern_list",
    "expect_column_values_to_not_match_regex",
    "expect_column_values_to_not_match_regex_list",
    "expect_compound_columns_to_be_unique",
    "expect_multicolumn_sum_to_equal",
    "expect_multicolumn_values_to_be_equal",
    "expect_query_results_to_match_comparison",
    "expect_select_column_values_to_be_unique_within_record",
    "expect_table_column_count_to_be_between",
    "expect_table_column_count_to_equal",
    "expect_table_columns_to_match_ordered_list",
    "expect_table_columns_to_match_set",
    "expect_table_row_count_to_be_between",
    "expect_table_row_count_to_equal",
    "expect_table_row_count_to_equal_other_table",
    "unexpected_rows_expectation",
})


def gx_name(name: str) -> str:
    """A GX type or kwarg name as GX spells it: a camelCase or PascalCase name (no underscore, a capital) in
    snake_case (`minValue` -> `min_value`); any other name as written, since GX's own names have capitals after
    an underscore (`column_A`, `column_B`) that snake-casing would break (`column__a`)."""
    return to_snake_case(name) if "_" not in name and name != name.lower() else name


def to_snake_case(name: str) -> str:
    """`ExpectColumnValuesToNotBeNull` or `minValue` -> `expect_column_values_to_not_be_null` / `min_value`."""
    out = []
    for i, char in enumerate(name):
        if char.isupper() and i and (not name[i - 1].isupper() or (i + 1 < len(name) and name[i + 1].islower())):
            out.append("_")
        out.append(char.lower())
    return "".join(out)
