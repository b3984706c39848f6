#!/usr/bin/env python3
"""Markdown table of boreas-bench JSONL results: perf/table.py RESULTS.jsonl [...]

copy fraction: the variant's traffic (variant_bytes_per_update) at its MLUPS over the STREAM copy's
traffic, both measured by the same binary; roofline fraction: over its own steps without collision."""
import json
import sys

for path in sys.argv[1:]:
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]  # Kokkos may print warnings
    for r in rows:
        if r["kind"] == "reference":
            print(f"reference ({r['precision']}, {r['elements_per_stream']} elements/stream): "
                  f"copy {r['stream_copy_gbs']:.1f} GB/s, 19-stream in-place {r['inplace_gbs']:.1f} GB/s "
                  f"(read+write counted), load {r.get('load_before', '?')}")
    print()
    print("| lattice | precision | collision | cells | kernel | MLUPS (median) | min-max | copy GB/s | copy fraction | "
          "roofline MLUPS | roofline fraction | load after (1/5/15 min) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r["kind"] != "kernel":
            continue
        cells = "x".join(str(c) for c in r["cells"])
        print(f"| {r['lattice']} | {r['precision']} | {r['collision']} | {cells} | {r['kernel']} | "
              f"{r['mlups']:.1f} | {min(r['mlups_all']):.1f}-{max(r['mlups_all']):.1f} | "
              f"{r['stream_copy_gbs']:.1f} | {r['copy_fraction']:.2f} | {r['roofline_mlups']:.1f} | {r['roofline_fraction']:.2f} | "
              f"{r.get('load_after', '?')} |")
