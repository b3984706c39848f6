#!/usr/bin/env python3
"""Stationarity of a turbulent channel run (inputs/channel_retau180.toml or a variant of it).

    boreas inputs/channel_retau180.toml --output-dir D --set output.every=12000
    /usr/bin/python3 tests/long/channel_windows.py D

The VTK files hold time averages from statistics.start to their step; the difference of two
files' sums gives the averages of the window between them. For the whole average and for each
window: U+ at y+ = 30 and 100 against Moser, Kim & Mansour (1999), the bulk U+, the peak resolved
-<u'v'>+, the largest dispersive stress -<u~ v~>+ (time-mean structures fixed in space, e.g. streaks
locked in a narrow box) and the largest share of the total shear stress 1 - y/h that resolved,
dispersive and viscous stress leave unaccounted (SGS and numerical stress, or a flow not yet in
balance). Walls at the y faces (halfway: y = -1/2), flow along x, wall units from the deck's force.
Needs VTK's Python module (Debian: python3-vtk9, for /usr/bin/python3).
"""
import glob
import json
import re
import sys

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

# Moser, Kim & Mansour (1999), chan180/profiles/chan180.means: y+, U+ beside y+ = 30 and 100.
DNS = [(25.342, 13.276), (30.019, 13.870), (37.701, 14.557), (86.550, 16.756), (98.037, 17.094), (109.96, 17.400)]


def read(path):
    reader = vtk.vtkXMLImageDataReader()
    reader.SetFileName(path)
    reader.Update()
    data = reader.GetOutput().GetCellData()
    return {data.GetArrayName(i): vtk_to_numpy(data.GetArray(i)).astype(float) for i in range(data.GetNumberOfArrays())}


def main(out):
    report = json.load(open(f"{out}/report.json"))
    config, start = report["config"], report["statistics"]["start"]
    nx, ny, nz = config["cells"]
    h, nu = ny / 2, config["viscosity"]
    u_tau = (config["force"][0] * h) ** 0.5
    half = ny // 2
    y_plus = (np.arange(half) + 0.5) * u_tau / nu

    def fold(profile, sign):  # the two halves, the upper one mirrored
        return 0.5 * (profile[:half] + sign * profile[::-1][:half])

    def summary(mean, uv_cell, label):
        u = mean[..., 0].mean(axis=(0, 2))
        uv = uv_cell.mean(axis=(0, 2))
        dispersive = ((mean[..., 0] - u[None, :, None]) * mean[..., 1]).mean(axis=(0, 2))
        u_plus = fold(u, 1) / u_tau
        shear = fold(-uv, -1) / u_tau**2
        disp = fold(-dispersive, -1) / u_tau**2
        dns = lambda y: np.interp(y, [p[0] for p in DNS], [p[1] for p in DNS])
        u30, u100 = np.interp(30, y_plus, u_plus), np.interp(100, y_plus, u_plus)
        # Between neighbouring centres: resolved + dispersive + viscous against 1 - y/h.
        y_face = 0.5 * (y_plus[1:] + y_plus[:-1])
        carried = 0.5 * (shear[1:] + shear[:-1] + disp[1:] + disp[:-1]) + np.diff(u_plus) / np.diff(y_plus)
        unaccounted = (1 - y_face / (h * u_tau / nu)) - carried
        print(f"{label:>22}: U+(30) {u30:6.3f} ({100 * (u30 / dns(30) - 1):+5.1f} %)  "
              f"U+(100) {u100:6.3f} ({100 * (u100 / dns(100) - 1):+5.1f} %)  bulk {u_plus.mean():6.3f}  "
              f"peak -u'v'+ {shear.max():5.3f}  dispersive {np.abs(disp).max():5.3f}  "
              f"unaccounted {unaccounted.max():5.3f} at y+ {y_face[unaccounted.argmax()]:5.1f}")

    step_of = lambda f: int(re.findall(r"_(\d+)\.vti$", f)[0])
    files = sorted((f for f in glob.glob(f"{out}/*.vti") if step_of(f) > start), key=step_of)
    if not files:
        sys.exit(f"{out}: no VTK file after statistics.start = {start}")
    previous = None
    for f in files:
        t, arrays = step_of(f), read(f)
        mean = arrays["mean_velocity"].reshape(nz, ny, nx, 3)
        stress = arrays["reynolds_stress"].reshape(nz, ny, nx, 6)  # xx, yy, zz, xy, yz, xz
        product = stress[..., 3] + mean[..., 0] * mean[..., 1]  # <u v>
        summary(mean, stress[..., 3], f"[{start}, {t}]")
        if previous is not None:
            tp, mean_p, product_p = previous
            w = (t - start) / (t - tp), (tp - start) / (t - tp)
            window_mean = w[0] * mean - w[1] * mean_p
            window_product = w[0] * product - w[1] * product_p
            summary(window_mean, window_product - window_mean[..., 0] * window_mean[..., 1], f"window [{tp}, {t}]")
        previous = (t, mean, product)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
