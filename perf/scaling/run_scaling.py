#!/usr/bin/env python3
"""Strong and weak scaling of boreas over a list of rank counts and overlap strategies.

    run_scaling.py --boreas build/openmp/drivers/boreas --mode strong --ranks 1 2 4 8 \
        --overlap none interior streams systolic --out perf/scaling/results

Runs `mpiexec -n N boreas DECK` per (N, overlap), reads each report.json and writes
<out>/<mode>.csv, <out>/<mode>.json and <out>/<mode>.png (speed-up or efficiency, and the seed 001
terms C_B, C_NB, M, W of the slowest rank). Timings are best of --repeat runs (seed 001).
"""
import argparse
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def weak_cells(ranks):
    # Split the growth over y and z (x is the unit-stride axis and stays whole).
    py = 1
    while py * py < ranks:
        py *= 2
    py = min(py, ranks)
    while ranks % py:
        py -= 1
    return [64, 64 * py, 64 * (ranks // py)], [1, py, ranks // py]


def run_one(args, ranks, overlap, outdir):
    deck = os.path.join(HERE, args.mode + ".toml")
    sets = ["--set", f'parallel.overlap="{overlap}"', "--set", f"simulation.steps={args.steps}"]
    if args.mode == "weak":
        cells, dims = weak_cells(ranks)
        sets += ["--set", f"domain.cells={cells}".replace(" ", ""),
                 "--set", f"parallel.dims={dims}".replace(" ", "")]
    cmd = [args.mpiexec, "-n", str(ranks), "--oversubscribe", args.boreas, deck, "--quiet",
           "--output-dir", outdir] + sets
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OMP_PROC_BIND="false",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    subprocess.run(cmd, check=True, env=env)
    with open(os.path.join(outdir, "report.json")) as f:
        return json.load(f)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--boreas", required=True)
    p.add_argument("--mode", choices=["strong", "weak"], default="strong")
    p.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    p.add_argument("--overlap", nargs="+", default=["none", "nonblocking", "interior", "streams", "systolic"])
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--threads", type=int, default=1, help="OpenMP threads per rank")
    p.add_argument("--mpiexec", default="mpiexec")
    p.add_argument("--out", default=os.path.join(HERE, "results"))
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)

    rows = []
    for overlap in args.overlap:
        for n in args.ranks:
            best = None
            for r in range(args.repeat):
                rep = run_one(args, n, overlap, os.path.join(args.out, f"{args.mode}_{overlap}_{n}"))
                if best is None or rep["wall_time_s"] < best["wall_time_s"]:
                    best = rep
            par = best["parallel"]
            step = par.get("time_per_step_s", {})
            term = lambda k: step.get(k, {}).get("slowest_rank", 0.0)
            rows.append({
                "mode": args.mode, "overlap": overlap, "ranks": n,
                "cells": best["fluid_cells"], "mlups": best["mlups"],
                "step_time_s": (best["timing_s"]["lbm"] + best["timing_s"]["boundaries"]) / best["steps"],
                "C_B": term("C_B"), "C_NB": term("C_NB"), "M": term("M"), "W": term("W"),
                "pack": term("pack"), "unpack": term("unpack"),
                "regime": par.get("model", {}).get("regime", "single_rank"),
                "load_imbalance": par["load_imbalance"], "fields_hash": best["fields_hash"],
            })
            print(json.dumps(rows[-1]), flush=True)

    with open(os.path.join(args.out, args.mode + ".json"), "w") as f:
        json.dump(rows, f, indent=2)
    with open(os.path.join(args.out, args.mode + ".csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    plot(rows, args)


def plot(rows, args):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not available: no plot", file=sys.stderr)
        return
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for overlap in args.overlap:
        rs = sorted((r for r in rows if r["overlap"] == overlap), key=lambda r: r["ranks"])
        base = next((r for r in rs if r["ranks"] == rs[0]["ranks"]), None)
        n = [r["ranks"] for r in rs]
        if args.mode == "strong":
            y = [base["step_time_s"] / r["step_time_s"] * base["ranks"] for r in rs]
            a.set_ylabel("speed-up (relative to %d rank)" % base["ranks"])
        else:
            y = [base["step_time_s"] / r["step_time_s"] for r in rs]
            a.set_ylabel("weak-scaling efficiency")
        a.plot(n, y, "o-", label=overlap)
    a.set_xlabel("ranks")
    a.set_xscale("log", base=2)
    a.legend()
    a.set_title(f"{args.mode} scaling")
    rs = [r for r in rows if r["ranks"] == max(args.ranks)]
    x = range(len(rs))
    bottom = [0.0] * len(rs)
    for key in ["C_B", "C_NB", "W", "pack", "unpack"]:
        vals = [r[key] * 1e3 for r in rs]
        b.bar(x, vals, bottom=bottom, label=key)
        bottom = [p + v for p, v in zip(bottom, vals)]
    b.plot(x, [r["M"] * 1e3 for r in rs], "k_", markersize=30, label="M")
    b.set_xticks(list(x))
    b.set_xticklabels([r["overlap"] for r in rs])
    b.set_ylabel("ms per step, slowest rank")
    b.set_title(f"seed 001 terms at {max(args.ranks)} ranks")
    b.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, args.mode + ".png"), dpi=120)


if __name__ == "__main__":
    main()
