#!/usr/bin/env python3
"""GPU kernel figures from perf/gpu/run.sh's bench.jsonl: perf/gpu/plot.py BENCH.jsonl [OUT.png]

Bars: median MLUPS per D3Q19 kernel, double and float. Lines: what the memory allows a kernel that
moves 2 x 19 populations per update (MLUPS = bandwidth / bytes per update) at the bandwidth of
the binary's own copy kernel and of Kokkos::deep_copy (cudaMemcpy), both measured by the same
run, and issue 16's FP32 target (18,000 MLUPS on an H100). Prints the table it plots. Merged
kernels are named with their merge form (slabs, or tiles: CUDA's default); lines of the default
tile only (the `sweeps` phase's other tiles and AoSoA bundles are left out); a kernel measured in
several lines shows the median of their MLUPS.
Where the file holds `launch_bounds` lines (run.sh's `bounds` phase), also OUT-shapes.png: per
step and precision, MLUPS per step form (full, plain, split), launch bound and shape (Kokkos's
RangePolicy block, teams of 128 / 256 threads in cell order or a team per row), against the same
deep_copy line and issue 16's targets; and their table.
"""
import collections
import json
import os
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    path = sys.argv[1]
    # By default in the working directory: the run tool's returned files are read-only, and so
    # is their folder.
    png = sys.argv[2] if len(sys.argv) > 2 else os.path.splitext(os.path.basename(path))[0] + ".png"
    lines = [json.loads(line) for line in open(path) if line.strip()]
    shapes = [r for r in lines if r.get("kind") == "launch_bounds"]
    rows = [r for r in lines if r.get("kind") == "kernel" and r["lattice"] == "D3Q19" and r["layout"] == "soa"]
    if rows:  # the tile most lines ran with: the default one
        default_tile = collections.Counter(r.get("tile") for r in rows).most_common(1)[0][0]
        rows = [r for r in rows if r.get("tile") == default_tile]
    if shapes:
        plot_shapes(shapes, rows, os.path.splitext(png)[0] + "-shapes.png")
    if not rows:
        return
    kernels = list(dict.fromkeys(kernel_name(r) for r in rows))
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.38
    print("| kernel | precision | MLUPS (median) | GB/s moved | / copy kernel | / deep_copy | lines |")
    print("|---|---|---|---|---|---|---|")
    for i, (precision, colour) in enumerate([("double", "tab:blue"), ("float", "tab:orange")]):
        ys = []
        for k in kernels:
            hit = [r for r in rows if kernel_name(r) == k and r["precision"] == precision]
            mlups = statistics.median(r["mlups"] for r in hit) if hit else 0
            ys.append(mlups)
            if hit:
                r = hit[0]
                moved = mlups * r["variant_bytes_per_update"] / 1e3
                # files from before 2026-11-25 have no deep_copy figures, nor copy_traffic_gbs (= the copy's on GPUs)
                deep = f"{moved / r['deep_copy_gbs']:.2f}" if "deep_copy_gbs" in r else "-"
                print(f"| {k} | {precision} | {mlups:.0f} | {moved:.0f} | "
                      f"{moved / r.get('copy_traffic_gbs', r['stream_copy_gbs']):.2f} | {deep} | {len(hit)} |")
        refs = [r for r in rows if r["precision"] == precision]
        if not refs:  # one precision measured only
            continue
        ax.bar([x + i * width for x in range(len(kernels))], ys, width, color=colour, label=f"{precision}")
        ref = refs[0]
        two_lattice = bytes_per_update(precision)
        lines = [(ref["deep_copy_gbs"], "-", "deep_copy")] if "deep_copy_gbs" in ref else []
        for gbs, style, what in lines + [(ref["stream_copy_gbs"], ":", "copy kernel")]:
            ax.axhline(gbs * 1e3 / two_lattice, color=colour, ls=style, lw=1,
                       label=f"{precision}: {what} {gbs:.0f} GB/s / {two_lattice} B")
    ax.axhline(18000, color="black", ls="--", lw=0.8, label="issue 16 FP32 target 18,000")
    ax.set_xticks([x + width / 2 for x in range(len(kernels))])
    ax.set_xticklabels(kernels)
    ax.set_ylabel(f"MLUPS (median of {rows[0]['repeats']} x {rows[0]['steps']} steps)")
    ax.set_title(f"boreas-bench D3Q19 {rows[0]['cells'][0]}^3, {device_name(rows[0])}, {rows[0]['git_commit']}")
    ax.legend(fontsize=7, loc="upper left", ncol=2)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"\nwrote {png}")


def kernel_name(r):
    return f"{r['kernel']} {r['merge_form']}" if "merge_form" in r else r["kernel"]


def bytes_per_update(precision):  # a D3Q19 two-lattice step: 19 populations read and written
    return 2 * 19 * (8 if precision == "double" else 4)


def device_name(r):
    return r["device"].split(" capability")[0].split("] ")[-1]  # Kokkos's "Kokkos::Cuda[ 0 ] NAME capability ..."


def shape_name(r):
    team = "Kokkos block" if r["team_size"] == 0 else f"team {r['team_size']} {r['team_map']}"
    return f"{r.get('step_form', 'full')}, {r['bounds']}, {team}"


def plot_shapes(shapes, kernel_rows, png):
    cases = list(dict.fromkeys((r["kernel"], r["precision"]) for r in shapes))
    names = list(dict.fromkeys(shape_name(r) for r in shapes))
    fig, axes = plt.subplots(len(cases), 1, figsize=(max(11, 0.22 * len(names)), 2.6 * len(cases)), squeeze=False)
    print("| step | precision | form | bounds | team size | team map | MLUPS | x Kokkos's launch | / deep_copy |")
    print("|---|---|---|---|---|---|---|---|---|")
    for ax, (kernel, precision) in zip(axes[:, 0], cases):
        deep = [r["deep_copy_gbs"] for r in kernel_rows if r["precision"] == precision]
        ys = []
        for name in names:
            hit = [r for r in shapes if (r["kernel"], r["precision"]) == (kernel, precision) and shape_name(r) == name]
            ys.append(hit[0]["mlups"] if hit else 0)
            for r in hit:
                of_copy = f"{r['gbs_moved'] / deep[0]:.2f}" if deep else "-"
                print(f"| {kernel} | {precision} | {r.get('step_form', 'full')} | {r['bounds']} | {r['team_size']} | "
                      f"{r['team_map']} | "
                      f"{r['mlups']:.0f} | {r.get('over_default', float('nan')):.2f} | {of_copy} |")
        ax.bar(range(len(names)), ys, color="tab:blue" if precision == "double" else "tab:orange")
        if deep:
            ax.axhline(deep[0] * 1e3 / bytes_per_update(precision), color="black", lw=1,
                       label=f"deep_copy {deep[0]:.0f} GB/s / {bytes_per_update(precision)} B")
            if precision == "double":  # issue 16: FP64 at 90 % of the copy bandwidth
                ax.axhline(0.9 * deep[0] * 1e3 / bytes_per_update(precision), color="black", ls="--", lw=0.8,
                           label="issue 16 FP64 target: 90 % of it")
        if precision == "float":
            ax.axhline(18000, color="black", ls="--", lw=0.8, label="issue 16 FP32 target 18,000 (H100)")
        ax.legend(fontsize=7, loc="upper right")
        ax.set_title(f"{kernel} {precision}", fontsize=9)
        ax.set_ylabel("MLUPS")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names if ax is axes[-1, 0] else [], rotation=60, ha="right", fontsize=7)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(f"boreas-bench --launch-bounds, D3Q19 BGK {shapes[0]['cells'][0]}^3, {device_name(shapes[0])}, "
                 f"{shapes[0]['git_commit']}", fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"\nwrote {png}\n")


if __name__ == "__main__":
    main()
