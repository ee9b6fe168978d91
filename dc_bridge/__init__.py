"""dc-bridge: data contracts to Great Expectations and Soda checks on Spark, folded into one verdict.

Python API: `dc_bridge.run(contract, dataframes=None, spark=None, engines=("gx", "soda"), server=None) -> Verdict`.
"""

__version__ = "0.1.0"

__all__ = ["run", "__version__"]


def __getattr__(name: str):
    # imported on first use: `import dc_bridge` stays cheap for `dc-bridge lint`
    if name == "run":
        from dc_bridge.runner import run

        return run
    raise AttributeError(f"module 'dc_bridge' has no attribute {name!r}")
