#!/usr/bin/env python3
"""layers.py - the folders are layers of one pipeline, and includes go down.

    tests/layers.py [ROOT]     check the tree at ROOT (default: this tree)
    tests/layers.py --self-test

Each folder in LAYERS may include only from its own folder and the folders
before it; every project include names its folder ("ir/trace.h"), since only
the top directory is on -I.  Within a folder, no header may include itself
through a cycle.  Exits 1 naming every include that breaks a rule.
doc/architecture.md says what each layer is for.
"""
import os
import re
import sys
import tempfile

# lowest first: a layer may include from those before it
LAYERS = ["base", "ir", "lang", "profile", "sim", "store", "kernels", "real",
          "real/calibrate", "run", "render", "export", "tui", "cli"]
# files outside the layers, and what they may include
TOP = {"hdsim.c"}
GENERATED = {"config.h"}  # written by configure into the build tree
# the model's layers compile without configure (tests/fuzz/run builds them
# alone with clang), so they may not include config.h
STANDALONE = {"base", "ir", "lang", "profile", "sim"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel):
    d = os.path.dirname(rel)
    return d if d in LAYERS else None


def sources(root):
    for lay in LAYERS:
        for name in sorted(os.listdir(os.path.join(root, lay))) if os.path.isdir(os.path.join(root, lay)) else []:
            if name.endswith((".c", ".h", ".cu")):
                yield lay + "/" + name
    for t in TOP:
        if os.path.exists(os.path.join(root, t)):
            yield t


def check(root):
    errors = []
    rank = {lay: i for i, lay in enumerate(LAYERS)}
    graph = {}
    for rel in sources(root):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        mine = layer_of(rel)
        graph[rel] = []
        for m in INCLUDE.finditer(text):
            inc = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            if inc in GENERATED:
                if mine in STANDALONE:
                    errors.append(f"{rel}:{line}: #include \"{inc}\": {mine}/ builds without "
                                  "configure (tests/fuzz/run compiles the model alone)")
                continue
            if "/" not in inc:
                errors.append(f"{rel}:{line}: #include \"{inc}\" does not name its folder")
                continue
            target = layer_of(inc)
            if target is None:
                errors.append(f"{rel}:{line}: #include \"{inc}\" is not in a layer")
                continue
            if not os.path.exists(os.path.join(root, inc)):
                errors.append(f"{rel}:{line}: #include \"{inc}\": no such file")
                continue
            if mine is not None and rank[target] > rank[mine]:
                errors.append(f"{rel}:{line}: #include \"{inc}\" goes up a layer "
                              f"({mine}/ may include only from {', '.join(l + '/' for l in LAYERS[:rank[mine] + 1])})")
            graph[rel].append(inc)
    # include cycles (possible only within one layer once the rule above holds)
    state = {}

    def visit(node, path):
        state[node] = 1
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                cyc = path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
                errors.append("include cycle: " + " -> ".join(cyc))
            elif state.get(nxt) is None:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if state.get(node) is None:
            visit(node, [node])
    return errors


def self_test():
    """The checker must catch what it is for: an include up a layer, a cycle,
    a bare include; and pass a clean tree."""
    cases = {
        "clean": ({"base/a.h": "", "ir/b.h": '#include "base/a.h"\n'}, 0),
        "up": ({"base/a.h": '#include "ir/b.h"\n', "ir/b.h": ""}, 1),
        "cycle": ({"sim/a.h": '#include "sim/b.h"\n', "sim/b.h": '#include "sim/a.h"\n'}, 1),
        "bare": ({"ir/a.h": "", "ir/b.h": '#include "a.h"\n'}, 1),
        "calibrate above real": ({"real/r.h": '#include "real/calibrate/c.h"\n',
                                  "real/calibrate/c.h": ""}, 1),
        "config.h in the model": ({"lang/a.c": '#include "config.h"\n'}, 1),
        "config.h above it": ({"cli/a.c": '#include "config.h"\n'}, 0),
    }
    bad = 0
    self_test.ncases = len(cases)
    for name, (files, want) in cases.items():
        with tempfile.TemporaryDirectory() as d:
            for rel, text in files.items():
                os.makedirs(os.path.join(d, os.path.dirname(rel)), exist_ok=True)
                with open(os.path.join(d, rel), "w") as f:
                    f.write(text)
            got = 1 if check(d) else 0
            if got != want:
                print(f"FAIL: self-test '{name}': checker said {'bad' if got else 'clean'}")
                bad += 1
    return bad


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        bad = self_test()
        print(f"layers.py self-test: {self_test.ncases - bad} passed, {bad} failed")
        return 1 if bad else 0
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    errors = check(root)
    for e in errors:
        print("FAIL: " + e)
    n = sum(1 for _ in sources(root))
    print(f"layers.py: {n} files checked, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
