"""dc-bridge: data contracts to Great Expectations and Soda checks on Spark, folded into one verdict.

Python API: `dc_bridge.run(contract, dataframes=None, spark=None, engines=("gx", "soda"), server=None) -> Verdict`;
`dc_bridge.fold_gx(checkpoint_result, contract)` and `dc_bridge.fold_soda(scan, contract)` fold GX
checkpoints and Soda scans run outside dc-bridge into the same Verdict.
`dc_bridge.split(contract, model, df, where=None, frames=None) -> (valid, quarantined, verdict)` enforces
a contract inside a pipeline, `dc_bridge.streaming.guard(contract, model, sink=..., log=...)` on each
micro-batch of a stream (docs/enforcing.md).
`dc_bridge.metrics(verdict, push=URL, file=PATH)` publishes a verdict as Prometheus metrics (docs/monitoring.md).
"""

__version__ = "0.1.0"

__all__ = ["run", "split", "streaming", "fold_gx", "fold_soda", "metrics", "__version__"]


def __getattr__(name: str):
    # imported on first use: `import dc_bridge` stays cheap for `dc-bridge lint`
    if name == "run":
        from dc_bridge.runner.pipeline import run

        return run
    if name == "split":
        from dc_bridge.enforce.split import split

        return split
    if name == "streaming":
        from dc_bridge.enforce import streaming

        return streaming
    if name == "metrics":
        from dc_bridge.report.prometheus import metrics

        return metrics
    if name in ("fold_gx", "fold_soda"):
        from dc_bridge.integrations import fold

        return getattr(fold, name)
    raise AttributeError(f"module 'dc_bridge' has no attribute {name!r}")
