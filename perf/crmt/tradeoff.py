#!/usr/bin/env python3
"""CRMT trade-off over the ghost width h (comm/Crmt.hpp) on the scaling decks.

    tradeoff.py --boreas build/openmp/bin/boreas --ranks 2 4 --widths 1 2 3 4 5 6 \
        --overlap none interior --steps 60 --repeat 3

For every (deck, rank count, overlap, h) runs perf/scaling/run_scaling.py's configuration
--repeat times and keeps the median of each per-step figure: messages, bytes, MPI time (MPI calls
+ wait + pack + unpack, slowest rank), redundant ghost cells, compute and step time. Writes
<out>/tradeoff.json, .csv and .png. Exits with status 1 when a configuration's fields_hash
differs between ghost widths (CRMT must not change a bit).
"""
import argparse
import csv
import json
import os
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scaling"))
from run_scaling import row_of, run_one  # noqa: E402

FIGURES = ["messages_per_step", "bytes_per_step", "mpi_time", "W", "pack", "unpack", "C_NB", "C_B",
           "redundant_cells_per_step", "step_time_s"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--boreas", help="the boreas executable (not needed with --replot)")
    p.add_argument("--modes", nargs="+", default=["strong", "weak"], choices=["strong", "weak"])
    p.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    p.add_argument("--widths", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6])
    p.add_argument("--overlap", nargs="+", default=["none", "interior"])
    p.add_argument("--steps", type=int, default=60, help="a multiple of every width keeps cycles whole")
    p.add_argument("--cells", type=int, nargs=3)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--mpiexec", default="mpiexec")
    p.add_argument("--out", default=os.path.join(HERE, "results"))
    p.add_argument("--replot", action="store_true")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "tradeoff.json")
    if args.replot:
        with open(path) as f:
            rows = json.load(f)
        plot(rows, args.out)
        return
    if not args.boreas:
        p.error("--boreas is required (unless --replot)")
    scratch = tempfile.mkdtemp(prefix="boreas_crmt_")
    rows, ok = [], True
    for mode in args.modes:
        args.mode = mode
        for n in args.ranks:
            for overlap in args.overlap:
                hashes = set()
                for h in args.widths:
                    reps = []
                    for i in range(args.repeat):
                        rep = run_one(args, n, overlap, os.path.join(scratch, f"{mode}_{n}_{overlap}_{h}_{i}"), h)
                        step = rep["parallel"]["timers"]["slowest_update"] / rep["steps"]
                        reps.append(row_of(rep, mode, overlap, n, h, False, step))
                    row = dict(reps[0])
                    for k in FIGURES:
                        row[k] = statistics.median(r[k] for r in reps)
                    row["runs"] = len(reps)
                    hashes |= {r["fields_hash"] for r in reps}
                    rows.append(row)
                    print(json.dumps({k: row[k] for k in ["mode", "ranks", "overlap", "ghost_width"] + FIGURES}),
                          flush=True)
                if len(hashes) != 1:
                    print(f"{mode} {n} ranks {overlap}: fields_hash differs between widths: {sorted(hashes)}")
                    ok = False
    shutil.rmtree(scratch, ignore_errors=True)
    with open(path, "w") as f:
        json.dump(rows, f, indent=2)
    with open(os.path.join(args.out, "tradeoff.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    plot(rows, args.out)
    sys.exit(0 if ok else 1)


def plot(rows, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not available: no plot", file=sys.stderr)
        return
    panels = [("messages_per_step", "messages per step (all ranks)", 1),
              ("bytes_per_step", "MB per step (all ranks)", 1e-6),
              ("mpi_time", "MPI time per step [ms], slowest rank", 1e3),
              ("redundant_cells_per_step", "redundant cells per step / owned cells", None),
              ("step_time_s", "time per step [ms], slowest rank", 1e3),
              ("W", "wait per step [ms], slowest rank", 1e3)]
    fig, axes = plt.subplots(2, 3, figsize=(16, 8.5))
    series = dict.fromkeys((r["mode"], r["ranks"], r["overlap"]) for r in rows)
    for a, (key, label, scale) in zip(axes.ravel(), panels):
        for mode, n, overlap in series:
            rs = sorted((r for r in rows if (r["mode"], r["ranks"], r["overlap"]) == (mode, n, overlap)),
                        key=lambda r: r["ghost_width"])
            y = [r[key] / r["cells"] if scale is None else r[key] * scale for r in rs]
            a.plot([r["ghost_width"] for r in rs], y, "o-", label=f"{mode}, {n} ranks, {overlap}")
        a.set_xlabel("ghost width h (exchange every k = h steps)")
        a.set_ylabel(label)
        a.set_ylim(bottom=0)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("CRMT trade-off over h (medians; 2-core machine, ranks oversubscribed beyond 2)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "tradeoff.png"), dpi=100)


if __name__ == "__main__":
    main()
