"""`--catalog spark` on a Hive metastore: tests/hive runs in a process of its own, whose session has Hive
support on an embedded Derby metastore in a temporary folder; this suite's shared session keeps its
in-memory catalog (a process holds one SparkContext, and its catalog is fixed when it starts)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_spark_catalog_on_an_embedded_hive_metastore(tmp_path):
    env = {**os.environ, "DC_BRIDGE_HIVE_TESTS": "1", "PYTHONPATH": str(ROOT)}
    completed = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--basetemp", str(tmp_path / "run"),
                                str(ROOT / "tests" / "hive")], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert completed.returncode == 0, completed.stdout[-6000:] + completed.stderr[-3000:]
    assert "4 passed" in completed.stdout
