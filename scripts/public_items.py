#!/usr/bin/env python3
"""Counts the public surface of agentloop's core crates, as rustdoc sees it.

For each crate in CRATES, `cargo +nightly rustdoc --all-features` writes its JSON
description (target/doc/<crate>.json); an item is public when rustdoc lists it under
`paths` as the crate's own (crate_id 0): modules, types, traits, functions, constants,
enum variants, macros. A re-export of another crate's item is counted where it is
defined, not again. Public struct fields are counted apart (they are not paths).

usage: scripts/public_items.py [--max N]
Prints one line per crate and kind, and the total; with --max, exits 1 when the total of
items is over N. Needs the nightly toolchain (rustdoc's JSON output is unstable).
"""
import collections
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The crates whose surface 1.0 freezes (issue 29): the library crates a user links.
CRATES = ["agentloop-transcript", "agentloop-core"]


def describe(crate):
    """The rustdoc JSON of one crate, built into the workspace's target folder."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    subprocess.run(
        ["cargo", "+nightly", "rustdoc", "-q", "-p", crate, "--all-features", "--",
         "-Z", "unstable-options", "--output-format", "json"],
        cwd=ROOT, check=True)
    return json.loads((target / "doc" / (crate.replace("-", "_") + ".json")).read_text())


def count(doc):
    """Items by kind, and public struct fields, of the crate the document describes."""
    kinds = collections.Counter(
        p["kind"] for p in doc["paths"].values() if p["crate_id"] == 0)
    fields = sum(
        1 for item in doc["index"].values()
        if item["crate_id"] == 0 and item["visibility"] == "public"
        and "struct_field" in item["inner"])
    return kinds, fields


def main(argv):
    limit = int(argv[argv.index("--max") + 1]) if "--max" in argv else None
    total = 0
    for crate in CRATES:
        kinds, fields = count(describe(crate))
        items = sum(kinds.values())
        total += items
        shown = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
        print(f"{crate}: {items} public items ({shown}); {fields} public fields")
    print(f"total: {total} public items" + (f" (at most {limit})" if limit else ""))
    if limit is not None and total > limit:
        print(f"public items: {total} is over {limit}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
