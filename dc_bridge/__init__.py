"""dc-bridge: data contracts to Great Expectations and Soda checks on Spark, folded into one verdict."""

__version__ = "0.1.0"
