"""The table the examples of docs/catalogs.md compare with: sales.customer_360.customers in the embedded Iceberg
catalog (.dc-bridge/iceberg/ in this folder), made with pyiceberg as a pipeline would make it."""
from pathlib import Path

from pyiceberg.catalog import load_catalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

folder = Path(".dc-bridge/iceberg").resolve()
lake = load_catalog("dc-bridge", type="sql", uri=f"sqlite:///{folder / 'catalog.db'}", warehouse=(folder / "warehouse").as_uri())
lake.create_namespace_if_not_exists("sales.customer_360")
table = lake.create_table("sales.customer_360.customers", schema=Schema(
    NestedField(1, "customer_id", LongType(), required=True),
    NestedField(2, "phone", StringType()),
    NestedField(3, "segment", StringType()),
))
print(f"created {'.'.join(table.name())}")
