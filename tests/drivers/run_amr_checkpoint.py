#!/usr/bin/env python3
"""Checkpoint and restart of AMR runs through the command line (README, "Checkpoint and restart").

Usage: run_amr_checkpoint.py BOREAS_EXE AMR_DECK UNIFORM_DECK

AMR_DECK: a deck with [amr] and dynamic regridding (inputs/cylinder2d_amr.toml); UNIFORM_DECK: a
deck without (its checkpoint must not continue an AMR run).
- A run checkpointed at regrid steps, stopped between two and continued with --restart latest ends
  with the uninterrupted run's fields_hash and mass; every .vthb output (forest, levels, fields)
  of the uninterrupted run is byte for byte the restarted run's, and the .pvd lists them all once;
  so are forces.csv (the deck's [forces]) and integrals.csv (every 25 steps), continued from the
  checkpoint's step, also from a regrid step.
- The result does not depend on the output interval (outputs restrict refined blocks).
- SIGTERM stops a run with exit 4 after a checkpoint at the step reached, which continues bit for
  bit.
- Refused with exit 2 and the reason, nothing changed: a flipped bit in the populations, a
  truncated file, a forest that is no forest (a refined block dropped from a header whose hash is
  made to match), another [amr] table, a uniform-grid deck's checkpoint, a forest beyond this
  machine's memory (a forged header refining a 3D box everywhere).
- An unstable run checkpoints its last good state (exit 3), or keeps the checkpoint of that step
  already written, with its averages.
- [statistics] on AMR levels (the regridded cylinder, and inputs/cavity2d_amr.toml beside
  AMR_DECK without regridding): the averages are kept beside the checkpoint and continue through
  --restart latest: every .vthb (with the mean, RMS and Reynolds-stress arrays) and report.json's
  statistics are the uninterrupted run's; a checkpoint without them starts them again with a warning.
Prints one line per check; exits non-zero if any fails.
"""
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile

from cli_checks import Checks, checkpoint_files, report, snapshot

ENV = dict(os.environ, OMP_PROC_BIND="false", OMP_NUM_THREADS="1")
NAME = "cylinder2d_amr"


def fnv1a(data):
    h = 1469598103934665603
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    boreas, deck, uniform_deck = argv[1:]
    check = Checks()

    tmp = pathlib.Path(tempfile.mkdtemp(prefix="boreas_amr_checkpoint_"))

    def cmd(out, *sets, restart=None, quiet=True, which=deck):
        line = [boreas, which] + (["-q"] if quiet else []) + ["--output-dir", str(out), "--set", "output.every=100",
                                                               "--set", "output.integrals_every=25"]
        for s in sets:
            line += ["--set", s]
        return line + (["--restart", restart] if restart else [])

    def run(out, *sets, restart=None, which=deck):
        return subprocess.run(cmd(out, *sets, restart=restart, which=which), capture_output=True, text=True,
                              timeout=600, env=ENV)

    def outputs(out):
        return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.vt[hi]*"))}

    # --- checkpoints at steps 100 and 200 (regrid steps), stopped at 250, continued to 400; time
    # averages from step 50 on, carried through the regrids and the restart
    averages = ("statistics.start=50", "statistics.every=5")
    full = tmp / "full"
    run(full, "simulation.steps=400", *averages)
    part = tmp / "part"
    p = run(part, "simulation.steps=250", "checkpoint.every=100", *averages)
    names = [f.name for f in checkpoint_files(part)]
    check("checkpoints at step 200 and at the end (250), keep = 2",
          p.returncode == 0 and names == [f"{NAME}_step00000200.bchk", f"{NAME}_step00000250.bchk"],
          f"{names} {p.stderr[-300:]}")
    p = run(part, "simulation.steps=400", "checkpoint.every=100", *averages, restart="latest")
    r, f = report(part), report(full)
    check("--restart latest continues to the uninterrupted fields_hash",
          p.returncode == 0 and r.get("fields_hash") == f.get("fields_hash") and f.get("amr", {}).get("regrids", 0) >= 3,
          p.stderr[-400:])
    check("the restarted report names its checkpoint and step", r.get("restarted_from", {}).get("step") == 250)
    check("mass drift counts from the original initial mass", r.get("mass") == f.get("mass"))
    a, b = outputs(full), outputs(part)
    check("every .vthb/.vti output of the uninterrupted run is the restarted run's, byte for byte (averages included)",
          len(a) > 5 and all(b.get(k) == v for k, v in a.items()), f"differing: {[k for k in a if a[k] != b.get(k)][:3]}")
    check("the averages continued through the restart and 3 regrids (71 samples)",
          r.get("statistics") == f.get("statistics") and f.get("statistics", {}).get("samples") == 71
          and r.get("restarted_from", {}).get("statistics_continued") is True, f"{r.get('statistics')}")
    forces_full, forces_part = full / "forces.csv", part / "forces.csv"
    check("forces.csv of the restarted run is the uninterrupted run's, byte for byte (40 samples)",
          forces_full.exists() and forces_part.exists() and forces_part.read_bytes() == forces_full.read_bytes()
          and len(forces_full.read_text().splitlines()) == 41)
    integrals_full = (full / "integrals.csv").read_bytes() if (full / "integrals.csv").exists() else b""
    check("integrals.csv of the restarted run is the uninterrupted run's, byte for byte (17 samples from step 0)",
          integrals_full.count(b"\n") == 18 and (part / "integrals.csv").exists()
          and (part / "integrals.csv").read_bytes() == integrals_full)
    # a restart from a regrid step: the sample at that step was taken on the grid before the regrid
    again = tmp / "from_regrid_step"
    run(again, "simulation.steps=250", "checkpoint.every=100")
    at_200 = [f for f in checkpoint_files(again) if f.name == f"{NAME}_step00000200.bchk"]
    p = run(again, "simulation.steps=400", restart=str(at_200[0]) if at_200 else "missing")
    check("a restart from the regrid step 200 ends with the uninterrupted fields_hash, forces.csv and integrals.csv",
          p.returncode == 0 and report(again).get("fields_hash") == f.get("fields_hash")
          and (again / "forces.csv").read_bytes() == forces_full.read_bytes()
          and (again / "integrals.csv").read_bytes() == integrals_full, p.stderr[-300:])
    pvd = (part / f"{NAME}.pvd").read_text()
    check("the .pvd lists every output of both runs once (the first run's end, 250, included)",
          all(f"{NAME}_{s:06d}.vthb" in pvd for s in (0, 100, 200, 250, 300, 400)) and pvd.count("<DataSet") == 6, pvd)

    quiet = tmp / "no_output"
    run(quiet, "simulation.steps=400", "output.every=0", "output.vtk=false")
    odd = tmp / "output_every_70"
    run(odd, "simulation.steps=400", "output.every=70")
    check("the result does not depend on the output interval",
          f.get("fields_hash") is not None and
          report(quiet).get("fields_hash") == f.get("fields_hash") == report(odd).get("fields_hash"))

    # --- SIGTERM: checkpoint at the step reached, exit 4, continued bit for bit
    stopped = tmp / "signal"
    proc = subprocess.Popen(cmd(stopped, "simulation.steps=100000000", "output.every=0", "output.vtk=false",
                                "output.progress_every=150", quiet=False),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV, start_new_session=True)
    seen = []
    while True:
        line = proc.stderr.readline()
        seen.append(line)
        if not line or line.startswith("step "):
            break
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the run and any ranks it started
        err = "no exit 120 s after the signal"
    r = report(stopped)
    step = r.get("steps", -1)
    saved = [x.name for x in checkpoint_files(stopped)]
    check("SIGTERM: exit 4, status interrupted, one checkpoint at the step reached",
          proc.returncode == 4 and r.get("status") == "interrupted" and saved == [f"{NAME}_step{step:08d}.bchk"]
          and "--restart latest" in err, f"exit {proc.returncode}; {''.join(seen)[-200:]}{err[-300:]}")
    if proc.returncode == 4:
        end = step + 130  # across the regrid at the next multiple of 100
        p = run(stopped, f"simulation.steps={end}", "output.every=0", "output.vtk=false", restart="latest")
        reference = tmp / "signal_reference"
        run(reference, f"simulation.steps={end}", "output.every=0", "output.vtk=false")
        check("SIGTERM: continued to the uninterrupted hash",
              p.returncode == 0 and report(stopped).get("fields_hash") == report(reference).get("fields_hash"),
              p.stderr[-300:])

    # --- refusals: exit 2, the reason, nothing changed
    base = part / "checkpoints" / f"{NAME}_step00000400.bchk"

    def refused(label, path, expect, *sets, which=deck):
        before = snapshot(part)
        p = run(part, "simulation.steps=500", *sets, restart=str(path), which=which)
        check(f"refused: {label}", p.returncode == 2 and expect in p.stderr and snapshot(part) == before,
              f"exit {p.returncode}: {p.stderr.strip()[-300:]}")

    data = base.read_bytes()
    flipped = bytearray(data)
    flipped[-3000] ^= 0x10
    (tmp / "flipped.bchk").write_bytes(bytes(flipped))
    refused("a flipped bit in the populations", tmp / "flipped.bchk", "corrupt")
    (tmp / "truncated.bchk").write_bytes(data[:-512])
    refused("a truncated checkpoint", tmp / "truncated.bchk", "truncated")
    def forge(path, change, data=data):  # the checkpoint with its header changed and its checksum right
        length = int.from_bytes(data[8:16], "little")
        header = json.loads(data[24:24 + length])
        change(header)
        text = json.dumps(header, separators=(",", ":")).encode()
        forged = bytearray(data)
        forged[8:16] = len(text).to_bytes(8, "little")
        forged[16:24] = fnv1a(text).to_bytes(8, "little")
        forged[24:24 + length] = b"\0" * length
        forged[24:24 + len(text)] = text
        path.write_bytes(bytes(forged))
        return path

    refused("a header whose forest lost a refined block",
            forge(tmp / "forged.bchk", lambda h: h["amr_forest"]["refined"].pop()), "corrupt checkpoint")
    # Rows of (N + 2)^2 cells per block: how checkpoints held the ghost layers before 2026-11-28.
    refused("a checkpoint with ghost layers", forge(tmp / "ghosts.bchk", lambda h: h["cells"].__setitem__(0, 36)),
            "held the ghost layers too")
    refused("another [amr] table", base, "amr", "amr.max_level=3")
    uniform = tmp / "uniform"
    run(uniform, "simulation.steps=20", "checkpoint.every=20", "output.vtk=false", which=uniform_deck)
    uniform_checkpoints = checkpoint_files(uniform)
    if uniform_checkpoints:
        refused("a uniform-grid deck's checkpoint", uniform_checkpoints[-1], "written by another deck")
    else:
        check("the uniform-grid deck wrote a checkpoint", False)

    # A forest this machine cannot hold (a checkpoint from a larger one): refused before anything
    # is allocated. A 32^3 D3Q19 box of 16^3 leaves whose forged header refines every block of
    # levels 0-4: 299,592 blocks of 18^3 cells, 744 GiB on one rank (beyond any node or GPU here).
    big_deck = tmp / "big.toml"
    big_deck.write_text('[simulation]\nname = "big"\nsteps = 1\n[lattice]\nmodel = "D3Q19"\n[domain]\n'
                        'cells = [32, 32, 32]\n[physics]\ntau = 0.6\n[amr]\nleaf_size = 16\nmax_level = 5\n')
    big = tmp / "big"
    run(big, "simulation.steps=1", "checkpoint.every=1", "output.vtk=false", which=str(big_deck))
    big_checkpoints = checkpoint_files(big)
    if big_checkpoints:
        everywhere = [[l, i, j, k] for l in range(5) for k in range(2 << l) for j in range(2 << l) for i in range(2 << l)]
        forged = forge(tmp / "big_forest.bchk", lambda h: h["amr_forest"].__setitem__("refined", everywhere),
                       data=big_checkpoints[-1].read_bytes())
        before = snapshot(big)
        p = run(big, "simulation.steps=2", "output.vtk=false", restart=str(forged), which=str(big_deck))
        check("refused: a checkpoint's forest beyond this machine's memory",
              p.returncode == 2 and "the forest holds 299592 blocks of 5832 cells" in p.stderr
              and "continue it on more nodes" in p.stderr and snapshot(big) == before,
              f"exit {p.returncode}: {p.stderr.strip()[-300:]}")
    else:
        check("the 3D deck wrote a checkpoint", False)

    # --- [statistics] without regridding: the averages continue through a restart
    cavity = str(pathlib.Path(deck).parent / "cavity2d_amr.toml")
    sfull, spart = tmp / "statistics_full", tmp / "statistics_part"
    run(sfull, "simulation.steps=300", *averages, which=cavity)
    run(spart, "simulation.steps=150", "checkpoint.every=100", *averages, which=cavity)
    stats_files = sorted(x.name for x in (spart / "checkpoints").glob("*.statistics"))
    p = run(spart, "simulation.steps=300", *averages, restart="latest", which=cavity)
    r, f = report(spart), report(sfull)
    a, b = outputs(sfull), outputs(spart)
    check("[statistics]: averages kept beside the checkpoints and continued through a restart (51 samples), every "
          ".vthb byte for byte",
          p.returncode == 0 and stats_files == ["cavity2d_amr_step00000100.bchk.statistics",
                                                "cavity2d_amr_step00000150.bchk.statistics"]
          and r.get("restarted_from", {}).get("statistics_continued") is True
          and r.get("statistics") == f.get("statistics") and f.get("statistics", {}).get("samples") == 51
          and len(a) > 4 and all(b.get(k) == v for k, v in a.items()),
          f"{stats_files} exit {p.returncode} {r.get('statistics')} {f.get('statistics')} {p.stderr[-300:]}")
    fresh = tmp / "statistics_fresh"
    run(fresh, "simulation.steps=150", "checkpoint.every=100", which=cavity)
    p = run(fresh, "simulation.steps=300", *averages, restart="latest", which=cavity)
    check("[statistics] after a checkpoint without them: they start again, with a warning",
          p.returncode == 0 and report(fresh).get("restarted_from", {}).get("statistics_continued") is False
          and "averages start again" in p.stderr and report(fresh).get("statistics", {}).get("samples") == 30,
          p.stderr[-300:])

    # --- instability: the last good state is checkpointed
    unstable = tmp / "unstable"
    p = run(unstable, "physics.reynolds=1e5", "physics.mach_limit=0.5", "physics.velocity=0.2",
            "boundary.x_min.velocity=[0.2,0]", "simulation.steps=2000", "output.every=0", "output.vtk=false",
            "output.progress_every=50")
    r = report(unstable)
    good = r.get("instability", {}).get("last_good_step")
    saved = [x.name for x in checkpoint_files(unstable)]
    check("an unstable run (exit 3) checkpoints its last good step",
          p.returncode == 3 and good is not None and saved == [f"{NAME}_step{good:08d}.bchk"], f"{saved} {good}")
    # ... and where that step's checkpoint was written already (with its averages), keeps it
    # (until 2026-12-07 it was written again, its averages removed first)
    p = run(unstable, "physics.reynolds=1e5", "physics.mach_limit=0.5", "physics.velocity=0.2",
            "boundary.x_min.velocity=[0.2,0]", "simulation.steps=2000", "output.every=0", "output.vtk=false",
            "output.progress_every=10", "checkpoint.every=10", "statistics.start=0", "statistics.every=5")
    r = report(unstable)
    good = r.get("instability", {}).get("last_good_step", 0)
    written = r.get("checkpoints", {}).get("written", [])
    kept = unstable / "checkpoints" / f"{NAME}_step{good:08d}.bchk.statistics"
    check("an unstable run whose last good step was checkpointed keeps that checkpoint (written once) and its averages",
          p.returncode == 3 and good > 0 and good % 10 == 0 and kept.exists() and len(written) == len(set(written)) and
          str(r["instability"].get("checkpoint", "")).endswith(f"{NAME}_step{good:08d}.bchk"),
          f"{good} {written} {p.stderr[-300:]}")

    shutil.rmtree(tmp, ignore_errors=True)
    return check.exit_code()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
