#!/usr/bin/env python3
"""Command-line contract of boreas and boreas-bench (README, "Running a deck").

Usage: run_command_line.py BOREAS_EXE BENCH_EXE DECK

Usage errors exit with 2 and write nothing; --help and --kokkos-help exit with 0 and run
nothing; --kokkos-* options reach Kokkos (the report's backend concurrency and the bench's thread
count follow --kokkos-threads); kernel = "auto" runs started together keep each other's cache entries; a run
from step 0 names an earlier run's VTK files it did not replace. Prints one line per check; exits
non-zero if any fails.
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

from cli_checks import Checks


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    boreas, bench, deck = argv[1:]
    check = Checks()

    with tempfile.TemporaryDirectory(prefix="boreas_cli_") as tmp:
        out = pathlib.Path(tmp) / "out"
        for name, args in [("unknown option", [deck, "--bogus"]),
                           ("missing deck", []),
                           ("option without value", [deck, "--set"]),
                           ("--set followed by an option", [deck, "--set", "--quiet"]),
                           ("two decks", [deck, deck])]:
            p = run([boreas, *args, "--output-dir", str(out)])
            check(f"boreas {name} exits 2", p.returncode == 2, f"exit {p.returncode}, stderr {p.stderr.strip()!r}")
            check(f"boreas {name} writes nothing", not out.exists())
        # Kokkos 3.4 ignores unknown names, aborts on a non-number and overruns a table past 512
        # OpenMP threads: refused here first, with what was expected.
        for arg, why in [("--kokkos-threads=abc", "expected --kokkos-threads=N"),
                         ("--kokkos-threads=600", "integer in [1, 512], got 600"),
                         ("--kokkos-device-id=x", "expected --kokkos-device-id=N"),
                         ("--kokkos-bogus=1", "unknown Kokkos option --kokkos-bogus"),
                         ("--kokkos-tools-library=/nonexistent/tool.so", "cannot load '/nonexistent/tool.so'")]:
            for exe in (boreas, bench):
                p = run([exe, deck, arg, "--output-dir", str(out)] if exe == boreas else [exe, arg])
                check(f"{pathlib.Path(exe).name} {arg} exits 2 and says why", p.returncode == 2 and why in p.stderr,
                      f"exit {p.returncode}, stderr {p.stderr.strip()[-200:]!r}")
        check("refused Kokkos options write nothing", not out.exists())
        p = run([boreas, deck, "--output-dir", ""])
        check("boreas --output-dir '' exits 2", p.returncode == 2 and "--output-dir" in p.stderr, f"exit {p.returncode}")
        # An unset shell variable: a fresh run would set the checkpoints aside.
        p = run([boreas, deck, "--restart", "", "--output-dir", str(out)])
        check("boreas --restart '' exits 2 and writes nothing", p.returncode == 2 and "--restart" in p.stderr and not out.exists(),
              f"exit {p.returncode}, stderr {p.stderr.strip()[-200:]!r}")
        p = run([boreas, deck, "--restart", "-q", "--output-dir", str(out)])
        check("boreas --restart -q exits 2, names the option and writes nothing",
              p.returncode == 2 and "got the option '-q'" in p.stderr and not out.exists(),
              f"exit {p.returncode}, stderr {p.stderr.strip()[-200:]!r}")
        p = run([boreas, "--help"])
        check("boreas --help exits 0", p.returncode == 0 and "Usage" in p.stdout, f"exit {p.returncode}")
        for args in ([], [deck]):
            p = run([boreas, *args, "--kokkos-help", "--output-dir", str(out)])
            check(f"boreas {'DECK ' if args else ''}--kokkos-help prints Kokkos's options, exits 0, runs nothing",
                  p.returncode == 0 and "Kokkos command line arguments" in p.stdout + p.stderr and not out.exists(),
                  f"exit {p.returncode}, {p.stderr[-200:]!r}")

        short = ["--quiet", "--set", "simulation.steps=2", "--set", "output.vtk=false"]
        # --set takes one key: the deck may follow it.
        p = run([boreas, "--set", "simulation.steps=2", "--set", "output.vtk=false", deck, "--quiet", "--output-dir", str(out)])
        report = out / "report.json"
        check("boreas --set before the deck runs the deck", p.returncode == 0 and report.exists()
              and json.loads(report.read_text()).get("steps") == 2, f"exit {p.returncode}, stderr {p.stderr.strip()[-200:]!r}")
        blocked = pathlib.Path(tmp) / "a_file"
        blocked.write_text("not a directory\n")
        p = run([boreas, deck, *short, "--output-dir", str(blocked / "out")])
        check("an output directory that cannot be made stops the run before its first step (exit 2)",
              p.returncode == 2 and "cannot create the output directory" in p.stderr, f"exit {p.returncode}, {p.stderr[-200:]!r}")
        # A directory where report.json goes: refused before the run (it crashed with exit 1 and
        # "basic_filebuf::underflow error reading the file").
        occupied = pathlib.Path(tmp) / "occupied"
        (occupied / "report.json").mkdir(parents=True)
        p = run([boreas, deck, *short, "--output-dir", str(occupied)])
        check("a directory named report.json in the output directory stops the run before its first step (exit 2)",
              p.returncode == 2 and "report.json: exists and is not a file" in p.stderr, f"exit {p.returncode}, {p.stderr[-200:]!r}")
        # A VTK file that cannot be written (a directory in its place) is an error, not a listed file.
        vtk_out = pathlib.Path(tmp) / "vtk_out"
        run([boreas, deck, *short, "--output-dir", str(vtk_out)])  # its report names the files
        report = json.loads((vtk_out / "report.json").read_text()) if (vtk_out / "report.json").exists() else {}
        stem = report.get("config", {}).get("name", "")
        (vtk_out / f"{stem}_000002.vti").mkdir(parents=True, exist_ok=True)
        p = run([boreas, deck, "--quiet", "--set", "simulation.steps=2", "--set", "output.vtk=true", "--output-dir", str(vtk_out)])
        check("a VTK file that cannot be written stops the run with exit 2 and its path",
              bool(stem) and p.returncode == 2 and f"{stem}_000002.vti: cannot write the VTK file" in p.stderr,
              f"exit {p.returncode}, {p.stderr[-300:]!r}")

        # Bytes that are not UTF-8 in an option (a Latin-1 shell) reach the run as bytes: no abort.
        p = subprocess.run([os.fsencode(boreas), os.fsencode(deck), b"--quiet", b"--set", b"simulation.steps=2",
                            b"--set", b"output.vtk=false", b"--set", b"simulation.name=caf\xe9", b"--output-dir",
                            os.fsencode(str(pathlib.Path(tmp) / "latin1"))], capture_output=True, timeout=300)
        check("a --set value that is not UTF-8 runs (no abort)", p.returncode == 0, f"exit {p.returncode}, {p.stderr[-300:]!r}")

        # A run in two blocks writes .pvti and pieces; one in one block, into the same directory,
        # .vti at the same steps: the earlier run's six files are named, not this run's two.
        layouts = pathlib.Path(tmp) / "layouts"
        vtk = ["--quiet", "--set", "simulation.steps=2", "--set", "output.vtk=true", "--set", "output.every=2",
               "--output-dir", str(layouts)]
        run([boreas, deck, *vtk, "--set", "parallel.blocks_per_rank=2"])
        p = run([boreas, deck, *vtk])
        check("a run from step 0 names the earlier run's VTK files of its steps in the other form, not its own",
              p.returncode == 0 and "holds 6 VTK files of 'cavity3d' that this run did not write" in p.stderr
              and len(list(layouts.glob("cavity3d_*"))) == 8, f"exit {p.returncode}, {p.stderr[-300:]!r}")

        p = run([boreas, deck, "--kokkos-threads=1", "--quiet", "--set", "simulation.steps=2",
                 "--set", "output.vtk=false", "--output-dir", str(out)])
        check("boreas accepts --kokkos-threads", p.returncode == 0, f"exit {p.returncode}, stderr {p.stderr[-300:]!r}")
        if p.returncode == 0:
            report = json.loads((out / "report.json").read_text())
            threads = report["backend"]["concurrency"]
            check("--kokkos-threads=1 reaches Kokkos (report backend.concurrency)", threads == 1, f"{threads}")
        check("--quiet prints no setup lines", "boreas: cavity3d (" not in p.stderr, p.stderr[:300])

        # Before its first step a run says what it runs, with the deck's values.
        p = run([boreas, deck, "--kokkos-threads=1", "--set", "simulation.steps=2", "--set", "output.vtk=false",
                 "--output-dir", str(out)])
        lines = p.stderr.replace("\r", "\n").splitlines()
        first_step = next((i for i, l in enumerate(lines) if l.startswith("step ")), len(lines))
        setup = "\n".join(lines[:first_step])
        backend = json.loads((out / "report.json").read_text())["backend"] if p.returncode == 0 else {}
        threads = backend.get("concurrency")
        expected = [f"boreas: cavity3d ({deck}): steps 0 to 2, D3Q19 BGK, double, 32 x 32 x 32 cells (32768 fluid)",
                    "tau 0.548, viscosity 0.016; Re 100 with U 0.05 and L 32 (Mach 0.0866)",
                    f"kernel ab_pull; 1 rank, Kokkos {backend.get('execution_space')} "
                    + (f"with {threads} thread{'' if threads == 1 else 's'}\n"
                       if backend.get("execution_space") in ("OpenMP", "Serial", "Threads")
                       else f"(concurrency {threads})\n"),
                    f"output to {out}: report.json only, no VTK"]
        check("a run prints its setup before the first step", p.returncode == 0 and all(e in setup + "\n" for e in expected),
              f"exit {p.returncode}, {setup!r}")

        # kernel = "auto" on three problems at once, sharing one cache (runs on one node): each
        # trial takes seconds, and every run's entry is kept, whichever renames its file last.
        cache = pathlib.Path(tmp) / "cache"
        env = dict(os.environ, BOREAS_CACHE_DIR=str(cache), OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
        runs = [subprocess.Popen([boreas, deck, *short, "--set", "simulation.kernel=\"auto\"", "--set",
                                  f"domain.cells=[{n}, {n}, {n}]", "--output-dir", str(pathlib.Path(tmp) / f"auto{n}")],
                                 env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for n in (16, 20, 24)]
        codes = []
        for r in runs:
            try:
                codes.append(r.wait(timeout=300))
            except subprocess.TimeoutExpired:
                r.kill()
                codes.append("still running after 300 s")
        entries = json.loads((cache / "kernel_choice.json").read_text()) if (cache / "kernel_choice.json").exists() else {}
        check("kernel = \"auto\" runs started together keep each other's cache entries",
              codes == [0, 0, 0] and len(entries) == 3, f"exits {codes}, {len(entries)} of 3 entries in the cache")

        p = run([bench, "--size", "0"])
        check("boreas-bench bad --size exits 2", p.returncode == 2, f"exit {p.returncode}")
        p = run([bench, "--kernel", "nonsense"])
        check("boreas-bench bad --kernel exits 2", p.returncode == 2, f"exit {p.returncode}")
        p = run([bench, "--help"])
        check("boreas-bench --help exits 0", p.returncode == 0, f"exit {p.returncode}")
        # --read-voxels and --voxel-dims go together; a path with a quote and a backslash is read
        # (it is written into a generated deck).
        p = run([bench, "--read-voxels", "v.raw"])
        check("boreas-bench --read-voxels without --voxel-dims exits 2 naming it",
              p.returncode == 2 and "--voxel-dims" in p.stderr, f"exit {p.returncode}: {p.stderr[-200:]}")
        p = run([bench, "--voxel-dims", "8x8x8"])
        check("boreas-bench --voxel-dims without --read-voxels exits 2 naming it",
              p.returncode == 2 and "--read-voxels" in p.stderr, f"exit {p.returncode}: {p.stderr[-200:]}")
        odd = pathlib.Path(tmp) / 'quote"and\\backslash'
        odd.mkdir()
        (odd / "v.raw").write_bytes(bytes(8 ** 3))
        p = run([bench, "--read-voxels", str(odd / "v.raw"), "--voxel-dims", "8x8x8", "--repeats", "1"])
        reads = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
        check("boreas-bench --read-voxels reads a file under a path with a quote and a backslash",
              p.returncode == 0 and len(reads) == 2 and reads[0]["file"] == str(odd / "v.raw"),
              f"exit {p.returncode}: {p.stderr[-200:]}")
        p = run([bench, "--kokkos-threads=1", "--size", "12", "--steps", "1", "--repeats", "1"])
        lines = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
        check("boreas-bench accepts --kokkos-threads", p.returncode == 0 and len(lines) == 2, f"exit {p.returncode}")
        if lines:
            check("--kokkos-threads=1 reaches the bench's Kokkos", lines[-1]["threads"] == 1, f"{lines[-1]['threads']}")
        # Lists of kernels and tiles: one process, one reference line, one line per combination.
        p = run([bench, "--kokkos-threads=1", "--size", "12", "--steps", "1", "--repeats", "1",
                 "--kernel", "ab_pull", "merged2", "--tile", "4", "6"])
        lines = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
        combos = [(l["kernel"], l["tile"]) for l in lines if l["kind"] == "kernel"]
        expected = [("ab_pull", 4), ("ab_pull", 6), ("merged2", 4), ("merged2", 6)]
        check("boreas-bench --kernel/--tile lists run every combination in order",
              p.returncode == 0 and combos == expected and lines[0]["kind"] == "reference", f"{combos}")
        # A merged variant that takes single steps (a box too thin for slabs; merged_aa<k> on a
        # device) is held to its single step's bytes and roofline, not to k steps' (fractions k x low).
        for size, kernel, together, lattices in (("12x12x4", "merged3", 1, 3), ("12x12x12", "merged3", 3, 3),
                                                 ("12x12x3", "merged_aa2", 1, 2), ("12x12x4", "merged_aa2", 2, 2)):
            form = ["--merge-form", "slabs"] if kernel == "merged3" else []
            p = run([bench, "--kokkos-threads=1", "--size", size, "--steps", "6", "--repeats", "1", "--kernel", kernel, *form])
            line = next((json.loads(l) for l in p.stdout.splitlines() if '"kind":"kernel"' in l.replace(" ", "")), None)
            if line is not None and line["backend"] not in ("OpenMP", "Serial", "Threads"):
                together = 1  # devices sweep no slabs
            ok = p.returncode == 0 and line is not None and line.get("steps_swept_together") == together and \
                line["variant_bytes_per_update"] == lattices * 19 * 8 / together
            check(f"boreas-bench {kernel} on {size} (slabs) counts the {together} step(s) a sweep takes together", ok,
                  f"exit {p.returncode}, {line and (line.get('steps_swept_together'), line['variant_bytes_per_update'])}")
        # Launch bounds: one line per bound on a device backend; a clear refusal on a host one.
        p = run([bench, "--launch-bounds", "128x9"])
        check("boreas-bench unknown --launch-bounds exits 2", p.returncode == 2, f"exit {p.returncode}")
        p = run([bench, "--team-size", "256"])
        check("boreas-bench --team-size without --launch-bounds exits 2", p.returncode == 2, f"exit {p.returncode}")
        p = run([bench, "--launch-bounds", "default", "--team-size", "128", "--team-map", "columns"])
        check("boreas-bench unknown --team-map exits 2", p.returncode == 2, f"exit {p.returncode}")
        p = run([bench, "--launch-bounds", "default", "--team-map", "rows"])
        check("boreas-bench --team-map without --team-size exits 2", p.returncode == 2, f"exit {p.returncode}")
        p = run([bench, "--launch-step", "plain"])
        check("boreas-bench --launch-step without --launch-bounds exits 2", p.returncode == 2, f"exit {p.returncode}")
        for teams, why in ((["100"], "multiple of 32"), (["512"], "exceeds bound 256x4")):
            p = run([bench, "--kokkos-threads=1", "--size", "12", "--steps", "1", "--repeats", "1",
                     "--launch-bounds", "256x4", "--team-size"] + teams)
            check(f"boreas-bench --team-size {teams[0]} with 256x4 exits 2 and says why",
                  p.returncode == 2 and why in p.stderr, f"exit {p.returncode}, {p.stderr[-200:]!r}")
        # Refusals come before any measurement: nothing on stdout (JSON lines only, Kokkos's start-up
        # warnings on stderr even without OMP_PROC_BIND).
        for args, why in ((["--size", "16x"], "expected N or NxNy[xNz]"),
                          (["--steps", "0"], "expected a whole number from 1 to 1000000000, got 0"),
                          (["--steps", "99999999999999999999"], "expected a whole number, got '99999999999999999999'"),
                          (["--size", "1073741824"], "more cells than Boreas counts, 2^50"),
                          (["--bundle", "3"], "--bundle: only used with --layout aosoa"),
                          (["--tile", "4"], "--tile: only used by swap_prism"),
                          (["--kernel", "ab_pull", "merged2", "--merge-form", "tiles", "--porosity", "0.5", "--size", "8x8x4"],
                           "--porosity needs cubic 3D sizes"),
                          (["--kernel", "merged2", "--porosity", "0.5", "--size", "8"], "which steps with ab_pull or aa, not merged2")):
            p = run([bench, *args])
            check(f"boreas-bench {' '.join(args)} exits 2 before any measurement and says why",
                  p.returncode == 2 and why in p.stderr and not p.stdout.strip(), f"exit {p.returncode}, {p.stderr[-200:]!r}")
        unbound = {k: v for k, v in os.environ.items() if k != "OMP_PROC_BIND"}
        p = subprocess.run([bench, "--size", "8", "--steps", "1", "--repeats", "1"], capture_output=True, text=True,
                           timeout=300, env=unbound)
        out_lines = p.stdout.splitlines()
        check("boreas-bench's stdout is JSON lines only, OMP_PROC_BIND unset too",
              p.returncode == 0 and len(out_lines) == 2 and all(l.startswith("{") for l in out_lines),
              f"exit {p.returncode}, {p.stdout[:200]!r}")
        backend = json.loads(out_lines[0])["backend"] if out_lines and out_lines[0].startswith("{") else ""
        p = run([bench, "--kokkos-threads=1", "--size", "12", "--steps", "1", "--repeats", "1",
                 "--kernel", "ab_push", "--launch-bounds", "default", "256x4", "--team-size", "0", "128",
                 "--team-map", "cells", "rows", "--launch-step", "full", "plain", "split"])
        lines = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
        if "device backends only" in p.stderr or "not built for Kepler" in p.stderr:
            check("boreas-bench --launch-bounds on a host backend or a Kepler build exits 2 before any measurement",
                  p.returncode == 2 and not p.stdout.strip() and (backend in ("OpenMP", "Serial", "Threads")) ==
                  ("device backends only" in p.stderr), f"exit {p.returncode}, {backend}, {p.stderr[-200:]!r}")
        else:
            bounded = [(l["kernel"], l["step_form"], l["bounds"], l["team_size"], l["team_map"])
                       for l in lines if l["kind"] == "launch_bounds"]
            expected = [("ab_push", f, b, t, m) for f in ("full", "plain", "split") for b in ("default", "256x4")
                        for t, m in ((0, "range"), (128, "cells"), (128, "rows"))]
            others = [l for l in lines if l.get("step_form") in ("plain", "split")]
            check("boreas-bench's plain and split steps give the full step's populations on its all-fluid box",
                  bool(others) and all(l["differs_from_full"] == 0 for l in others),
                  f"{[l.get('differs_from_full') for l in others]}")
            check("boreas-bench --launch-bounds times each step form, bound and launch shape",
                  p.returncode == 0 and bounded == expected
                  and all(l["mlups"] > 0 and "over_default" in l for l in lines[1:]), f"exit {p.returncode}, {bounded}")

    return check.exit_code()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
