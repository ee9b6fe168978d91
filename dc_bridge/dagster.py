"""`dc_bridge.dagster`: a contract's checks as Dagster asset checks (docs/orchestrators.md). The integration itself is
integrations/dagster.py, this module its public name; without the `dagster` extra, importing it says how to install it."""

from dc_bridge.extras import require

require("dagster")

from dc_bridge.integrations.dagster import (  # noqa: E402  (after the extra is known to be there)
    NAME_LIMIT, Planned, SparkResource, asset_checks, check_names, check_results, check_specs, dagster_name,
)

__all__ = ["NAME_LIMIT", "Planned", "SparkResource", "asset_checks", "check_names", "check_results", "check_specs",
           "dagster_name"]
