"""Benchmark: dc-bridge against the hand-written PySpark floor (bench/floor.py), GX alone and Soda alone, on the same data.

    python -m bench.run                       # 1M and 10M rows, narrow and wide contracts
    python -m bench.run --rows 1000000 --workloads narrow --out bench/results

Everything runs in one process on one Spark session (local[2] unless --master), on the same
parquet files, one system after another; each figure is reported as a ratio to the floor measured
in the same run. The one exception is the peer datacontract-cli, which needs its own virtualenv and
so runs last in a process of its own on the same files (bench/datacontract_cli.py). Every count a
system reports is checked against the planted ground truth.
Not part of the test suite: it takes minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from bench import datacontract_cli
from bench.floor import UNIQUE_METHODS, floor
from bench.heap import HeapSampler
from bench.report import write_report
from bench.workload import WORKLOADS, Workload, generate

SYSTEMS = ("floor_window", "floor_grouping", "gx_alone", "soda_alone", "bridge_spark", "bridge_gx", "bridge_soda", "bridge_both",
           "bridge_both_cached", "bridge_both_one_by_one",
           "datacontract_cli")  # the peer: its own venv and process (bench/datacontract_cli.py), run last


def measure(spark, name: str, action):
    """Run `action()` under its own Spark job group; returns (seconds, jobs, peak heap MiB, counts, profile)."""
    group = f"bench-{name}-{time.monotonic_ns()}"
    spark.sparkContext.setJobGroup(group, name)
    with HeapSampler(spark) as heap:
        executions_before = sql_executions(spark)
        jvm_before, python_before = jvm_cpu_seconds(spark), time.process_time()
        threads_before = jvm_thread_cpu(spark)
        started = time.perf_counter()
        counts = action()
        seconds = time.perf_counter() - started
        jvm_after, python_after = jvm_cpu_seconds(spark), time.process_time()
        threads_after = jvm_thread_cpu(spark)
    jobs = len(spark.sparkContext.statusTracker().getJobIdsForGroup(group))
    executions = sql_executions(spark) - executions_before
    spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    profile = job_profile(spark, group, seconds)
    # CPU seconds hardly depend on what else the machine runs, wall seconds do
    profile["python_cpu_seconds"] = round(python_after - python_before, 2)
    if jvm_before is not None and jvm_after is not None:
        profile["jvm_cpu_seconds"] = round(jvm_after - jvm_before, 2)
        profile["jvm_cpu_by_thread"] = thread_cpu_by_kind(threads_before, threads_after, jvm_after - jvm_before)
    profile["sql_executions"] = executions
    return seconds, jobs, heap.peak / 2**20, counts, profile


def sql_executions(spark) -> int:
    """How many Spark SQL executions the session has started (the id of the next one), from the SQL status
    store Spark keeps with the UI off: a query, a command (a temp view), each `collect` or `count`."""
    store = spark._jsparkSession.sharedState().statusStore()
    count = store.executionsCount()
    return 0 if count == 0 else store.executionsList(int(count) - 1, 1).apply(0).executionId() + 1


def jvm_cpu_seconds(spark) -> float | None:
    """CPU seconds the driver's JVM has used (in a local session every task runs there too): Linux only."""
    pid = _jvm_pid(spark)
    try:
        return _cpu_seconds(Path(f"/proc/{pid}/stat").read_text()) if pid is not None else None
    except OSError:  # not Linux
        return None


def jvm_thread_cpu(spark) -> dict[int, tuple[str, float]]:
    """thread id -> (thread name as Linux shows it, CPU seconds) for every live thread of the driver's JVM."""
    pid = _jvm_pid(spark)
    folder = Path(f"/proc/{pid}/task")
    if pid is None or not folder.is_dir():  # no local JVM, or not Linux
        return {}
    threads = {}
    for task in folder.iterdir():
        try:
            text = (task / "stat").read_text()
        except OSError:  # ended while listed
            continue
        threads[int(task.name)] = (text[text.index("(") + 1:text.rindex(")")], _cpu_seconds(text))
    return threads


def _jvm_pid(spark) -> int | None:
    try:
        return spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
    except Exception:  # no local JVM
        return None


def _cpu_seconds(stat: str) -> float:
    """User plus system CPU seconds from a /proc stat line (after the name in brackets, which may hold spaces)."""
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def thread_cpu_by_kind(before: dict, after: dict, total: float) -> dict[str, float]:
    """The JVM's CPU during a system by kind of thread (its name without its trailing number: the JIT's compiler
    threads, the garbage collector, the executor's task threads, py4j's driver threads); what threads
    that ended during the system used is the remainder."""
    kinds: dict[str, float] = {}
    for tid, (name, seconds) in after.items():
        kind = re.sub(r"(#[0-9]+|[0-9]+)$", "", name).strip() or "?"
        kinds[kind] = kinds.get(kind, 0.0) + seconds - before.get(tid, (name, 0.0))[1]
    kinds["(ended threads)"] = total - sum(kinds.values())
    return {kind: round(seconds, 2) for kind, seconds in sorted(kinds.items(), key=lambda item: -item[1]) if abs(seconds) >= 0.05}


def job_profile(spark, group: str, seconds: float) -> dict:
    """Where a system's time went: how long at least one of its Spark jobs was running (the union of
    their intervals, from the driver's status store, which is kept with the UI off), the rest (the
    driver alone: planning, Python, result handling), its longest jobs by call site, and the CPU its
    tasks used per call site (the stages' executor CPU time: what a change to one query saves)."""
    store = spark.sparkContext._jsc.sc().statusStore()
    listed = store.jobsList(None)
    spans = []
    for index in range(listed.size()):
        job = listed.apply(index)
        if job.jobGroup().isDefined() and job.jobGroup().get() == group and job.completionTime().isDefined():
            spans.append((job.submissionTime().get().getTime() / 1000, job.completionTime().get().getTime() / 1000, job.name(),
                          _task_cpu_seconds(spark, store, job)))
    busy, reach = 0.0, float("-inf")
    for begin, end, *_ in sorted(spans):
        busy += max(0.0, end - max(begin, reach))
        reach = max(reach, end)
    longest = sorted(spans, key=lambda span: span[0] - span[1])[:8]
    by_site: dict[str, list] = {}
    for _, _, name, cpu in spans:
        site = by_site.setdefault(name, [0.0, 0])
        site[0] += cpu
        site[1] += 1
    return {"spark_busy_seconds": round(busy, 2), "driver_only_seconds": round(max(0.0, seconds - busy), 2),
            "task_cpu_seconds": round(sum(span[3] for span in spans), 2),
            "longest_jobs": [{"seconds": round(end - begin, 2), "task_cpu_seconds": round(cpu, 2), "call_site": name}
                             for begin, end, name, cpu in longest],
            "task_cpu_by_call_site": [{"task_cpu_seconds": round(cpu, 2), "jobs": jobs, "call_site": name}
                                      for name, (cpu, jobs) in sorted(by_site.items(), key=lambda item: -item[1][0])[:12]]}


def _task_cpu_seconds(spark, store, job) -> float:
    """CPU seconds the tasks of a job's stages used (a stage another job already ran is skipped: 0)."""
    ids, nanos = job.stageIds(), 0
    no_quantiles = spark.sparkContext._gateway.new_array(spark.sparkContext._jvm.double, 0)
    for index in range(ids.size()):
        attempts = store.stageData(ids.apply(index), False, spark.sparkContext._jvm.java.util.ArrayList(), False, no_quantiles)
        nanos += sum(attempts.apply(a).executorCpuTime() for a in range(attempts.size()))
    return nanos / 1e9


# ---------------------------------------------------------------------------------------------
# the systems


def gx_alone(spark, frame, compiled, model):
    """GX as a user runs it: an ephemeral context, a Spark data source with GX's defaults (it persists
    the DataFrame), the suite, a validation definition, the default result format."""
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
    import great_expectations as gx

    context = gx.get_context(mode="ephemeral")
    batch = context.data_sources.add_spark("bench").add_dataframe_asset("orders").add_batch_definition_whole_dataframe("all")
    suite = context.suites.add(gx.ExpectationSuite(**{k: v for k, v in compiled.artifacts["gx"][model].items() if k != "meta"}))
    definition = context.validation_definitions.add(gx.ValidationDefinition(name="bench", data=batch, suite=suite))
    params = {name: datetime(2000, 1, 1) for name in re.findall(r'"\$PARAMETER": "([^"]+)"', json.dumps(compiled.artifacts["gx"][model]))}
    result = definition.run(batch_parameters={"dataframe": frame}, expectation_parameters=params)
    frame.unpersist()
    return {r.expectation_config.meta["dc_bridge"]["check_id"]: (r.result or {}).get("unexpected_count") for r in result.results}


def soda_alone(spark, frame, compiled, model, view):
    """Soda as a user runs it: one scan with the SodaCL, failed-row samples at Soda's default."""
    from dc_bridge.engines.soda.run import disable_soda_telemetry
    from dc_bridge.engines.soda.translate import sodacl_text

    disable_soda_telemetry()
    from soda.scan import Scan

    text = "\n".join(line for line in sodacl_text(compiled.artifacts["soda"][model], compiled.meta).splitlines()
                     if "samples limit" not in line)
    frame.createOrReplaceTempView(view)
    scan = Scan()
    scan.set_data_source_name("bench")
    scan.add_spark_session(spark, data_source_name="bench")
    scan.add_sodacl_yaml_str(text)
    scan.execute()
    spark.catalog.dropTempView(view)
    return {c["name"]: (c.get("diagnostics") or {}).get("value") for c in scan.get_scan_results()["checks"]}


def bridge(spark, frame, contract_path, engines, **options):
    """The counts, and the seconds of each phase of the run as its verdict records them (runner/phases.py)."""
    import dc_bridge

    verdict = dc_bridge.run(contract_path, dataframes={"orders": frame}, spark=spark, engines=engines, **options)
    return {c.check_id: c.observed for c in verdict.checks()}, phase_seconds(verdict.phases)


def phase_seconds(phases) -> dict[str, float]:
    """phase (an engine's as `engine:NAME`) -> seconds, summed over the models."""
    summed: dict[str, float] = {}
    for phase in phases:
        name = f"engine:{phase.engine}" if phase.engine else phase.phase
        summed[name] = round(summed.get(name, 0.0) + phase.seconds, 3)
    return summed


# ---------------------------------------------------------------------------------------------


def check_truth(system: str, counts: dict, truth: dict) -> list[str]:
    """Every count the system reported for a check with a known truth must equal it."""
    wrong = []
    for check_id, expected in truth.items():
        value = counts.get(check_id)
        if value is not None and float(value) != float(expected):
            wrong.append(f"{system}: {check_id} reported {value}, planted {expected}")
    return wrong


def run_workload(spark, workload: Workload, rows: int, folder: Path, systems: tuple[str, ...],
                 peer_venv: Path = datacontract_cli.DEFAULT_VENV, reuse_data: bool = False, warm: str = "each") -> dict:
    from dc_bridge import compiler
    from dc_bridge.contract.reading.load import load_contract
    from dc_bridge.contract.sql import view_name

    contract_path = folder / f"{workload.name}.yaml"
    contract_path.write_text(workload.contract)
    contract = load_contract(contract_path).contract
    compiled = compiler.compile_contract(contract)
    view = view_name(contract.id, "orders")
    data = str(folder / f"{workload.name}_{rows}.parquet")
    if reuse_data and (Path(data) / "_SUCCESS").exists():
        print(f"  reusing {data}", flush=True)
    else:
        started = time.perf_counter()
        generate(spark, workload, rows, data)
        print(f"  generated {rows:,} rows x {len(workload.columns)} columns in {time.perf_counter() - started:.0f}s", flush=True)
    actions = {
        **{f"floor_{method}": lambda f, method=method: floor(spark, f, view, method) for method in UNIQUE_METHODS},
        "gx_alone": lambda f: gx_alone(spark, f, compiled, "orders"),
        "soda_alone": lambda f: soda_alone(spark, f, compiled, "orders", view),
        "bridge_spark": lambda f: bridge(spark, f, str(contract_path), ("spark",)),
        "bridge_gx": lambda f: bridge(spark, f, str(contract_path), ("gx",)),
        "bridge_soda": lambda f: bridge(spark, f, str(contract_path), ("soda",)),
        "bridge_both": lambda f: bridge(spark, f, str(contract_path), ("gx", "soda")),
        # the default's alternatives: with the opt-in cache; the engines one after the other
        "bridge_both_cached": lambda f: bridge(spark, f, str(contract_path), ("gx", "soda"), cache=True),
        "bridge_both_one_by_one": lambda f: bridge(spark, f, str(contract_path), ("gx", "soda"), side_by_side=False),
        "datacontract_cli": lambda f: datacontract_cli.run(  # reads the parquet itself, in its own Spark session
            workload.contract, data, folder, [k.id for k in compiled.plan.checks], truth, venv=peer_venv,
            master=spark.sparkContext.master, driver_memory=spark.conf.get("spark.driver.memory"),
            shuffle_partitions=spark.conf.get("spark.sql.shuffle.partitions")),
    }
    truth = workload.truth(rows)
    # one untimed pass first, so the first timed system does not pay alone for JIT warm-up and a cold file
    # cache; with warm="each", one untimed call of every system (the engines' imports and the JIT of their
    # queries' code are then in no system's figure: a process's cold start is bench/process.py's to time)
    warm_frame = spark.read.parquet(data)
    warm_frame.createOrReplaceTempView(view)
    floor(spark, warm_frame, view)
    if warm == "each":
        for system in systems:
            if not system.startswith("floor") and system != "datacontract_cli":
                actions[system](spark.read.parquet(data))
    results, problems, skipped = {}, [], {}
    for system in sorted(systems, key=lambda s: s == "datacontract_cli"):  # the peer after the others
        frame = spark.read.parquet(data)
        if system.startswith("floor"):
            frame.createOrReplaceTempView(view)
        if system == "datacontract_cli":  # timed inside its own process: test() alone, not its Spark start-up
            peer = actions[system](frame)
            if peer.skipped:
                skipped[system] = peer.skipped
                print(f"  {system:<22} skipped: {peer.skipped}", flush=True)
                continue
            seconds, jobs, heap, counts = peer.seconds, peer.spark_jobs, peer.driver_heap_peak_mib, peer.counts
            problems += peer.mismatches
        else:
            seconds, jobs, heap, counts, profile = measure(spark, system, lambda: actions[system](frame))
            if isinstance(counts, tuple):  # a bridge run: its verdict's phases too
                counts, profile["phases"] = counts
        problems += check_truth(system, counts, truth)
        results[system] = {"seconds": round(seconds, 2), "spark_jobs": jobs, "driver_heap_peak_mib": round(heap)}
        if system != "datacontract_cli":
            results[system]["profile"] = profile
        busy = (f"  Spark busy {profile['spark_busy_seconds']:.1f}s  JVM CPU {profile.get('jvm_cpu_seconds', float('nan')):.1f}s"
                f"  Python CPU {profile['python_cpu_seconds']:.1f}s  {profile['sql_executions']} SQL" if "profile" in results[system] else "")
        print(f"  {system:<22} {seconds:7.1f}s  {jobs:4d} jobs  heap {heap:6.0f} MiB{busy}", flush=True)
        if "phases" in results[system].get("profile", {}):
            print(f"  {'':<22} phases: " + ", ".join(f"{name} {took:.2f}s" for name, took in results[system]["profile"]["phases"].items()
                                                    if took >= 0.01), flush=True)
        if "jvm_cpu_by_thread" in results[system].get("profile", {}):
            print(f"  {'':<22} JVM CPU by thread: " + ", ".join(f"{kind} {took:.1f}s" for kind, took
                                                              in list(results[system]["profile"]["jvm_cpu_by_thread"].items())[:7]), flush=True)
        if system == "datacontract_cli":
            results[system].update(peer.extra)
            print(f"  {'':<22} datacontract-cli {peer.extra['version']}: {peer.extra['checks_run']}/{len(compiled.plan.checks)} "
                  f"checks run, not run: {', '.join(peer.extra['checks_not_run']) or 'none'}; its Spark start-up "
                  f"{peer.extra['peer_startup_seconds']:.1f}s, whole process {peer.extra['peer_process_seconds']:.1f}s", flush=True)
    # the floor is the faster of its ways to count the repeated keys, by the JVM's CPU (wall time measures the neighbours too)
    floors = [results[s] for s in results if s.startswith("floor_")]
    if floors:
        fastest = min(floors, key=lambda f: f["profile"].get("jvm_cpu_seconds") or f["seconds"])
        results["floor"] = {**fastest, "method": next(s for s in results if results[s] is fastest).removeprefix("floor_")}
    base = results.get("floor", {})
    for figures in results.values():
        figures["ratio_to_floor"] = round(figures["seconds"] / base["seconds"], 2) if base else None
        jvm, floor_jvm = figures.get("profile", {}).get("jvm_cpu_seconds"), base.get("profile", {}).get("jvm_cpu_seconds")
        figures["jvm_cpu_ratio_to_floor"] = round(jvm / floor_jvm, 2) if jvm and floor_jvm else None
    return {"workload": workload.name, "rows": rows, "checks": len(compiled.plan.checks), "warm": warm, "systems": results,
            "skipped": skipped, "truth_mismatches": problems}


def plot(report: dict, path: Path) -> None:
    try:
        import matplotlib
    except ImportError:  # the figures are in the JSON; the plot is a convenience
        print("no plot: matplotlib is not installed")
        return

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (by_rows, by_checks) = plt.subplots(1, 2, figsize=(12, 4.5))
    runs = report["runs"]
    for system in SYSTEMS:
        narrow = sorted((r["rows"], r["systems"][system]["seconds"]) for r in runs if r["workload"] == "narrow" and system in r["systems"])
        if narrow:
            by_rows.plot([x for x, _ in narrow], [y for _, y in narrow], marker="o", label=system)
        largest = max((r["rows"] for r in runs), default=0)
        points = sorted((r["checks"], r["systems"][system]["seconds"]) for r in runs if r["rows"] == largest and system in r["systems"])
        if points:
            by_checks.plot([x for x, _ in points], [y for _, y in points], marker="o", label=system)
    by_rows.set(xscale="log", xlabel="rows (narrow contract)", ylabel="seconds", title="time against rows")
    by_checks.set(xlabel="checks (largest row count)", ylabel="seconds", title="time against number of checks")
    by_rows.legend(fontsize=8)
    by_rows.grid(alpha=0.3)
    by_checks.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", default="1000000,10000000", help="comma-separated row counts")
    parser.add_argument("--workloads", default="narrow,wide", help="comma-separated: narrow, wide")
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated: " + ", ".join(SYSTEMS))
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--driver-memory", default="6g")
    parser.add_argument("--out", default="bench/results", help="folder for the JSON and the PNG")
    parser.add_argument("--data", default=None, help="folder for the generated parquet (default: a temp folder)")
    parser.add_argument("--peer-venv", default=str(datacontract_cli.DEFAULT_VENV),
                        help="virtualenv for datacontract-cli, made on first use from bench/datacontract-cli.txt")
    parser.add_argument("--reuse-data", action="store_true",
                        help="read a parquet a former run wrote under --data (complete: it has _SUCCESS) instead of writing it again")
    parser.add_argument("--warm", choices=("each", "floor"), default="each",
                        help="untimed calls before the timed ones: every system once (each), or only the floor (the "
                             "first rounds' method: the first bridge system then carries the engines' imports and JIT)")
    args = parser.parse_args()

    from dc_bridge.runner.data import get_session

    spark, _ = get_session(args.master, {"spark.driver.memory": args.driver_memory, "spark.sql.shuffle.partitions": "8"})
    folder = Path(args.data or tempfile.mkdtemp(prefix="dc-bridge-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    report = {"started": datetime.now(timezone.utc).isoformat(timespec="seconds"), "master": args.master,
              "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "spark": spark.version,
                          "platform": platform.platform()},
              "runs": []}
    systems = tuple(s for s in args.systems.split(",") if s)
    for workload in args.workloads.split(","):
        for rows in (int(r) for r in args.rows.split(",")):
            print(f"{workload}, {rows:,} rows", flush=True)
            report["runs"].append(run_workload(spark, WORKLOADS[workload], rows, folder, systems, Path(args.peer_venv), args.reuse_data, args.warm))
    target = write_report(report, args.out, "bench")
    plot(report, target.with_suffix(".png"))
    print(f"wrote {target} and .png")
    mismatches = [m for run in report["runs"] for m in run["truth_mismatches"]]
    if mismatches:
        print("COUNTS THAT DO NOT MATCH THE PLANTED TRUTH:\n  " + "\n  ".join(mismatches))
        raise SystemExit(1)


if __name__ == "__main__":
    main()
