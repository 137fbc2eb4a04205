#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/demo_sensors.py: the broker's traffic and the report of
# `make demo-sensors`, on made-up collector records and counters: it must
# pass only when every frame is at the collector or counted lost by the
# layer that lost it. TAP.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec /usr/bin/python3 - "$here/.." <<'EOF_PY'
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

top = sys.argv[1]
n = fails = 0


def ok(cond, what):
    global n, fails
    n += 1
    if not cond:
        fails += 1
    print("%sok %d - %s" % ("" if cond else "not ", n, what))


def run(*args):
    p = subprocess.run([sys.executable, top + "/demo_sensors.py"] + list(args),
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def read_sent(d):
    rows = []
    with open(d + "/flows.tsv") as f:
        next(f)
        for line in f:
            w = line.rstrip("\n").split("\t")
            rows.append([int(w[0])] + w[1:6] + [int(w[6]), int(w[7])])
    return rows


def member_of(r):
    """Both directions of a conversation to one of two members."""
    ends = sorted([(r[2], r[3]), (r[4], r[5])])
    return hash((r[1], tuple(ends))) % 2


def world(d, rows, lose=None, split=None, extra=False, layer=None,
          said=None, bytes_off=None):
    """Collector records and counters for the flows in rows. lose=(i, k):
    flow i reaches the collector k packets short; layer: the counter
    that counts them (a sensor counter, or "export" for the way to the
    collector, with said naming what said so)."""
    got = defaultdict(lambda: [0, 0])
    with open(d + "/nfdump.tsv", "w") as f:
        for i, r in enumerate(rows):
            s, pr, sa, sp, da, dp, pk, by = r
            m = member_of(r)
            if split is not None and i == split:
                m ^= 1
            if lose is not None and i == lose[0]:
                pk, by = pk - lose[1], by - lose[1] * 46
            if bytes_off is not None and i == bytes_off:
                by += 10
            got[(s, m)][0] += pk
            got[(s, m)][1] += r[6]
            if pk:
                f.write("%d %d %s %s %s %s %s %d %d\n" % (s, m, pr, sa, sp, da, dp, pk, by))
        if extra:
            f.write("0 0 17 10.99.0.1 1 10.99.0.2 2 3 138\n")
    nsens = 1 + max(r[0] for r in rows)
    # got: what the collector holds per member, and what it received.
    short = lose[1] if lose else 0
    ls = rows[lose[0]][0] if lose else -1
    with open(d + "/collector.txt", "w") as f:
        for s in range(nsens):
            for m in range(2):
                p = got[(s, m)][0]
                f.write("collector: sensor=%d member=%d flows=1 packets=%d bytes=1"
                        " seq_failures=%d sock_drops=0\n" % (
                            s, m, p, s == ls and (
                                (said == "seq" and m == member_of(rows[lose[0]])) or
                                (said == "seq_other" and m != member_of(rows[lose[0]])))))
    for s in range(nsens):
        frames = sum(r[6] for r in rows if r[0] == s)
        c = dict(offered=frames, send_errors=0, wire=0, missed=0, nic_rx=frames)
        mem = [dict(received=got[(s, m)][1], ring_dropped=0) for m in range(2)]
        if s == ls and layer in ("wire", "missed"):
            c[layer] = short
            c["nic_rx"] -= short
            mem[member_of(rows[lose[0]])]["received"] -= short
        if s == ls and layer == "ring_dropped":
            mem[member_of(rows[lose[0]])]["received"] -= short
            mem[member_of(rows[lose[0]])]["ring_dropped"] = short
        for x in mem:
            x["processed"] = x["received"]
        if s == ls and layer == "read":
            mem[member_of(rows[lose[0]])]["processed"] -= short
        with open("%s/sensor%d.log" % (d, s), "w") as f:
            f.write("sensor%d: booting\n" % s)
            f.write("sensor: sensor=%d offered=%d send_errors=0 wire=%d missed=%d"
                    " nic_rx=%d\n" % (s, c["offered"], c["wire"], c["missed"], c["nic_rx"]))
            for m in range(2):
                x = mem[m]
                f.write("member: sensor=%d member=%d received=%d ring_dropped=%d"
                        " processed=%d non_ip=0 too_short=0 exported=%d flows=1"
                        " datagrams=1 send_failures=0\n" % (
                            s, m, x["received"], x["ring_dropped"],
                            x["processed"], x["processed"]))
            f.write("export: sensor=%d tx=3 tx_dropped=0 udp_out=2"
                    " udp_sndbuf_errors=0\n" % s)


print("1..13")
with tempfile.TemporaryDirectory() as d:
    rc, out = run("traffic", d, "2")
    rows = read_sent(d)
    ok(rc == 0 and len(rows) > 1000 and {r[0] for r in rows} == {0, 1},
       "traffic: %d flows over two sensors" % len(rows))
    conv = defaultdict(set)
    for r in rows:
        conv[(r[1],) + tuple(sorted([(r[2], r[3]), (r[4], r[5])]))].add(r[0])
    ok(all(len(v) == 1 for v in conv.values()),
       "the broker keeps each of %d conversations on one sensor" % len(conv))
    first = open(d + "/flows.tsv").read()
    run("traffic", d, "2")
    ok(open(d + "/flows.tsv").read() == first, "the traffic is the same every time")

    i = next(k for k, r in enumerate(rows) if r[6] > 10)
    cases = [
        ("every flow exact", {}, 0, "every flow sent is at the collector"),
        ("5 frames lost, counted on the wire", dict(lose=(i, 5), layer="wire"),
         0, "counted by the layer that lost it"),
        ("5 frames lost, counted ring full", dict(lose=(i, 5), layer="ring_dropped"),
         0, "counted by the layer that lost it"),
        ("5 frames lost on the way to the collector, which saw the gap",
         dict(lose=(i, 5), layer="export", said="seq"), 0, "1 collector sequence failures"),
        ("5 frames lost and no layer counts them", dict(lose=(i, 5)), 1,
         "unaccounted before"),
        ("5 frames lost on the way, a gap seen only for another member",
         dict(lose=(i, 5), layer="export", said="seq_other"), 1,
         "the export path counted no loss, but member"),
        ("5 frames read from the rings by no exporter", dict(lose=(i, 5), layer="read"),
         1, "unaccounted before \"exporters: read"),
        ("a flow with every packet but 10 bytes too many", dict(bytes_off=i), 1,
         "bytes that no loss of packets explains"),
        ("a conversation split between members", dict(split=i), 1,
         "1 conversations split"),
        ("a flow at the collector that was never sent", dict(extra=True), 1,
         "flows never sent"),
    ]
    for what, kw, want, says in cases[1:] + cases[:1]:
        world(d, rows, **kw)
        rc, out = run("report", d)
        ok(rc == want and says in out, "%s: exit %d, says \"%s\"" % (what, want, says))
        if rc != want or says not in out:
            print("# " + out.replace("\n", "\n# "))
sys.exit(1 if fails else 0)
EOF_PY
