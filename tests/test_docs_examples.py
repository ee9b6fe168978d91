"""Every ```console example in README.md, docs/*.md and contracts/README.md runs, and prints what the doc shows.

How an example is written (tests/docs_examples.py reads it; docs/cli.md, "Examples in these docs", says
the same for contributors): a ```console block, `$ ` before each command, the output under it (stdout
and stderr, as a terminal shows them). The only differences allowed are the placeholders: a line `...`
alone stands for any number of lines, and `...` inside a line for any text within it (times,
durations, absolute paths, run ids). A file an example needs is a fenced block right after a line
ending in its name in backticks and a colon, or a ```diff with `--- OLD` / `+++ NEW` headers, or is
shipped in the repository (contracts/, docs/examples/). `<!-- not run: REASON -->` before a block
keeps it out (a service a laptop does not have); a ```bash block is an instruction (install, benchmark),
not an example.

How it runs: each doc in its own copy of contracts/, docs/examples/ and tests/broken/ (a git repository
with a `main` branch, for `main:PATH`), its examples in the doc's order (later ones use the files
earlier ones wrote; `cd` and `export` last to the end of the doc); `/tmp/` in commands and files is a
private folder of the test, shown as `/tmp/` again in the output. `dc-bridge ...` runs in-process
through click's CliRunner, so every run reuses the suite's one Spark session (runner/data.py
`get_session` takes the active session); `python FILE` runs in-process too (its
`SparkSession.builder.getOrCreate()` gets the same session); anything else (`grep`, `cat`, pipes,
`echo $?`, a command with its own `NAME=VALUE` environment) runs in bash in the copy, with `$?` the exit
code of the previous command; but `dc-bridge ... 2>/dev/null` runs in-process (its standard output alone),
and so does `dc-bridge` given only OpenLineage's variables, which its client reads when a run creates it.
The console is COLUMNS wide.

Refresh mode: `DCB_DOCS_UPDATE=1 pytest tests/test_docs_examples.py` writes the real output under each
example whose output differs, keeping the placeholders of the lines that still match and each `...`
line for the lines it covers; review the diff before committing it (a time that changed is shown as
the new time: put its `...` back).
"""
from __future__ import annotations

import contextlib
import glob
import io
import os
import re
import runpy
import shlex
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main
from docs_examples import ROOT, DocFile, Example, doc_files, matches, read, refreshed, rewrite

COLUMNS = 80  # a console without a terminal (CI logs) is 80 columns wide
UPDATE = os.environ.get("DCB_DOCS_UPDATE") == "1"
SHIPPED = ("contracts", "docs/examples", "tests/broken")
# `dc-bridge` commands whose run starts Spark: the test takes the suite's session first, so none starts another
SPARK_COMMANDS = {"run", "drift", "init"}
_EXIT_ECHO = re.compile(r'^(?P<command>.*?);\s*echo (?P<echo>"exit \$\?"|\$\?)$')
# command substitution, which bash expands inside double quotes too
_SUBSTITUTION = re.compile(r"`|\$\(")
# `dc-bridge ... 2>/dev/null`: in-process too, its standard output alone
_NO_STDERR = re.compile(r"\s+2>\s*/dev/null$")
# variables the OpenLineage client reads when a run creates it (report/openlineage.py), not at import: a
# `dc-bridge` command given only these before it runs in-process too, with them in its environment
_RUN_TIME_VARIABLE = re.compile(r"^OPENLINEAGE\w*=")


class Session:
    """One doc's working copy: its folder, its `/tmp/`, the environment `export` set, the last exit code."""

    def __init__(self, base: Path, spark_fixture):
        self.cwd = base / "repo"
        self.tmp = base / "tmp"
        self.tmp.mkdir()
        for shipped in SHIPPED:
            if (ROOT / shipped).exists():
                shutil.copytree(ROOT / shipped, self.cwd / shipped)
        # a repository with a `main` branch, for the examples that read an old version from git (`main:PATH`)
        for git in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "docs examples"]):
            subprocess.run(["git", "-c", "user.name=docs", "-c", "user.email=docs@example.com", *git],
                           cwd=self.cwd, check=True, capture_output=True)
        self.env: dict[str, str] = {"COLUMNS": str(COLUMNS)}
        self.status = 0
        self.spark_fixture = spark_fixture

    def private(self, text: str) -> str:
        return text.replace("/tmp/", f"{self.tmp}/")

    def public(self, text: str) -> str:
        return text.replace(f"{self.tmp}/", "/tmp/").replace(str(self.tmp), "/tmp")

    def write(self, item: DocFile) -> None:
        target = Path.cwd() / self.private(item.name)
        target.parent.mkdir(parents=True, exist_ok=True)
        if item.patch_of is None:
            target.write_text(self.private(item.text), encoding="utf-8")
            return
        source = Path.cwd() / self.private(item.patch_of)
        subprocess.run(["patch", "--quiet", "-o", str(target), str(source)], input=self.private(item.text),
                       text=True, check=True)

    def run(self, command: str) -> list[str]:
        """The lines a command prints (stdout and stderr as a terminal shows them), trailing blanks cut."""
        echo = _EXIT_ECHO.match(command)
        main_command = echo.group("command") if echo else command
        no_stderr = _NO_STDERR.search(main_command)
        in_process = main_command[:no_stderr.start()] if no_stderr else main_command
        words = shlex.split(self.private(main_command), comments=True)
        cli_words = shlex.split(self.private(in_process), comments=True)
        variables = {}
        while cli_words and _RUN_TIME_VARIABLE.match(cli_words[0]):
            name, _, value = cli_words.pop(0).partition("=")
            variables[name] = value
        if words[:1] == ["export"] and len(words) == 2:
            name, _, value = words[1].partition("=")
            self.env[name] = value
            output, self.status = "", 0
        elif words[:1] == ["cd"] and len(words) == 2:
            os.chdir(words[1])
            output, self.status = "", 0
        elif cli_words[:1] == ["dc-bridge"] and not _shell_syntax(in_process):
            output, self.status = self._cli(cli_words[1:], variables, stderr=not no_stderr)
        elif words[:1] == ["python"] and len(words) == 2 and not _shell_syntax(main_command):
            output, self.status = self._python(words[1])
        else:
            # a shell line, or a command with its own environment (`NAME=VALUE dc-bridge ...`: read at import)
            output, self.status = self._bash(command)
            echo = None
        if echo:
            output += f"exit {self.status}\n" if echo.group("echo").startswith('"') else f"{self.status}\n"
        lines = [line.rstrip() for line in self.public(output).split("\n")]
        while lines and not lines[-1]:
            lines.pop()
        return lines

    def _cli(self, args: list[str], variables: dict[str, str] | None = None, stderr: bool = True) -> tuple[str, int]:
        if args[:1] and args[0] in SPARK_COMMANDS:
            self.spark_fixture()
        args = [path for arg in args for path in (sorted(glob.glob(arg)) or [arg] if "*" in arg else [arg])]  # as bash expands them
        here = f"{os.getcwd()}/"
        given = [_absolute_data(arg, here) if before == "--data" else arg for before, arg in zip(["", *args], args)]
        result = CliRunner(env={**self.env, **(variables or {})}).invoke(main, given, prog_name="dc-bridge")
        printed = result.output if stderr else result.stdout
        output = printed if given == args else printed.replace(here, "")
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            output += "".join(traceback.format_exception(result.exception))
        return output, result.exit_code

    def _python(self, script: str) -> tuple[str, int]:
        spark = self.spark_fixture()
        buffer = io.StringIO()
        status = 0
        # a user's script registers the views its checkpoint or scan reads in the suite's one session: they go
        # when it ends, as they would with its own process
        views = {t.name for t in spark.catalog.listTables() if t.isTemporary}
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
            try:
                runpy.run_path(script, run_name="__main__")
            except SystemExit as exc:
                status = exc.code if isinstance(exc.code, int) else 1
            finally:
                for table in spark.catalog.listTables():
                    if table.isTemporary and table.name not in views:
                        spark.catalog.dropTempView(table.name)
        return buffer.getvalue(), status

    def _bash(self, command: str) -> tuple[str, int]:
        path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
        done = subprocess.run(["bash", "-c", f"(exit {self.status}); {self.private(command)}"], cwd=os.getcwd(),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120,
                              env={**os.environ, **self.env, "PATH": path, "PYTHONPATH": str(ROOT)})
        return done.stdout, done.returncode


def _shell_syntax(command: str) -> bool:
    """Whether bash would read more than one command with its words in `command`: a pipe, list or redirection outside
    quotes (`--where "total < 2000"` is one word), or a command substitution anywhere."""
    operators = set("();<>|&")
    return bool(_SUBSTITUTION.search(command)) or any(
        set(token) <= operators for token in shlex.shlex(command, posix=False, punctuation_chars=True))


def _absolute_data(arg: str, here: str) -> str:
    """`MODEL=PATH` with PATH made absolute: Spark resolves a relative path against its JVM's working
    folder, which is where the suite's session started, not this doc's copy (the output shows it relative again)."""
    model, equals, path = arg.partition("=")
    if not equals or path.startswith("/") or "://" in path:
        return arg
    return f"{model}={here}{path}"


DOCS = [doc for doc in doc_files() if any(isinstance(item, Example) for item in read(doc))]


@pytest.mark.parametrize("doc", DOCS, ids=[str(doc.relative_to(ROOT)) for doc in DOCS])
def test_every_console_example_prints_what_the_doc_shows(doc, tmp_path, request, monkeypatch):
    def spark():
        # the session's JVM works in the repository root (as in the rest of the suite), where the
        # shipped files a script reads by a relative path (contracts/data/...) are the same as in the copy
        with monkeypatch.context() as here:
            here.chdir(ROOT)
            return request.getfixturevalue("spark")

    session = Session(tmp_path, spark)
    monkeypatch.chdir(session.cwd)
    stale, updates = [], {}
    for item in read(doc):
        if isinstance(item, DocFile):
            session.write(item)
            continue
        if item.not_run:
            continue
        for step in item.steps:
            actual = session.run(step.command)
            if not matches(step.expected, actual):
                stale.append(f"{doc.relative_to(ROOT)}:{step.line}: $ {step.command}\n  shown:\n    "
                             + "\n    ".join(step.expected) + "\n  printed:\n    " + "\n    ".join(actual))
                updates[step.output_line] = (len(step.expected), refreshed(step.expected, actual))
    if UPDATE and updates:
        rewrite(doc, updates)
    if stale:
        pytest.fail(f"{len(stale)} example(s) print something else:\n\n" + "\n\n".join(stale), pytrace=False)


def test_every_example_runs_or_says_why_not():
    """A `<!-- not run: ... -->` block needs its reason; the count is the docs' promise."""
    examples = [item for doc in doc_files() for item in read(doc) if isinstance(item, Example)]
    assert examples, "no console examples found"
    for example in examples:
        assert example.steps, f"{example.doc.name}:{example.line}: an empty console block"


def test_every_bundled_contract_runs_on_bundled_data(spark, monkeypatch):
    """`dc-bridge run contracts/*.yaml`: every bundled example in one run reads its data from the files
    shipped beside it and passes (exit 0); a contract without data would make it 2."""
    monkeypatch.chdir(ROOT)
    contracts = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "contracts").glob("*.yaml"))
    result = CliRunner().invoke(main, ["run", *contracts, "--engines", "spark", "--output", "json"], prog_name="dc-bridge")
    assert result.exit_code == 0, result.output
