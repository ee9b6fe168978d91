"""Six weeks of daily runs of one contract in a history store, through the store's own API, for the
backtesting example of docs/monitoring.md: weekdays about 82,000 rows, weekends half that, the data about an
hour old, and one Tuesday on which only half the usual rows arrived.

    python docs/examples/monitoring/seed_history.py runs/monitors.db
"""

import sys
from datetime import datetime, timedelta, timezone

from dc_bridge.history import open_store
from dc_bridge.monitors import SeriesKey

store = open_store(sys.argv[1])
first = datetime(2025, 1, 6, 6, 0, tzinfo=timezone.utc)  # a Monday
for day in range(42):
    at = first + timedelta(days=day)
    wobble = ((day * 7) % 11 - 5) / 500  # within 1% either way
    rows = (41_000 if at.weekday() >= 5 else 82_000) * (1 + wobble)
    if at.date().isoformat() == "2025-02-11":
        rows /= 2  # the load that arrived half-done
    record = {"dc_bridge_history": 1, "contract_id": "orders-daily", "contract_version": "1.0.0", "run_at": at.isoformat(),
              "outcome": "passed", "read": {"orders": True}, "models": {"orders": "passed"}, "checks": {},
              "evaluated": 0, "in_error": 0}
    store.append(record, metrics={SeriesKey("rows", "orders"): round(rows), SeriesKey("freshness_age", "orders"): 3600 * (1 + 4 * wobble)})
print(f"seeded 42 runs of orders-daily into {sys.argv[1]}")
