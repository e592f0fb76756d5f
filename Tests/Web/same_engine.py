#!/usr/bin/env python3
"""The page's engine against the native one on whole recordings: for every WAV file given (e.g.
the evaluation's cases, written by `opep evaluate --keep DIR`), `node Web/analyze.mjs` must print
the same analysis document (settings, summary, breaths, sets, events) and the same frame CSV as
`opep analyze`, byte for byte.

    Tests/Web/same_engine.py [--opep .build/debug/opep] FILE.wav...

Exits non-zero on the first difference, naming the file and the first line that differs.
"""
import argparse, json, os, subprocess, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def output(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} failed: {result.stderr.strip()}")
    return result.stdout


def first_difference(a, b):
    for number, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if x != y:
            return f"line {number}: native {x!r}, page {y!r}"
    return f"native {len(a.splitlines())} lines, page {len(b.splitlines())}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opep", default=".build/debug/opep")
    parser.add_argument("files", nargs="+")
    options = parser.parse_args()
    analyze = os.path.join(ROOT, "Web", "analyze.mjs")
    breaths = sets = frames = 0
    try:
        for path in options.files:
            for form in ("json", "csv"):
                native = output([options.opep, "analyze", path, "--format", form])
                page = output(["node", analyze, path, "--format", form])
                if native != page:
                    raise AssertionError(f"{path}: the {form} output differs, {first_difference(native, page)}")
                if form == "json":
                    document = json.loads(native)
                    breaths += len(document["breaths"])
                    sets += len(document["sets"])
                else:
                    frames += len(native.splitlines()) - 1
    except AssertionError as error:
        print(f"same engine: FAILED: {error}", file=sys.stderr)
        return 1
    print(f"ok: {len(options.files)} recordings, {breaths} breaths, {sets} sets and {frames} frames "
          "the same natively and in the page's engine, byte for byte")
    return 0


if __name__ == "__main__":
    sys.exit(main())
