#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where the provider's own time goes, from `perf script -F ip,sym` (call
graphs): for each of the provider's operations, the samples under it split
into the host functions it called (the socket's) and the module's own code
(its crate, the kernel crate's glue, the Rust helpers, the books' mutex).
A profile's shares, not a benchmark.

Usage: callees.py NAME=SCRIPT...  (markdown on stdout)
"""
import collections
import sys

# The provider's operations: what the mangled names of the trait's methods
# (not the C adapter's, which call them) contain.
OPS = {
    "get_port": "12PortProvider8get_port",
    "release_port": "12PortProvider12release_port",
}
# The module's own code: its crate, the kernel crate, the Rust helpers and
# the mutex under its books.
OWN = ("rdma_tcp_port_main", "6kernel", "rust_helper_")
OWN_C = {"mutex_lock", "mutex_unlock"}


def samples(path):
    """Each sample's call chain, leaf first."""
    chain = []
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.split(None, 1)
            if not parts:
                if chain:
                    yield chain
                chain = []
                continue
            chain.append(parts[1].strip() if len(parts) > 1 else "?")
    if chain:
        yield chain


def where(below):
    """What a sample under an operation is spent in, given the frames below
    the operation (leaf first): the outermost host function it called, or
    "(own)" if it is in the module's own code (the books' mutex, contended
    or not, included)."""
    for sym in reversed(below):
        if sym in OWN_C:
            return "(own)"
        if not any(o in sym for o in OWN):
            return sym
    return "(own)"


def breakdown(path):
    total = 0
    per_op = {op: collections.Counter() for op in OPS}
    for chain in samples(path):
        total += 1
        for op, tail in OPS.items():
            at = next((i for i, sym in enumerate(chain) if tail in sym), None)
            if at is not None:
                per_op[op][where(chain[:at])] += 1
    return total, per_op


def main(args):
    print("| run | operation | samples (share of all) | host calls | module's own code | largest host callees |")
    print("| --- | --- | --- | --- | --- | --- |")
    for arg in args:
        name, _, path = arg.partition("=")
        total, per_op = breakdown(path)
        for op, callees in per_op.items():
            n = sum(callees.values())
            if not n or not total:
                continue
            mine = callees["(own)"]
            host = [(k, v) for k, v in callees.most_common() if k != "(own)"]
            top = ", ".join(f"`{k}` {100 * v / n:.0f} %" for k, v in host[:3])
            print(f"| {name} | `{op}` | {n} ({100 * n / total:.2f} %) | "
                  f"{100 * (n - mine) / n:.1f} % | {100 * mine / n:.1f} % | {top} |")


if __name__ == "__main__":
    main(sys.argv[1:])
