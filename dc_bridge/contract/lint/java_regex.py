"""Regular expressions compiled by java.util.regex, the engine Spark's `rlike` uses, so that lint
refuses what Spark would.

Two ways to reach a JVM. `dc-bridge lint` has none and launches `java` on RegexCheck: a JVM of its own,
running the class javac compiled once into the user's cache (`_compiled`), else RegexCheck.java itself,
which the JVM compiles before it runs (half a second of CPU, every lint of a contract with a pattern). A
run has Spark's: it hands lint `compiler_in(jvm)`, which compiles patterns there through py4j, milliseconds.
Lint takes its compiler as a parameter (`lint_file(..., regex_compiler=...)`, `semantic_findings`);
`java_regex_errors` is the default.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any, Callable

# patterns -> each one's compile error (None when it compiles), or None when no Java could judge them
RegexCompiler = Callable[[list[str]], "list[str | None] | None"]


def java_regex_errors(patterns: list[str], jvm: Callable[[], Any] | None = None) -> list[str | None] | None:
    """Each pattern's compile error (None when it compiles); None when Java is not installed.
    `jvm`: a function giving the JVM view (py4j's `spark._jvm`) to compile in, or None (also what
    it may return) to launch java."""
    view = jvm() if jvm is not None else None
    in_jvm = _in_jvm(view, patterns) if view is not None else None
    return in_jvm if in_jvm is not None else _launched(patterns)


def compiler_in(jvm: Callable[[], Any]) -> RegexCompiler:
    """Lint's regex compiler for a run: patterns compiled in the JVM `jvm()` returns, or by launching java
    where it returns None (a Spark Connect session has no JVM in this process). `jvm` is called only for a
    contract with patterns, so a run may start its session there and no earlier."""
    return functools.partial(java_regex_errors, jvm=jvm)


def _in_jvm(jvm: Any, patterns: list[str]) -> list[str | None] | None:
    """Each pattern's compile error; None when an error cannot be read as Java's own (then java is launched)."""
    compile_ = jvm.java.util.regex.Pattern.compile
    errors: list[str | None] = []
    for pattern in patterns:
        try:
            compile_(pattern)
            errors.append(None)
        except Exception as exc:
            # the Java exception: py4j's Py4JJavaError holds it, and so does what PySpark turns that into
            # (its IllegalArgumentException, as `_origin`); neither is imported: contract/ needs no Spark
            java = getattr(exc, "java_exception", None) or getattr(exc, "_origin", None)
            if java is None or java.getClass().getName() != "java.util.regex.PatternSyntaxException":
                return None  # another PySpark's wrapping, or not a syntax error: the launched check says the same words
            # the words RegexCheck.java writes
            errors.append(f"{str(java.getDescription()).replace(chr(10), ' ')} near index {java.getIndex()}")
    return errors


def _launched(patterns: list[str]) -> list[str | None] | None:
    """Every pattern compiled in one `java RegexCheck`; None when Java is not installed or fails. The class
    compiled once (`_compiled`) starts in a tenth of the CPU the source launch takes (it compiles the class
    every time: half a second); the source launch where there is no javac or the class does not run."""
    java = shutil.which("java")
    if java is None:
        return None
    payload = "\n".join(base64.b64encode(p.encode("utf-8")).decode("ascii") for p in patterns) + "\n"
    source = resources.files("dc_bridge.contract.lint").joinpath("RegexCheck.java")
    with resources.as_file(source) as program:
        folder = _compiled(Path(program))
        launches = ([["-cp", str(folder), "RegexCheck"]] if folder else []) + [[str(program)]]
        for launch in launches:
            completed = subprocess.run([java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", *launch], input=payload,
                                       capture_output=True, text=True, timeout=60)
            lines = completed.stdout.splitlines()
            if completed.returncode == 0 and len(lines) == len(patterns):
                return [None if line == "ok" else line for line in lines]
    return None


def _compiled(program: Path) -> Path | None:
    """The folder of RegexCheck.class compiled from this RegexCheck.java (a folder per source text, in the user's
    cache: `$XDG_CACHE_HOME/dc-bridge`, else `~/.cache/dc-bridge`), compiled now by javac when it is not there yet;
    None without javac or a writable cache. Written whole (compiled aside, then renamed) so concurrent lints never
    see half a class."""
    text = program.read_bytes()
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dc-bridge"
    folder = root / f"regex-check-{hashlib.sha256(text).hexdigest()[:16]}"
    if (folder / "RegexCheck.class").is_file():
        return folder
    javac = shutil.which("javac")
    if javac is None:
        return None
    try:
        root.mkdir(parents=True, exist_ok=True)
        aside = Path(tempfile.mkdtemp(dir=root, prefix=".regex-check-"))
        completed = subprocess.run([javac, "-d", str(aside), str(program)], capture_output=True, timeout=120)
        if completed.returncode != 0 or not (aside / "RegexCheck.class").is_file():
            shutil.rmtree(aside, ignore_errors=True)
            return None
        try:
            aside.rename(folder)
        except OSError:  # another lint compiled it meanwhile
            shutil.rmtree(aside, ignore_errors=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return folder if (folder / "RegexCheck.class").is_file() else None
