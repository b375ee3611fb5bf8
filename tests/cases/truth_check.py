#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/cases/truth_check.py: compares every output of one run with the mock's own measure of its calls (MOCK_TRUTH) and with each other.
"""Usage: truth_check.py KIND DIR [options]

KIND times: DIR holds truth.txt, s.json, and optionally log.txt, t.json, m.prom,
run.sqlite, merged.json. Each spun function's time in every output brackets the
mock's measure: true <= cuaudit <= true + calls * slack (the mock's wait is inside
cuaudit's two clock reads, and nothing cuaudit does for the call is). Outputs that
time every call agree with each other to the nanosecond (or the trace's rounding).
KIND periodic: the sampled estimate of a periodic pattern against its truth."""
import json, os, re, sqlite3, sys

failures = 0


def check(ok, what):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures += 1


def truth(d):
    t = {}
    for line in open(os.path.join(d, "truth.txt")):
        name, calls, total, lo, hi = line.split()
        t[name] = dict(calls=int(calls), total=int(total), min=int(lo), max=int(hi))
    return t


def api_row(summary, name):
    rows = [a for a in summary["apis"] if a["name"] == name and not a["nested"]]
    return rows[0] if rows else None


def bracket(what, got, true, calls, slack, skew=2000):
    # Below the truth only by the two clocks' disagreement: cuaudit's is the TSC, calibrated
    # at start, the mock's clock_gettime; a calibration off by 0.02% put a 48 ms maximum
    # 10 us under the mock's measure. Allowed: skew a call plus 0.1% of the truth.
    low = true - calls * skew - true // 1000
    check(low <= got <= true + calls * slack,
          f"{what}: {got} ns within [{low}, {true} + {calls} x {slack}]")


def times(d, slack, names, kernel):
    t = truth(d)
    s = json.load(open(os.path.join(d, "s.json")))
    exact = {}
    for name in names:
        tr = t[name]
        r = api_row(s, name)
        check(r is not None and r["calls"] == tr["calls"],
              f"summary counts {tr['calls']} {name} ({r and r['calls']})")
        if r is None:
            continue
        bracket(f"summary total of {name}", r["total_ns"], tr["total"], tr["calls"], slack)
        bracket(f"summary min of {name}", r["min_ns"], tr["min"], 1, slack)
        bracket(f"summary max of {name}", r["max_ns"], tr["max"], 1, slack)
        exact[name] = r["total_ns"]
    if kernel:
        k = [x for x in s["kernels"] if x.get("demangled", x["name"]).startswith(kernel)]
        tr = t["cuLaunchKernel"]
        check(len(k) == 1 and k[0]["launches"] == tr["calls"], f"kernel row {kernel}: {k}")
        if k:
            bracket(f"kernel host time of {kernel}", k[0]["total_ns"], tr["total"], tr["calls"], slack)
    # Every other output reads the same two clock reads per call.
    log = os.path.join(d, "log.txt")
    if os.path.exists(log):
        for name in names:
            durs = [int(m.group(1)) for m in
                    (re.search(r" " + name + r"\(.*\) -> \S+ ([0-9]+)ns ", l) for l in open(log)) if m]
            check(len(durs) == t[name]["calls"], f"log has {t[name]['calls']} {name} lines ({len(durs)})")
            check(sum(durs) == exact.get(name), f"log's {name} durations add up to the summary's ({sum(durs)})")
    tr_path = os.path.join(d, "t.json")
    if os.path.exists(tr_path):
        ev = json.load(open(tr_path))
        ev = ev["traceEvents"] if isinstance(ev, dict) else ev
        for name in names:
            durs = [e["dur"] for e in ev if e.get("name") == name and e.get("ph") == "X"
                    and e.get("cat") in ("driver", "runtime")]
            n = t[name]["calls"]
            check(len(durs) == n, f"trace has {n} {name} events ({len(durs)})")
            got = round(sum(durs) * 1000)
            check(abs(got - exact.get(name, -10**18)) <= n, f"trace's {name} durations ({got}) match the summary's to 1 ns a call")
    prom = os.path.join(d, "m.prom")
    if os.path.exists(prom):
        text = open(prom).read()
        for name in names:
            m = re.search(r'^cuaudit_call_seconds_total\{[^}]*api="' + name + r'"[^}]*nested="false"[^}]*\} ([0-9.]+)$', text, re.M)
            got = m and round(float(m.group(1)) * 1e9)
            check(got == exact.get(name), f"metrics' {name} seconds are the summary's ({got})")
    db = os.path.join(d, "run.sqlite")
    if os.path.exists(db):
        c = sqlite3.connect(db)
        for name in names:
            (tot,) = c.execute("SELECT SUM(total_ns) FROM apis WHERE name=? AND nested=0", (name,)).fetchone()
            check(tot == exact.get(name), f"export apis.total_ns of {name} is the summary's ({tot})")
            if os.path.exists(tr_path):
                n, dur = c.execute("SELECT COUNT(*), SUM(duration_ns) FROM calls WHERE name=?", (name,)).fetchone()
                check(n == t[name]["calls"] and dur is not None and abs(dur - exact[name]) <= n,
                      f"export calls of {name}: {n}, {dur} ns")
        if kernel:
            (kt,) = c.execute("SELECT SUM(total_ns) FROM kernels WHERE name LIKE ?", (kernel + "%",)).fetchone()
            bracket(f"export kernels.total_ns of {kernel}", kt or 0, t["cuLaunchKernel"]["total"],
                    t["cuLaunchKernel"]["calls"], slack)
    ps = os.path.join(d, "ps.json")
    if os.path.exists(ps):
        p = json.load(open(ps))
        calls = [c for th in p["threads"] for c in th["last_calls"]]
        for name in names:
            durs = [c["duration_ns"] for c in calls if c["name"] == name]
            check(len(durs) == t[name]["calls"] and None not in durs,
                  f"live history holds {t[name]['calls']} timed {name} ({len(durs)})")
            check(sum(x or 0 for x in durs) == exact.get(name),
                  f"live history's {name} durations add up to the summary's ({sum(x or 0 for x in durs)})")
    merged = os.path.join(d, "merged.json")
    if os.path.exists(merged):
        m = json.load(open(merged))
        for name in names:
            r = api_row(m, name)
            check(r is not None and r["total_ns"] == exact.get(name), f"report's {name} total is the summary's")


def periodic(d, name, wait, period):
    t = truth(d)[name]
    s = json.load(open(os.path.join(d, "s.json")))
    r = api_row(s, name)
    check(r is not None and r["calls"] == t["calls"], f"summary counts {t['calls']} calls")
    if r is None:
        return
    check(r.get("timed", r["calls"]) < r["calls"], f"the summary sampled ({r.get('timed')} timed)")
    err = r.get("total_err_ns")
    # A preemption on a loaded machine inside a pick counts 64 times: the interval says so.
    check(err is not None and err > 0, f"it states its error ({err})")
    if err is None:
        return
    # The true total is the mock's waits plus every call's own floor, at most the median. A
    # loaded machine stretches a few waits by milliseconds, which 1 in 64 sampling mostly
    # misses; so below, the bound is half the waits as asked (a fixed sampling phase sees
    # none of them), and above, the truth plus the stated error.
    asked = t["calls"] // period * wait
    lo, hi = asked // 2, t["total"] + t["calls"] * r["median_ns"] + 2 * err
    check(lo <= r["total_ns"] <= hi,
          f"estimate {r['total_ns']} ns within [{lo}, {hi}] (waits asked {asked}, measured {t['total']}, +-{err})")


def nested(d, outer, inner, slack):
    """A runtime call's own time holds its driver call's real time, not that call's hooks."""
    t = truth(d)[inner]
    s = json.load(open(os.path.join(d, "s.json")))
    r = api_row(s, outer)
    i = [a for a in s["apis"] if a["name"] == inner and a["nested"]]
    check(r is not None and r["calls"] == t["calls"], f"summary counts {t['calls']} {outer}")
    check(len(i) == 1 and i[0]["calls"] == t["calls"], f"and as many nested {inner}")
    if r is None or not i:
        return
    bracket(f"summary total of {outer}", r["total_ns"], t["total"], t["calls"], slack)
    bracket(f"summary total of the nested {inner}", i[0]["total_ns"], t["total"], t["calls"], slack)
    log = os.path.join(d, "log.txt")
    durs = [int(m.group(1)) for m in
            (re.search(r" " + outer + r"\(.*\) -> \S+ ([0-9]+)ns ", l) for l in open(log)) if m]
    check(sum(durs) == r["total_ns"], f"the log's {outer} durations are the summary's ({sum(durs)})")


if __name__ == "__main__":
    kind, d = sys.argv[1], sys.argv[2]
    if kind == "times":
        times(d, int(sys.argv[3]), sys.argv[4].split(","), sys.argv[5] if len(sys.argv) > 5 else "")
    elif kind == "nested":
        nested(d, sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        periodic(d, sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    sys.exit(1 if failures else 0)
