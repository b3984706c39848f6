#!/usr/bin/env python3
"""AMR decks on several ranks through the command line (README, "Block-structured AMR").

Usage: run_amr_ranks.py BOREAS_EXE MPIEXEC AMR_DECK

AMR_DECK: a deck with [amr] and dynamic regridding (inputs/cylinder2d_amr.toml), run to step 300
(regrids at 100, 200 and 300).
- On 3 ranks: the one-rank fields_hash and mass, every .vthb/.vti output, forces.csv,
  probes.csv (30 samples) and integrals.csv (31 from step 0, 3 of them at regrids) byte for byte
  the one-rank run's, the report's partition (3 ranks, imbalance per level, messages per step),
  its MPI time and its convergence monitor's last velocity change (to round-off; its sample carried
  through a regrid); the same with CRMT on leaves (amr.crmt), which exchanges every k >= 2 steps.
- Checkpointed on 3 ranks at step 200, stopped at 250 and continued on 2 ranks: the one-rank
  fields_hash and outputs.
Prints one line per check; exits non-zero if any fails.
"""
import pathlib
import shutil
import subprocess
import sys
import tempfile

from cli_checks import MPI_ENV, Checks, report


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    boreas, mpiexec, deck = argv[1:]
    check = Checks()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="boreas_amr_ranks_"))

    def run(out, ranks, *sets, restart=None):
        line = [mpiexec, "-n", str(ranks), "--oversubscribe", boreas, deck, "-q", "--output-dir", str(out),
                "--set", "output.every=100", "--set", "output.progress_every=100",
                "--set", "output.integrals_every=10"]
        for s in sets:
            line += ["--set", s]
        if restart:
            line += ["--restart", restart]
        return subprocess.run(line, capture_output=True, text=True, timeout=600, env=MPI_ENV)

    def outputs(out):
        files = sorted(out.rglob("*.vt[hi]*")) + [out / name for name in ("forces.csv", "probes.csv", "integrals.csv")]
        return {str(p.relative_to(out)): p.read_bytes() if p.exists() else None for p in files}

    one = tmp / "one"
    p = run(one, 1, "simulation.steps=300")
    r1 = report(one)
    check("one rank runs and regrids", p.returncode == 0 and r1.get("amr", {}).get("regrids", 0) >= 2, p.stderr[-400:])

    three = tmp / "three"
    p = run(three, 3, "simulation.steps=300")
    r3 = report(three)
    check("3 ranks give the one-rank fields_hash", p.returncode == 0 and r3.get("fields_hash") == r1.get("fields_hash"),
          p.stderr[-400:])
    m1, m3 = r1.get("mass", {}).get("final", 0), r3.get("mass", {}).get("final", 1)
    check("3 ranks give the one-rank mass (an exact sum: the same double)", m1 == m3 and m1 > 0, f"{m1!r} {m3!r}")
    a, b = outputs(one), outputs(three)
    check("every .vthb/.vti output, forces.csv, probes.csv and integrals.csv of 3 ranks is the one-rank run's, byte for byte",
          len(a) > 5 and a == b and a["forces.csv"] and a["probes.csv"] and a["probes.csv"].count(b"\n") == 31 and
          a["integrals.csv"] and a["integrals.csv"].count(b"\n") == 32,
          f"differing: {[k for k in a if a[k] != b.get(k)][:3]} {len(a)} {len(b)}")
    part = r3.get("amr", {}).get("partition", {})
    check("the report gives the partition: ranks, imbalance per level, messages per step",
          part.get("ranks") == 3 and len(part.get("level_imbalance", [])) == len(r3["amr"]["levels"]) and
          all(1 <= x < 1.2 for x in part["level_imbalance"]) and part.get("messages_per_step", 0) > 0 and
          r1["amr"]["partition"]["messages_per_step"] == 0, str(part))
    check("the report times the leaf exchange", r3.get("timing_s", {}).get("mpi", 0) > 0, str(r3.get("timing_s")))
    # One rank's breakdown of the wall time (each category's slowest rank added up past it).
    t3 = r3.get("timing_s", {})
    spent = sum(t3.get(k, 0) for k in ("lbm", "amr", "mpi", "output", "others"))
    check("the timing categories are one rank's and add up to the wall time (within 1 %)",
          part.get("timing_rank") in (0, 1, 2) and abs(spent - r3.get("wall_time_s", 0)) <= 0.01 * r3.get("wall_time_s", 0),
          f"{t3} wall {r3.get('wall_time_s')}")
    c1, c3 = r1.get("convergence", {}), r3.get("convergence", {})
    check("3 ranks give the one-rank velocity change of the last checks, across the regrid at step 300 (to 1e-12; "
          "a sum in rank order)",
          c1.get("step") == c3.get("step") == 300 and c1.get("since_step") == 200 and c1.get("velocity_change") is not None and
          abs(c1["velocity_change"] - c3.get("velocity_change", 0)) <= 1e-12 * c1["velocity_change"], f"{c1} {c3}")

    crmt = tmp / "crmt"
    p = run(crmt, 3, "simulation.steps=300", "amr.crmt=true")
    rc = report(crmt)
    check("3 ranks with CRMT on leaves give the one-rank fields_hash and outputs",
          p.returncode == 0 and rc.get("fields_hash") == r1.get("fields_hash") and outputs(crmt) == a, p.stderr[-400:])
    pc = rc.get("amr", {}).get("partition", {})
    check("CRMT exchanges every k >= 2 steps: fewer messages per step in the report",
          pc.get("crmt") is True and pc.get("exchange_period", 1) >= 2 and
          0 < pc.get("messages_per_step", 0) < part.get("messages_per_step", 0), str(pc))

    moved = tmp / "moved"
    p = run(moved, 3, "simulation.steps=250", "checkpoint.every=100")
    check("3 ranks checkpoint", p.returncode == 0 and (moved / "checkpoints").exists(), p.stderr[-400:])
    p = run(moved, 2, "simulation.steps=300", "checkpoint.every=100", restart="latest")
    r = report(moved)
    check("a 3-rank checkpoint continued on 2 ranks ends with the one-rank fields_hash",
          p.returncode == 0 and r.get("fields_hash") == r1.get("fields_hash") and
          r.get("restarted_from", {}).get("step") == 250, p.stderr[-400:])
    check("its report names the kernel and the 3 ranks that wrote the checkpoint",
          r.get("restarted_from", {}).get("written_on_ranks") == 3 and
          r.get("restarted_from", {}).get("written_by_kernel") == r.get("kernel"), str(r.get("restarted_from")))
    c = outputs(moved)
    check("and writes the one-rank outputs", all(c.get(k) == v for k, v in a.items()),
          f"differing: {[k for k in a if a[k] != c.get(k)][:3]}")
    shutil.rmtree(tmp, ignore_errors=True)
    return check.exit_code()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
