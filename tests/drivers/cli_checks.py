"""What the command-line tests (run_*.py beside this file) share: one PASS/FAIL line per check
and the summary, a run's report.json and checkpoints, and a snapshot of a directory (a refused run must leave it
as it was)."""
import json
import os

# The environment of runs under mpiexec: one OpenMP thread per rank, unbound, root allowed.
MPI_ENV = dict(os.environ, OMP_PROC_BIND="false", OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


class Checks:
    """check(name, ok, detail): prints a line (the detail only on failure); exit_code() prints the
    summary and returns the script's exit status (1 if any check failed)."""

    def __init__(self):
        self.failures = []

    def __call__(self, name, ok, detail=""):
        print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail and not ok else ''}", flush=True)
        if not ok:
            self.failures.append(name)

    def exit_code(self):
        print(f"{len(self.failures)} failed" if self.failures else "all passed")
        return 1 if self.failures else 0


def report(out):
    """The report.json a run wrote into `out` (a pathlib.Path), or {} if there is none."""
    path = out / "report.json"
    return json.loads(path.read_text()) if path.exists() else {}


def checkpoint_files(out):
    """The checkpoints in `out`/checkpoints (the default directory), sorted by name, thus by step."""
    return sorted((out / "checkpoints").glob("*.bchk"))


def snapshot(out):
    """Every path below `out` with its size and modification time."""
    return {str(x): (x.stat().st_size, x.stat().st_mtime_ns) for x in out.rglob("*")}
