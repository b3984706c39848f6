#!/usr/bin/env python3
"""Runs the boreas executable on every bad deck and checks that it refuses it cleanly.

Usage: run_bad_decks.py BOREAS_EXE DECK_DIR

Each DECK_DIR/*.toml starts with a line "# expect: <substring>". For each deck the
executable is run as `BOREAS_EXE deck --output-dir <fresh tmp dir>/out`; the deck passes
when the exit code is non-zero, stderr contains the expected substring, and <tmp>/out was
not created (errors must be reported before any work is done).
Prints one line per deck; exits non-zero if any deck fails.
"""
import pathlib
import subprocess
import sys
import tempfile

EXPECT = "# expect:"
# A refusal comes before any work (the largest deck here is refused in ~2 s); the ctest timeout
# (tests/CMakeLists.txt) leaves room for every deck to take this long, so that one that hangs is
# named here rather than cut off there.
PER_DECK_SECONDS = 20


def check(exe, deck):
    first = deck.read_text().splitlines()[:1]
    if not first or not first[0].startswith(EXPECT):
        return False, f"first line must be '{EXPECT} <substring>'"
    expected = first[0][len(EXPECT):].strip()
    with tempfile.TemporaryDirectory(prefix="boreas_bad_deck_") as tmp:
        out = pathlib.Path(tmp) / "out"
        try:
            proc = subprocess.run([exe, str(deck), "--output-dir", str(out)],
                                  capture_output=True, text=True, timeout=PER_DECK_SECONDS)
        except subprocess.TimeoutExpired:
            return False, f"not refused within {PER_DECK_SECONDS} s"
        problems = []
        if proc.returncode == 0:
            problems.append("exit code 0 (expected non-zero)")
        if expected not in proc.stderr:
            problems.append(f"stderr lacks {expected!r}; stderr was:\n"
                            + "\n".join("    " + l for l in proc.stderr.splitlines()))
        if out.exists():
            problems.append(f"output directory {out} was created")
        if problems:
            return False, "; ".join(problems)
        return True, f"exit {proc.returncode}"


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    exe, deck_dir = argv[1], pathlib.Path(argv[2])
    decks = sorted(deck_dir.glob("*.toml"))
    if not decks:
        print(f"no decks in {deck_dir}", file=sys.stderr)
        return 1
    failures = 0
    for deck in decks:
        ok, detail = check(exe, deck)
        failures += not ok
        print(f"{'PASS' if ok else 'FAIL'} {deck.name}: {detail}")
    print(f"{len(decks) - failures}/{len(decks)} bad decks rejected as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
