"""The contract in CI (docs/ci.md): the hooks of .pre-commit-hooks.yaml installed with pre-commit's own runner, and the
GitHub Actions and GitLab CI recipes of docs/ci.md run as the page writes them, on scratch git repositories.

Offline: pre-commit clones the hook definitions from a local repository and its `language: system` hooks install
nothing; the recipes' install steps (the only ones that need a network) are not run, the scratch repository's
`.venv` is this test's environment. The sample-data steps start Spark in a `dc-bridge run` process of their own.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CI_PAGE = ROOT / "docs" / "ci.md"

CONTRACT = """\
dataContractSpecification: 1.1.0
id: urn:datacontract:shop:orders
info:
  title: Orders
  version: VERSION
servers:
  local:
    type: local
    path: ../data/{model}.csv
    format: csv
models:
  orders:
    fields:
      order_id:
        type: string
        required: true
        unique: true
        pattern: ^ORD-[0-9]{6}$
        examples: [ORD-000001]
      amount:
        type: AMOUNT_TYPE
        minimum: 0
        maximum: MAXIMUM
"""
SAMPLE_DATA = "order_id,amount\nORD-000001,120\nORD-000002,9000\n"


def contract(version="1.0.0", maximum=100000, amount_type="long") -> str:
    return CONTRACT.replace("VERSION", version).replace("MAXIMUM", str(maximum)).replace("AMOUNT_TYPE", amount_type)


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """This test's dc-bridge and pre-commit first on PATH, this checkout's dc_bridge imported, git without the
    user's configuration, pre-commit's cache inside tmp_path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
        GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Data Team", GIT_AUTHOR_EMAIL="data@example.com",
        GIT_COMMITTER_NAME="Data Team", GIT_COMMITTER_EMAIL="data@example.com",
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-cache"),
        **extra,
    )
    return env


def git(cwd: Path, env: dict, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


# ---- pre-commit

def test_the_pre_commit_hooks_refuse_a_contract_with_a_lint_error_and_accept_the_fixed_one(tmp_path):
    env = environment(tmp_path)
    # the hook definitions of this checkout, in a repository of their own, as pre-commit clones one
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    shutil.copy(ROOT / ".pre-commit-hooks.yaml", hooks)
    git(hooks, env, "init", "-q", "-b", "main")
    git(hooks, env, "add", ".")
    git(hooks, env, "commit", "-qm", "hooks")
    rev = git(hooks, env, "rev-parse", "HEAD").strip()

    project = tmp_path / "project"
    project.mkdir()
    git(project, env, "init", "-q", "-b", "main")
    write(project, {".pre-commit-config.yaml": f"repos:\n  - repo: {hooks}\n    rev: {rev}\n    hooks:\n"
                                               "      - id: dc-bridge-lint\n      - id: dc-bridge-check-version\n"})
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=project, env=env, check=True, capture_output=True)

    def commit(files: dict[str, str], message: str) -> subprocess.CompletedProcess:
        write(project, files)
        git(project, env, "add", "-A")
        # the hooks' report goes where git sends a hook's output: both streams, read as one
        return subprocess.run(["git", "commit", "-m", message], cwd=project, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)

    def commits() -> int:
        done = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=project, env=env, capture_output=True, text=True)
        return int(done.stdout) if done.returncode == 0 else 0

    refused = commit({"contracts/orders.yaml": contract(amount_type="lng")}, "orders")
    assert refused.returncode == 1, refused.stdout
    assert re.search(r"dc-bridge lint\.+Failed", refused.stdout), refused.stdout
    assert "contracts/orders.yaml:21: error DCB110 at models.orders.fields.amount.type" in refused.stdout
    assert commits() == 0

    accepted = commit({"contracts/orders.yaml": contract()}, "orders")
    assert accepted.returncode == 0, accepted.stdout
    assert re.search(r"dc-bridge lint\.+Passed", accepted.stdout) and commits() == 1

    # an example the tightened rule rejects is refused too (DCB166), and so is the breaking change without a MAJOR bump
    tightened = commit({"contracts/orders.yaml": contract(version="1.1.0", maximum=100).replace("[ORD-000001]", "[ORD-1]")}, "tighten")
    assert tightened.returncode == 1
    assert "error DCB166" in tightened.stdout and "error DCB230" in tightened.stdout, tightened.stdout
    assert re.search(r"dc-bridge check-version \(against the last commit\)\.+Failed", tightened.stdout)
    assert commits() == 1

    bumped = commit({"contracts/orders.yaml": contract(version="2.0.0", maximum=100)}, "tighten, MAJOR")
    assert bumped.returncode == 0, bumped.stdout
    assert commits() == 2


# ---- the CI recipes of docs/ci.md

def recipes() -> tuple[dict, dict]:
    """(the GitHub Actions workflow, the GitLab CI file) as docs/ci.md writes them: its two top-level YAML blocks
    that are a workflow (`jobs:`) and a pipeline (`stages:`)."""
    blocks = [yaml.safe_load(block) for block in re.findall(r"^```yaml\n(.*?)^```", CI_PAGE.read_text(encoding="utf-8"), re.M | re.S)]
    github = [b for b in blocks if isinstance(b, dict) and "jobs" in b]
    gitlab = [b for b in blocks if isinstance(b, dict) and "stages" in b]
    assert len(github) == 1 and len(gitlab) == 1, "docs/ci.md: one GitHub workflow and one GitLab pipeline"
    return github[0], gitlab[0]


@pytest.fixture
def pull_request(tmp_path):
    """A team's repository: `origin` with a contract and its sample data on main, and a clone on a branch whose one
    commit tightens `amount`'s maximum (a breaking change) with only a MINOR bump."""
    env = environment(tmp_path)
    origin, seed, work = tmp_path / "origin.git", tmp_path / "seed", tmp_path / "work"
    git(tmp_path, env, "init", "-q", "--bare", "-b", "main", str(origin))
    seed.mkdir()
    git(seed, env, "init", "-q", "-b", "main")
    write(seed, {"contracts/orders.yaml": contract(), "data/orders.csv": SAMPLE_DATA, "requirements-contracts.txt": "dc-bridge[spark]\n"})
    git(seed, env, "add", "-A")
    git(seed, env, "commit", "-qm", "orders 1.0.0")
    git(seed, env, "push", "-q", str(origin), "main")
    git(tmp_path, env, "clone", "-q", str(origin), str(work))
    git(work, env, "checkout", "-q", "-b", "tighten-amount")
    write(work, {"contracts/orders.yaml": contract(version="1.1.0", maximum=10000)})
    git(work, env, "commit", "-qam", "orders: amount at most 10000")
    # the installed environment the recipes' cache restores; untracked, as a cache is
    (work / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    return work, env


def bump_major(work: Path, env: dict) -> None:
    write(work, {"contracts/orders.yaml": contract(version="2.0.0", maximum=10000)})
    git(work, env, "commit", "-qam", "orders 2.0.0")


def run_script(script: str, work: Path, env: dict, shell: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([*shell, script], cwd=work, env=env, capture_output=True, text=True, timeout=900)


# step name -> exit code on the pull request of the fixture, and after its MAJOR bump
GITHUB_STEPS = {"Validate the contracts": (0, 0), "Check compatibility with the target branch": (1, 0), "Check the sample data": (0, 0)}
GITLAB_JOBS = {"contracts:lint": (0, 0), "contracts:compatibility": (1, 0), "contracts:sample-data": (0, 0)}
NOT_RUN_HERE = {"Install dc-bridge"}  # needs a network; the fixture's .venv stands for its cache


def test_the_github_actions_recipe_runs_with_the_expected_exit_codes(pull_request):
    work, env = pull_request
    workflow, _ = recipes()
    job = workflow["jobs"]["contracts"]
    # GitHub's context reaches the scripts through env only: BASE_REF is the branch the pull request merges into
    assert job["env"] == {"BASE_REF": "${{ github.base_ref || 'main' }}"}
    env = {**env, "BASE_REF": "main"}
    steps = {step["name"]: step for step in job["steps"] if "run" in step}
    assert set(steps) == set(GITHUB_STEPS) | NOT_RUN_HERE
    assert all("${{" not in step["run"] for step in steps.values())
    shell = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"]  # GitHub's `shell: bash`
    codes = {name: run_script(steps[name]["run"], work, env, shell) for name in GITHUB_STEPS}
    assert {name: done.returncode for name, done in codes.items()} == {name: first for name, (first, _) in GITHUB_STEPS.items()}, \
        {name: done.stdout[-2000:] + done.stderr[-2000:] for name, done in codes.items()}
    assert "error DCB230" in codes["Check compatibility with the target branch"].stdout

    uploads = {step["uses"].split("@")[0]: step["with"] for step in job["steps"] if "uses" in step and "with" in step}
    sarif = json.loads((work / uploads["github/codeql-action/upload-sarif"]["sarif_file"]).read_text())
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["results"] == []
    junit = ET.parse(work / uploads["mikepenz/action-junit-report"]["report_paths"]).getroot()
    assert list(junit.iter("testcase")) and not list(junit.iter("failure"))

    bump_major(work, env)
    name = "Check compatibility with the target branch"
    after = run_script(steps[name]["run"], work, env, shell)
    assert after.returncode == GITHUB_STEPS[name][1], after.stdout + after.stderr


def test_the_gitlab_ci_recipe_runs_with_the_expected_exit_codes(pull_request):
    work, env = pull_request
    _, pipeline = recipes()
    env = {**env, "CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main", "CI_DEFAULT_BRANCH": "main"}
    jobs = {name: job for name, job in pipeline.items() if isinstance(job, dict) and "script" in job}
    assert set(jobs) == set(GITLAB_JOBS)
    template = pipeline[".dc-bridge"]
    assert any("pip install" in line for line in template["before_script"])  # the install, not run here
    shell = ["bash", "-eo", "pipefail", "-c"]  # how the GitLab runner runs a script: one shell, stop at the first failure

    def script(name: str) -> str:
        return "\n".join(jobs[name]["script"])

    codes = {name: run_script(script(name), work, env, shell) for name in GITLAB_JOBS}
    assert {name: done.returncode for name, done in codes.items()} == {name: first for name, (first, _) in GITLAB_JOBS.items()}, \
        {name: done.stdout[-2000:] + done.stderr[-2000:] for name, done in codes.items()}
    assert "error DCB230" in codes["contracts:compatibility"].stdout
    for name, job in jobs.items():
        artifacts = job.get("artifacts", {})
        for path in artifacts.get("paths", []) + list(artifacts.get("reports", {}).values()):
            assert (work / path).is_file(), f"{name}: {path}"
    ET.parse(work / jobs["contracts:sample-data"]["artifacts"]["reports"]["junit"])

    bump_major(work, env)
    after = run_script(script("contracts:compatibility"), work, env, shell)
    assert after.returncode == GITLAB_JOBS["contracts:compatibility"][1], after.stdout + after.stderr
