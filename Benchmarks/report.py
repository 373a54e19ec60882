"""Turns one benchmark run (ordo-one/benchmark's histogramPercentiles export)
into BENCHMARKS.md: each workload beside its baseline from the same run, the
ratio, the bar it must reach and the aim, the machine, and an SVG plot of the parent-watching-child
scaling; with the instruction counts written by `Benchmarks/instructions`,
the insert, fetch and change ratios counted in instructions too.
Usage: report.py RESULTS BENCHMARKS.md PLOT.svg [INSTRUCTIONS.json], RESULTS being the folder of the
benchmark run's `--format histogramPercentiles` export."""

import functools
import json
import os
import platform
import re
import subprocess
import sys
from datetime import datetime, timezone

UNITS = {"ns": 1e-3, "μs": 1.0, "us": 1.0, "ms": 1e3, "s": 1e6}
COUNTS = {"#": 1, "K": 1e3, "M": 1e6, "G": 1e9}


class Results(dict):
    """{benchmark: {metric: value}}, looked up by the benchmark's name as
    written in Benchmarks/ ("insert/GRDB records"), which the export files
    spell with underscores ("insert_GRDB_records")."""

    @staticmethod
    def key(name):
        return name.replace("/", "_").replace(" ", "_")

    def get(self, name, default=None):
        return super().get(Results.key(name), default)


def load(directory, percentile):
    """One percentile of every benchmark's metrics, from ordo-one/benchmark's
    `histogramPercentiles` export (a TSV per benchmark and metric, named
    `BASELINE.TARGET.NAME.METRIC.histogram.percentiles.tsv`, holding the
    percentiles 0 to 100 in the unit its header names). Times in
    microseconds under "time"; other metrics under their description,
    counted in ones. A name ending in "(N toggles)" is scaled to 1,000
    toggles and loses that suffix."""
    results = Results()
    suffix = ".histogram.percentiles.tsv"
    for file in sorted(os.listdir(directory)):
        if not file.endswith(suffix):
            continue
        parts = file[:-len(suffix)].split(".")
        name = ".".join(parts[2:-1])
        lines = open(os.path.join(directory, file)).read().splitlines()
        header = lines[0].split("\t", 1)[1]
        values = dict(line.split("\t") for line in lines[1:] if "\t" in line)
        value = float(values[str(percentile)])
        unit = re.search(r"\(([^()]*)\) \*$", header)
        unit = unit.group(1) if unit else "#"
        description = re.sub(r"( \([^()]*\))? \*$", "", header)
        if description.startswith("Time"):
            value *= UNITS.get(unit, 1.0)
            metric = "time"
            toggles = re.search(r"_\((\d+)_toggles\)$", name)
            if toggles:
                value *= 1000 / int(toggles.group(1))
        else:
            value *= COUNTS.get(unit, 1)
            metric = description
        name = re.sub(r"_\(\d+_toggles\)$", "", name)
        results.setdefault(name, {})[metric] = value
    return results


def time(results, name):
    return results.get(name, {}).get("time")


def fmt_time(us):
    if us is None:
        return "not run"
    if us >= 1e6:
        return f"{us / 1e6:.2f} s"
    if us >= 1e3:
        return f"{us / 1e3:.1f} ms"
    return f"{us:.1f} µs"


def ratio_row(results, workload, subject, baseline, baseline_label, must, aim, higher_is_better=False,
              instructions=None, slowest=None):
    """One row of the goals table: the ratio of the medians against the
    issue's two bars, the one it must reach and the one it aims for. Beside
    it, the ratio of the slowest iterations (from `slowest`, the same run's
    maxima) and, if given, `instructions`: the ratio of the same two sides
    counted in instructions."""
    s, b = time(results, subject), time(results, baseline)
    extra = []
    if slowest is not None and time(slowest, subject) and time(slowest, baseline):
        slow = time(slowest, baseline) / time(slowest, subject) if higher_is_better else time(slowest, subject) / time(slowest, baseline)
        extra.append(f"slowest: {slow:,.2f}")
    if instructions is not None:
        extra.append(f"instructions: {instructions:,.2f}")
    counted = f" ({'; '.join(extra)})" if extra else ""
    sign = "≥" if higher_is_better else "≤"
    bars = f"{sign} {must:,g} | " + (f"{sign} {aim:,g}" if aim is not None else "–")
    if s is None or b is None:
        return f"| {workload} | {fmt_time(s)} | {baseline_label}: {fmt_time(b)} | –{counted} | {bars} | not run |"
    ratio = b / s if higher_is_better else s / b
    def reaches(bar):
        return ratio >= bar if higher_is_better else ratio <= bar
    if aim is None:
        status = "met" if reaches(must) else "**missed**"
    else:
        status = "met, aim too" if reaches(aim) else ("met, aim missed" if reaches(must) else "**missed**")
    return (f"| {workload} | {fmt_time(s)} | {baseline_label}: {fmt_time(b)} | {ratio:,.2f}{counted} | {bars} | "
            f"{status} |")


PEERS = ["GRDB", "GRDB records", "Fluent", "Coherence"]


def load_instructions(path):
    """`Benchmarks/instructions`' JSON: {"tool", "rows": {workload: rows},
    "instructions": {"workload/side": count}}; None without a path."""
    if not path:
        return None
    with open(path) as f:
        return json.load(f)


def instruction_ratio(counted, workload, side, baseline="GRDB"):
    """The instructions of `workload/side` over `workload/baseline`'s (raw
    GRDB's unless named), or None."""
    counts = (counted or {}).get("instructions", {})
    s, b = counts.get(f"{workload}/{side}"), counts.get(f"{workload}/{baseline}")
    return s / b if s and b else None


def fmt_count(n):
    for scale, suffix in [(1e9, "G"), (1e6, "M"), (1e3, "k")]:
        if n >= scale:
            return f"{n / scale:,.2f} {suffix}"
    return f"{n:,}"


def peers_table(results, counted, workloads):
    """Every side of the insert and fetch workloads in one table: the time of
    the timed run and, below it, the instructions callgrind counted at the
    smaller size, each with its ratio to raw GRDB."""
    lines = ["| Workload | raw GRDB | GRDB records | Fluent | Coherence |", "|---|---|---|---|---|"]
    for workload, rows, label in workloads:
        cells = []
        baseline = time(results, f"{workload}/GRDB")
        for side in PEERS:
            t = time(results, f"{workload}/{side}")
            ratio = f" ({t / baseline:,.2f}×)" if t is not None and baseline and side != "GRDB" else ""
            cells.append(fmt_time(t) + ratio)
        lines.append(f"| {label.format(rows=f'{rows:,}')}: time | " + " | ".join(cells) + " |")
        if counted is None:
            continue
        counts = counted.get("instructions", {})
        counted_rows = counted.get("rows", {}).get(workload)
        cells = []
        for side in PEERS:
            n = counts.get(f"{workload}/{side}")
            ratio = instruction_ratio(counted, workload, side)
            cells.append("not counted" if n is None else
                         fmt_count(n) + (f" ({ratio:,.2f}×)" if ratio is not None and side != "GRDB" else ""))
        size = label.format(rows=f"{counted_rows:,}") if counted_rows else label.format(rows="–")
        lines.append(f"| {size}: instructions | " + " | ".join(cells) + " |")
    return lines


def save_round_trips(objects, attributes):
    """The round trips of a PostgreSQL save of `objects` new objects of one
    entity with `attributes` columns: BEGIN, the keys taken from the
    entity's sequence in one statement (n `nextval`s on the server, one row back),
    the multi-row INSERTs (each row binds Z_PK, Z_OPT and the attributes, at
    most 65,535 parameters a statement), COMMIT. No lock is taken."""
    rows_per_statement = 65_535 // (attributes + 2)
    return 3 + -(-objects // rows_per_statement)


def postgres_section(results):
    """The PostgreSQL insert and fetch workloads: raw postgres-nio beside
    Coherence, and the round trips of the save."""
    lines = ["## PostgreSQL", "",
             "The insert and fetch workloads against a throwaway PostgreSQL 15 server on the same machine",
             "(`.ci/with-postgres`: local TCP, `fsync=off`), each run in a new schema: raw postgres-nio (the baseline;",
             "the insert sends multi-row `INSERT`s of up to 65,535 parameters in one transaction, as Coherence's save does,",
             "so that the ratio measures the object layer) beside Coherence's `PostgresStore`, in the same run.", ""]
    if time(results, "insert/Postgres raw") is None and time(results, "fetch/Postgres raw") is None:
        return lines + ["Not run: PostgreSQL 15 was not installed, or `COHERENCE_POSTGRES_URL` not set.", ""]
    lines += ["| Workload | raw postgres-nio | Coherence | Ratio |", "|---|---|---|---|"]
    for workload, label in [("insert", "Insert 50,000 items, one transaction, new schema"),
                            ("fetch", "Fetch 200,000 items, read every column")]:
        b, s = time(results, f"{workload}/Postgres raw"), time(results, f"{workload}/Postgres Coherence")
        ratio = f"{s / b:,.2f}×" if s and b else "–"
        lines.append(f"| {label} | {fmt_time(b)} | {fmt_time(s)} | {ratio} |")
    trips = next((v for k, v in results.get("insert/Postgres Coherence", {}).items() if k.startswith("round trips")), None)
    expected = save_round_trips(50_000, 10)
    lines.append("")
    if trips is None:
        lines.append("Round trips of the save: not measured.")
    else:
        lines.append(
            f"One `save()` of the 50,000 new objects took {trips:,.0f} round trips to the server (the formula gives {expected:,}). "
            "A save of N new objects of one entity with k attribute and to-one columns (no uniqueness constraints, no to-many join rows) takes 3 + ⌈N / ⌊65,535 / (k + 2)⌋⌉: `BEGIN`, "
            "one statement taking the N keys from the entity's sequence (N `nextval`s on the server, the first and last sent back), the multi-row "
            "`INSERT`s (each row binds `Z_PK`, `Z_OPT` and its k attributes; here 5,461 rows a statement), and `COMMIT`. "
            "A save takes no lock: saves of several processes run side by side (next section).")
    return lines + [""]


WRITER_COUNTS = [1, 2, 4, 8]


def fmt_rate(value):
    return "–" if value is None else f"{value:,.0f}"


def fmt_ratio(subject, baseline):
    return f"{subject / baseline:,.2f}" if subject is not None and baseline else "–"


def bar_status(ratios, bar):
    """Met when every W was measured and each ratio reaches `bar`."""
    if not ratios or any(r is None for r in ratios):
        return "not measured"
    return "met" if all(r >= bar for r in ratios) else "**missed**"


def writers_section(folder):
    """Several writer processes saving to one PostgreSQL schema at once
    (`postgres-writers`, writers.json): Coherence beside raw postgres-nio
    sending the same transactions, uncontended and contended, the run with
    persistent history, and the bars of issue #32."""
    lines = ["## PostgreSQL: several writer processes", "",
             "W writer processes (W = 1, 2, 4, 8) save to one schema of the same throwaway server at once, each on connections",
             "of its own, released together once all are connected (`Benchmarks/.build/release/postgres-writers`). Saves per",
             "second: every writer's saves over the wall time from the start signal to the last writer's end. Each run has a",
             "new schema holding Coherence's tables; both sides run in the same invocation.", "",
             "- **Uncontended**: each save inserts a row and updates the row its writer inserted in the save before. The raw",
             "  side (postgres-nio) sends exactly Coherence's statements, one round trip each: `BEGIN`, the new key from the",
             "  entity's sequence, the versioned `UPDATE … WHERE Z_PK = ? AND Z_OPT = ?`, the `INSERT`, `COMMIT`.",
             "- **Contended**: every save increments one counter row. Coherence (`.error` merge policy) rolls back, refreshes",
             "  the counter and tries again on a `MergeError`; the raw side runs a version-checked loop (`SELECT`, then",
             "  `UPDATE … WHERE Z_OPT = ?`, `ROLLBACK` and again when no row matched). Retries in parentheses.",
             "- **Object-trump**: every save sets the counter under `.mergeByPropertyObjectTrump` (Coherence only); errors",
             "  thrown by `save()` are counted.", "",
             "After each run the benchmark checks what was written (the row count, no key twice, no lost update: every",
             "uncontended row updated exactly once, the contended counter equal to the saves) and stops on a failure.", ""]
    path = os.path.join(folder, "writers.json")
    if not os.path.exists(path):
        return lines + ["Not run: PostgreSQL 15 was not installed, or `COHERENCE_POSTGRES_URL` not set.", ""]
    w = json.load(open(path))
    saves = int(w.get("saves-per-writer", 300))
    lines += [f"{saves:,} saves per writer process, saves per second (the median of three runs of each side, the sides alternating; errors summed over all three):", "",
              "| W | Uncontended: raw postgres-nio | Coherence | Ratio | Contended (`.error` + retry): raw | Coherence | Ratio "
              "| Object-trump | Errors thrown |",
              "|---|---|---|---|---|---|---|---|---|"]
    uncontended_ratios, contended_ratios, trump_errors = [], [], []
    for n in WRITER_COUNTS:
        ur, uc = w.get(f"uncontended/raw/{n}"), w.get(f"uncontended/coherence/{n}")
        cr, cc = w.get(f"contended-error/raw/{n}"), w.get(f"contended-error/coherence/{n}")
        ot, errors = w.get(f"contended-objecttrump/coherence/{n}"), w.get(f"contended-objecttrump/coherence/{n}/errors")
        uncontended_ratios.append(uc / ur if uc is not None and ur else None)
        contended_ratios.append(cc / cr if cc is not None and cr else None)
        trump_errors.append(errors)

        def contended(side, value):
            retries = w.get(f"contended-error/{side}/{n}/retries")
            return fmt_rate(value) + (f" ({retries:,.0f} retries)" if value is not None and retries is not None else "")
        lines.append(f"| {n} | {fmt_rate(ur)} | {fmt_rate(uc)} | {fmt_ratio(uc, ur)} | {contended('raw', cr)} | "
                     f"{contended('coherence', cc)} | {fmt_ratio(cc, cr)} | {fmt_rate(ot)} | "
                     f"{'–' if errors is None else f'{errors:,.0f}'} |")
    lines.append("")
    growth = []
    for side, label in [("raw", "raw postgres-nio"), ("coherence", "Coherence")]:
        first, last = w.get(f"uncontended/{side}/1"), w.get(f"uncontended/{side}/8")
        if first and last is not None:
            growth.append(f"{label} {last / first:,.2f}×")
    history, without = w.get("history/coherence/4"), w.get("uncontended/coherence/4")
    if history is None:
        lines.append("- Coherence with persistent history (uncontended, 4 writers): not measured.")
    else:
        lines.append(f"- Coherence with persistent history (uncontended, 4 writers): {fmt_rate(history)} saves/s"
                     + (f", {history / without:,.2f}× the same run without history" if without else "")
                     + "; the history was checked: one transaction per save, numbered consecutively in commit order, "
                       "each inserted object in exactly one insert change.")
    missing_errors = any(e is None for e in trump_errors)
    trump_status = "not measured" if missing_errors else ("met" if sum(trump_errors) == 0 else "**missed**")
    lines += [f"- Uncontended, Coherence ≥ 0.8× raw postgres-nio at every W: {bar_status(uncontended_ratios, 0.8)}; "
              f"throughput from 1 to 8 writers: {', '.join(growth) if growth else 'not measured'} "
              "(it must grow with W as raw's does).",
              f"- Contended, `.error` with retry, Coherence ≥ 0.6× the raw version-checked loop at every W: "
              f"{bar_status(contended_ratios, 0.6)}.",
              f"- Object-trump never throws, whatever W: {trump_status}.",
              "- No lost update, no duplicate key, no missed or doubled history transaction: checked by the benchmark "
              "after every run (a failed check stops it, so a table here means they held)."]
    return lines + [""]


def remote_changes_section(results, counted, folder):
    """The delay of a save in one process reaching another's context, and the cost of history on a save."""
    lines = ["## Changes from other processes", "",
             "Delay from `save()` returning in a writer process to the didChangeObjects of a context with",
             "`automaticallyMergesRemoteChanges` in another process, one save at a time, 1,000 saves after 20 of",
             "warm-up (`Benchmarks/.build/release/remote-change-delay sqlite|postgres`). Goal: p99 under 50 ms.", "",
             "| Store | p50 | p99 | Slowest | Goal |", "|---|---|---|---|---|"]
    for store, label in [("sqlite", "SQLite (inotify, `data_version`)"), ("postgres", "PostgreSQL (`LISTEN`/`NOTIFY`)")]:
        path = os.path.join(folder, f"delay-{store}.json")
        if not os.path.exists(path):
            lines.append(f"| {label} | not measured | | | |")
            continue
        d = json.load(open(path))
        lines.append(f"| {label} | {fmt_time(d['p50'])} | {fmt_time(d['p99'])} | {fmt_time(d['max'])} | "
                     f"{'met' if d['p99'] < 50_000 else '**missed**'} |")
    lines += ["", "Cost of persistent history on a save (insert 50,000 objects, save once, history on vs off, same run;",
              "goal: at most 20 % more):", ""]
    for label, on, off in [("SQLite", "insert/Coherence history", "insert/Coherence"),
                           ("PostgreSQL", "insert/Postgres Coherence history", "insert/Postgres Coherence")]:
        a, b = time(results, on), time(results, off)
        if a is None or b is None:
            lines.append(f"- {label}: not measured.")
        else:
            lines.append(f"- {label}: {fmt_time(a)} with history, {fmt_time(b)} without: {a / b:.2f}× "
                         f"({'met' if a / b <= 1.2 else '**missed**'}).")
    with_history = (counted or {}).get("instructions", {}).get("insert/Coherence history")
    without = (counted or {}).get("instructions", {}).get("insert/Coherence")
    if with_history and without:
        lines.append(f"- SQLite, instructions (callgrind, {counted['rows']['insert']:,} objects): {fmt_count(with_history)} "
                     f"with history, {fmt_count(without)} without: {with_history / without:.2f}×.")
    return lines + [""]


def machine():
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    memory = ""
    try:
        kib = int(open("/proc/meminfo").readline().split()[1])
        memory = f", {kib / 1024 / 1024:.0f} GiB"
    except OSError:
        pass
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}){memory}; {swift[0] if swift else 'swift ?'}"


def plot(results, path):
    """Time of 1,000 toggles against the number of servers, log-log."""
    servers = [10, 1_000, 10_000]
    series = [("derived attribute", "derived", "#1f77b4"), ("each server watches every change", "pattern", "#d62728")]
    points = {key: [(n, time(results, f"watch/{key} {n}")) for n in servers] for _, key, _ in series}
    values = [v for pts in points.values() for _, v in pts if v]
    if not values:
        return
    import math
    width, height, left, right, top, bottom = 640, 400, 80, 20, 30, 60
    lo, hi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    hi = max(hi, lo + 1)

    def x(n):
        return left + (math.log10(n) - 1) / 3 * (width - left - right)

    def y(v):
        return top + (hi - math.log10(v)) / (hi - lo) * (height - top - bottom)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="14">Parent watching its child: 1,000 read flags toggled (100 items per server)</text>']
    for e in range(lo, hi + 1):
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{y(10 ** e):.1f}" y2="{y(10 ** e):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y(10 ** e) + 4:.1f}" text-anchor="end">{fmt_time(10 ** e)}</text>')
    for n in servers:
        out.append(f'<line x1="{x(n):.1f}" x2="{x(n):.1f}" y1="{top}" y2="{height - bottom}" stroke="#eee"/>')
        out.append(f'<text x="{x(n):.1f}" y="{height - bottom + 18}" text-anchor="middle">{n:,}</text>')
    out.append(f'<text x="{(left + width - right) / 2}" y="{height - 15}" text-anchor="middle">servers</text>')
    for i, (label, key, color) in enumerate(series):
        pts = [(n, v) for n, v in points[key] if v]
        path_d = " ".join(f"{'M' if j == 0 else 'L'}{x(n):.1f},{y(v):.1f}" for j, (n, v) in enumerate(pts))
        out.append(f'<path d="{path_d}" fill="none" stroke="{color}" stroke-width="2"/>')
        for n, v in pts:
            out.append(f'<circle cx="{x(n):.1f}" cy="{y(v):.1f}" r="4" fill="{color}"/>')
        out.append(f'<rect x="{left + 10}" y="{top + 10 + i * 18}" width="12" height="3" fill="{color}"/>')
        out.append(f'<text x="{left + 28}" y="{top + 15 + i * 18}">{label}</text>')
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")


def main():
    results_path, markdown_path, plot_path = sys.argv[1:4]
    # Medians for the ratios: with ten iterations on a shared machine, the
    # slowest one is often a single outlier. The slowest are shown beside.
    r = load(results_path, 50)
    slow = load(results_path, 100)
    row = functools.partial(ratio_row, slowest=slow)
    counted = load_instructions(sys.argv[4] if len(sys.argv) > 4 else None)
    rows = [
        row(r, "Insert 50,000 objects (ten Int64 attributes), save once, new SQLite file", "insert/Coherence",
                  "insert/GRDB", "raw GRDB, one prepared statement, one transaction", 1.5, 1.2,
                  instructions=instruction_ratio(counted, "insert", "Coherence")),
        row(r, "Fetch 200,000 such objects, read every attribute", "fetch/Coherence", "fetch/GRDB",
                  "GRDB `Row.fetchCursor`, columns by position", 2.0, 1.5,
                  instructions=instruction_ratio(counted, "fetch", "Coherence")),
        row(r, "PostgreSQL: insert 50,000 objects, save once, new schema", "insert/Postgres Coherence",
                  "insert/Postgres raw", "raw postgres-nio, multi-row INSERTs, one transaction", 2.0, 1.5),
        row(r, "PostgreSQL: fetch 200,000 such objects, read every attribute", "fetch/Postgres Coherence",
                  "fetch/Postgres raw", "postgres-nio, one SELECT, rows decoded into Int64s", 2.5, 2.0),
        row(r, "Change 100,000 objects, one `processPendingChanges()` and its notification", "change/Coherence",
                  "change/plain", "plain Swift class mutated and recorded in a Set", 3.0, 2.0,
                  instructions=instruction_ratio(counted, "change", "Coherence", baseline="plain")),
        row(r, "View context (with a fetched results controller) merges a background save of 10,000 updated objects",
                  "merge/merge", "merge/save", "the save itself", 1.5, 1.0),
        row(r, "Parent watching child, derived attribute: 10,000 servers vs 10", "watch/derived 10000",
                  "watch/derived 10", "the same at 10 servers", 1.5, 1.2),
        row(r, "Parent watching child at 10,000 servers: derived attribute vs the seed pattern (speed-up)",
                  "watch/derived 10000", "watch/pattern 10000", "each server observes every change and refilters",
                  1000, None, higher_is_better=True),
        row(r, "Fetch 20 of 10,000 objects sorted by a String (`fetchLimit = 20`), 100 times", "sortedFetch/Coherence",
                  "sortedFetch/unsorted", "the same without the sort", 1.5, None),
        row(r, "Fetched results controller, 1,000 single-object changes in 100,000 objects vs 1,000", "frc/100000", "frc/1000",
                  "the same at 1,000", 2.0, None),
    ]
    stall = slow.get("merge/automatic", {})
    stall_us = next((v for k, v in stall.items() if k.startswith("longest stall")), None)
    fault = r.get("faults/Coherence", {}).get("bytes per object")
    ids = r.get("faults/[Int64]", {}).get("bytes per object")
    lines = [
        "# Benchmarks",
        "",
        "Written by `Benchmarks/report` from one run of the benchmark package (`Benchmarks/`, ordo-one/benchmark):",
        "every workload ran beside its baseline in the same invocation. Times are the medians of the run's iterations",
        "on both sides of each ratio; the ratio of the slowest iterations is shown beside it (on this shared machine",
        "the slowest of ten is often a single outlier, on either side). The seed pattern runs fewer toggles per",
        "iteration at 1,000 and 10,000 servers (100 and 10); its times are scaled to 1,000 toggles.",
        "Regenerate with `Benchmarks/report`." + (
            " The ratios in parentheses count instructions instead (valgrind's callgrind, `Benchmarks/instructions`,"
            " at smaller sizes): they do not change with the machine's load, so a change can be judged by them on"
            " a shared machine." if counted else ""),
        "",
        f"Machine: {machine()}. Run: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}.",
        "",
        "| Workload | Coherence | Baseline (same run) | Ratio | Must reach | Aim | |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
        "Automatic merging in chunks (`automaticMergeBudget = .milliseconds(5)`), 10,000 updated objects: "
        f"longest wait for the view context's queue {fmt_time(stall_us)}; whole save and merge {fmt_time(time(r, 'merge/automatic'))}.",
        "",
    ]
    if fault is None or ids is None:
        lines += ["1,000,000 objects fetched as faults: bytes per object not measured (it needs glibc's `mallinfo2`).", ""]
    else:
        extra = fault - ids
        lines += [f"1,000,000 objects fetched as faults: {fault:,.0f} bytes per object, against {ids:,.0f} for a `[Int64]` "
                  f"of the same row IDs: {extra:,.0f} bytes above the baseline (must reach ≤ 200, aim ≤ 120: {'met, aim too' if extra <= 120 else ('met, aim missed' if extra <= 200 else '**missed**')}; "
                  f"allocator figures, each allocation's header included, that of the benchmark tool's malloc interposer too). "
                  f"Fetch time {fmt_time(time(r, 'faults/Coherence'))} against {fmt_time(time(r, 'faults/[Int64]'))}.", ""]
    read = (counted or {}).get("instructions", {}).get("attribute read")
    if read is not None:
        verdict = "met, aim too" if read <= 20 else ("met, aim missed" if read <= 45 else "**missed**")
        lines += [f"An attribute read of a loaded, unobserved object: {read:,.0f} instructions (callgrind: the inclusive "
                  f"cost of the property accessor, `ManagedObject._read`, over the {counted['rows']['fetch'] * 10:,} reads "
                  f"of fetch/Coherence; must reach ≤ 45, aim ≤ 20: {verdict}).", ""]
    lines += ["## Beside the other Swift ORMs", "",
              "The insert and fetch workloads, every side on the same rows, timed in the same run: raw GRDB (the",
              "baseline), GRDB records (a `Codable` struct, `FetchableRecord & PersistableRecord`), Fluent (fluent-kit",
              "with fluent-sqlite-driver) and Coherence. Each cell has its ratio to raw GRDB. " +
              (f"The instructions are counted by callgrind ({counted.get('tool', 'valgrind')}) in one run of each "
               "workload at the smaller size shown, after an uncounted warm-up: every thread, setup excluded."
               if counted else "Instructions were not counted in this run (`Benchmarks/instructions`)."), "",
              *peers_table(r, counted, [
                  ("insert", 50_000, "Insert {rows} items, one transaction, new SQLite file"),
                  ("fetch", 200_000, "Fetch {rows} items, read every column"),
              ]),
              ""]
    lines += remote_changes_section(r, counted, results_path)
    lines += postgres_section(r)
    lines += writers_section(results_path)
    lines += ["## Parent watching its child", "",
              "| Servers (100 items each) | Derived attribute | Seed pattern | Speed-up |", "|---|---|---|---|"]
    for n in [10, 1_000, 10_000]:
        d, p = time(r, f"watch/derived {n}"), time(r, f"watch/pattern {n}")
        speed = f"{p / d:,.0f}×" if d and p else "–"
        lines.append(f"| {n:,} | {fmt_time(d)} | {fmt_time(p)} | {speed} |")
    lines += ["", f"![Parent watching child scaling](Benchmarks/{os.path.basename(plot_path)})", "",
              "What each workload does is described in `Benchmarks/README.md`.", ""]
    open(markdown_path, "w").write("\n".join(lines))
    plot(r, plot_path)


if __name__ == "__main__":
    main()
