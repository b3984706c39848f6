#!/usr/bin/env python3
"""Markdown table of boreas-bench JSONL results: perf/table.py RESULTS.jsonl [...]

copy fraction: the variant's traffic (variant_bytes_per_update) at its MLUPS over the STREAM copy's
actual traffic (copy traffic GB/s: on host backends the counted read+write x 1.5 for the stores'
write-allocate reads), both measured by the same binary; deep_copy fraction (device backends): over
Kokkos::deep_copy's bandwidth; roofline fraction: over its own steps without collision. Files from
before a field existed show '-' for it. A merged kernel that took single steps is marked so, a run
whose density left 0.1-10 x the reference "DIVERGED"."""
import json
import signal
import sys


def number(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
for path in sys.argv[1:]:
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]  # Kokkos may print warnings
    for r in rows:
        if r["kind"] == "reference":
            print(f"reference ({r['precision']}, {r['elements_per_stream']} elements/stream): "
                  f"copy {r['stream_copy_gbs']:.1f} GB/s, 19-stream in-place {r['inplace_gbs']:.1f} GB/s "
                  f"(read+write counted), load {r.get('load_before', '?')}")
    print()
    print("| lattice | precision | collision | cells | kernel | MLUPS (median) | min-max | copy traffic GB/s | "
          "copy fraction | deep_copy fraction | roofline MLUPS | roofline fraction | load after (1/5/15 min) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r["kind"] != "kernel":
            continue
        cells = "x".join(str(c) for c in r["cells"])
        kernel = r["kernel"]
        if r.get("steps_swept_together") == 1 and kernel.startswith("merged"):
            kernel += " (single steps)"  # no slabs on this backend or box: measured as its single step
        if r.get("healthy") is False:
            kernel += " (DIVERGED)"
        print(f"| {r['lattice']} | {r['precision']} | {r.get('collision', 'bgk')} | {cells} | {kernel} | "
              f"{r['mlups']:.1f} | {min(r['mlups_all']):.1f}-{max(r['mlups_all']):.1f} | "
              f"{number(r.get('copy_traffic_gbs'), 1)} | {number(r.get('copy_fraction'))} | "
              f"{number(r.get('deep_copy_fraction'))} | {number(r.get('roofline_mlups'), 1)} | "
              f"{number(r.get('roofline_fraction'))} | {r.get('load_after', '?')} |")
