#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/cases/check_json.py: checks a summary or trace file with Python's JSON parser; prints what the runner asserts on.
# Summaries are validated against docs/summary-schema.json, the one definition of their format.
import json
import os
import re
import sys

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                           "summary-schema.json")
JSON_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def load_schema():
    with open(SCHEMA_PATH) as f:
        return json.load(f)


def type_ok(v, t):
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, JSON_TYPES[t])


def validate(v, s, root, where="$"):
    """The part of JSON Schema that docs/summary-schema.json uses; unknown members are allowed."""
    if "$ref" in s:
        s = root["$defs"][s["$ref"].rsplit("/", 1)[1]]
    if "if" in s:
        # The one top level: a merged summary ("merged" present) or one process's.
        holds = isinstance(v, dict) and all(k in v for k in s["if"].get("required", []))
        validate(v, s["then"] if holds else s["else"], root, where)
    types = s.get("type")
    if types is not None:
        types = types if isinstance(types, list) else [types]
        assert any(type_ok(v, t) for t in types), f"{where}: {v!r} is not {'/'.join(types)}"
    assert "const" not in s or v == s["const"], f"{where}: {v!r} is not {s['const']!r}"
    assert "enum" not in s or v in s["enum"], f"{where}: {v!r} is not one of {s['enum']}"
    assert "minimum" not in s or v >= s["minimum"], f"{where}: {v!r} < {s['minimum']}"
    assert "pattern" not in s or re.search(s["pattern"], v), f"{where}: {v!r} !~ {s['pattern']}"
    if isinstance(v, dict):
        for key in s.get("required", []):
            assert key in v, f"{where}: no {key}"
        for key, sub in s.get("properties", {}).items():
            if key in v:
                validate(v[key], sub, root, f"{where}.{key}")
    if isinstance(v, list) and "items" in s:
        for i, item in enumerate(v):
            validate(item, s["items"], root, f"{where}[{i}]")


def check_schema(doc, merged=False):
    """Against the one top level; merged says which kind the document must be."""
    root = load_schema()
    assert bool(doc.get("merged")) == merged, f"$: {'not ' if merged else ''}a merged summary"
    validate(doc, root, root)


def summary(path, args):
    doc = json.load(open(path))
    check_schema(doc)
    for a in doc["apis"]:
        assert a["min_ns"] <= a["median_ns"] <= a["p99_ns"] <= a["max_ns"], a
        assert sum(a["bindings"].values()) == a["calls"], a
    # A readable name sits beside a mangled one only, and differs from it.
    for k in doc["kernels"] + doc.get("gpu", {}).get("kernels", []):
        assert "demangled" not in k or (k["name"].startswith("_Z") and k["demangled"] != k["name"]), k
    # GPU rows: each bound a pair in order, the exact figures only where every record was exact.
    gpu = doc.get("gpu", {})
    for r in gpu.get("kernels", []) + gpu.get("memory", []):
        n = r.get("instances", r.get("count"))
        assert r["exact_instances"] <= n and r["exact_ns"] <= r["total_max_ns"], r
        for f in ("total", "avg", "shortest", "longest"):
            assert r[f + "_min_ns"] <= r[f + "_max_ns"], (f, r)
        assert ("total_ns" in r) == (r["exact_instances"] == n), r
    for d in gpu.get("devices", []):
        assert d["busy_min_ns"] <= d["busy_max_ns"], d
    # Each argument NAME:NESTED prints that API's calls and errors.
    for want in args:
        name, nested = want.split(":")
        rows = [a for a in doc["apis"] if a["name"] == name and a["nested"] == (nested == "nested")]
        print(f"{want} calls={rows[0]['calls'] if rows else 0} errors={rows[0]['errors'] if rows else 0}")
    print("libraries", " ".join(f"{l['layer']}:{sum(l['bindings'].values())}" for l in doc["libraries"]))


def trace(path, args):
    doc = json.load(open(path))
    events = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    by_name = {}
    for e in events:
        by_name[e["name"]] = by_name.get(e["name"], 0) + 1
        assert "result" in e["args"] and "binding" in e["args"], e
    # Every driver call that ran inside a runtime call must lie within it on the same thread.
    runtime = [e for e in events if e["cat"] == "runtime"]
    nested = enclosed = 0
    for d in (e for e in events if e["cat"] == "driver"):
        outer = [r for r in runtime if r["tid"] == d["tid"] and r["ts"] <= d["ts"]
                 and d["ts"] + d["dur"] <= r["ts"] + r["dur"]]
        if outer:
            enclosed += 1
    for name in args:
        print(f"{name} events={by_name.get(name, 0)}")
    print(f"events={len(events)} driver_inside_runtime={enclosed}")


def merged(path, args):
    """cuaudit report --json's output."""
    check_schema(json.load(open(path)), merged=True)
    print("merged summary valid")


def names(schema, root):
    """Every member name the schema defines, as dotted paths (arrays as name[])."""
    out = []

    def walk(s, prefix):
        if "$ref" in s:
            s = root["$defs"][s["$ref"].rsplit("/", 1)[1]]
        for key, sub in s.get("properties", {}).items():
            out.append(prefix + key)
            walk(sub, prefix + key + ".")
        if "items" in s:
            walk(s["items"], prefix[:-1] + "[].")
    walk(schema, "")
    return out


def schema_doc(path, args):
    """docs/hooks.md agrees with the schema: its JSON examples validate, and it names every field."""
    text = open(path).read()
    root = load_schema()
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    assert blocks, "no ```json example"
    for block in blocks:
        doc = json.loads(block)
        check_schema(doc, merged=bool(doc.get("merged")))
    fields = names(root["$defs"]["process"], root) + names(root["$defs"]["merged"], root)
    missing = sorted({n.rsplit(".", 1)[-1].replace("[]", "") for n in fields}
                     - set(re.findall(r"`([a-z_0-9]+)`", text)))
    assert not missing, f"docs/hooks.md does not name: {missing}"
    print(f"{len(blocks)} example(s) valid, {len(fields)} fields named")


if __name__ == "__main__":
    kind, path, *rest = sys.argv[1:]
    {"summary": summary, "trace": trace, "merged": merged, "schema-doc": schema_doc}[kind](path, rest)
