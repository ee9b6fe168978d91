"""Patterns compiled in a run's Spark JVM (contract/lint/java_regex.py) are judged exactly as by the java
program lint launches without Spark, and a run on a classic session launches no second JVM."""

from __future__ import annotations

import shutil

import pytest

import dc_bridge
from dc_bridge.contract.lint import java_regex

PATTERNS = ["^[A-Za-z0-9]{8,14}$", "(a", "[z-a]", "a{2,1}", "*a", "\\", "a\nb(", "(?P<word>[a-z]+)", "(?<word>x)\\k<word>",
            "\\p{Lu}+é", "😀+", "[[:alpha:]]", "\\Q(\\E", "(?i)abc"]


@pytest.mark.skipif(shutil.which("java") is None, reason="needs java to launch RegexCheck.java")
def test_the_session_jvm_judges_patterns_as_the_launched_java(spark):
    launched = java_regex.java_regex_errors(PATTERNS)
    in_session = java_regex.compiler_in(lambda: spark._jvm)(PATTERNS)
    assert in_session == launched
    assert in_session[0] is None and in_session[1] == "Unclosed group near index 2"


def test_a_jvm_of_none_launches_java(monkeypatch):
    monkeypatch.setattr(java_regex, "_launched", lambda patterns: ["launched"] * len(patterns))
    # a Spark Connect session: no JVM in this process
    assert java_regex.compiler_in(lambda: None)(["a"]) == ["launched"]


def test_a_run_compiles_patterns_in_its_session(spark, tmp_path, monkeypatch):
    def launched(patterns):
        raise AssertionError("a second JVM was launched")

    monkeypatch.setattr(java_regex, "_launched", launched)
    path = tmp_path / "codes.yaml"
    path.write_text("""dataContractSpecification: 1.1.0
id: codes
info: {title: codes, version: 1.0.0}
models:
  codes:
    fields:
      code: {type: string, pattern: '^[a-z]+$'}
      word: {type: string, pattern: '(?P<w>[a-z]+)'}
""")
    frame = spark.createDataFrame([("abc", "x"), ("A1", "y")], "code string, word string")
    # the invalid check is left out of each engine's run, never failing the model's other checks with it
    verdict = dc_bridge.run(str(path), dataframes={"codes": frame}, spark=spark, engines=["soda", "spark"])
    by_id = {c.check_id: c for c in verdict.checks()}
    assert by_id["codes.code.pattern"].outcome == "failed", by_id["codes.code.pattern"].reason
    assert {engine: result.observed for engine, result in by_id["codes.code.pattern"].engines.items()} == {"soda": 1, "spark": 1}
    assert by_id["codes.word.pattern"].outcome == "error" and "DCB140" in by_id["codes.word.pattern"].reason
