#!/usr/bin/env python3
"""Plot of perf/amr_leaf_kernels.sh results: perf/amr_leaf_plot.py RESULTS.jsonl OUT.png

The leaf step's MLUPS (lbm timer) over the dense kernel's (boreas-bench ab_pull in the same
runs) per leaf size, one bar per (box size, build), medians over the runs, with the issue's
0.7x line. Lines without "build" count as one build.
"""
import json
import sys
from statistics import median

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LEAVES = ["leaves_4", "leaves_8", "leaves_16"]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    runs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    groups = {}  # (size, build) -> runs, in the order first seen
    for r in runs:
        groups.setdefault((r["size"], r.get("build", "")), []).append(r)
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(groups)
    for k, ((size, build), rs) in enumerate(groups.items()):
        dense = median(r["mlups"] for r in rs if r["case"] == "bench_ab_pull")
        ratios = []
        for case in LEAVES:
            step = [size**3 * r["steps"] / r["lbm_s"] / 1e6 for r in rs if r["case"] == case]
            ratios.append(median(step) / dense if step else 0.0)
        xs = [i + (k - (len(groups) - 1) / 2) * width for i in range(len(LEAVES))]
        bars = ax.bar(xs, ratios, width, label=f"{build} {size}^3 box (dense {dense:.1f} MLUPS)".strip())
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
    ax.axhline(0.7, color="black", linestyle="--", linewidth=1, label="issue 13: 0.7x")
    ax.set_xticks(range(len(LEAVES)), [c.replace("leaves_", "") + "^3 leaves" for c in LEAVES])
    ax.set_ylabel("leaf step MLUPS / dense ab_pull MLUPS")
    ax.set_title("AMR leaf step against the dense kernel, D3Q19 TRT, one thread")
    ax.set_ylim(0, 1.7)
    ax.legend(fontsize=7, loc="upper left", ncol=2)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
