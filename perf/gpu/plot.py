#!/usr/bin/env python3
"""GPU kernel figure from perf/gpu/run.sh's bench.jsonl: perf/gpu/plot.py BENCH.jsonl [OUT.png]

Bars: median MLUPS per D3Q19 kernel, double and float. Lines: what the memory allows a kernel that
moves 2 x 19 populations per update (MLUPS = bandwidth / bytes per update) at the bandwidth of
the binary's own copy kernel and of Kokkos::deep_copy (cudaMemcpy), both measured by the same
run, and issue 16's FP32 target (18,000 MLUPS on an H100). Prints the table it plots.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    path = sys.argv[1]
    png = sys.argv[2] if len(sys.argv) > 2 else os.path.splitext(path)[0] + ".png"
    rows = [json.loads(line) for line in open(path) if line.strip()]
    rows = [r for r in rows if r.get("kind") == "kernel" and r["lattice"] == "D3Q19" and r["layout"] == "soa"
            and r.get("merge_form", "slabs") == "slabs" and r["mlups"] > 100]
    kernels = list(dict.fromkeys(r["kernel"] for r in rows))
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.38
    print("| kernel | precision | MLUPS | GB/s moved | / copy kernel | / deep_copy |")
    print("|---|---|---|---|---|---|")
    for i, (precision, colour) in enumerate([("double", "tab:blue"), ("float", "tab:orange")]):
        ys = []
        for k in kernels:
            hit = [r for r in rows if r["kernel"] == k and r["precision"] == precision]
            ys.append(hit[0]["mlups"] if hit else 0)
            if hit:
                r = hit[0]
                moved = r["mlups"] * r["variant_bytes_per_update"] / 1e3
                print(f"| {k} | {precision} | {r['mlups']:.0f} | {moved:.0f} | {r['copy_fraction']:.2f} | "
                      f"{r['deep_copy_fraction']:.2f} |")
        ax.bar([x + i * width for x in range(len(kernels))], ys, width, color=colour, label=f"{precision}")
        ref = [r for r in rows if r["precision"] == precision][0]
        two_lattice = 2 * 19 * (8 if precision == "double" else 4)
        for gbs, style, what in [(ref["deep_copy_gbs"], "-", "deep_copy"), (ref["stream_copy_gbs"], ":", "copy kernel")]:
            ax.axhline(gbs * 1e3 / two_lattice, color=colour, ls=style, lw=1,
                       label=f"{precision}: {what} {gbs:.0f} GB/s / {two_lattice} B")
    ax.axhline(18000, color="black", ls="--", lw=0.8, label="issue 16 FP32 target 18,000")
    ax.set_xticks([x + width / 2 for x in range(len(kernels))])
    ax.set_xticklabels(kernels)
    ax.set_ylabel("MLUPS (median of 5 x 20 steps)")
    device = rows[0]["device"].split(" capability")[0].split("] ")[-1]  # Kokkos's "Kokkos::Cuda[ 0 ] NAME capability ..."
    ax.set_title(f"boreas-bench D3Q19 {rows[0]['cells'][0]}^3, {device}, {rows[0]['git_commit']}")
    ax.legend(fontsize=7, loc="upper left", ncol=2)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"\nwrote {png}")


if __name__ == "__main__":
    main()
