#!/usr/bin/env python3
"""Generates the voxel geometry of inputs/porous.toml: randomly placed, overlapping solid spheres
in a periodic cube (spheres wrap around the faces, so the medium tiles periodically).

Output: a raw uint8 file, one byte per voxel, x fastest, then y, then z; 1 = solid, 0 = fluid
(the format of [geometry] voxel_file, see README.md, "Deck reference"). The same arguments always
give the same bytes (fixed seed, NumPy's PCG64 generator).

    python3 inputs/make_porous.py                 # inputs/porous/spheres.raw, 48^3
    python3 inputs/make_porous.py --size 96 --porosity 0.5 --output other.raw
    python3 inputs/make_porous.py --size 96 --radius 4 --porosity 0.13 --output inputs/porous/sandstone.raw
"""
import argparse
import pathlib

import numpy as np


def overlapping_spheres(size, radius, porosity, seed):
    """Adds spheres at uniformly random centres until the fluid fraction drops to `porosity`."""
    rng = np.random.Generator(np.random.PCG64(seed))
    solid = np.zeros((size, size, size), dtype=bool)  # indexed [z, y, x]
    axis = np.arange(size)
    r = int(np.ceil(radius))
    offsets = np.arange(-r, r + 1)
    fluid = solid.size  # counted as spheres land: low porosities take thousands of spheres
    while fluid > porosity * solid.size:
        centre = rng.uniform(0, size, 3)  # (x, y, z)
        # Periodic distance on the few voxels around the centre only.
        idx = [(np.floor(c).astype(int) + offsets) % size for c in centre]
        d = [(axis[i] - c + size / 2) % size - size / 2 for i, c in zip(idx, centre)]
        inside = d[2][:, None, None] ** 2 + d[1][None, :, None] ** 2 + d[0][None, None, :] ** 2 <= radius**2
        region = np.ix_(idx[2], idx[1], idx[0])
        fluid -= int(np.count_nonzero(inside & ~solid[region]))
        solid[region] |= inside
    return solid


def main():
    here = pathlib.Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=48, help="voxels per side (default 48)")
    parser.add_argument("--radius", type=float, default=5.0, help="sphere radius in voxels (default 5)")
    parser.add_argument("--porosity", type=float, default=0.6, help="target fluid fraction (default 0.6)")
    parser.add_argument("--seed", type=int, default=2024, help="random seed (default 2024)")
    parser.add_argument("--output", type=pathlib.Path, default=here / "porous" / "spheres.raw")
    args = parser.parse_args()

    solid = overlapping_spheres(args.size, args.radius, args.porosity, args.seed)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    solid.astype(np.uint8).tofile(args.output)  # C order of [z, y, x]: x fastest
    print(f"{args.output}: {args.size}^3 voxels, porosity {1.0 - solid.mean():.4f}")


if __name__ == "__main__":
    main()
