"""Contracts generated from tables: `dc-bridge init --from SOURCE --out FILE`, and `contract_from_dataframe`.

odcs.py turns Spark schemas into an ODCS 3.x document (every field, logical and physical types, nested
types, required from non-nullability); merge.py lays an explicit contract over it key by key;
profile.py proposes rules from the data when asked; sources.py reads paths, Spark tables and Iceberg tables.
"""

from __future__ import annotations

from typing import Any

from dc_bridge.generate.odcs import contract_document
from dc_bridge.generate.profile import DEFAULT_SAMPLE_ROWS, add_proposals


def contract_from_dataframe(frame, *, model: str, id: str, name: str | None = None, version: str = "1.0.0", standard: str = "3.1",
                            profile: bool = False, sample_rows: int | None = DEFAULT_SAMPLE_ROWS) -> dict[str, Any]:
    """An ODCS document (a dict; `yaml.safe_dump` it) with one model, `model`, from a DataFrame's schema;
    with `profile`, rules proposed from its first `sample_rows` rows (None: every row)."""
    document = contract_document({model: frame.schema}, id=id, name=name, version=version, standard=standard)
    if profile:
        add_proposals(document, {model: frame}, sample_rows)
    return document


__all__ = ["contract_document", "contract_from_dataframe"]
