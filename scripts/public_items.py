#!/usr/bin/env python3
"""Counts the public surface of agentloop's library crates, as a user can name it.

For each crate in CRATES, `cargo +nightly rustdoc --all-features` writes its JSON
description (target/doc/<crate>.json). An item is public when a user can reach it by a
path: walking from each crate's root through its public modules and `pub use`
re-exports (globs included), an item counts once, in the crate that defines it —
also when only another crate's re-export reaches it. `#[doc(hidden)]` items, and what
only a hidden module reaches, are not counted: by Rust's convention they are not part
of the API (internals one crate of the workspace builds on). Counted: modules, types,
traits, functions, constants, type aliases and enum variants; public struct fields are
counted apart; methods are not counted.

usage: scripts/public_items.py [--max N]
Prints one line per crate and kind, and the total; exits 1 when two public types (structs,
enums, unions, traits, type aliases) of the crates share a name (issue 29: a name says
which type it is), and with --max when the total of items is over N. Needs the nightly toolchain (rustdoc's JSON output is unstable).
"""
import collections
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The crates whose surface 1.0 freezes (issue 29): the library crates a user links.
# What a name can stand for as a type; two of these with one name across the crates
# fail the count.
TYPE_KINDS = {"struct", "enum", "union", "trait", "type_alias"}
CRATES = ["agentloop-transcript", "agentloop-json", "agentloop-schema", "agentloop-tlog", "agentloop-core"]


def describe(crate):
    """The rustdoc JSON of one crate, built into the workspace's target folder."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    subprocess.run(
        ["cargo", "+nightly", "rustdoc", "-q", "-p", crate, "--all-features", "--",
         "-Z", "unstable-options", "--output-format", "json"],
        cwd=ROOT, check=True)
    return json.loads((target / "doc" / (crate.replace("-", "_") + ".json")).read_text())


def hidden(item):
    """Whether the item carries `#[doc(hidden)]`."""
    return any("hidden" in (a if isinstance(a, str) else json.dumps(a))
               for a in item.get("attrs", []))


class Surface:
    """The items a user reaches from the crates' roots, by crate and kind."""

    def __init__(self, docs):
        self.docs = docs
        self.by_path = {
            name: {tuple(p["path"]): int(k) for k, p in doc["paths"].items()
                   if p["crate_id"] == 0}
            for name, doc in docs.items()}
        self.seen = set()
        self.kinds = {name: collections.Counter() for name in docs}
        self.fields = collections.Counter()
        self.types = collections.defaultdict(list)

    def defined(self, crate, item_id):
        """(crate, id) of the item `item_id` of `crate`'s document names, in the crate
        of the workspace that defines it; None for an item of another library."""
        path = self.docs[crate]["paths"].get(str(item_id))
        if path is None:
            return None
        for other, paths in self.by_path.items():
            if other != crate and tuple(path["path"]) in paths:
                return other, paths[tuple(path["path"])]
        return None

    def visit(self, crate, item_id):
        """Counts the item and what a user reaches through it."""
        if item_id is None or (crate, item_id) in self.seen:
            return
        index = self.docs[crate]["index"]
        item = index.get(str(item_id))
        if item is None or item["crate_id"] != 0:
            there = self.defined(crate, item_id)
            if there:
                self.visit(*there)
            return
        if hidden(item):
            return
        kind, inner = next(iter(item["inner"].items()))
        self.seen.add((crate, item_id))
        if kind == "use":
            self.follow(crate, inner)
            return
        self.kinds[crate][kind] += 1
        if kind in TYPE_KINDS:
            path = self.docs[crate]["paths"].get(str(item_id), {}).get("path")
            self.types[item.get("name")].append("::".join(path) if path else item.get("name"))
        if kind == "module":
            for child in inner["items"]:
                self.visit(crate, child)
        elif kind == "enum":
            for variant in inner["variants"]:
                self.visit(crate, variant)
        elif kind == "struct" and isinstance(inner["kind"], dict) and "plain" in inner["kind"]:
            fields = (index.get(str(f), {}) for f in inner["kind"]["plain"]["fields"])
            self.fields[crate] += sum(
                1 for f in fields if f.get("visibility") == "public" and not hidden(f))

    def follow(self, crate, use):
        """A `pub use`: the item it names, or every item of a glob's module or enum."""
        target_id = use["id"]
        target = self.docs[crate]["index"].get(str(target_id)) if target_id is not None else None
        if target is None or target["crate_id"] != 0:
            there = self.defined(crate, target_id)
            if there is None:
                return
            crate, target_id = there
            target = self.docs[crate]["index"].get(str(target_id))
        if not use["is_glob"] or target is None:
            self.visit(crate, target_id)
            return
        kind, inner = next(iter(target["inner"].items()))
        children = inner["items"] if kind == "module" else inner.get("variants", [])
        for child in children:
            self.visit(crate, child)


def main(argv):
    limit = int(argv[argv.index("--max") + 1]) if "--max" in argv else None
    surface = Surface({crate: describe(crate) for crate in CRATES})
    for crate in CRATES:
        surface.visit(crate, surface.docs[crate]["root"])
    total = 0
    for crate in CRATES:
        kinds = surface.kinds[crate]
        items = sum(kinds.values())
        total += items
        shown = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
        print(f"{crate}: {items} public items ({shown}); {surface.fields[crate]} public fields")
    print(f"total: {total} public items" + (f" (at most {limit})" if limit else ""))
    shared = {name: paths for name, paths in surface.types.items() if len(paths) > 1}
    for name, paths in sorted(shared.items()):
        print(f"public types named {name}: {', '.join(sorted(paths))}", file=sys.stderr)
    if shared:
        return 1
    if limit is not None and total > limit:
        print(f"public items: {total} is over {limit}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
