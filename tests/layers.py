#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/layers.py: checks that includes between the source folders follow docs/layers.txt and form no loop.
"""Usage: layers.py SOURCE_ROOT [BUILD_DIR]. Reads docs/layers.txt (one folder per line, lowest layer first; blank lines and '#' comments
ignored; a line 'allow FILE -> HEADER  # reason' permits one upward include). Every quoted
#include of a file in a listed folder must name a header in the same or a lower layer.
Modules (a .c and its .h of one base name) must form no include loop. Prints each violation;
exits 1 on any, or when a listed folder has no source (a stale map), or when a file of the hooks layer
names the global configuration record cua_cfg (each hook copies its slice when it starts),
or when a field of that record is read by one hook module alone (it belongs in the hook's own configuration). With BUILD_DIR, the same
rules hold for calls: the object files' defined and undefined symbols (nm; weak references
count) give which file calls which, and a header that names a symbol another file defines
depends on that file, so a loop through declarations kept in another file's header is found too."""
import os
import re
import subprocess
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
root = os.path.abspath(root)
build = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
layers, allowed = [], {}
with open(os.path.join(root, "docs", "layers.txt")) as f:
    for raw in f:
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("allow "):
            m = re.match(r"allow\s+(\S+)\s*->\s*(\S+)$", line)
            if not m or "#" not in raw:
                sys.exit(f"layers.txt: an allow line needs FILE -> HEADER and a '# reason': {raw.strip()}")
            allowed[(m.group(1), m.group(2))] = False
        else:
            layers.append(line.rstrip("/"))

def layer_of(path):
    """The index of the deepest listed folder that holds path, or None."""
    best, depth = None, -1
    for i, d in enumerate(layers):
        if (path == d or path.startswith(d + "/")) and d.count("/") > depth:
            best, depth = i, d.count("/")
    return best

sources = {}
for i, d in enumerate(layers):
    top = os.path.join(root, d)
    found = False
    # A folder's files and those of its subfolders not listed themselves (hooks/<name>/).
    for dirpath, dirnames, names in sorted(os.walk(top)) if os.path.isdir(top) else []:
        dirnames.sort()
        for name in sorted(names):
            if name.endswith((".c", ".h")):
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                if layer_of(rel) == i:
                    sources[rel] = i
                    found = True
    if not found:
        print(f"stale map: {d} holds no .c or .h file")
        sources[d] = None

by_name = {}
for rel in sources:
    by_name.setdefault(os.path.basename(rel), []).append(rel)

errors = [f"stale map: {d}" for d, i in sources.items() if i is None]
edges = {}
include_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
for rel, lay in sources.items():
    if lay is None:
        continue
    with open(os.path.join(root, rel), errors="replace") as f:
        text = f.read()
    mod = rel.rsplit(".", 1)[0]
    for inc in include_re.findall(text):
        targets = by_name.get(os.path.basename(inc), [])
        if not targets:
            continue  # generated headers and toolkit headers are not layered
        if len(targets) > 1:
            here = [t for t in targets if os.path.dirname(t) == os.path.dirname(rel)]
            targets = here or targets
        target = targets[0]
        tmod = target.rsplit(".", 1)[0]
        if tmod != mod:
            edges.setdefault(mod, set()).add(tmod)
        if sources[target] > lay:
            key = (rel, target)
            if key in allowed:
                allowed[key] = True
            else:
                errors.append(f"upward include: {rel} ({layers[lay]}) includes {target} ({layers[sources[target]]})")

# Calls, from the object files of the build: module A calls module B when A's object has an
# undefined symbol that B's object defines.
if build:
    objs = {}
    for dirpath, _, names in os.walk(os.path.join(build, "CMakeFiles")):
        for name in names:
            if not name.endswith(".c.o"):
                continue
            full = os.path.join(dirpath, name)
            # CMakeFiles/<target>.dir/<source path>.o
            parts = os.path.relpath(full, os.path.join(build, "CMakeFiles")).split(os.sep)
            src = "/".join(parts[1:])[:-2]
            if src in sources and sources[src] is not None:
                objs.setdefault(src, full)
    defined, used = {}, {}
    for src, obj in objs.items():
        out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            # U: undefined; w/v: a weak reference, which is a call all the same when the
            # symbol is there (the old callfmt.c -> kernels.c loop hid behind one).
            if len(f) == 2 and f[0] in "Uwv":
                used.setdefault(src, set()).add(f[1])
            elif len(f) == 3 and f[1] in "TDBRGSVWC":
                defined.setdefault(f[2], src)

    def depend(src, target, what, via):
        """src (a file) depends on target (the file that defines what): an edge between
        their modules, and an error if it runs upward."""
        mod, tmod = src.rsplit(".", 1)[0], target.rsplit(".", 1)[0]
        if mod == tmod:
            return
        edges.setdefault(mod, set()).add(tmod)
        if sources[target] > sources[src]:
            key = (src, target)
            if key in allowed:
                allowed[key] = True
            else:
                errors.append(f"upward {via}: {src} ({layers[sources[src]]}) {what} in {target} "
                              f"({layers[sources[target]]})")

    for src, syms in used.items():
        for sym in syms:
            target = defined.get(sym)
            if target and target != src:
                depend(src, target, f"calls {sym}", "call")
    # A module's header that declares (or calls in an inline body) what another file defines
    # depends on that file: dispatch.h declaring the pid cache that process.c defines made every
    # wrapper depend on process.c while process.c included dispatch.h, a loop no include
    # and no object reference shows alone.
    comment = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
    internal = {sym: src for sym, src in defined.items() if sym.startswith("cua_")}
    # Only a header with a .c of its own speaks for a module; a header without one (hooks.h,
    # memtable.h) is an interface its implementers include.
    for rel, lay in sources.items():
        if lay is None or not rel.endswith(".h") or rel[:-2] + ".c" not in sources:
            continue
        with open(os.path.join(root, rel), errors="replace") as f:
            text = comment.sub(" ", f.read())
        for word in set(re.findall(r"\bcua_\w+", text)):
            target = internal.get(word)
            if target:
                depend(rel, target, f"names {word}", "reference")
    if not objs:
        errors.append(f"no object files of the listed folders under {build}/CMakeFiles")

for key, used in allowed.items():
    if not used:
        errors.append(f"allow line matches no include: {key[0]} -> {key[1]}")
if len(allowed) > 2:
    errors.append(f"{len(allowed)} upward includes allowed; the rule is at most two")

# Module loops: depth-first search with colours.
state = {}
def visit(m, stack):
    state[m] = 1
    stack.append(m)
    for n in sorted(edges.get(m, ())):
        if state.get(n) == 1:
            errors.append("loop (includes or calls): " + " -> ".join(stack[stack.index(n):] + [n]))
        elif n not in state:
            visit(n, stack)
    stack.pop()
    state[m] = 2
for m in sorted(edges):
    if m not in state:
        visit(m, [])

# Each built-in hook keeps its own slice of the configuration, copied when it starts: no file
# of the hooks layer itself names the global record (docs/design.md, "The layers").
for rel, i in sources.items():
    if i is not None and layers[i] == "hooks" and rel.endswith((".c", ".h")):
        with open(os.path.join(root, rel), errors="replace") as f:
            for n, line in enumerate(f, 1):
                if re.search(r"\bcua_cfg\b", line):
                    errors.append(f"{rel}:{n}: a hook reads the global configuration (cua_cfg); copy a slice at start")

# Each hook owns its configuration (hooks/<hook>/<hook>_config.c): a field of the core's record
# that only one hook reads (the files of its folder), and nothing outside the hooks layer,
# belongs to that hook.
config_h = os.path.join(root, "out", "config.h")
if os.path.exists(config_h):
    with open(config_h, errors="replace") as f:
        text = re.sub(r"/\*.*?\*/", " ", f.read(), flags=re.S)
    m = re.search(r"struct cua_config \{(.*?)\n\};", text, re.S)
    members = re.findall(r"(\w+)\s*(?:\[[^\]]*\])*\s*;", m.group(1)) if m else []
    texts = {}
    for rel, i in sources.items():
        if i is not None and not rel.startswith("out/config."):
            with open(os.path.join(root, rel), errors="replace") as f:
                texts[rel] = re.sub(r"/\*.*?\*/", " ", f.read(), flags=re.S)
    for member in members:
        users = {rel for rel, t in texts.items() if re.search(r"(->|\.)" + member + r"\b", t)}
        # A hook is its folder (hooks/<name>/): its files together are one reader.
        mods = {"/".join(u.split("/")[:2]) if u.count("/") >= 2 and u.startswith("hooks/")
                else u.rsplit(".", 1)[0] for u in users}
        if len(mods) == 1 and all(layers[sources[u]] == "hooks" for u in users):
            errors.append(f"out/config.h: struct cua_config's '{member}' is read by "
                          f"{sorted(mods)[0]} alone; it belongs in that hook's own configuration")

# The hooks' registry: each line of CUA_HOOKS in hooks/registry.c names a folder hooks/NAME/
# that defines cua_NAME_start, and each folder of hooks/ has its line, so that a hook is a
# folder and a line, and neither is left without the other.
registry = os.path.join(root, "hooks", "registry.c")
if os.path.exists(registry):
    with open(registry, errors="replace") as f:
        text = f.read()
    m = re.search(r"#define CUA_HOOKS\(X\)(.*?)\n\n", text, re.S)
    names = re.findall(r"\bX\((\w+)\)", m.group(1)) if m else []
    if not names:
        errors.append("hooks/registry.c: no CUA_HOOKS list found")
    folders = sorted(d for d in os.listdir(os.path.join(root, "hooks"))
                     if os.path.isdir(os.path.join(root, "hooks", d)))
    for name in names:
        if name not in folders:
            errors.append(f"hooks/registry.c names {name}, but there is no folder hooks/{name}/")
            continue
        code = ""
        for fname in os.listdir(os.path.join(root, "hooks", name)):
            if fname.endswith(".c"):
                with open(os.path.join(root, "hooks", name, fname), errors="replace") as f:
                    code += f.read()
        if not re.search(r"^void cua_" + name + r"_start\(", code, re.M):
            errors.append(f"hooks/{name}/ defines no cua_{name}_start, which its registry line starts")
    for d in folders:
        if d not in names:
            errors.append(f"hooks/{d}/ has no line in hooks/registry.c's CUA_HOOKS: it would never start")

for e in errors:
    print(e)
print(f"{len(sources)} files in {len(layers)} layers, {sum(len(v) for v in edges.values())} module edges, "
      f"{len(errors)} problem(s)")
sys.exit(1 if errors else 0)
