#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: turn the BENCH lines of the benchmark kernel's log and the
CMTIME lines of the VM run into bench/results/results.md and SVG plots.

Usage: report.py <kunit test.log> <cmtime log> <output dir>
"""

import math
import re
import statistics
import sys
from pathlib import Path

VARIANTS = ["upstream", "module", "module_noidr", "seed_c", "floor"]
COLORS = {"upstream": "#4e79a7", "module": "#e15759", "module_noidr": "#f28e2b",
          "seed_c": "#59a14f", "floor": "#9c755f"}


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


def svg_bars(path, title, groups, unit):
    """groups: [(group label, [(variant, median, lo, hi)])] as a bar chart."""
    w, h, left, top, bottom = 720, 360, 70, 40, 60
    top_val = max(hi for _, bars in groups for _, _, _, hi in bars) * 1.1
    n_bars = sum(len(b) for _, b in groups) + len(groups)
    bw = (w - left - 20) / n_bars
    y = lambda v: top + (h - top - bottom) * (1 - v / top_val)
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
         f'font-family="sans-serif" font-size="12">',
         f'<rect width="{w}" height="{h}" fill="white"/>',
         f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>',
         f'<line x1="{left}" y1="{y(0)}" x2="{w - 20}" y2="{y(0)}" stroke="black"/>']
    for i in range(5):
        v = top_val * i / 5
        s.append(f'<text x="{left - 6}" y="{y(v) + 4}" text-anchor="end">{v:.0f}</text>')
        s.append(f'<line x1="{left}" y1="{y(v)}" x2="{w - 20}" y2="{y(v)}" stroke="#ddd"/>')
    s.append(f'<text x="14" y="{h / 2}" transform="rotate(-90 14 {h / 2})" '
             f'text-anchor="middle">{unit}</text>')
    x = left + bw / 2
    for label, bars in groups:
        x0 = x
        for variant, med, lo, hi in bars:
            s.append(f'<rect x="{x}" y="{y(med)}" width="{bw * 0.9}" '
                     f'height="{y(0) - y(med)}" fill="{COLORS[variant]}"/>')
            cx = x + bw * 0.45
            s.append(f'<line x1="{cx}" y1="{y(lo)}" x2="{cx}" y2="{y(hi)}" stroke="black"/>')
            s.append(f'<text x="{cx}" y="{y(0) + 14}" text-anchor="middle" '
                     f'font-size="9">{variant}</text>')
            x += bw
        s.append(f'<text x="{(x0 + x) / 2}" y="{y(0) + 32}" '
                 f'text-anchor="middle">{label}</text>')
        x += bw
    s.append("</svg>")
    Path(path).write_text("\n".join(s) + "\n")


def svg_curves(path, title, curves, unit):
    """curves: {variant: [(x percent, y)]}, y on a log scale."""
    w, h, left, top, bottom = 720, 380, 80, 40, 50
    ys = [v for pts in curves.values() for _, v in pts if v > 0]
    lo, hi = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    hi = max(hi, lo + 1)
    px = lambda p: left + (w - left - 130) * p / 100
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
        s.append(f'<text x="{px(100) + 10}" y="{top + 20 + 18 * i}" fill="{COLORS[variant]}">{variant}</text>')
    s.append("</svg>")
    Path(path).write_text("\n".join(s) + "\n")


def ratio(a, b):
    return a / b if b else float("nan")


def main():
    kunit_log, cmtime_log, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    bench = records(kunit_log, "BENCH")
    md = ["# make bench: results", ""]
    goals = []

    per_op = {(str(r["port"]), r["variant"]): r for r in bench if r.get("kind") == "per_op"}
    if per_op:
        any_r = next(iter(per_op.values()))
        md += [f"## Per operation (ns/op; median of {any_r['reps']} repetitions "
               f"of {any_r['ops']} ops, min-max)", "",
               "| variant | port 0 | explicit port |", "| --- | --- | --- |"]
        for v in VARIANTS:
            cells = []
            for port in ("0", "fixed"):
                r = per_op.get((port, v))
                cells.append(f"{r['median_ns']} ({r['min_ns']}-{r['max_ns']})" if r else "-")
            md.append(f"| {v} | {cells[0]} | {cells[1]} |")
        md.append("")
        for port, name in (("0", "port 0"), ("fixed", "explicit port")):
            g = {v: per_op[(port, v)]["median_ns"] for v in VARIANTS if (port, v) in per_op}
            if len(g) == len(VARIANTS):
                for mod in ("module", "module_noidr"):
                    r = ratio(g[mod], g["upstream"] + g["floor"])
                    goals.append((f"{mod} ≤ 1.05 × (upstream + floor), {name}", r, r <= 1.05))
                r = ratio(g["module"], g["seed_c"])
                goals.append((f"module ≤ 1.00 × seed_c, {name}", r, r <= 1.00))
        svg_bars(out / "per_op.svg", "Cost of create + bind + destroy (median, min-max)",
                 [(name, [(v, per_op[(p, v)]["median_ns"], per_op[(p, v)]["min_ns"],
                           per_op[(p, v)]["max_ns"]) for v in VARIANTS if (p, v) in per_op])
                  for p, name in (("0", "port 0"), ("fixed", "explicit port"))],
                 "ns per operation")

    mem = [r for r in bench if r.get("kind") == "memory"]
    if mem:
        up = next((r["bytes_per_id"] for r in mem if r["variant"] == "upstream"), 0)
        md += ["## Slab memory per held id (bound to port 0)", "",
               "| variant | bytes per id | over upstream |", "| --- | --- | --- |"]
        md += [f"| {r['variant']} | {r['bytes_per_id']} | {r['bytes_per_id'] - up:+d} |" for r in mem]
        objs = [r for r in bench if r.get("kind") == "objsize"]
        if objs:
            md += ["", f"Object sizes: `struct tcp_sock` cache {objs[0]['tcp_sock']} B, "
                   f"`struct socket_alloc` (socket + inode) {objs[0]['socket_alloc']} B."]
        md.append("")

    fill = {}
    for r in bench:
        if r.get("kind") == "fill":
            fill.setdefault(r["variant"], []).append((r["bucket"] + 0.5, r["median_ns"]))
    ends = {r["variant"]: r for r in bench if r.get("kind") == "fill_end"}
    at99 = {r["variant"]: r["median_ns"] for r in bench if r.get("kind") == "fill_at99"}
    if fill:
        md += ["## Filling the ephemeral range (port-0 binds until it is exhausted)", "",
               "| variant | ports | bound | first bind (median of 1st %) | at 99% full | "
               "ratio | bind past the end |", "| --- | --- | --- | --- | --- | --- | --- |"]
        for v, pts in fill.items():
            e, first = ends.get(v, {}), pts[0][1]
            r = ratio(at99.get(v, 0), first)
            md.append(f"| {v} | {e.get('range')} | {e.get('bound')} | {first} ns | "
                      f"{at99.get(v)} ns | {r:.2f} | errno {e.get('errno')} "
                      f"in {e.get('fail_ns', 0) / 1000:.0f} µs |")
            if v == "module":
                goals.append(("fill curve flat: 99%-full bind ≤ 2 × the first", r, r <= 2.0))
        md.append("")
        svg_curves(out / "fill.svg", "Cost of the k-th port-0 bind (median per 1% of the range)",
                   fill, "ns per bind (log)")

    thr = {(r["variant"], r["threads"]): r for r in bench if r.get("kind") == "threads"}
    if thr:
        md += ["## Bind/destroy throughput, one thread and two (ids/s, median, min-max)", "",
               "| variant | 1 thread | 2 threads | scaling |", "| --- | --- | --- | --- |"]
        for v in ("upstream", "module"):
            a, b = thr.get((v, 1)), thr.get((v, 2))
            if a and b:
                md.append(f"| {v} | {a['median_ops_s']} ({a['min_ops_s']}-{a['max_ops_s']}) | "
                          f"{b['median_ops_s']} ({b['min_ops_s']}-{b['max_ops_s']}) | "
                          f"{ratio(b['median_ops_s'], a['median_ops_s']):.2f} |")
        md.append("")

    cm = records(cmtime_log, "CMTIME") if Path(cmtime_log).exists() else []
    if cm:
        steps = []
        for r in cm:
            if r["step"] not in steps:
                steps.append(r["step"])
        med = {}
        for v in ("upstream", "module"):
            for st in steps:
                vals = [float(r["us_per_conn"]) for r in cm if r["variant"] == v and r["step"] == st]
                med[(v, st)] = statistics.median(vals) if vals else float("nan")
        n = max(r["rep"] for r in cm)
        md += [f"## cmtime over siw in the VM (µs per connection, median of {n} runs "
               f"of {cm[0]['conns']} connections)", "",
               "| step | upstream | module | ratio |", "| --- | --- | --- | --- |"]
        for st in steps:
            md.append(f"| {st} | {med[('upstream', st)]:.0f} | {med[('module', st)]:.0f} | "
                      f"{ratio(med[('module', st)], med[('upstream', st)]):.3f} |")
        tot = {v: sum(med[(v, st)] for st in steps) for v in ("upstream", "module")}
        r = ratio(tot["module"], tot["upstream"])
        md.append(f"| all steps | {tot['upstream']:.0f} | {tot['module']:.0f} | {r:.3f} |")
        md.append("")
        goals.append(("connection setup over siw within 5% of upstream", r, r <= 1.05))

    md += ["## Goals", "", "| goal | measured ratio | met |", "| --- | --- | --- |"]
    md += [f"| {g} | {r:.3f} | {'yes' if ok else 'no'} |" for g, r, ok in goals]
    (out / "results.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
