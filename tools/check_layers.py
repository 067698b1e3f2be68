#!/usr/bin/env python3
"""Fails when a source file includes a header, or a library links a library, of a layer above.

The layers, bottom up (README.md, "Layout"): each folder may include only the folders its rule
names, and itself. A file belongs to the longest folder prefix below that matches its path; an
include "fpconform/..." is resolved to the one include folder that holds it, a relative include
("x.hpp", "../src/x.hpp") to the including file's folder. Headers outside the repository
(system, MPFR, CUDA, gtest) are not layered.

Libraries belong to the layer of the CMakeLists.txt that adds them (add_library); each
target_link_libraries of a library is checked like an include.

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
RULES.append(("python", "tools/python/", BASE + ENGINES))
RULES.append(("suites", "suites/", BASE + ENGINES + ["cli", "python"]))

SOURCE_EXT = (".cpp", ".hpp", ".h", ".cu", ".cuh")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def layer_of(rel):
    best = None
    for name, folder, _ in RULES:
        if rel.startswith(folder) and (best is None or len(folder) > len(best[1])):
            best = (name, folder)
    return best[0] if best else None


ADD_LIBRARY_RE = re.compile(r"add_library\(\s*(fpconform_\w+)")
LINK_RE = re.compile(r"target_link_libraries\(\s*(fpconform_\w+)([^)]*)\)", re.S)


def check_links(root, allowed):
    cmake_files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "build")) and d != "fuzz"]
        cmake_files += [os.path.join(dirpath, f) for f in filenames
                        if f == "CMakeLists.txt" or f.endswith(".cmake")]
    owner, texts = {}, {}
    for path in cmake_files:
        rel = os.path.relpath(path, root)
        with open(path, encoding="utf-8") as fh:
            texts[rel] = fh.read()
        for m in ADD_LIBRARY_RE.finditer(texts[rel]):
            owner[m.group(1)] = layer_of(rel)
    violations, count = [], 0
    for rel, text in sorted(texts.items()):
        for m in LINK_RE.finditer(text):
            mine = owner.get(m.group(1))
            if mine is None:
                continue
            for dep in re.findall(r"fpconform_\w+", m.group(2)):
                theirs = owner.get(dep)
                count += 1
                if theirs is not None and theirs not in allowed[mine]:
                    line = text.count("\n", 0, m.start()) + 1
                    violations.append(f"{rel}:{line}: {m.group(1)} ({mine}) links {dep} of layer "
                                      f"{theirs}; {mine} may link only "
                                      f"{', '.join(sorted(allowed[mine]))}")
    return violations, count


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
    links = check_links(root, allowed)
    violations += links[0]
    for v in violations:
        print(v)
    print(f"check_layers: {checked} includes in {len(sources)} files and {links[1]} library links, "
          f"{len(violations)} crossing a layer upward")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
