#!/usr/bin/env python3
"""Writes the geometry of inputs/urban.toml: city.asc (an ESRI ASCII grid of building heights in
metres, 16 x 10 cells of 10 m, streets every 4th column and 3rd row) and tower.stl (an ASCII STL
tower of 20 m x 20 m x 60 m with a pyramid roof to 70 m, its base corner at the origin).
Deterministic: running it again writes the same files."""
import random


def city(path):
    random.seed(7)
    ncols, nrows = 16, 10
    lines = [f"ncols {ncols}", f"nrows {nrows}", "xllcorner 0", "yllcorner 0", "cellsize 10", "NODATA_value -9999"]
    for r in range(nrows):
        row = []
        for c in range(ncols):
            block = c % 4 != 3 and r % 3 != 2
            row.append(float(random.choice([12, 16, 20, 24, 28, 36])) if block else 0.0)
        lines.append(" ".join(f"{v:g}" for v in row))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def tower(path):
    side, walls, top = 20.0, 60.0, 70.0
    base = [(0, 0, 0), (side, 0, 0), (side, side, 0), (0, side, 0)]
    eaves = [(x, y, walls) for x, y, _ in base]
    apex = (side / 2, side / 2, top)
    triangles = [(base[0], base[3], base[2]), (base[0], base[2], base[1])]  # floor, facing down
    for i in range(4):
        j = (i + 1) % 4
        triangles += [(base[i], base[j], eaves[j]), (base[i], eaves[j], eaves[i]), (eaves[i], eaves[j], apex)]
    out = ["solid tower"]
    for t in triangles:
        out += ["  facet normal 0 0 0", "    outer loop"]
        out += ["      vertex %g %g %g" % v for v in t]
        out += ["    endloop", "  endfacet"]
    out.append("endsolid tower")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    city("city.asc")
    tower("tower.stl")
