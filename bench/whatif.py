#!/usr/bin/env python3
"""docs/whatif.md's output blocks and the tables derived from them, from real hpmsim runs.

Every command the page shows is declared once, in BLOCKS below; the page shows it as declared
and this script runs it as declared. A block's region in the page is

    <!-- whatif: KEY -->
    ... the command and its output, generated ...
    <!-- /whatif -->

and a derived table's region is the same with the table's key (TABLES). The tables are computed
from the page's blocks as they stand after this run, so a run of some blocks (--only) keeps the
others and recomputes every table.

Deterministic: each command runs as `env -i OMP_NUM_THREADS=N hpmsim ... -- build/guest/bin/amg
...` from a work folder holding a copy of amg at that relative path (the guest's environment and
path go onto its stack, so another environment or path moves the cycles a little), at low
priority (`nice -n 10`).

Usage:
  bench/whatif.py --hpmsim BUILD/tools/hpmsim/hpmsim --bin BUILD/guest/bin [--doc docs/whatif.md]
                  [--work DIR] [--only [KEY ...]] [--check]
  --check: run the blocks (--only) and fail unless the page's blocks and tables are what the runs
           and the page's blocks give, byte for byte (the documentation test); writes nothing.
The 64-thread sweeps take minutes each: run them here at every change of the timing model.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

AMG = "build/guest/bin/amg"

# (key, the guest's environment, hpmsim's arguments with the program as AMG). One declaration per
# command; the page shows each as `env -i ENVIRONMENT hpmsim ARGUMENTS`.
T4, T64 = "OMP_NUM_THREADS=4", "OMP_NUM_THREADS=64"
NO_WIDTHS = "--set l2.slice_bytes_per_cycle=0 --set l2.core_port_bytes_per_cycle=0"
BLOCKS = [
    ("pipes-4-30", T4, f"sweep --set core.integer_pipes=1,2,4 -- {AMG} 30 2"),
    ("sq-4-30", T4, f"sweep --set core.store_queue_entries=10,20,40 -- {AMG} 30 2"),
    ("drain-4-30", T4,
     "sweep --set core.store_drain_cycles=2,8 --set core.store_queue_entries=10,20,40 "
     f"-- {AMG} 30 2"),
    ("ack-4-30", T4,
     "sweep --set core.store_ack_cycles=0,82,120,160,320 "
     f"--set core.store_queue_entries=10,20,40 -- {AMG} 30 2"),
    ("ack160-pipes-4-30", T4,
     f"sweep --set core.store_ack_cycles=160 --set core.integer_pipes=1,2 -- {AMG} 30 2"),
    ("profile-4-30", T4,
     f"run --mode profile --profile-interval 100000 --profile-prefix amg4 -- {AMG} 30 2"),
    ("pipes-64-30", T64, f"sweep --set core.integer_pipes=1,2,4 -- {AMG} 30 2"),
    ("pipes-64-50", T64, f"sweep --set core.integer_pipes=1,2,4 -- {AMG} 50 2"),
    ("sq-64-30", T64, f"sweep --set core.store_queue_entries=10,20,40 -- {AMG} 30 2"),
    ("sq-64-50", T64, f"sweep --set core.store_queue_entries=10,20,40 -- {AMG} 50 2"),
    ("nowidths-pipes-64-30", T64, f"sweep {NO_WIDTHS} --set core.integer_pipes=1,2 -- {AMG} 30 2"),
    ("passive-pipes-64-30", T64 + " OMP_WAIT_POLICY=passive",
     f"sweep --set core.integer_pipes=1,2 -- {AMG} 30 2"),
    ("ack160-64-30", T64,
     "sweep --set core.store_ack_cycles=160 --set core.store_queue_entries=10,20,40 "
     f"-- {AMG} 30 2"),
    ("ack160-pipes-64-30", T64,
     f"sweep --set core.store_ack_cycles=160 --set core.integer_pipes=1,2 -- {AMG} 30 2"),
    ("halfwidths-pipes-64-30", T64,
     "sweep --set l2.slice_bytes_per_cycle=8 --set l2.core_port_bytes_per_cycle=8 "
     f"--set core.integer_pipes=1,2 -- {AMG} 30 2"),
    ("widths-64-30", T64,
     "sweep --set l2.slice_bytes_per_cycle=0,16 --set l2.core_port_bytes_per_cycle=0,16 "
     f"-- {AMG} 30 2"),
]
BLOCK = {key: (env, args) for key, env, args in BLOCKS}

# The test's block: the cheapest (4 threads, N = 30, three points).
CHECKED = "pipes-4-30"


def shown(key):
    env, args = BLOCK[key]
    return f"env -i {env} hpmsim {args}"


def wrap(command, width=96):
    """The command as the page shows it, continued with backslashes past the width; an option
    stays on one line with its value, and `--` with the program and its arguments."""
    words, units = command.split(" "), []
    for i, word in enumerate(words):
        if word == "--":
            units.append(" ".join(words[i:]))
            break
        if units and units[-1].startswith("--") and " " not in units[-1] and \
                not word.startswith("-"):
            units[-1] += " " + word
        else:
            units.append(word)
    lines, line = [], ""
    for unit in units:
        if line and len(line) + 1 + len(unit) > width:
            lines.append(line + " \\")
            line = "    " + unit
        else:
            line = f"{line} {unit}" if line else unit
    return lines + [line]


def run(key, hpmsim, work):
    env, args = BLOCK[key]
    argv = ["nice", "-n", "10", "env", "-i"] + env.split() + [hpmsim] + args.split()
    done = subprocess.run(argv, cwd=work, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"whatif: {shown(key)} failed ({done.returncode}):\n{done.stderr}")
    if key.startswith("profile"):  # its summary and top functions, on stderr
        return [line for line in done.stderr.splitlines() if line.strip()]
    return done.stdout.splitlines()


def block_text(key, output):
    lines = ["    " + l for l in wrap(shown(key))] + [""] + ["    " + l for l in output]
    return "\n".join(l.rstrip() for l in lines) + "\n"


REGION = re.compile(r"(<!-- whatif: ([\w-]+) -->\n)(.*?)(<!-- /whatif -->)", re.S)


def regions(doc):
    return {m.group(2): m.group(3) for m in REGION.finditer(doc)}


def replace(doc, key, text):
    def sub(m):
        return m.group(1) + text + m.group(4) if m.group(2) == key else m.group(0)

    new = REGION.sub(sub, doc)
    if f"<!-- whatif: {key} -->" not in doc:
        sys.exit(f"whatif: the page has no region <!-- whatif: {key} -->")
    return new


def sweep_rows(text):
    """A sweep block's rows as dicts from its header's names to integers (speedup dropped)."""
    lines = [l.strip() for l in text.splitlines()]
    at = next(i for i, l in enumerate(lines) if l.endswith("speedup") and "cycles" in l)
    names = lines[at].split()
    rows = []
    for line in lines[at + 1:]:
        if not line:
            break
        values = line.split()
        rows.append({n: (int(v) if n != "speedup" else v) for n, v in zip(names, values)})
    return rows


def pct(new, old):
    return f"{(new - old) * 100.0 / old:+.1f} %"


def pipes_table(blocks):
    out = ["| threads, N | pipes | matvec | relax | axpy | the three phases | matvec and relax |",
           "|---|---|---|---|---|---|---|"]
    for key, label in [("pipes-4-30", "4, 30"), ("pipes-64-30", "64, 30"),
                       ("pipes-64-50", "64, 50"),
                       ("nowidths-pipes-64-30", "64, 30, no crossbar widths"),
                       ("halfwidths-pipes-64-30", "64, 30, half crossbar widths"),
                       ("passive-pipes-64-30", "64, 30, passive waiting"),
                       ("ack160-pipes-4-30", "4, 30, store_ack_cycles=160"),
                       ("ack160-pipes-64-30", "64, 30, store_ack_cycles=160")]:
        if not blocks.get(key, "").strip():
            continue  # not run yet
        rows = sweep_rows(blocks[key])
        base = rows[0]
        for row in rows[1:]:
            cells = [pct(row[p], base[p]) for p in ("matvec", "relax", "axpy")]
            cells.append(pct(row["matvec"] + row["relax"] + row["axpy"],
                             base["matvec"] + base["relax"] + base["axpy"]))
            cells.append(pct(row["matvec"] + row["relax"], base["matvec"] + base["relax"]))
            out.append(f"| {label} | {row['core.integer_pipes']} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def ack_table(blocks):
    out = ["| threads | store_ack_cycles | entries | cycles | matvec | relax | total | matvec |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for key, threads in [("ack-4-30", 4), ("ack160-64-30", 64)]:
        if not blocks.get(key, "").strip():
            continue  # not run yet
        rows = sweep_rows(blocks[key])
        for row in rows:
            hold = row["core.store_ack_cycles"]
            base = next(r for r in rows if r["core.store_ack_cycles"] == hold
                        and r["core.store_queue_entries"] == 20)
            changes = ["", ""] if row is base else [pct(row["cycles"], base["cycles"]),
                                                     pct(row["matvec"], base["matvec"])]
            out.append(f"| {threads} | {hold} | {row['core.store_queue_entries']} | "
                       f"{row['cycles']:,} | {row['matvec']:,} | {row['relax']:,} | "
                       + " | ".join(changes) + " |")
    return "\n".join(out) + "\n"


TABLES = {"pipes-table": pipes_table, "ack-table": ack_table}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hpmsim", required=True)
    p.add_argument("--bin", required=True, help="the build's guest binaries (BUILD/guest/bin)")
    p.add_argument("--doc", default=os.path.join(os.path.dirname(__file__), "..", "docs",
                                                 "whatif.md"))
    p.add_argument("--work", help="work folder (a temporary one by default)")
    p.add_argument("--only", nargs="*", choices=list(BLOCK),
                   help="run these blocks alone (none: recompute the tables from the page)")
    p.add_argument("--check", action="store_true")
    a = p.parse_args()
    hpmsim = os.path.abspath(a.hpmsim)
    work = a.work or tempfile.mkdtemp(prefix="whatif.")
    os.makedirs(os.path.join(work, os.path.dirname(AMG)), exist_ok=True)
    shutil.copy(os.path.join(a.bin, "amg"), os.path.join(work, AMG))

    with open(a.doc) as f:
        current = f.read()
    def with_tables(doc):
        blocks = regions(doc)
        for key, make in TABLES.items():
            doc = replace(doc, key, make(blocks))
        return doc

    doc = current
    for key in list(BLOCK) if a.only is None else a.only:
        print(f"whatif: {shown(key)}", file=sys.stderr, flush=True)
        doc = with_tables(replace(doc, key, block_text(key, run(key, hpmsim, work))))
        if not a.check:  # each block as it comes: a long regeneration keeps what it has done
            with open(a.doc, "w") as f:
                f.write(doc)
    doc = with_tables(doc)
    if not a.work:
        shutil.rmtree(work)

    if a.check:
        if doc != current:
            want, have = doc.splitlines(), current.splitlines()
            line = next((i for i, (w, h) in enumerate(zip(want, have)) if w != h),
                        min(len(want), len(have)))
            sys.exit(f"{a.doc}:{line + 1}: differs from the runs; regenerate it with "
                     f"bench/whatif.py (`ninja whatif_doc` for the 4-thread block)\n"
                     f"  page: {have[line] if line < len(have) else '(end of file)'}\n"
                     f"  runs: {want[line] if line < len(want) else '(end of file)'}")
        ran = " ".join(list(BLOCK) if a.only is None else a.only)
        print(f"{a.doc}: its blocks ({ran}) and tables match the runs")
    else:
        with open(a.doc, "w") as f:
            f.write(doc)
        print(f"{a.doc}: {'regenerated' if doc != current else 'up to date'}")


if __name__ == "__main__":
    main()
