# SPDX-License-Identifier: MIT
"""gen/policy.py: reads and checks policy.tsv, the hand-written meaning of ELF names, and gives
every ELF name its role from the closed set."""

import fnmatch
import re

from model import GenError


# The closed set of roles, in enum order. Append only: the values are part of the plugin ABI
# (enum cuaudit_role in cuaudit_roles.h). Each ELF name has exactly one.
ROLES = [
    ("plain", "no meaning a hook reads: the call is counted, timed and logged only"),
    ("launch", "launches a kernel: driver, runtime, cooperative, Ex, <<<>>> (__cudaLaunchKernel*)"),
    ("copy", "copies memory: sync or async, 1D/2D/3D, arrays, symbols, peer, batch"),
    ("memset", "sets memory: 8/16/32-bit elements, 1D/2D/3D, sync or async"),
    ("alloc", "allocates device memory that the memory limit charges (policy verb memalloc)"),
    ("free", "frees what an alloc call returned (memfree)"),
    ("meminfo", "reports free or total device memory (meminfo)"),
    ("pool", "creates or returns a memory pool (mempool)"),
    ("sync", "waits for a context, the device, a stream or an event"),
    ("event_record", "records an event into a stream"),
    ("graph_launch", "launches an instantiated graph into a stream"),
    ("capture_begin", "starts capturing a stream's work into a graph"),
    ("capture_end", "ends a stream capture"),
    ("kernel_name", "registers or looks up a kernel: a source of kernel names for handles (kname)"),
    ("profiler_start", "starts the profiler's collection"),
    ("profiler_stop", "stops the profiler's collection"),
    ("version", "reports the driver's or the runtime's version (version)"),
]
ROLE_INDEX = {r: i for i, (r, _) in enumerate(ROLES)}
# Roles a `role` row may give; the others come with verbs that say where their fields are.
SHAPE_ROLES = {"plain", "launch", "copy", "memset", "sync", "event_record", "graph_launch",
               "capture_begin", "capture_end", "profiler_start", "profiler_stop"}
MEM_ROLE = {"memalloc": "alloc", "memfree": "free", "meminfo": "meminfo", "mempool": "pool"}
# Name families that carry a meaning: an export whose ELF name matches one must have a role
# or an explicit plain row with its reason, so a new toolkit's allocation or launch function
# cannot escape the hooks silently.
FAMILIES = [
    (re.compile(r"Alloc|Malloc"), "*Alloc*/*Malloc*", "alloc"),
    (re.compile(r"Free"), "*Free*", "free"),
    (re.compile(r"Launch"), "*Launch*", "launch"),
    (re.compile(r"Memcpy"), "*Memcpy*", "copy"),
    (re.compile(r"Memset"), "*Memset*", "memset"),
    (re.compile(r"Synchronize"), "*Synchronize*", "sync"),
    (re.compile(r"EventRecord"), "*EventRecord*", "event_record"),
    (re.compile(r"GraphLaunch"), "*GraphLaunch*", "graph_launch"),
    (re.compile(r"BeginCapture"), "*BeginCapture*", "capture_begin"),
    (re.compile(r"EndCapture"), "*EndCapture*", "capture_end"),
    (re.compile(r"Profiler(Start|Stop)"), "*ProfilerStart/Stop*", "profiler_start/stop"),
    (re.compile(r"(Driver|Runtime)GetVersion"), "*DriverGetVersion/RuntimeGetVersion*", "version"),
]
KNAME_FORMS = {"register": ("key", "name"), "alias": ("out", "key"), "lookup": ("out", "name"),
               "derive": ("out", "key")}


# The memory limit's view of a call, one verb per ELF name (see policy.tsv for the grammar).
MEM_COLUMNS = {
    "memalloc": ["key", "size", "charged", "device"],
    "memfree": ["key"],
    "meminfo": ["free", "total", "device"],
    "mempool": ["key", "device"],
}


def read_policy(path):
    """policy.tsv lines: VERB<TAB>ELF_NAME<TAB>...<TAB># reason."""
    policy = {"handwritten": {}, "nostring": set(), "skip": {}, "procaddress": {}, "mem": {},
              "out": set(), "noout": set(), "role": [], "kname": {}, "version": {},
              "memvmm": {}}
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = [c.strip() for c in line.split("\t") if c.strip()]
            verb = cols[0]
            if verb == "handwritten" and len(cols) >= 3:
                policy["handwritten"][cols[1]] = cols[2]
            elif verb == "skip" and len(cols) >= 3:
                policy["skip"][cols[1]] = cols[2]
            elif verb == "procaddress" and len(cols) >= 4 and len(cols[2].split(",")) == 4:
                policy["procaddress"][cols[1]] = cols[2].split(",")
            elif verb == "nostring" and len(cols) >= 4:
                policy["nostring"].add((cols[1], cols[2]))
            elif verb in MEM_COLUMNS and len(cols) == len(MEM_COLUMNS[verb]) + 3:
                if cols[1] in policy["mem"]:
                    raise GenError(f"{path}:{lineno}: {cols[1]} has two memory verbs")
                policy["mem"][cols[1]] = (verb, dict(zip(MEM_COLUMNS[verb], cols[2:-1])))
            elif verb == "role" and len(cols) >= 4:
                if cols[1] not in SHAPE_ROLES:
                    raise GenError(f"{path}:{lineno}: a role row gives one of "
                                   f"{', '.join(sorted(SHAPE_ROLES))}, not {cols[1]!r} (the "
                                   f"other roles come with the verbs that say where their "
                                   f"fields are: memalloc, memfree, meminfo, mempool, kname, "
                                   f"version)")
                policy["role"].append((cols[1], cols[2], lineno))
            elif verb == "memvmm" and len(cols) >= 3:
                policy["memvmm"][cols[1]] = cols[2]
            elif verb == "kname" and len(cols) >= 5 and cols[2] in KNAME_FORMS:
                policy["kname"][cols[1]] = (cols[2], cols[3].split(","))
            elif verb == "version" and len(cols) >= 5:
                policy["version"][cols[1]] = (cols[2], cols[3])
            elif verb in ("out", "noout") and len(cols) >= 4:
                policy[verb].add((cols[1], cols[2]))
            else:
                raise GenError(f"{path}:{lineno}: cannot read policy line: {line!r}")
    return policy


def is_glob(pattern):
    return any(ch in pattern for ch in "*?[")


def assign_roles(names, undescribed, policy, path):
    """Maps every ELF name (with or without a prototype) to (role, why). An exact row beats
    a pattern; two patterns of different roles on one name, a role for a name without a
    prototype, or a name of a meaning family without any row stop the generator."""
    exact = {}
    for name, (verb, _) in policy["mem"].items():
        exact[name] = (MEM_ROLE[verb], verb)
    for name in policy["kname"]:
        if name in exact:
            raise GenError(f"{path}: {name} has two roles ({exact[name][0]} and kernel_name)")
        exact[name] = ("kernel_name", "kname")
    for name in policy["version"]:
        if name in exact:
            raise GenError(f"{path}: {name} has two roles ({exact[name][0]} and version)")
        exact[name] = ("version", "version")
    globs = []
    for role, pattern, lineno in policy["role"]:
        if is_glob(pattern):
            globs.append((role, pattern, lineno))
        elif pattern in exact and exact[pattern][0] != role:
            raise GenError(f"{path}:{lineno}: {pattern} has two roles ({exact[pattern][0]} "
                           f"and {role})")
        else:
            exact[pattern] = (role, f"line {lineno}")
    out = {}
    for name in sorted(set(names) | set(undescribed)):
        if name in exact:
            role, why = exact[name]
        else:
            hits = {}
            for role, pattern, lineno in globs:
                if fnmatch.fnmatchcase(name, pattern):
                    hits.setdefault(role, f"{pattern} (line {lineno})")
            if len(hits) > 1:
                raise GenError(f"{path}: {name} matches patterns of {len(hits)} roles: "
                               + ", ".join(f"{r} by {w}" for r, w in sorted(hits.items()))
                               + f"; add an exact row for {name}")
            if hits:
                role, why = next(iter(hits.items()))
            else:
                fam = next((f for f in FAMILIES if f[0].search(name)), None)
                if fam:
                    raise GenError(f"{path}: {name} belongs to the {fam[1]} family (role "
                                   f"{fam[2]}?) but has no role: give it one, or a "
                                   f"'role<TAB>plain<TAB>{name}<TAB>REASON' row")
                role, why = "plain", "default"
        if name in undescribed and role != "plain":
            raise GenError(f"{path}: {name} has no prototype in the headers read, so no "
                           f"wrapper reads its arguments: it cannot be {role}; say why in a "
                           f"plain row")
        out[name] = (role, why)
    return out


def check_names(policy, apis, undescribed, path):
    """Stops on a policy row that names an ELF name neither the headers nor the exports know:
    a typo must not pass silently."""
    known = {a.elf_name for a in apis} | set(policy["skip"])
    for name in (list(policy["handwritten"]) + list(policy["procaddress"]) +
                 [n for n, _ in policy["nostring"]] + list(policy["mem"]) +
                 [n for n, _ in policy["out"] | policy["noout"] if n != "*"] +
                 list(policy["kname"]) + list(policy["version"]) + list(policy["memvmm"]) +
                 [p for _, p, _ in policy["role"] if not is_glob(p)]):
        if name not in known and name not in undescribed:
            raise GenError(f"{path}: {name} is neither declared in the headers nor "
                           f"exported by the stub library")
