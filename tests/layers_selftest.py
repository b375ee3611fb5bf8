#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/layers_selftest.py: shows that tests/layers.py fails on a loop of calls, of weak references and of declarations kept in another file's header, in small built trees.
"""Usage: layers_selftest.py CC. Each tree has one layer 'a' of two modules; layers.py must
report the loop (and pass on the same tree without it)."""
import os
import subprocess
import sys
import tempfile

cc = sys.argv[1] if len(sys.argv) > 1 else "cc"
here = os.path.dirname(os.path.abspath(__file__))
TREES = {
    # one.c calls two.c and two.c calls one.c: no include between them at all.
    "call loop": ({"a/one.c": "int cua_two_f(void);\nint cua_one_f(void) { return cua_two_f(); }\n",
                   "a/two.c": "int cua_one_f(void);\nint cua_two_f(void) { return cua_one_f() + 1; }\n"},
                  "loop (includes or calls): a/one -> a/two -> a/one"),
    # The same through a weak reference, as callfmt.c reached kernels.c.
    "weak loop": ({"a/one.c": "int cua_two_f(void) __attribute__((weak));\n"
                              "int cua_one_f(void) { return cua_two_f ? cua_two_f() : 0; }\n",
                   "a/two.c": "int cua_one_f(void);\nint cua_two_f(void) { return cua_one_f() + 1; }\n"},
                  "loop (includes or calls): a/one -> a/two -> a/one"),
    # one.h declares what two.c defines, and two.c includes one.h: as dispatch.h declared
    # process.c's pid cache while process.c included dispatch.h.
    "header loop": ({"a/one.h": "int cua_two_f(void);\n",
                     "a/one.c": "#include \"one.h\"\nint cua_one_f(void) { return 1; }\n",
                     "a/two.c": "#include \"one.h\"\nint cua_two_f(void) { return 2; }\n"},
                    "loop (includes or calls): a/one -> a/two -> a/one"),
    # The control: two.c calls one.c, nothing calls back.
    "no loop": ({"a/one.c": "int cua_one_f(void) { return 1; }\n",
                 "a/two.c": "int cua_one_f(void);\nint cua_two_f(void) { return cua_one_f(); }\n"},
                None),
}
failed = 0
for name, (files, want) in TREES.items():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        with open(os.path.join(root, "docs", "layers.txt"), "w") as f:
            f.write("a\n")
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        objdir = os.path.join(root, "build", "CMakeFiles", "t.dir", "a")
        os.makedirs(objdir)
        for rel in files:
            if rel.endswith(".c"):
                subprocess.run([cc, "-c", "-I", os.path.join(root, "a"), os.path.join(root, rel),
                                "-o", os.path.join(objdir, os.path.basename(rel) + ".o")], check=True)
        res = subprocess.run([sys.executable, os.path.join(here, "layers.py"), root,
                              os.path.join(root, "build")], capture_output=True, text=True)
        ok = (res.returncode == 0) if want is None else (res.returncode == 1 and want in res.stdout)
        print(f"{'ok' if ok else 'FAILED'}: {name}" + ("" if ok else f"\n{res.stdout}{res.stderr}"))
        failed += not ok
sys.exit(1 if failed else 0)
