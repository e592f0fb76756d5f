#!/usr/bin/env python3
"""The page's engine against the native one on whole recordings: for every WAV file given (e.g.
the evaluation's cases, written by `opep evaluate --keep DIR`), `node Web/analyze.mjs` must print
the same analysis document (schema_version, settings, summary, breaths, sets, events) as `opep analyze`, and with
--frames the same frame CSV, byte for byte.

    Tests/Web/same_engine.py [--opep .build/debug/opep] [--frames] [--jobs N] FILE.wav...

Exits non-zero on the first difference, naming the file and the first line that differs.
"""
import argparse, json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

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


def compare(opep, analyze, path, forms):
    """Breaths, sets and frames of one recording, once both engines agree on it."""
    counts = [0, 0, 0]
    for form in forms:
        native = output([opep, "analyze", path, "--format", form])
        page = output(["node", analyze, path, "--format", form])
        if native != page:
            raise AssertionError(f"{path}: the {form} output differs, {first_difference(native, page)}")
        if form == "json":
            document = json.loads(native)
            counts[0], counts[1] = len(document["breaths"]), len(document["sets"])
        else:
            counts[2] = len(native.splitlines()) - 1
    return counts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opep", default=".build/debug/opep")
    parser.add_argument("--frames", action="store_true", help="also compare the frame CSV")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("files", nargs="+")
    options = parser.parse_args()
    analyze = os.path.join(ROOT, "Web", "analyze.mjs")
    forms = ("json", "csv") if options.frames else ("json",)
    try:
        with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
            totals = [sum(column) for column in zip(*pool.map(lambda path: compare(options.opep, analyze, path, forms), options.files))]
    except AssertionError as error:
        print(f"same engine: FAILED: {error}", file=sys.stderr)
        return 1
    frames = f" and {totals[2]} frames" if options.frames else ""
    print(f"ok: {len(options.files)} recordings, {totals[0]} breaths and {totals[1]} sets{frames} the same natively "
          "and in the page's engine, analysis document" + (" and frame CSV" if options.frames else "") + " byte for byte")
    return 0


if __name__ == "__main__":
    sys.exit(main())
