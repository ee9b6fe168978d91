"""The contract enforced inside a pipeline (docs/enforcing.md): `split` partitions a model's rows into
valid and quarantined ones with the verdict of the same pass (split.py), optionally judging a slice
against the whole table (scope.py); `streaming.guard` does it for each micro-batch of a stream."""
