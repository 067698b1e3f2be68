#!/usr/bin/env python3
"""Fails when a source file includes a header from a layer above its own.

The layers, bottom up (README.md, "Layout"): each folder may include only the folders its rule
names, and itself. A file belongs to the longest folder prefix below that matches its path; an
include "fpconform/..." is resolved to the one include folder that holds it, a relative include
("x.hpp", "../src/x.hpp") to the including file's folder. Headers outside the repository
(system, MPFR, CUDA, gtest) are not layered.

usage: check_layers.py [ROOT]     (exit 0: every include points down; 1: violations listed)
"""
import os
import re
import sys

BASE = ["core", "emu", "reference", "reports", "gpu_probes"]
# Engines in dependency order: each may include the ones before it.
ENGINES = ["testfloat", "conformance", "tolerance", "validate", "characterize", "gpu_analysis",
           "report", "files", "bench"]

RULES = [  # (layer, folder, layers it may include besides itself)
    ("core", "emu/core/", []),
    ("emu", "emu/", ["core"]),
    ("reference", "reference/", ["core"]),
    ("reports", "reports/", ["core"]),
    ("gpu_probes", "gpu_probes/", ["core"]),
]
for i, e in enumerate(ENGINES):
    RULES.append((e, f"tools/engines/{e}/", BASE + ENGINES[:i]))
RULES.append(("cli", "tools/fpconform/", BASE + ENGINES))
RULES.append(("suites", "suites/", BASE + ENGINES + ["cli"]))

SOURCE_EXT = (".cpp", ".hpp", ".h", ".cu", ".cuh")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def layer_of(rel):
    best = None
    for name, folder, _ in RULES:
        if rel.startswith(folder) and (best is None or len(folder) > len(best[1])):
            best = (name, folder)
    return best[0] if best else None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    allowed = {name: set(deps) | {name} for name, _, deps in RULES}
    sources = []
    for top in ("emu", "reference", "reports", "gpu_probes", "tools", "suites"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = [d for d in dirnames if d not in ("corpus", "data", "__pycache__")]
            for f in filenames:
                if f.endswith(SOURCE_EXT):
                    sources.append(os.path.relpath(os.path.join(dirpath, f), root))
    # Every "fpconform/..." header, by its include path: the file(s) that provide it.
    providers = {}
    for rel in sources:
        parts = rel.split("/")
        for i in range(len(parts) - 1):
            if parts[i] == "fpconform" and i > 0:
                providers.setdefault("/".join(parts[i:]), []).append(rel)
    violations, checked = [], 0
    for rel in sorted(sources):
        mine = layer_of(rel)
        if mine is None:
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for m in INCLUDE_RE.finditer(text):
            inc = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            local = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
            if os.path.exists(os.path.join(root, local)):
                targets = [local]
            else:
                targets = providers.get(inc, [])
            if len(targets) > 1:
                violations.append(f"{rel}:{line}: \"{inc}\" is provided by {', '.join(targets)}")
                continue
            if not targets:
                continue
            theirs = layer_of(targets[0])
            checked += 1
            if theirs is not None and theirs not in allowed[mine]:
                violations.append(f"{rel}:{line}: {mine} includes \"{inc}\" of layer {theirs} "
                                  f"({targets[0]}); {mine} may include only "
                                  f"{', '.join(sorted(allowed[mine]))}")
    for v in violations:
        print(v)
    print(f"check_layers: {checked} includes in {len(sources)} files, "
          f"{len(violations)} crossing a layer upward")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
