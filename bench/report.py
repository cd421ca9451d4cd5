#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: turn the BENCH lines of the benchmark kernel's log and the
CMTIME lines of the VM run into bench/results/results.md and SVG plots.

Usage: report.py <kunit test.log> <cmtime log> <output dir> [<second boot test.log>]

The second log, if given, is the per-operation cases of a second boot of the
same kernel: a goal on their ratios is decided only where both boots agree.

Ratios are paired: each repetition times every variant back to back, the
ratio is taken within the repetition, and the report gives the median of the
per-repetition ratios with a distribution-free 95 % confidence interval of
that median (order statistics, see median_ci()).
"""

import math
import re
import statistics
import sys
from pathlib import Path

VARIANTS = ["upstream", "module", "module_noidr", "seed_c", "twin_c", "floor", "combined"]
FILLS = ["upstream", "module", "host", "module_mixed"]
FILL_LABELS = {"upstream": "upstream (rover)", "module": "module",
               "host": "host bind(0)", "module_mixed": "module, ½ host"}
COLORS = {"upstream": "#4e79a7", "module": "#e15759", "module_noidr": "#f28e2b",
          "seed_c": "#59a14f", "twin_c": "#8cd17d", "floor": "#9c755f", "combined": "#bab0ac", "host": "#76b7b2",
          "module_mixed": "#b07aa1"}
PORTS = (("0", "port 0"), ("fixed", "explicit port"))
# Paired per-operation ratios: name, numerator, denominator variants.
# "combined" times upstream's and floor's work as one operation: its ratio
# to the sum of the two timed apart is what timing them together adds by
# itself, which no provider can avoid.
G2_RATIO = "module / (upstream + floor)"
G2_COMBINED_RATIO = "module / combined"
G3_RATIO = "module / seed_c"
# "twin_c" does the module's work in C: Rust against C on the same work.
G3_TWIN_RATIO = "module / twin_c"
RATIOS = [(G2_RATIO, "module", ("upstream", "floor")),
          ("module_noidr / (upstream + floor)", "module_noidr", ("upstream", "floor")),
          (G3_RATIO, "module", ("seed_c",)),
          ("combined / (upstream + floor)", "combined", ("upstream", "floor")),
          (G2_COMBINED_RATIO, "module", ("combined",)),
          (G3_TWIN_RATIO, "module", ("twin_c",))]
RATIO_COLORS = ["#e15759", "#f28e2b", "#59a14f", "#bab0ac", "#b07aa1", "#8cd17d"]

G1_FILL_MAX = 4.0        # 99 %-full bind / first bind
G2_MAX = 1.05            # module / (upstream + floor)
G3_MAX = 1.00            # module / seed_c
G3_HALF_WIDTH = 3.0      # per cent
G4_MAX = 1.05            # cmtime, module / upstream
G4_MIN_RUNS = 5
G5_SCALING = 1.62        # two threads / one, the module's figure before issue 10


def records(path, tag):
    """Each "<tag> <kind> k=v..." (or "<tag> k=v...") line as a dict."""
    out = []
    pat = re.compile(rf"\b{tag} (.*)$")
    for line in Path(path).read_text(errors="replace").splitlines():
        m = pat.search(line)
        if not m:
            continue
        rec = {}
        for i, word in enumerate(m.group(1).split()):
            if "=" in word:
                k, v = word.split("=", 1)
                rec[k] = int(v) if re.fullmatch(r"-?\d+", v) else v
            elif i == 0:
                rec["kind"] = word
        out.append(rec)
    return out


def median_ci(xs):
    """Median of xs and a distribution-free 95 % CI of it: the order
    statistics of ranks j = floor(n/2 - 0.98 sqrt(n)) (at least 1) and
    k = n + 1 - j, i.e. n/2 -/+ 1.96 sqrt(n)/2 rounded outward.  Its exact
    coverage, 1 - 2 P(B < j) for B ~ Binomial(n, 1/2), is returned too, as is
    the half-width: the larger distance from the median to a bound, in per
    cent of the median."""
    s = sorted(x for x in xs if not math.isnan(x))
    n = len(s)
    if not n:
        return None
    med = statistics.median(s)
    j = max(1, math.floor(n / 2 - 0.98 * math.sqrt(n)))
    k = n + 1 - j
    cover = 1 - 2 * sum(math.comb(n, i) for i in range(j)) / 2 ** n
    lo, hi = s[j - 1], s[k - 1]
    hw = max(med - lo, hi - med) / med * 100 if med else float("nan")
    return {"n": n, "med": med, "lo": lo, "hi": hi, "j": j, "k": k,
            "cover": cover, "hw": hw}


def fmt_ci(c, digits=3):
    if not c:
        return "-"
    return (f"{c['med']:.{digits}f} [{c['lo']:.{digits}f}, {c['hi']:.{digits}f}] "
            f"±{c['hw']:.1f} %, n={c['n']}")


def decide_le(c, bound, max_hw=None):
    """met: the whole CI is at or below bound (and, with max_hw, narrower
    than ±max_hw %); not met: the whole CI is above it; else undecided."""
    if not c:
        return "undecided (no data)"
    if c["lo"] > bound:
        return "not met"
    if c["hi"] <= bound:
        if max_hw is not None and not c["hw"] < max_hw:
            return f"undecided (CI ±{c['hw']:.1f} %, not narrower than ±{max_hw:g} %)"
        return "met"
    return "undecided"


def decide_ge(c, bound):
    if not c:
        return "undecided (no data)"
    if c["lo"] >= bound:
        return "met"
    if c["hi"] < bound:
        return "not met"
    return "undecided"


def ratio(a, b):
    return a / b if b else float("nan")


def svg_ratios(path, title, groups, refs):
    """groups: [(group label, [(name, color, median, lo, hi)])], each ratio a
    dot at its median with its CI as a whisker; refs: values drawn as dashed
    horizontal lines.  The y axis spans the data and refs only."""
    w, h, left, top, bottom, legend = 720, 380, 70, 40, 50, 220
    vals = [v for _, bars in groups for *_, lo, hi in bars for v in (lo, hi)] + list(refs)
    pad = (max(vals) - min(vals)) * 0.1 or 0.05
    y0, y1 = min(vals) - pad, max(vals) + pad
    n_slots = sum(len(b) for _, b in groups) + len(groups)
    bw = (w - left - legend) / n_slots
    y = lambda v: top + (h - top - bottom) * (1 - (v - y0) / (y1 - y0))
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
         f'font-family="sans-serif" font-size="12">',
         f'<rect width="{w}" height="{h}" fill="white"/>',
         f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>']
    for i in range(6):
        v = y0 + (y1 - y0) * i / 5
        s.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.3f}</text>')
        s.append(f'<line x1="{left}" y1="{y(v):.1f}" x2="{w - legend}" y2="{y(v):.1f}" stroke="#eee"/>')
    for r in refs:
        s.append(f'<line x1="{left}" y1="{y(r):.1f}" x2="{w - legend}" y2="{y(r):.1f}" '
                 f'stroke="#555" stroke-dasharray="4 3"/>')
        s.append(f'<text x="{w - legend + 4}" y="{y(r) + 4:.1f}" font-size="10">{r:.2f}</text>')
    s.append(f'<text x="14" y="{h / 2}" transform="rotate(-90 14 {h / 2})" '
             f'text-anchor="middle">ratio (median, 95 % CI)</text>')
    x = left + bw / 2
    names = {}
    for label, bars in groups:
        x0 = x
        for name, color, med, lo, hi in bars:
            names[name] = color
            cx = x + bw / 2
            s.append(f'<line x1="{cx:.1f}" y1="{y(lo):.1f}" x2="{cx:.1f}" y2="{y(hi):.1f}" '
                     f'stroke="{color}" stroke-width="2"/>')
            for v in (lo, hi):
                s.append(f'<line x1="{cx - 6:.1f}" y1="{y(v):.1f}" x2="{cx + 6:.1f}" '
                         f'y2="{y(v):.1f}" stroke="{color}" stroke-width="2"/>')
            s.append(f'<circle cx="{cx:.1f}" cy="{y(med):.1f}" r="4" fill="{color}"/>')
            x += bw
        s.append(f'<text x="{(x0 + x) / 2:.1f}" y="{h - bottom + 20}" '
                 f'text-anchor="middle">{label}</text>')
        x += bw
    for i, (name, color) in enumerate(names.items()):
        s.append(f'<text x="{w - legend + 30}" y="{top + 20 + 18 * i}" font-size="11" '
                 f'fill="{color}">{name}</text>')
    s.append("</svg>")
    Path(path).write_text("\n".join(s) + "\n")


def svg_curves(path, title, curves, unit):
    """curves: {variant: [(x percent, y)]}, y on a log scale."""
    w, h, left, top, bottom = 760, 380, 80, 40, 50
    ys = [v for pts in curves.values() for _, v in pts if v > 0]
    lo, hi = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    hi = max(hi, lo + 1)
    px = lambda p: left + (w - left - 150) * p / 100
    py = lambda v: top + (h - top - bottom) * (1 - (math.log10(max(v, 1)) - lo) / (hi - lo))
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
         f'font-family="sans-serif" font-size="12">',
         f'<rect width="{w}" height="{h}" fill="white"/>',
         f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>']
    for e in range(lo, hi + 1):
        s.append(f'<line x1="{left}" y1="{py(10 ** e)}" x2="{px(100)}" y2="{py(10 ** e)}" stroke="#ddd"/>')
        s.append(f'<text x="{left - 6}" y="{py(10 ** e) + 4}" text-anchor="end">{10 ** e:g}</text>')
    for p in range(0, 101, 20):
        s.append(f'<text x="{px(p)}" y="{h - bottom + 18}" text-anchor="middle">{p}%</text>')
    s.append(f'<text x="{px(50)}" y="{h - 10}" text-anchor="middle">'
             f'share of ip_local_port_range already bound</text>')
    s.append(f'<text x="14" y="{h / 2}" transform="rotate(-90 14 {h / 2})" '
             f'text-anchor="middle">{unit}</text>')
    for i, (variant, pts) in enumerate(curves.items()):
        d = " ".join(f"{px(p):.1f},{py(v):.1f}" for p, v in pts)
        s.append(f'<polyline points="{d}" fill="none" stroke="{COLORS[variant]}" stroke-width="2"/>')
        s.append(f'<text x="{px(100) + 10}" y="{top + 20 + 18 * i}" '
                 f'fill="{COLORS[variant]}">{FILL_LABELS.get(variant, variant)}</text>')
    s.append("</svg>")
    Path(path).write_text("\n".join(s) + "\n")


def paired_cis(bench):
    """The paired ratios' CIs of one boot's per-repetition lines, by (port, ratio)."""
    reps = {}
    for r in bench:
        if r.get("kind") == "per_op_rep":
            reps.setdefault(str(r["port"]), {})[r["rep"]] = r
    cis = {}
    for port, _ in PORTS:
        rows = [r for r in reps.get(port, {}).values() if all(v in r for v in VARIANTS)]
        for name, num, den in RATIOS:
            xs = [ratio(r[num], sum(r[d] for d in den)) for r in rows]
            cis[(port, name)] = median_ci(xs)
    return cis


def both_boots(c, c2, decide):
    """A goal's figure and status over the two boots: decided only where
    both boots decide alike (between boots, the ratios move by more than
    one boot's interval says)."""
    if c2 is None:
        return fmt_ci(c), decide(c)
    d, d2 = decide(c), decide(c2)
    status = d if d == d2 else f"undecided (the boots disagree: {d} / {d2})"
    return f"{fmt_ci(c)}; second boot {fmt_ci(c2)}", status


def per_op_section(bench, md, goals, out, bench2=None):
    per_op = {(str(r["port"]), r["variant"]): r for r in bench if r.get("kind") == "per_op"}
    if per_op:
        any_r = next(iter(per_op.values()))
        md += [f"## Per operation (ns/op; median of {any_r['reps']} repetitions "
               f"of {any_r['ops']} ops, min-max)", "",
               "| variant | port 0 | explicit port |", "| --- | --- | --- |"]
        for v in VARIANTS:
            cells = []
            for port, _ in PORTS:
                r = per_op.get((port, v))
                cells.append(f"{r['median_ns']} ({r['min_ns']}-{r['max_ns']})" if r else "-")
            md.append(f"| {v} | {cells[0]} | {cells[1]} |")
        md.append("")

    cis = paired_cis(bench)
    cis2 = paired_cis(bench2) if bench2 else None
    if cis2 is not None and not any(cis2.values()):
        cis2 = None
    if any(cis.values()):
        md += ["## Per operation, paired ratios (per repetition; median, 95 % CI of the median)", "",
               "Each repetition times every variant back to back, in an order that turns "
               "by one place from one repetition to the next and runs backwards every other "
               "round; each ratio is taken within its repetition."
               + (" The second boot is the same kernel booted again for the per-operation "
                  "cases alone." if cis2 else ""), ""]
        # A column per port, and per boot when there are two.
        cols = [(f"{label}{suffix}", port, boot) for port, label in PORTS
                for boot, suffix in ((cis, ""), (cis2, ", second boot")) if boot]
        md += ["| ratio | " + " | ".join(c[0] for c in cols) + " |",
               "| --- |" + " --- |" * len(cols)]
        for name, _, _ in RATIOS:
            md.append(f"| {name} | "
                      + " | ".join(fmt_ci(boot[(port, name)]) for _, port, boot in cols) + " |")
        c = next(c for c in cis.values() if c)
        md += ["", f"CI ranks {c['j']} and {c['k']} of {c['n']} (exact coverage "
               f"{c['cover'] * 100:.1f} %).", ""]
        groups = []
        for port, label in PORTS:
            bars = [(name.replace(" / ", "/").replace(" + ", "+"), RATIO_COLORS[i],
                     cis[(port, name)]["med"], cis[(port, name)]["lo"], cis[(port, name)]["hi"])
                    for i, (name, _, _) in enumerate(RATIOS) if cis[(port, name)]]
            if bars:
                groups.append((label, bars))
        svg_ratios(out / "per_op.svg",
                   "Paired cost ratios of create + bind + destroy (median, 95 % CI)",
                   groups, (G3_MAX, G2_MAX))

    def goal(text, name, port, decide):
        c2 = cis2.get((port, name)) if cis2 else None
        goals.append((text, *both_boots(cis.get((port, name)), c2, decide)))

    def le_g2(c):
        return decide_le(c, G2_MAX)

    def le_g3(c):
        return decide_le(c, G3_MAX, G3_HALF_WIDTH)

    for port, label in PORTS:
        goal(f"G2: module (idr=1) ≤ {G2_MAX:.2f} × (upstream + floor), {label}",
             G2_RATIO, port, le_g2)
        goal(f"G2, the same bound against upstream's and floor's work timed as one "
             f"operation (combined): module ≤ {G2_MAX:.2f} × combined, {label}",
             G2_COMBINED_RATIO, port, le_g2)
    for port, label in PORTS:
        goal(f"G3: module ≤ {G3_MAX:.2f} × seed_c, CI narrower than ±{G3_HALF_WIDTH:g} %, "
             f"{label}", G3_RATIO, port, le_g3)
        goal(f"G3, the same bound against the module's work done in C (twin_c): "
             f"module ≤ {G3_MAX:.2f} × twin_c, {label}", G3_TWIN_RATIO, port, le_g3)


def memory_section(bench, md):
    mem = [r for r in bench if r.get("kind") == "memory"]
    if not mem:
        return None
    up = next((r["bytes_per_id"] for r in mem if r["variant"] == "upstream"), 0)
    md += ["## Slab memory per held id (bound to port 0)", "",
           "| variant | bytes per id | over upstream |", "| --- | --- | --- |"]
    md += [f"| {r['variant']} | {r['bytes_per_id']} | {r['bytes_per_id'] - up:+d} |" for r in mem]
    objs = [r for r in bench if r.get("kind") == "objsize"]
    if objs:
        md += ["", f"Object sizes: `struct tcp_sock` cache {objs[0]['tcp_sock']} B, "
               f"`struct socket_alloc` (socket + inode) {objs[0]['socket_alloc']} B."]
    md.append("")
    mod = next((r["bytes_per_id"] for r in mem if r["variant"] == "module"), None)
    return None if mod is None else (mod, mod - up)


def fill_section(bench, md, goals, out):
    fill = {}
    for r in bench:
        if r.get("kind") == "fill":
            fill.setdefault(r["variant"], []).append((r["bucket"] + 0.5, r["median_ns"]))
    ends = {r["variant"]: r for r in bench if r.get("kind") == "fill_end"}
    firsts = {r["variant"]: r["median_ns"] for r in bench if r.get("kind") == "fill_first"}
    at99 = {r["variant"]: r["median_ns"] for r in bench if r.get("kind") == "fill_at99"}
    rat = {}
    if fill:
        md += ["## Filling the ephemeral range (port-0 binds until it is exhausted)", "",
               "`upstream`: RDMA ids, no provider (the rdma_cm's rover); `module`: RDMA ids "
               "with the Rust provider; `host`: plain kernel TCP sockets, `kernel_bind()` "
               "alone timed (the host's own bind(0) search, which the module followed before "
               "issue 10); `module_mixed`: half the range first taken by plain sockets bound "
               "to port 0 (untimed), then RDMA ids with the Rust provider until the range is "
               "exhausted. First: the median of the first 1 % of the range's timed binds; at "
               "99 %: the median of the binds from 98.5 % to 99.5 % of the range; bind past "
               "the end: the median of the failing binds tried after the last free port.", "",
               "| variant | ports | bound | timed from | first | at 99 % full | ratio | "
               "bind past the end |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        order = [v for v in FILLS if v in fill] + [v for v in fill if v not in FILLS]
        for v in order:
            e = ends.get(v, {})
            first = firsts.get(v, fill[v][0][1])
            rat[v] = ratio(at99.get(v, 0), first)
            tries = e.get("fail_tries", 1)
            md.append(f"| {v} | {e.get('range')} | {e.get('bound')} | {e.get('timed_from', 0)} | "
                      f"{first} ns | {at99.get(v)} ns | {rat[v]:.2f} | errno {e.get('errno')} "
                      f"in {e.get('fail_ns', 0) / 1000:.0f} µs (median of {tries}) |")
        md.append("")
        svg_curves(out / "fill.svg", "Cost of the k-th port-0 bind (median per 1% of the range)",
                   {v: fill[v] for v in order}, "ns per bind (log)")

    def val(v):
        return f"{rat[v]:.2f}" if v in rat else "-"

    def le(a, b):
        if math.isnan(a) or math.isnan(b):
            return "undecided (no data)"
        return "met" if a <= b else "not met"

    nan = float("nan")
    goals.append((f"G1: module fill ratio (at 99 % / first) ≤ {G1_FILL_MAX:g}", val("module"),
                  le(rat.get("module", nan), G1_FILL_MAX)))
    goals.append(("G1: module fill ratio ≤ upstream's (rover), same run",
                  f"{val('module')} vs {val('upstream')}",
                  le(rat.get("module", nan), rat.get("upstream", nan))))
    goals.append((f"G1: module_mixed fill ratio (half the range held by plain sockets) ≤ "
                  f"{G1_FILL_MAX:g}", val("module_mixed"),
                  le(rat.get("module_mixed", nan), G1_FILL_MAX)))
    def fail(e):
        return f"{e['fail_ns'] / 1000:.0f} µs (errno {e.get('errno')})" if "fail_ns" in e else "-"

    fm, fu = ends.get("module", {}), ends.get("upstream", {})
    goals.append(("G1: module's bind past the end no slower than upstream's",
                  f"{fail(fm)} vs {fail(fu)}",
                  le(fm.get("fail_ns", nan), fu.get("fail_ns", nan))))


def threads_section(bench, md, goals, mem):
    thr = {(r["variant"], r["threads"]): r for r in bench if r.get("kind") == "threads"}
    reps = {}
    for r in bench:
        if r.get("kind") == "threads_rep":
            reps.setdefault(r["rep"], {})[r["variant"]] = r
    scaling = {v: median_ci([2 * r[v]["ns_1"] / r[v]["ns_2"] for r in reps.values() if v in r])
               for v in ("upstream", "module")}
    paired = median_ci([(r["module"]["ns_1"] / r["module"]["ns_2"]) /
                        (r["upstream"]["ns_1"] / r["upstream"]["ns_2"])
                        for r in reps.values() if "module" in r and "upstream" in r])
    if thr:
        md += ["## Bind/destroy throughput, one thread and two (ids/s, median, min-max)", "",
               "| variant | 1 thread | 2 threads | scaling (medians) | scaling, per repetition |",
               "| --- | --- | --- | --- | --- |"]
        for v in ("upstream", "module"):
            a, b = thr.get((v, 1)), thr.get((v, 2))
            if a and b:
                md.append(f"| {v} | {a['median_ops_s']} ({a['min_ops_s']}-{a['max_ops_s']}) | "
                          f"{b['median_ops_s']} ({b['min_ops_s']}-{b['max_ops_s']}) | "
                          f"{ratio(b['median_ops_s'], a['median_ops_s']):.2f} | "
                          f"{fmt_ci(scaling[v], 2)} |")
        md += ["", "Scaling: two threads' throughput over one thread's; per repetition, "
               "the variants taking turns first; module over upstream, paired: "
               f"{fmt_ci(paired, 2)}.", ""]
    goals.append((f"G5: module's two-thread scaling ≥ {G5_SCALING:.2f}",
                  fmt_ci(scaling["module"], 2), decide_ge(scaling["module"], G5_SCALING)))
    goals.append(("G5: module's two-thread scaling ≥ upstream's (paired ratio ≥ 1)",
                  fmt_ci(paired, 2), decide_ge(paired, 1.0)))
    goals.append(("G5: memory per held id reported",
                  f"module {mem[0]} B, {mem[1]:+d} B over upstream" if mem else "-",
                  "met" if mem else "not met"))


def cmtime_section(cmtime_log, md, goals):
    cm = records(cmtime_log, "CMTIME") if Path(cmtime_log).exists() else []
    kern = next((r for r in cm if r.get("kind") == "kernel"), None)
    runs = [r for r in cm if "step" in r and r.get("variant") in ("upstream", "module")]
    if kern:
        kdesc = (f"`{kern.get('release')}`, KASAN {kern.get('kasan')}, lockdep "
                 f"{kern.get('lockdep')}, kmemleak {kern.get('kmemleak', '?')}")
        # The goal asks for a kernel without KASAN and lockdep ("unknown" counts).
        bad_kernel = [o for o in ("kasan", "lockdep") if str(kern.get(o)) != "0"]
    else:
        kdesc, bad_kernel = "not reported by the log", ["unknown kernel"]
    if not runs:
        goals.append((f"G4: cmtime over siw, all steps, module ≤ {G4_MAX:.2f} × upstream", "-",
                      "undecided (no data)"))
        return kdesc
    steps = []
    for r in runs:
        if r["step"] not in steps:
            steps.append(r["step"])
    per = {}
    for r in runs:
        per.setdefault((r["variant"], r["rep"]), {})[r["step"]] = float(r["us_per_conn"])
    for key, v in per.items():
        if len(v) == len(steps):
            v["all steps"] = sum(v.values())
    cols = steps + ["all steps"]
    med, paired = {}, {}
    for st in cols:
        for v in ("upstream", "module"):
            vals = [d[st] for (var, _), d in per.items() if var == v and st in d]
            med[(v, st)] = statistics.median(vals) if vals else float("nan")
        paired[st] = median_ci([per[("module", rep)][st] / per[("upstream", rep)][st]
                                for (var, rep) in per if var == "module"
                                and ("upstream", rep) in per and st in per[("module", rep)]
                                and st in per[("upstream", rep)] and per[("upstream", rep)][st]])
    n = {v: len({rep for (var, rep), d in per.items() if var == v and "all steps" in d})
         for v in ("upstream", "module")}
    conns = runs[0].get("conns")
    md += [f"## cmtime over siw in the VM (µs per connection, median of {min(n.values())} "
           f"runs of {conns} connections per variant)", "",
           f"Kernel: {kdesc}. Runs alternate ABBA (upstream, module, module, upstream, ...). "
           "Ratio: the module's median over upstream's; paired: the median of the "
           "per-repetition ratios and its 95 % CI.", "",
           "| step | upstream | module | ratio | paired ratio |", "| --- | --- | --- | --- | --- |"]
    rat = {}
    for st in cols:
        rat[st] = ratio(med[("module", st)], med[("upstream", st)])
        md.append(f"| {st} | {med[('upstream', st)]:.0f} | {med[('module', st)]:.0f} | "
                  f"{rat[st]:.3f} | {fmt_ci(paired[st])} |")
    md.append("")

    def status(r):
        if math.isnan(r):
            return "undecided (no data)"
        if min(n.values()) < G4_MIN_RUNS:
            return f"undecided (fewer than {G4_MIN_RUNS} runs)"
        if bad_kernel:
            return f"undecided (kernel: {', '.join(bad_kernel)})"
        return "met" if r <= G4_MAX else "not met"

    goals.append((f"G4: cmtime over siw, all steps, module ≤ {G4_MAX:.2f} × upstream "
                  f"(median of {min(n.values())} runs each)", f"{rat['all steps']:.3f}",
                  status(rat["all steps"])))
    for st in steps:
        if rat[st] > G4_MAX:
            why = G4_WHY.get(st, "no module code runs in this step")
            goals.append((f"G4: step {st} above {G4_MAX:.2f}: {why}",
                          f"{rat[st]:.3f}, paired {fmt_ci(paired[st])}", status(rat[st])))
    return kdesc


# Why a cmtime step can cost more with the module: where its code runs.
G4_WHY = {
    "resolve_addr": "the active side's port-0 reservation (a socket created and bound) "
                    "is taken here",
    "destroy": "the reservation's socket is released here",
    "connect": "siw's connection socket joins the held port (patch 19); the passive "
               "side's listener holds its port already",
    "resolve_route": "no module code runs in this step",
    "disconnect": "no module code runs in this step",
}


def main():
    kunit_log, cmtime_log, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    # Optional: a second boot's log of the per-operation cases alone.
    bench2 = records(sys.argv[4], "BENCH") if len(sys.argv) > 4 else None
    out.mkdir(parents=True, exist_ok=True)
    bench = records(kunit_log, "BENCH")
    body, goals = [], []
    per_op_section(bench, body, goals, out, bench2)
    mem = memory_section(bench, body)
    fill_section(bench, body, goals, out)
    threads_section(bench, body, goals, mem)
    kdesc = cmtime_section(cmtime_log, body, goals)
    order = {g: i for i, g in enumerate(("G1", "G2", "G3", "G4", "G5"))}
    goals.sort(key=lambda g: order.get(g[0][:2], 9))
    md = ["# make bench: results", "",
          "Reproduce: `make bench` (it builds the benchmark kernel, runs the KUnit suite "
          "`rdma_tcp_port_bench` under QEMU, then cmtime in the VM, and writes this file, "
          "`per_op.svg` and `fill.svg` with `bench/report.py`). The goals are issue 10's; "
          f"cmtime's kernel: {kdesc}.", "",
          "Statistic: every ratio between variants is paired. Each repetition times all "
          "variants back to back, in an order that changes between repetitions, and the ratio "
          "is taken within the repetition; the figure is the median of those ratios, with a "
          "distribution-free 95 % confidence interval of the median from order statistics "
          "(ranks j = ⌊n/2 − 0.98·√n⌋ and n + 1 − j of the n sorted ratios; the exact "
          "binomial coverage is given with the table), ± the larger distance from the median "
          "to a bound, in per cent. A goal on such a ratio is met when the whole interval "
          "meets it, not met when the whole interval misses it, and undecided otherwise"
          + ("; the per-operation ratios are measured in two boots of the kernel, since "
             "between boots they move by more than one boot's interval, and such a goal is "
             "decided only where both boots decide alike" if bench2 else "") + ". The "
          "fill ratios are medians of about 1 % of the range each, the cmtime figures medians "
          "of alternating runs.", "",
          "## Goals (issue 10)", "", "| goal | measured | status |", "| --- | --- | --- |"]
    md += [f"| {g} | {v} | {st} |" for g, v, st in goals]
    md += [""] + body
    (out / "results.md").write_text("\n".join(md).rstrip("\n") + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
