#!/usr/bin/env python3
"""Kernel table and plot from perf/kernel_sweep.sh results: perf/kernel_plot.py RESULTS.jsonl

Prints a Markdown table (variant x layout x size x precision: MLUPS, the variant's bytes per
update, roofline_fraction: MLUPS over the variant's own roofline for results from 2026-11-22 on,
MLUPS x two-lattice bytes / copy bandwidth before) and writes perf/results/kernels.png next to the
results file.
"""
import json
import os
import signal
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def label(r):
    layout = r.get("layout", "soa")
    if layout == "aosoa":
        layout += f"{r.get('bundle', '')}"
    return layout


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
    path = sys.argv[1]
    rows = [json.loads(line) for line in open(path) if line.strip()]
    rows = [r for r in rows if r.get("kind") == "kernel"]
    print("| kernel | layout | cells | precision | MLUPS | min-max | variant B/update | copy GB/s | "
          "roofline fraction | load after |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['kernel']} | {label(r)} | {r['cells'][0]}^3 | {r['precision']} | {r['mlups']:.2f} | "
              f"{min(r['mlups_all']):.1f}-{max(r['mlups_all']):.1f} | {r['variant_bytes_per_update']:.0f} | "
              f"{r['stream_copy_gbs']:.1f} | {r['roofline_fraction']:.3f} | {r.get('load_after', '?')} |")

    kernels = list(dict.fromkeys(r["kernel"] for r in rows))
    series = list(dict.fromkeys((label(r), r["cells"][0]) for r in rows))
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), sharey=True)
    for ax, precision in zip(axes, ["double", "float"]):
        width = 0.8 / max(1, len(series))
        for i, (layout, n) in enumerate(series):
            ys = []
            for k in kernels:
                hit = [r for r in rows if r["kernel"] == k and label(r) == layout and r["cells"][0] == n
                       and r["precision"] == precision]
                ys.append(hit[0]["roofline_fraction"] if hit else 0)
            if any(ys):
                ax.bar([x + i * width for x in range(len(kernels))], ys, width, label=f"{layout} {n}^3")
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(kernels))])
        ax.set_xticklabels(kernels, rotation=20)
        ax.set_title(f"D3Q19 {precision}, {rows[0]['backend']} x{rows[0]['threads']}")
        ax.axhline(1.0, color="grey", lw=0.8, ls="--")
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("fraction of the variant's own roofline")
    handles, labels = {}, {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    axes[1].legend(handles.values(), handles.keys(), fontsize=8, loc="upper right")
    fig.suptitle(f"boreas-bench, {rows[0].get('device', '')}, commit {rows[0].get('git_commit', '?')}")
    fig.tight_layout()
    png = os.path.join(os.path.dirname(os.path.abspath(path)), "kernels.png")
    fig.savefig(png, dpi=110)
    print(f"\nwrote {png}")


if __name__ == "__main__":
    main()
