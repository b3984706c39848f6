#!/usr/bin/env python3
"""Checkpoint and restart through the command line (README, "Checkpoint and restart").

Usage: run_checkpoint.py BOREAS_EXE MPIEXEC DECK

- A run checkpointed and continued with --restart latest (also with more steps) ends with the
  uninterrupted run's fields_hash, mass and .pvd entries. The .pvd lists only outputs still on
  disk (an entry whose file was deleted is dropped, a deleted .pvd named), with warnings.
- SIGTERM (one rank) and SIGUSR1 (two ranks under MPIEXEC) stop a run with exit 4 after a
  checkpoint, which a restart on one rank continues bit for bit.
- kill -9 during checkpoint writes leaves every complete checkpoint valid: the newest
  continues bit for bit (trials until one kill lands inside a write, seen by its .tmp file).
- Truncated, corrupt, later-format, other-deck (tau, lattice, precision, cells) and finished
  checkpoints are refused with exit 2 and the reason, and nothing in the output directory
  changes; so is a restart whose probes.csv has a damaged row (its file and line), or whose deck
  moved a probe whose probes.csv rows it would continue, or whose probes.csv another run has
  rewritten since the checkpoint (its rows up to the checkpoint's step are not those recorded). A
  last row cut short (a full disk) is dropped with a warning and the restart goes on.
- integrals.csv continued from an earlier checkpoint, on another rank count, ends as the
  uninterrupted run's.
- Averages beside a checkpoint that belong to another checkpoint of that step start again; damaged
  ones are refused before anything changes. --restart <file name> in the checkpoint directory
  continues that checkpoint where it is.
- A run from step 0 sets aside an earlier run's checkpoints (and averages) in its directory:
  --restart latest continues the new run; the earlier one continues from where they went. A
  restart sets aside those after its step. A voxel file changed under a checkpoint is refused.
- A checkpoint directory that cannot be made is refused before the first step; a checkpoint that
  cannot be written is a warning and the run completes (its averages removed); a stop whose checkpoint cannot be written
  exits 2 (nothing continues that step).
- An unstable run checkpoints its last good state.
- An error on one rank alone ends every rank (no hang in a collective); an output directory one
  rank cannot make, or a rank given other settings than rank 0, is refused before the first step.
Prints one line per check; exits non-zero if any fails.
"""
import os
import pathlib
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from cli_checks import MPI_ENV, Checks, checkpoint_files, report, snapshot


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    boreas, mpiexec, deck = argv[1:]
    check = Checks()

    tmp = pathlib.Path(tempfile.mkdtemp(prefix="boreas_checkpoint_cli_"))

    def cmd(out, *sets, restart=None, ranks=1, quiet=True):
        line = [boreas, deck] + (["-q"] if quiet else []) + ["--output-dir", str(out), "--set",
                                                           "domain.cells=[24,24,24]", "--set", "output.every=50"]
        for s in sets:
            line += ["--set", s]
        if restart:
            line += ["--restart", restart]
        if ranks > 1:
            line = [mpiexec, "-n", str(ranks), "--oversubscribe"] + line
        return line

    def run(out, *sets, restart=None, ranks=1, cwd=None):
        return subprocess.run(cmd(out, *sets, restart=restart, ranks=ranks), capture_output=True, text=True,
                              timeout=600, env=MPI_ENV, cwd=cwd)

    def reference_hash(steps):
        out = tmp / f"reference_{steps}"
        p = run(out, f"simulation.steps={steps}")
        return report(out)["fields_hash"] if p.returncode == 0 else None

    # --- checkpoint every 100 steps, stop at 150, continue to 300 with --restart latest; time
    # averages from step 40 every 7 steps go on across the restart
    averages = ["statistics.start=40", "statistics.every=7"]
    full = tmp / "full"
    run(full, "simulation.steps=300", "output.vtk=true", *averages)
    part = tmp / "part"
    p = run(part, "simulation.steps=150", "checkpoint.every=100", "output.vtk=true", *averages)
    names = [f.name for f in checkpoint_files(part)]
    check("checkpoints at step 100 and at the end (150)",
          p.returncode == 0 and names == ["cavity3d_step00000100.bchk", "cavity3d_step00000150.bchk"], str(names))
    check("each checkpoint keeps its time averages beside it",
          sorted(x.name for x in (part / "checkpoints").glob("*.statistics")) ==
          ["cavity3d_step00000100.bchk.statistics", "cavity3d_step00000150.bchk.statistics"])
    p = run(part, "simulation.steps=300", "checkpoint.every=100", "output.vtk=true", *averages, restart="latest")
    r = report(part) if p.returncode == 0 else {}
    f = report(full)
    check("the time averages continue: the last VTK file (means, RMS, Reynolds stresses) equals the "
          "uninterrupted run's byte for byte, with its sample count",
          p.returncode == 0 and (part / "cavity3d_000300.vti").read_bytes() == (full / "cavity3d_000300.vti").read_bytes()
          and r.get("statistics") == f.get("statistics") and f["statistics"]["samples"] == 38
          and r.get("restarted_from", {}).get("statistics_continued") is True, p.stderr[-400:])
    check("--restart latest continues to the uninterrupted fields_hash",
          p.returncode == 0 and r.get("fields_hash") == f["fields_hash"], p.stderr[-400:])
    check("the restarted report names its checkpoint and step",
          r.get("restarted_from", {}).get("step") == 150 and r.get("steps") == 300)
    check("mass drift counts from the original initial mass", r.get("mass") == f["mass"])
    pvd = (part / "cavity3d.pvd").read_text()
    check("the .pvd lists every output of both runs",
          all(f"cavity3d_{s:06d}.vti" in pvd for s in range(0, 301, 50)) and pvd.count("<DataSet") == 7)
    check("the restarted report's output_files name the .pvd it rewrote",
          any(x.endswith("cavity3d.pvd") for x in r.get("output_files", [])), str(r.get("output_files"))[-300:])

    # --- --restart with a bare file name, run in the checkpoint directory: it continues that
    # checkpoint with its averages, which stay where they are (until 2026-12-07 the name's empty
    # parent made the run set aside every checkpoint of the directory, that one included)
    bare = tmp / "bare"
    run(bare, "simulation.steps=150", "checkpoint.every=100", *averages)
    p = run(bare, "simulation.steps=300", *averages, restart="cavity3d_step00000100.bchk", cwd=bare / "checkpoints")
    bare_report = report(bare) if p.returncode == 0 else {}
    check("--restart <file name> in the checkpoint directory continues it with its averages and keeps it there",
          p.returncode == 0 and bare_report.get("fields_hash") == f.get("fields_hash") and
          bare_report.get("restarted_from", {}).get("statistics_continued") is True and
          [x.name for x in checkpoint_files(bare)] == ["cavity3d_step00000100.bchk"] and
          (bare / "checkpoints" / "cavity3d_step00000100.bchk.statistics").exists(), p.stderr[-400:])

    # --- a restart whose averages are damaged is refused before it changes anything: the later
    # checkpoint stays, integrals.csv keeps its rows (until 2026-12-07 the averages were read after
    # both had changed)
    damaged = tmp / "damaged"
    run(damaged, "simulation.steps=150", "checkpoint.every=100", "output.integrals_every=10", *averages)
    averages_file = damaged / "checkpoints" / "cavity3d_step00000100.bchk.statistics"
    averages_file.write_bytes(averages_file.read_bytes()[:100])

    def files_of(out):  # reading a checkpoint tests locking with a file it removes: folders' times change
        return {k: v for k, v in snapshot(out).items() if pathlib.Path(k).is_file()}
    before = files_of(damaged)
    p = run(damaged, "simulation.steps=300", "checkpoint.every=100", "output.integrals_every=10", *averages,
            restart=str(damaged / "checkpoints" / "cavity3d_step00000100.bchk"))
    check("refused: a restart whose averages are damaged (exit 2, the file named), nothing in the directory changed",
          p.returncode == 2 and averages_file.name in p.stderr and files_of(damaged) == before,
          f"exit {p.returncode}: {p.stderr[-300:]}")

    # --- on several ranks the timing breakdown is one rank's: its parts add up to the wall time
    # (each category's slowest rank, from different ranks, made "others" negative)
    timed = tmp / "timed"
    p = run(timed, "simulation.steps=150", ranks=3)
    t = report(timed).get("timing_s", {}) if p.returncode == 0 else {}
    busiest = report(timed)["parallel"]["timers"]["busiest_rank"] if p.returncode == 0 else {}
    check("3 ranks: the timing breakdown is the busiest rank's, others >= 0",
          t and t["others"] >= 0 and all(t[c] == busiest[c] for c in ("lbm", "boundaries", "output")),
          str(t) + p.stderr[-300:])

    # --- what the .pvd lists at a restart is on disk: an output deleted since is dropped (ParaView
    # stops at a missing file), and a .pvd deleted since is named, with a warning each
    gone = tmp / "gone"
    run(gone, "simulation.steps=150", "checkpoint.every=100", "output.vtk=true")
    (gone / "cavity3d_000050.vti").unlink()
    p = run(gone, "simulation.steps=200", "checkpoint.every=100", "output.vtk=true", restart="latest")
    pvd = (gone / "cavity3d.pvd").read_text() if p.returncode == 0 else ""
    check("a restart drops the .pvd entry of an output deleted since, with a warning",
          "listed 1 output up to the restart whose files are gone (cavity3d_000050.vti): dropped" in p.stderr
          and "cavity3d_000050.vti" not in pvd and pvd.count("<DataSet") == 4, p.stderr[-400:])
    (gone / "cavity3d.pvd").unlink()
    p = run(gone, "simulation.steps=250", "checkpoint.every=100", "output.vtk=true", restart="latest")
    pvd = (gone / "cavity3d.pvd").read_text() if p.returncode == 0 else ""
    check("a restart whose .pvd was deleted says it lists only the outputs from the restart on",
          "cavity3d.pvd did not exist when the run restarted at timestep 200: it lists only the outputs from there"
          in p.stderr and pvd.count("<DataSet") == 1 and "cavity3d_000250.vti" in pvd, p.stderr[-400:] + pvd)
    (gone / "cavity3d.pvd").unlink()
    p = run(gone, "simulation.steps=300", "checkpoint.every=100", "output.vtk=false", restart="latest")
    check("a restart that writes no VTK says nothing of the .pvd", p.returncode == 0 and ".pvd" not in p.stderr,
          p.stderr[-400:])
    check("keep = 2 (default) removes older checkpoints, their averages with them",
          [x.name for x in checkpoint_files(part)] == ["cavity3d_step00000200.bchk", "cavity3d_step00000300.bchk"] and
          sorted(x.name for x in (part / "checkpoints").glob("*.statistics")) ==
          ["cavity3d_step00000200.bchk.statistics", "cavity3d_step00000300.bchk.statistics"])
    ck = r.get("checkpoints", {})
    check("the report lists what the run wrote and what is kept",
          [pathlib.Path(x).name for x in ck.get("written", [])] == ["cavity3d_step00000200.bchk", "cavity3d_step00000300.bchk"]
          and [pathlib.Path(x).name for x in ck.get("kept", [])] == [x.name for x in checkpoint_files(part)], str(ck)[-300:])
    p = run(part, "simulation.steps=330", "statistics.start=40", "statistics.every=5", restart="latest")
    check("other sampling: the averages start again, with a warning",
          p.returncode == 0 and "averages start again at step 305" in p.stderr and
          report(part).get("restarted_from", {}).get("statistics_continued") is False and
          report(part)["statistics"]["samples"] == 6, p.stderr[-400:])
    damaged = part / "checkpoints" / "cavity3d_step00000300.bchk.statistics"
    damaged.write_bytes(damaged.read_bytes()[:-100])
    p = run(part, "simulation.steps=330", *averages, restart="latest")
    check("a damaged averages file is refused, not dropped", p.returncode == 2 and str(damaged) in p.stderr,
          f"exit {p.returncode}; {p.stderr[-300:]}")

    # --- averages beside a checkpoint that are another checkpoint's (an earlier run's at the same
    # step, left behind) start again rather than continue
    mine, theirs = tmp / "stats_mine", tmp / "stats_theirs"
    run(mine, "simulation.steps=100", "checkpoint.every=100", *averages)
    run(theirs, "simulation.steps=100", "checkpoint.every=100", "physics.reynolds=50", *averages)
    stats = "checkpoints/cavity3d_step00000100.bchk.statistics"
    shutil.copyfile(theirs / stats, mine / stats)
    p = run(mine, "simulation.steps=120", *averages, restart="latest")
    check("averages of another checkpoint at the same step: they start again, with a warning",
          p.returncode == 0 and "belongs to another checkpoint" in p.stderr and
          report(mine).get("restarted_from", {}).get("statistics_continued") is False, p.stderr[-400:])

    # --- a run from step 0 sets aside the checkpoints an earlier run left in its directory:
    # --restart latest continues this run (not the earlier one's later step), nothing is removed
    reused = tmp / "reused"
    run(reused, "simulation.steps=300", "checkpoint.every=100", *averages)
    p = run(reused, "simulation.steps=200", "checkpoint.every=100")
    aside = sorted((reused / "checkpoints").glob("earlier_*"))
    check("a fresh run moves an earlier run's checkpoints (and averages) aside, with a warning",
          p.returncode == 0 and "checkpoint files of an earlier run" in p.stderr and len(aside) == 1 and
          sorted(x.name for x in aside[0].iterdir()) ==
          [f"cavity3d_step00000{s}00.bchk{e}" for s in (2, 3) for e in ("", ".statistics")] and
          [x.name for x in checkpoint_files(reused)] == ["cavity3d_step00000100.bchk", "cavity3d_step00000200.bchk"],
          p.stderr[-400:])
    p = run(reused, "simulation.steps=250", restart="latest")
    check("--restart latest then continues the fresh run", p.returncode == 0 and
          report(reused).get("restarted_from", {}).get("step") == 200 and
          report(reused).get("fields_hash") == reference_hash(250), p.stderr[-400:])
    if aside:
        elsewhere = tmp / "reused_earlier"
        p = run(elsewhere, "simulation.steps=350", *averages, restart=str(aside[0] / "cavity3d_step00000300.bchk"))
        check("the earlier run continues from where it was set aside (into another directory)",
              p.returncode == 0 and report(elsewhere).get("restarted_from", {}).get("statistics_continued") is True,
              p.stderr[-400:])

    # --- a restart from a checkpoint before an earlier run's last one sets aside the later ones:
    # --restart latest then continues this run (it took the earlier run's step 300: a gap in the
    # CSV series from this run's end to 300)
    branch = tmp / "branch"
    run(branch, "simulation.steps=300", "checkpoint.every=100")
    p = run(branch, "simulation.steps=250", "checkpoint.every=100",
            restart=str(branch / "checkpoints" / "cavity3d_step00000200.bchk"))
    aside = sorted((branch / "checkpoints").glob("earlier_*"))
    check("a restart moves the earlier run's checkpoints after its step aside, with a warning",
          p.returncode == 0 and "checkpoint files after step 200 (this run's start) of an earlier run" in p.stderr and
          len(aside) == 1 and sorted(x.name for x in aside[0].iterdir()) == ["cavity3d_step00000300.bchk"] and
          [x.name for x in checkpoint_files(branch)] == ["cavity3d_step00000200.bchk", "cavity3d_step00000250.bchk"],
          p.stderr[-400:])
    p = run(branch, "simulation.steps=300", restart="latest")
    check("--restart latest then continues the restarted run", p.returncode == 0 and
          report(branch).get("restarted_from", {}).get("step") == 250 and
          report(branch).get("fields_hash") == reference_hash(300), p.stderr[-400:])
    # A checkpoint of another directory starts another history here: all of this one's go aside.
    p = run(branch, "simulation.steps=320", "checkpoint.every=100", restart=str(full_checkpoint := part / "checkpoints" / "cavity3d_step00000300.bchk"))
    check("a restart from another directory's checkpoint moves all of this one's aside",
          full_checkpoint.exists() and p.returncode == 0 and
          "checkpoint files of an earlier run" in p.stderr and
          [x.name for x in checkpoint_files(branch)] == ["cavity3d_step00000320.bchk"],
          f"{[x.name for x in checkpoint_files(branch)]} {p.returncode} {p.stderr[-300:]}")

    # --- a voxel file changed under its checkpoint (the signature keeps its size): the loaded
    # state's hash refuses it, naming the geometry
    voxels = tmp / "voxels.raw"
    solid = bytearray(24 ** 3)
    for z in range(8, 12):
        for y in range(8, 12):
            for x in range(8, 12):
                solid[(z * 24 + y) * 24 + x] = 1
    voxels.write_bytes(bytes(solid))
    geometry = [f'geometry.voxel_file="{voxels}"', "geometry.dims=[24,24,24]", "output.vtk=false"]
    p = run(tmp / "voxels", "simulation.steps=20", "checkpoint.every=10", *geometry)
    solid[(9 * 24 + 9) * 24 + 13] = 1
    voxels.write_bytes(bytes(solid))
    p = run(tmp / "voxels", "simulation.steps=30", *geometry, restart="latest")
    check("a voxel file changed under a checkpoint is refused, naming the geometry",
          p.returncode == 2 and "does not hash as the one written" in p.stderr and "the geometry differs" in p.stderr,
          f"exit {p.returncode}; {p.stderr[-300:]}")

    # --- a stop signal: checkpoint, exit 4; restarts continue bit for bit
    def stop_and_restart(label, sig, ranks):
        out = tmp / f"signal_{label}"
        proc = subprocess.Popen(cmd(out, "simulation.steps=100000000", "output.every=0", "output.vtk=false",
                                    "output.progress_every=500", ranks=ranks, quiet=False),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=MPI_ENV,
                                start_new_session=True)
        # The first progress line: the run is stepping, its handlers installed.
        seen = []
        while True:
            line = proc.stderr.readline()
            seen.append(line)
            if not line or line.startswith("step "):
                break
        proc.send_signal(sig)
        try:
            _, err = proc.communicate(timeout=120)
            err = "".join(seen) + err
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # mpiexec and its ranks (a kill of mpiexec alone leaves them running)
            check(f"{label}: the run stops", False, "no exit 120 s after the signal")
            return
        r = report(out) if (out / "report.json").exists() else {}
        step = r.get("steps", -1)
        saved = checkpoint_files(out)
        check(f"{label}: exit 4, status interrupted, one checkpoint at the step reached",
              proc.returncode == 4 and r.get("status") == "interrupted" and
              pathlib.Path(r.get("stop_checkpoint") or "none").name == f"cavity3d_step{step:08d}.bchk" and
              [x.name for x in saved] == [f"cavity3d_step{step:08d}.bchk"], f"exit {proc.returncode}; {err[-300:]}")
        # The command to continue repeats the run's --set options and --output-dir, quoted for a shell.
        check(f"{label}: the message says how to continue, with the run's options",
              "--restart latest" in err and f"--output-dir {shlex.quote(str(out))}" in err and "--set simulation.steps=100000000" in err,
              err[-400:])
        if proc.returncode != 4:
            return
        # physics.mach_limit checks the deck and does not decide the flow: a restart may change it.
        p = run(out, f"simulation.steps={step + 30}", "output.every=0", "output.vtk=false", "physics.mach_limit=0.25",
                restart="latest")
        got = report(out).get("fields_hash") if p.returncode == 0 else None
        check(f"{label}: continued on one rank, the uninterrupted hash",
              got is not None and got == reference_hash(step + 30),
              p.stderr[-300:])

    stop_and_restart("SIGTERM", signal.SIGTERM, 1)
    stop_and_restart("SIGUSR1 on 2 ranks", signal.SIGUSR1, 2)

    # --- kill -9 while writing: every complete checkpoint stays valid
    killed = tmp / "killed"
    big = ["domain.cells=[96,96,96]", "simulation.steps=100000", "output.vtk=false", "output.every=0",
           "checkpoint.every=1"]
    caught = False
    for trial in range(5):  # killed as a write starts; it may finish before the signal lands
        shutil.rmtree(killed, ignore_errors=True)
        proc = subprocess.Popen(cmd(killed, *big), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=MPI_ENV)
        ckdir = killed / "checkpoints"
        deadline = time.time() + 60
        while time.time() < deadline and not checkpoint_files(killed):  # one complete checkpoint first
            time.sleep(0.05)
        while time.time() < deadline and not list(ckdir.glob("*.tmp")):  # then the next write's file
            time.sleep(0.002)
        proc.kill()
        proc.wait()
        if list(ckdir.glob("*.tmp")):
            caught = True
            break
    check("kill -9 landed inside a checkpoint write (a .tmp left behind)", caught, f"{trial + 1} trials")
    complete = checkpoint_files(killed)
    if complete:
        step = int(complete[-1].name[len("cavity3d_step"):-len(".bchk")])
        p = run(killed, "domain.cells=[96,96,96]", f"simulation.steps={step + 2}", "output.vtk=false",
                "output.every=0", restart="latest")
        got = report(killed).get("fields_hash") if p.returncode == 0 else None
        ref = tmp / "killed_reference"
        run(ref, "domain.cells=[96,96,96]", f"simulation.steps={step + 2}", "output.vtk=false", "output.every=0")
        check("after kill -9 the newest complete checkpoint continues bit for bit",
              got is not None and got == report(ref)["fields_hash"], p.stderr[-300:])
    else:
        check("after kill -9 a complete checkpoint exists", False)

    # --- refusals: exit 2, the reason, nothing changed
    base = part / "checkpoints" / "cavity3d_step00000300.bchk"

    def refused(label, path, expect, *sets):
        before = snapshot(part)
        p = run(part, "simulation.steps=400", *sets, restart=str(path))
        check(f"refused: {label}", p.returncode == 2 and expect in p.stderr and snapshot(part) == before,
              f"exit {p.returncode}: {p.stderr.strip()[-300:]}")

    data = base.read_bytes()
    truncated = tmp / "truncated.bchk"
    truncated.write_bytes(data[: len(data) - 1000])
    refused("a truncated checkpoint", truncated, "truncated")
    flipped = bytearray(data)
    flipped[-5000] ^= 0x40
    corrupt = tmp / "corrupt.bchk"
    corrupt.write_bytes(bytes(flipped))
    refused("a flipped bit in the populations", corrupt, "corrupt")
    header = bytearray(data)
    header[30] ^= 0x20
    bad_header = tmp / "bad_header.bchk"
    bad_header.write_bytes(bytes(header))
    refused("a damaged header", bad_header, "corrupt")
    not_one = tmp / "not_a_checkpoint.bchk"
    not_one.write_bytes(b"x" * 5000)
    refused("a file that is no checkpoint", not_one, "not a Boreas checkpoint")
    # The header of a later format version that names a key otherwise, its length and hash as its
    # writer would have set them (FNV-1a; the longer header takes some of the zeros before the data).
    length = int.from_bytes(data[8:16], "little")
    text = data[24:24 + length]
    newer = text.replace(b'"version":1,', b'"version":2,').replace(b'"cells":', b'"grid_cells":')
    check("the checkpoint's header names its format version 1 and its cells",
          b'"version":2,' in newer and b'"grid_cells":' in newer and data[24 + length:24 + len(newer)].strip(b"\0") == b"")
    fnv = 1469598103934665603
    for byte in newer:
        fnv = ((fnv ^ byte) * 1099511628211) % 2**64
    later = tmp / "later_version.bchk"
    later.write_bytes(data[:8] + len(newer).to_bytes(8, "little") + fnv.to_bytes(8, "little") + newer +
                      data[24 + len(newer):])
    refused("a checkpoint of a later format version", later, "a checkpoint of format version 2; this build of Boreas "
            "reads version 1")
    refused("another tau", base, "tau", "physics.reynolds=200")
    refused("another lattice", base, "lattice", 'lattice.model="D3Q27"')
    refused("another precision", base, "precision", 'lattice.precision="float"')
    refused("another size", base, "cells", "domain.cells=[24,24,32]")
    refused("a checkpoint at or past the deck's end", base, "simulation.steps", "simulation.steps=300")
    empty = tmp / "empty"
    p = run(empty, "simulation.steps=10", restart="latest")
    check("refused: --restart latest with no checkpoint", p.returncode == 2 and "no checkpoint" in p.stderr,
          p.stderr.strip()[-200:])

    # --- a checkpoint directory that cannot be made is refused before the first step; a checkpoint
    # that cannot be written (a file-size limit below a checkpoint's 2.1 MB standing in for a full
    # disk) is reported and the run goes on; a stop whose checkpoint cannot be written exits 2
    blocker = tmp / "a_file"
    blocker.write_text("not a directory")
    nowhere = tmp / "nowhere"
    p = run(nowhere, "simulation.steps=60", "checkpoint.every=20", f'checkpoint.directory="{blocker}/sub"')
    check("refused: a checkpoint directory that cannot be made (exit 2 before the first step, no report)",
          p.returncode == 2 and "cannot create the checkpoint directory" in p.stderr and
          not (nowhere / "report.json").exists(), f"exit {p.returncode}: {p.stderr[-300:]}")

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (3 << 19, 3 << 19))  # 1.5 MiB: averages (1.1 MB) fit
    # PMIx's shared-memory store (a singleton MPI_Init's) would meet the limit: its hash store does not.
    limited = dict(MPI_ENV, PMIX_MCA_gds="hash")

    full = tmp / "full_disk"
    p = subprocess.run(cmd(full, "simulation.steps=60", "checkpoint.every=20", *averages), capture_output=True,
                       text=True, timeout=600, env=limited, preexec_fn=small_files)
    r = report(full) if (full / "report.json").exists() else {}
    check("a checkpoint that cannot be written: warnings, the run completes (exit 0)",
          p.returncode == 0 and r.get("status") == "completed" and len(r.get("checkpoints", {}).get("failed", [])) == 3
          and "warning: no checkpoint at step 20" in p.stderr, f"exit {p.returncode}: {p.stderr[-300:]}")
    check("... and leaves none of their averages (written first) behind",
          not list((full / "checkpoints").glob("*.statistics")), str(list((full / "checkpoints").glob("*"))))
    stopped = tmp / "full_disk_stop"
    proc = subprocess.Popen(cmd(stopped, "simulation.steps=100000000", "output.progress_every=500", quiet=False),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=limited,
                            preexec_fn=small_files)
    while (line := proc.stderr.readline()) and not line.startswith("step "):
        pass
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        err = "no exit 120 s after the signal"
    r = report(stopped) if (stopped / "report.json").exists() else {}
    check("a stop whose checkpoint cannot be written exits 2, says the step cannot be continued, no continue line",
          proc.returncode == 2 and r.get("status") == "interrupted" and r.get("stop_checkpoint", "absent") is None and
          "whose checkpoint could not be written" in err and "there is no checkpoint to continue from" in err
          and "Continue with" not in err, f"exit {proc.returncode}: {err[-400:]}")

    # --- instability: the last good state is checkpointed
    unstable = tmp / "unstable"
    p = run(unstable, "physics.reynolds=1e5", "physics.mach_limit=0.5", "physics.velocity=0.2",
            "boundary.y_max.velocity=[0.2,0,0]", "simulation.steps=20000", "output.every=0",
            "output.progress_every=50", "output.vtk=false")
    r = report(unstable) if (unstable / "report.json").exists() else {}
    good = r.get("instability", {}).get("last_good_step")
    saved = [x.name for x in checkpoint_files(unstable)]
    check("an unstable run (exit 3) checkpoints its last good step",
          p.returncode == 3 and good is not None and saved == [f"cavity3d_step{good:08d}.bchk"], f"{saved} {good}")
    # ... and where that step's checkpoint was written already (with its averages), keeps it
    p = run(unstable, "physics.reynolds=1e5", "physics.mach_limit=0.5", "physics.velocity=0.2",
            "boundary.y_max.velocity=[0.2,0,0]", "simulation.steps=20000", "output.every=0",
            "output.progress_every=50", "output.vtk=false", "checkpoint.every=50", "statistics.start=0",
            "statistics.every=5")
    r = report(unstable) if (unstable / "report.json").exists() else {}
    good = r.get("instability", {}).get("last_good_step", 0)
    kept = unstable / "checkpoints" / f"cavity3d_step{good:08d}.bchk.statistics"
    check("an unstable run whose last good step was checkpointed keeps that checkpoint's averages",
          p.returncode == 3 and good > 0 and kept.exists() and
          r["instability"].get("checkpoint", "").endswith(f"cavity3d_step{good:08d}.bchk"), f"{good} {p.stderr[-300:]}")

    # --- a failure on one rank alone (rank 0 cannot write probes.csv, a directory stands in the
    # way of its new copy) ends every rank with that rank's message, not a hang in a collective
    lone = tmp / "lone_failure"
    (lone / "probes.csv.new").mkdir(parents=True)
    probed = tmp / "probed.toml"
    probed.write_text(pathlib.Path(deck).read_text() + "\n[[probe]]\npoint = [1, 1, 1]\n")
    started = time.monotonic()
    try:
        p = subprocess.run([mpiexec, "-n", "2", "--oversubscribe", boreas, str(probed), "-q", "--output-dir", str(lone),
                            "--set", "domain.cells=[24,24,24]", "--set", "simulation.steps=20", "--set", "output.vtk=false"],
                           capture_output=True, text=True, timeout=120, env=MPI_ENV)
        check("a failure on one rank of two ends the run with its message (no hang)",
              p.returncode != 0 and "probes.csv.new: cannot write (on rank 0 only)" in p.stderr,
              f"exit {p.returncode} after {time.monotonic() - started:.0f} s: {p.stderr[-300:]}")
    except subprocess.TimeoutExpired:
        check("a failure on one rank of two ends the run with its message (no hang)", False, "still running after 120 s")
    # An output directory that one rank cannot make (node-local paths differ per node; here the
    # second rank's path runs through a file) is refused before the first step, naming the rank.
    one = ["--set", "domain.cells=[24,24,24]", "--set", "simulation.steps=20", "--set", "output.vtk=false", "-q"]
    p = subprocess.run([mpiexec, "--oversubscribe", "-n", "1", boreas, deck, *one, "--output-dir", str(tmp / "rank0_dir"),
                        ":", "-n", "1", boreas, deck, *one, "--output-dir", str(blocker / "rank1_dir")],
                       capture_output=True, text=True, timeout=120, env=MPI_ENV)
    # A rank given other settings (here its steps: the ranks would wait for each other at the end)
    p_other = subprocess.run([mpiexec, "--oversubscribe", "-n", "1", boreas, deck, *one, "--output-dir", str(tmp / "mpmd"),
                              ":", "-n", "1", boreas, deck, *one, "--set", "simulation.steps=30",
                              "--output-dir", str(tmp / "mpmd")], capture_output=True, text=True, timeout=120, env=MPI_ENV)
    check("refused: a rank given other settings than rank 0 (exit 2 before the first step, names the rank)",
          p_other.returncode == 2 and "rank 1 was given another deck than rank 0" in p_other.stderr and
          not (tmp / "mpmd").exists(), f"exit {p_other.returncode}: {p_other.stderr[-300:]}")
    check("refused: an output directory the second rank cannot make (exit 2 before the first step, on rank 1)",
          p.returncode == 2 and "cannot create the output directory" in p.stderr and "(on rank 1)" in p.stderr and
          not (tmp / "rank0_dir" / "report.json").exists(), f"exit {p.returncode}: {p.stderr[-300:]}")

    # --- a restart whose probes.csv holds a row that is not numbers: refused with its line
    probes = tmp / "probes_restart"
    p = subprocess.run([boreas, str(probed), "-q", "--output-dir", str(probes), "--set", "domain.cells=[24,24,24]",
                        "--set", "simulation.steps=40", "--set", "checkpoint.every=20", "--set", "output.vtk=false"],
                       capture_output=True, text=True, timeout=120, env=MPI_ENV)
    rows = (probes / "probes.csv").read_text().splitlines() if p.returncode == 0 else []
    moved = tmp / "probed_moved.toml"
    moved.write_text(pathlib.Path(deck).read_text() + "\n[[probe]]\npoint = [2, 1, 1]\n")
    before = snapshot(probes)
    p = subprocess.run([boreas, str(moved), "-q", "--output-dir", str(probes), "--set", "domain.cells=[24,24,24]",
                        "--set", "simulation.steps=60", "--set", "output.vtk=false", "--restart", "latest"],
                       capture_output=True, text=True, timeout=120, env=MPI_ENV)
    check("refused: a restart that moves a probe whose probes.csv rows it would continue (exit 2, both cells)",
          p.returncode == 2 and "probes.csv holds rows for" in p.stderr and "[1,1,1]" in p.stderr and
          "[2,1,1]" in p.stderr and snapshot(probes) == before, p.stderr[-300:])
    if len(rows) > 3:
        damaged = list(rows)
        damaged[2] = damaged[2].replace(",", ",x", 1)
        (probes / "probes.csv").write_text("\n".join(damaged) + "\n")
        p = subprocess.run([boreas, str(probed), "-q", "--output-dir", str(probes), "--set", "domain.cells=[24,24,24]",
                            "--set", "simulation.steps=60", "--set", "output.vtk=false", "--restart", "latest"],
                           capture_output=True, text=True, timeout=120, env=MPI_ENV)
        check("refused: a restart whose probes.csv has a damaged row (exit 2, file and line)",
              p.returncode == 2 and "probes.csv: line 3: expected a number, got 'x" in p.stderr, p.stderr[-300:])
        # A last row cut short (a full disk after the checkpoint of step 20): dropped with a
        # warning, and the restart from that checkpoint writes the uninterrupted run's rows again.
        (probes / "probes.csv").write_text("\n".join(rows[:-1]) + "\n" + rows[-1][:3])
        first = checkpoint_files(probes)[0] if checkpoint_files(probes) else probes / "none"
        p = subprocess.run([boreas, str(probed), "-q", "--output-dir", str(probes), "--set", "domain.cells=[24,24,24]",
                            "--set", "simulation.steps=60", "--set", "output.vtk=false", "--restart", str(first)],
                           capture_output=True, text=True, timeout=120, env=MPI_ENV)
        after = (probes / "probes.csv").read_text().splitlines() if p.returncode == 0 else []
        check("a restart whose probes.csv ends in a row cut short drops it with a warning and writes the rows again",
              p.returncode == 0 and "its last row was cut short" in p.stderr and "step00000020" in first.name
              and after[:len(rows)] == rows and after[-1].startswith("60,"), f"exit {p.returncode}, {p.stderr[-300:]}")
        # Another run from step 0 (another lid speed) rewrites probes.csv in the directory: the
        # restart from a checkpoint of the first run, set aside, would continue rows not its own.
        p = subprocess.run([boreas, str(probed), "-q", "--output-dir", str(probes), "--set", "domain.cells=[24,24,24]",
                            "--set", "simulation.steps=60", "--set", "output.vtk=false",
                            "--set", "boundary.y_max.velocity=[0.04,0,0]"], capture_output=True, text=True, timeout=120, env=MPI_ENV)
        aside = sorted((probes / "checkpoints").glob("earlier_*/cavity3d_step00000040.bchk"))
        before = snapshot(probes)
        p = subprocess.run([boreas, str(probed), "-q", "--output-dir", str(probes), "--set", "domain.cells=[24,24,24]",
                            "--set", "simulation.steps=80", "--set", "output.vtk=false",
                            "--restart", str(aside[-1] if aside else probes / "none")],
                           capture_output=True, text=True, timeout=120, env=MPI_ENV)
        check("refused: a restart whose probes.csv another run has rewritten since (exit 2, the rows), nothing changed",
              p.returncode == 2 and "probes.csv does not hold the rows of the run this checkpoint continues" in p.stderr
              and "recorded 40 rows up to step 40, the file holds 40 with other values" in p.stderr and
              snapshot(probes) == before, f"exit {p.returncode}, {p.stderr[-300:]}")
    else:
        check("a probed run writes probes.csv rows", False, p.stderr[-300:])

    # --- integrals.csv through a restart: from the step-20 checkpoint of a 40-step run, on 2 ranks,
    # the file ends as the uninterrupted one-rank run's, the step-0 row once, steps 30-40 written again
    whole, parted = tmp / "integrals_whole", tmp / "integrals_parted"
    sampled = ["domain.cells=[24,24,24]", "output.vtk=false", "output.integrals_every=10"]
    run(whole, "simulation.steps=60", *sampled)
    run(parted, "simulation.steps=40", "checkpoint.every=20", *sampled)
    first = parted / "checkpoints" / "cavity3d_step00000020.bchk"
    # Its rows after step 20 damaged first: the restart must replace them (a run from step 0 would
    # rewrite them too, hence restarted_from).
    if (parted / "integrals.csv").exists():
        lines = (parted / "integrals.csv").read_text().splitlines()
        (parted / "integrals.csv").write_text("\n".join(lines[:4] + ["30,1,2,3,4,5,6", "40,1,2,3,4,5,6"]) + "\n")
    p = run(parted, "simulation.steps=60", *sampled, restart=str(first), ranks=2)
    expected = (whole / "integrals.csv").read_text() if (whole / "integrals.csv").exists() else "none"
    got = (parted / "integrals.csv").read_text() if p.returncode == 0 else p.stderr[-300:]
    check("integrals.csv continued from an earlier checkpoint on 2 ranks equals the uninterrupted run's (8 rows)",
          got == expected and expected.count("\n") == 8 and expected.startswith("step,kinetic_energy,") and
          report(parted).get("restarted_from", {}).get("step") == 20, got[-300:])
    # Another run from step 0 (another lid speed) rewrites integrals.csv: the first run's
    # checkpoint, set aside, is refused rather than continuing rows not its own.
    run(parted, "simulation.steps=60", *sampled, "boundary.y_max.velocity=[0.04,0,0]")
    aside = sorted((parted / "checkpoints").glob("earlier_*/cavity3d_step00000020.bchk"))
    before = snapshot(parted)
    p = run(parted, "simulation.steps=80", *sampled, restart=str(aside[-1] if aside else parted / "none"))
    check("refused: a restart whose integrals.csv another run has rewritten since (exit 2), nothing changed",
          p.returncode == 2 and "integrals.csv does not hold the rows of the run this checkpoint continues" in p.stderr
          and snapshot(parted) == before, f"exit {p.returncode}, {p.stderr[-300:]}")
    # A restart into a directory without the earlier run's integrals.csv starts the file with the
    # state it continues from (on 2 ranks: they agree on whether the file was there).
    elsewhere = tmp / "integrals_elsewhere"
    p = run(elsewhere, "simulation.steps=60", *sampled, restart=str(aside[-1] if aside else parted / "none"), ranks=2)
    rows = (elsewhere / "integrals.csv").read_text().splitlines() if p.returncode == 0 else []
    check("a restart without the earlier integrals.csv writes the restart step's row first (warned, 2 ranks)",
          [r.split(",")[0] for r in rows[1:]] == ["20", "30", "40", "50", "60"] and "did not exist" in p.stderr,
          f"exit {p.returncode}, {rows}, {p.stderr[-300:]}")

    shutil.rmtree(tmp, ignore_errors=True)
    return check.exit_code()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
